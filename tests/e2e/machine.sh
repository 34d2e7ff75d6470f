#!/usr/bin/env bash
# The machine mdat emulates, against the CPU: programs whose memory,
# signals and processes are where an emulator slips (tests/targets/machine/)
# print under mdat what they print natively and end the same way, with
# mdat running the code between two operations ahead and without
# (MDAT_NO_RUN_AHEAD=1). One test per invocation:
#   machine.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# The program's own lines among mdat's.
program_lines() { grep -v '^mdat: ' "$WORK/out"; }

# same_as_native PROG: the native output and exit 0, then under mdat in
# both modes: one execution shows that output, and ten executions of other
# schedules all end with it (one outcome: exit 0 and its SHA-256).
same_as_native() {
    local prog=$TARGETS/$1
    "$prog" </dev/null >"$WORK/native" 2>&1
    local native_status=$?
    [ "$native_status" -eq 0 ] || fail "$1 exits $native_status natively: $(cat "$WORK/native")"
    local digest
    digest=$(sha256sum <"$WORK/native" | cut -c1-12)
    for ahead in 0 1; do
        MDAT_NO_RUN_AHEAD=$ahead run_mdat run -n 1 -s 1 --fail-on-exit -o out-dir "$prog"
        expect_status 0
        expect_out "mdat: no failure in 1 execution"
        program_lines | diff -u "$WORK/native" - >"$WORK/diff" ||
            fail "$1 (MDAT_NO_RUN_AHEAD=$ahead) prints otherwise than natively: $(cat "$WORK/diff")"
        MDAT_NO_RUN_AHEAD=$ahead run_mdat run -n 10 -s 2 --outcomes --fail-on-exit -o out-dir "$prog"
        expect_status 0
        expect_out "mdat: 1 outcome of 10 executions"
        expect_out "exit 0, stdout $digest"
    done
}

case "$TEST" in
aliased_pages)
    # A page mapped twice: a store through one view is a load's value
    # through the other at once (running ahead kept a copy per address).
    same_as_native machine_aliased_pages
    ;;
shared_fork)
    # A forked child's store to MAP_SHARED memory ends the parent's spin
    # (the child's stops were served only at the parent's ptrace stops, and
    # the spin was taken for a livelock).
    same_as_native machine_shared_fork
    ;;
timer_spin)
    # setitimer's and alarm's SIGALRM arrive while a thread spins (run
    # ahead, the spin never let a signal in).
    same_as_native machine_timer_spin
    ;;
straddle_store)
    # Stores and read-modify-writes across into a read-only page write
    # nothing before they fault.
    same_as_native machine_straddle_store
    ;;
sigtrap_twice)
    # The program's own SIGTRAP handler counts all four of its traps.
    same_as_native machine_sigtrap_twice
    ;;
segv_recover)
    # Two threads' stores into a read-only page fault and write nothing: no
    # race, in any schedule.
    same_as_native machine_segv_recover
    for ahead in 0 1; do
        MDAT_NO_RUN_AHEAD=$ahead run_mdat run -n 100 -s 3 -o out-dir "$TARGETS/machine_segv_recover"
        expect_status 0
        expect_out "no failure in 100 executions"
        MDAT_NO_RUN_AHEAD=$ahead run_mdat run --strategy dpor -o out-dir "$TARGETS/machine_segv_recover"
        expect_status 0
        expect_out "explored all"
    done
    ;;
exec_thread)
    # execve from a second thread: the new image runs to its end (it was a
    # hang: the exec waited for the main thread's exit event).
    same_as_native machine_exec_thread
    ;;
clone_vm_counter)
    # Processes made with clone(CLONE_VM) share a counter: mdat cannot
    # schedule them as threads, and says so instead of "no failure".
    for ahead in 0 1; do
        MDAT_NO_RUN_AHEAD=$ahead run_mdat run -n 5 -s 1 -o out-dir "$TARGETS/machine_clone_vm_counter"
        expect_status 3
        grep -q "T1 made a process that shares the program's memory (clone with CLONE_VM, not a thread) at clone_vm_counter.c:[0-9]*: mdat cannot schedule or check its accesses, and refuses the program" \
            "$WORK/out" "$WORK/err" || fail "no refusal of the CLONE_VM process"
        grep -q "no failure" "$WORK/out" && fail "a program mdat cannot check passed"
    done
    # posix_spawn and vfork share memory too, until they exec: still run.
    run_mdat run -n 3 -s 1 -o out-dir "$TARGETS/vfork_children"
    expect_status 0
    ;;
corrupt_rnglists)
    # The input fuzz.elf found on which Debian 12's libdwarf frees twice
    # (mdat aborted, exit 134): corrupt debug information, said in one
    # line, and the program still runs (it crashes natively too).
    cp "$SOURCES/../fuzz/corpus/elf/rnglists_double_free" prog
    chmod +x prog
    ./prog </dev/null >/dev/null 2>&1
    [ $? -eq 139 ] || fail "the fixture no longer crashes natively"
    run_mdat run -n 1 -s 1 -o out-dir "$WORK/prog"
    expect_status 1
    # (by SIGABRT; in a sanitizer build, the sanitizer's exit status)
    expect_out "mdat: $WORK/prog's debug information is corrupt (libdwarf "
    expect_out " reading its unit headers or range lists"
    expect_out "): mdat goes on without it"
    expect_out "FAILURE crash"
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac
finish
