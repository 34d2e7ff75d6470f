#!/usr/bin/env bash
# End-to-end tests of what mdat run and replay refuse or bound: a program that
# signals or ptraces mdat, children sharing the program's memory, descriptors
# of mdat's environment, schedules as data, inputs of any size. One test per
# invocation:
#   safety.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# expect_no_survivor PROG: no process runs PROG once mdat is done.
expect_no_survivor() {
    local left
    left=$(pgrep -f -- "$1" || true)
    [ -z "$left" ] || fail "processes of $1 outlived mdat: $left"
}

# expect_refused PROG ARGS...: mdat runs PROG to a sandbox-violation, the
# program saw every call refused, mdat's replay says the same, nothing is left.
expect_refused() {
    local prog=$1
    shift
    run_mdat run -n 3 -s 1 -j 1 --timeout 5 -o out-dir "$TARGETS/$prog" "$@"
    expect_status 1
    expect_out "FAILURE sandbox-violation"
    expect_out "was refused (EPERM)"
    sched=$(first_sched)
    [ -n "$sched" ] || { fail "no schedule saved"; return; }
    grep -qE '^refused ([0-9]+) of \1$' "${sched%.sched}.stdout" ||
        fail "the program did not see every call refused: $(cat "${sched%.sched}.stdout")"
    "$MDAT" replay "$sched" </dev/null >"$WORK/replay.out" 2>&1
    [ $? -eq 1 ] || fail "replay of $sched did not fail again"
    grep -q "reproduced FAILURE sandbox-violation" "$WORK/replay.out" || fail "replay: $(cat "$WORK/replay.out")"
    expect_no_survivor "$TARGETS/$prog"
}

# start_mdat ARGS...: mdat in the background ($mdat_pid), its stdout and
# stderr in $WORK/out and $WORK/err.
start_mdat() {
    "$MDAT" "$@" </dev/null >"$WORK/out" 2>"$WORK/err" &
    mdat_pid=$!
}

# wait_mdat: $status of the mdat start_mdat started; it must end within a
# minute (a waiting mdat is the failure looked for).
wait_mdat() {
    for _ in $(seq 600); do
        kill -0 "$mdat_pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$mdat_pid" 2>/dev/null; then
        fail "mdat is still running a minute later"
        kill -KILL "$mdat_pid"
    fi
    wait "$mdat_pid"
    status=$?
}

# server_and_execution PROG: once mdat's second fork server of PROG (the
# first serves execution 0 alone) runs an execution, prints "SERVER
# EXECUTION" (their pids: the oldest and the newest process of PROG).
server_and_execution() {
    local first="" oldest newest
    for _ in $(seq 1200); do
        oldest=$(pgrep -o -f "^$1 ") newest=$(pgrep -n -f "^$1 ")
        if [ -n "$oldest" ]; then
            [ -n "$first" ] || first=$oldest
            if [ "$oldest" != "$first" ] && [ -n "$newest" ] && [ "$newest" != "$oldest" ]; then
                echo "$oldest $newest"
                return 0
            fi
        fi
        sleep 0.05
    done
    return 1
}

# expect_cut_short WORDS: mdat stopped with exit 3 and one line on stderr
# saying WORDS, after a summary of the executions decided before (also in
# run.json, marked incomplete); nothing of the program is left.
expect_cut_short() {
    expect_status 3
    expect_err "$1"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "not one line on stderr: $(cat "$WORK/err")"
    grep -q "FAILURE" "$WORK/out" && fail "an outside kill was reported as a failure"
    local decided
    decided=$(sed -n 's/^mdat: no failure in \([0-9]*\) execution.*/\1/p' "$WORK/out")
    [ -n "$decided" ] && [ "$decided" -ge 1 ] || fail "no summary of the executions decided before"
    expect_json '"complete": false' run.json
    expect_json "\"schedules_run\": ${decided:-x}," run.json
    grep '"cut_short": "' run.json | grep -qF -- "$1" || fail "run.json's cut_short does not say: $1"
    expect_no_survivor "$WORK/prog"
}

case "$TEST" in
refuse_signals)
    expect_refused ancestor_killer
    expect_out "T1: sending SIGSTOP to mdat was refused (EPERM) at ancestor_killer.c:"
    # kill(-1) alone, and the ancestors alone (kill, tgkill, pidfd_send_signal).
    rm -rf out-dir
    expect_refused ancestor_killer everyone
    expect_out "sending SIGKILL to every process it may signal was refused"
    rm -rf out-dir
    expect_refused ancestor_killer ancestors
    expect_out "sending SIGKILL to mdat was refused"
    run_mdat run -n 1 --json run.json -o out-dir "$TARGETS/ancestor_killer" parent
    expect_json '"kind": "sandbox-violation"' run.json
    ;;
refuse_reach)
    # Through the 32-bit ABI, by a signal's owner, by the calls that name
    # another process: each refused, and said; harmless int $0x80 calls
    # (getpid, a write) still work; the same calls on itself all run.
    expect_refused mdat_reacher i386
    expect_out "T1: kill through the 32-bit int \$0x80 ABI (mdat models only the 64-bit one) was refused (EPERM) at mdat_reacher.c:"
    grep -q "^written through int \$0x80$" "${sched%.sched}.stdout" || fail "an int \$0x80 write did not work"
    grep -q "^int \$0x80 getpid: right$" "${sched%.sched}.stdout" || fail "an int \$0x80 getpid did not work"
    rm -rf out-dir
    expect_refused mdat_reacher owner
    expect_out "T1: fcntl(F_SETOWN) naming mdat was refused (EPERM)"
    rm -rf out-dir
    expect_refused mdat_reacher process
    expect_out "T1: prlimit on mdat was refused (EPERM)"
    rm -rf out-dir
    run_mdat run -n 1 -s 1 -j 1 -o out-dir "$TARGETS/mdat_reacher" own
    expect_status 0
    expect_out "ran 6 of 6"
    expect_no_survivor "$TARGETS/mdat_reacher"
    ;;
keep_going_kill)
    # mdat run --keep-going SIGKILLed once two failures of two kinds are
    # found: their schedules were saved when found, whole, and replay.
    cp "$TARGETS/slow_failures" prog
    start_mdat run -n 1000000 -s 1 -j 2 --keep-going --races=off -o out-dir "$WORK/prog" 20 two
    kinds=0
    for _ in $(seq 1200); do
        kinds=$(ls out-dir/*.sched 2>/dev/null | sed -n 's/.*-\(deadlock\|assertion\)-s1-e[0-9]*\.sched$/\1/p' | sort -u | wc -l)
        [ "$kinds" -ge 2 ] && break
        sleep 0.05
    done
    [ "$kinds" -ge 2 ] || fail "no two kinds of failure saved in a minute: $(ls out-dir)"
    kill -KILL "$mdat_pid"
    wait "$mdat_pid"
    sleep 0.2
    expect_no_survivor "$WORK/prog"
    n=0
    for sched in out-dir/*.sched; do
        n=$((n + 1))
        "$MDAT" replay "$sched" </dev/null >"$WORK/replay.out" 2>&1
        st=$?
        [ "$st" -eq 1 ] && grep -q "reproduced FAILURE" "$WORK/replay.out" ||
            fail "$sched (saved before the kill) does not replay: exit $st: $(tail -2 "$WORK/replay.out")"
    done
    echo "keep_going_kill: $n schedules on disk after SIGKILL, each replayed"
    ;;
stop_fast)
    # SIGTERM during a long execution, a shrink and a recording: mdat is
    # gone within a second (asserted < 3 s), "complete": false.
    cp "$TARGETS/slow_failures" prog
    stop_after() {   # stop_after WHAT: SIGTERM now; the time mdat took to end, in ms
        local t0 t1
        t0=$(date +%s%N)
        kill -TERM "$mdat_pid"
        wait "$mdat_pid"
        status=$?
        t1=$(date +%s%N)
        took=$(((t1 - t0) / 1000000))
        echo "stop_fast: SIGTERM during $1: mdat gone after $took ms"
        [ "$took" -lt 3000 ] || fail "SIGTERM during $1: mdat took $took ms to stop"
        expect_json '"complete": false' run.json
        expect_no_survivor "$WORK/prog"
    }
    # Executions of several seconds on this build.
    started=$(date +%s%N)
    "$MDAT" run -n 1 -s 1 -j 1 --races=off -o calibrate-out "$WORK/prog" 20000 always </dev/null >/dev/null 2>&1
    took_ms=$(( ($(date +%s%N) - started) / 1000000 + 1 ))
    rounds=$(( 20000 * 4000 / took_ms ))
    [ "$rounds" -ge 20000 ] || rounds=20000
    start_mdat run -n 3 -s 1 -j 1 --races=off --json run.json -o out-dir "$WORK/prog" "$rounds" always
    sleep 1
    stop_after "an execution"
    grep -q "stopped by SIGTERM" "$WORK/out" || fail "no word of the stop: $(cat "$WORK/out")"
    # The failure of execution 0 is found (its schedule saved at once with
    # --keep-going), then shrunk: the stop comes during the shrinking.
    for what in shrink record; do
        rm -rf out-dir run.json
        extra=()
        [ "$what" = record ] && extra=(--no-shrink)
        start_mdat run -n 1 -s 1 -j 1 --races=off --keep-going "${extra[@]}" --json run.json -o out-dir \
            "$WORK/prog" "$rounds" always
        for _ in $(seq 1200); do
            ls out-dir/*.sched >/dev/null 2>&1 && break
            sleep 0.05
        done
        sleep 0.5
        stop_after "the $what of a failure"
        expect_out "FAILURE assertion in execution 0"
        expect_json '"recorded": false' run.json
        sched=$(ls out-dir/*.sched 2>/dev/null | head -n 1)
        "$MDAT" replay "$sched" </dev/null >"$WORK/replay.out" 2>&1
        [ $? -eq 1 ] || fail "the schedule kept through the stop does not replay: $(tail -2 "$WORK/replay.out")"
    done
    ;;
full_disk)
    # OUT on a 1 MB tmpfs (root: mount it): each failure's schedule is
    # written first and replays, what did not fit is said, no file is left
    # cut short (or under its temporary name).
    if [ "$(id -u)" -ne 0 ]; then
        echo "full_disk: skipped (needs root to mount a tmpfs)"
        exit 77
    fi
    mkdir small
    mount -t tmpfs -o size=1m tmpfs small || { echo "full_disk: skipped (cannot mount a tmpfs)"; exit 77; }
    trap 'umount "$WORK/small" 2>/dev/null; rm -rf "$WORK"' EXIT
    run_mdat run -n 3 -s 1 -j 1 --keep-going --races=off --full-trace --json run.json -o small/out \
        "$TARGETS/slow_failures" 3000 always
    expect_status 1
    expect_out "NOT WRITTEN: "
    expect_json '"not_written": "' run.json
    left=$(find small/out -name '*.tmp-*')
    [ -z "$left" ] || fail "files left under their temporary names: $left"
    n=0
    for sched in small/out/*.sched; do
        n=$((n + 1))
        "$MDAT" replay "$sched" </dev/null >"$WORK/replay.out" 2>&1
        [ $? -eq 1 ] && grep -q "reproduced FAILURE" "$WORK/replay.out" ||
            fail "$sched does not replay: $(tail -2 "$WORK/replay.out")"
    done
    [ "$n" -ge 1 ] || fail "no schedule on the full disk: $(ls small/out)"
    # Each trace that is there is whole: the JSON Lines parse, the HTML ends.
    for f in small/out/*.jsonl; do
        [ -e "$f" ] || continue
        python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$f" 2>/dev/null || fail "$f is cut short"
    done
    for f in small/out/*.html; do
        [ -e "$f" ] || continue
        tail -c 20 "$f" | grep -q "</html>" || fail "$f is cut short"
    done
    ;;
refuse_ptrace)
    expect_refused ptrace_attacher
    expect_out "ptrace(PTRACE_ATTACH) of mdat was refused (EPERM) at ptrace_attacher.c:"
    ;;
refuse_child)
    # A forked child and the shell it execs: refused too; the child exits
    # with the number of refusals it saw (2), the shell's kill fails.
    run_mdat run -n 3 -s 1 --timeout 5 -o out-dir "$TARGETS/forked_killer"
    expect_status 1
    expect_out "FAILURE sandbox-violation"
    expect_out "a child process (forked_killer): sending SIGSTOP to mdat was refused (EPERM)"
    sched=$(first_sched)
    grep -q "child exit 2" "${sched%.sched}.stdout" || fail "child: $(cat "${sched%.sched}.stdout")"
    expect_no_survivor "$TARGETS/forked_killer"
    ;;
signals_inside)
    # Signals among the program's own threads and children are untouched.
    run_mdat run -n 20 -s 1 --fail-on-exit "$TARGETS/signals"
    expect_status 0
    run_mdat run -n 10 -s 1 --fail-on-exit "$TARGETS/fork_child"
    expect_status 0
    ;;
vfork)
    # vfork from user code, system() and posix_spawn: children that run in
    # the program's memory until they exec.
    run_mdat run -n 30 -s 1 --fail-on-exit --keep-going -o out-dir "$TARGETS/vfork_children"
    expect_status 0
    expect_out "no failure in 30 executions"
    run_mdat run -n 1 -s 1 --trace "$TARGETS/vfork_children"
    expect_status 0
    expect_out "hi"
    expect_out "spawned"
    expect_out "counter = 3"
    ;;
fds)
    # Run directly with a descriptor of the shell's open, the target sees it.
    (exec 7</etc/hostname; "$TARGETS/fd_lister" >direct.out)
    [ $? -eq 1 ] && grep -q " 7" direct.out || fail "fd_lister does not see an inherited descriptor: $(cat direct.out)"
    exec 7</etc/hostname 8>"$WORK/eight"
    run_mdat run -n 2 -s 1 --fail-on-exit -o out-dir "$TARGETS/fd_lister"
    expect_status 0
    run_mdat run -n 1 -s 1 --trace "$TARGETS/fd_lister"
    expect_out "fds: 0 1 2"
    exec 7<&- 8>&-
    ;;
bad_schedules)
    # Every malformed or hostile input ends with one line on stderr, exit 3,
    # and nothing run: never "is empty", "truncated" or a hang.
    run_mdat run -n 20 -s 1 -o out-dir "$TARGETS/deadlock_lock_order"
    sched=$(first_sched)
    [ -n "$sched" ] || { fail "no schedule to work from"; finish; }
    expect_one_line_error() {   # FILE WORDS: mdat replay FILE says WORDS, on one line, exit 3
        timeout 20 "$MDAT" replay "$1" </dev/null >"$WORK/out" 2>"$WORK/err"
        status=$?
        expect_status 3 replay "$1"
        expect_err "$2"
        [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "replay $1: not one line: $(cat "$WORK/err")"
    }
    expect_one_line_error /dev/zero "/dev/zero:1: a NUL byte: this is not a text file"
    expect_one_line_error out-dir "out-dir is a directory: give one of the .sched files in it"
    grep -v '^program ' "$sched" >noprogram.sched
    expect_one_line_error noprogram.sched "noprogram.sched has no \"program\" line"
    sed 's/^timeout .*/timeout inf/' "$sched" >inf.sched
    expect_one_line_error inf.sched "timeout wants a finite number of seconds, not \"inf\""
    sed 's/^choices \([0-9]*\)$/arg \\xZZ\nchoices \1/' "$sched" >escape.sched
    expect_one_line_error escape.sched "a \\x escape wants two hex digits"
    sed -E '/^choices/,/^end/ s/([0-9]+):t[0-9]+/\1:t4294967298/' "$sched" >wrap.sched
    expect_one_line_error wrap.sched "the thread must be a number from 1 to 2147483647"
    # A schedule that went through a CRLF editor replays as it is.
    sed 's/$/\r/' "$sched" >crlf.sched
    "$MDAT" replay crlf.sched </dev/null >"$WORK/out" 2>"$WORK/err"
    status=$?
    expect_status 1 replay crlf.sched
    expect_out "reproduced FAILURE deadlock"
    # mdat merge: the same bounds on its JSON.
    timeout 20 "$MDAT" merge /dev/zero </dev/null >"$WORK/out" 2>"$WORK/err"
    status=$?
    expect_status 3 merge /dev/zero
    expect_err "/dev/zero is not a JSON document mdat reads (a NUL byte: not a text file)"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "merge /dev/zero: not one line: $(cat "$WORK/err")"
    ;;
max_output)
    # 8 MiB of output, kept to 1 MiB; the program's writes all succeed (its
    # assertion says so), the report says the output was cut.
    run_mdat run -n 1 -s 1 -o out-dir --max-output 1M "$TARGETS/endless_printer" 8192
    expect_status 1
    expect_out "FAILURE assertion"
    expect_out "(the program's output was cut at 1048576 bytes: --max-output)"
    sched=$(first_sched)
    size=$(stat -c %s "${sched%.sched}.stdout")
    [ "$size" -eq 1048576 ] || fail "the saved stdout has $size bytes, not 1048576"
    # The schedule keeps the cap, and a replay that captures the output for
    # a checker cuts where the run did (the checker judges what was kept).
    grep -q '^max-output 1048576$' "$sched" || fail "the schedule does not record max-output 1048576"
    run_mdat replay --check 'cat >/dev/null' "$sched"
    expect_status 1
    expect_out "output was cut at 1048576 bytes"
    # Under the default (64M) nothing is cut.
    rm -rf out-dir
    run_mdat run -n 1 -s 1 -o out-dir "$TARGETS/endless_printer" 8192
    expect_status 1
    grep -q "output was cut" "$WORK/out" && fail "8 MiB cut under the default 64M"
    size=$(stat -c %s "$(first_sched | sed 's/\.sched$/.stdout/')")
    # (the last stdio buffer dies with the abort: not quite 8 MiB)
    [ "$size" -gt $((8000 * 1024)) ] || fail "the saved stdout has $size bytes, not about 8 MiB"
    run_mdat run -n 1 --max-output 0 "$TARGETS/endless_printer" 1
    expect_status 2
    expect_err "--max-output wants a size"
    ;;
not_started)
    # A program that cannot start says why, not "exec: No such file" or
    # "exited before exec".
    run_mdat run -n 1 "$TARGETS/bad_interpreter"
    expect_status 3
    expect_err "its ELF interpreter /nonexistent/ld-linux-x86-64.so.2 does not exist"
    mkdir -p subs/tiny
    cp "$TARGETS/fd_lister" subs/tiny/prog
    run_mdat grade -n 1 --max-memory 200K --exe prog -o grades subs/tiny
    expect_status 0
    grep -q "the memory limit (--max-memory 204800 bytes) is too small to load it" grades/report.csv ||
        fail "grade --max-memory 200K: $(cat grades/report.csv)"
    ;;
corrupt_dwarf)
    # A copy of a target with bytes of .debug_info damaged: mdat says its
    # debug information is corrupt (not missing), goes on without it and
    # still finds the race, named by symbols instead of lines.
    cp "$TARGETS/lost_update" prog
    python3 - prog <<'PY' || fail "cannot corrupt the copy"
import subprocess, sys
path = sys.argv[1]
out = subprocess.check_output(["readelf", "-S", "-W", path], text=True)
line = next(l for l in out.splitlines() if " .debug_info " in l)
fields = line.split("]", 1)[1].split()
offset, size = int(fields[3], 16), int(fields[4], 16)
data = bytearray(open(path, "rb").read())
data[offset + 4:offset + 6] = b"\xff\xff"       # the first unit's DWARF version
open(path, "wb").write(data)
PY
    run_mdat run -n 20 -s 1 -o out-dir "$WORK/prog"
    expect_status 1
    expect_out "mdat: $WORK/prog's debug information is corrupt ("
    expect_out "): mdat goes on without it, showing locations as symbols or addresses"
    grep -q "has no debug information" "$WORK/out" && fail "corrupt DWARF said to be missing"
    expect_out "FAILURE race"
    expect_out "R counter -> 0                       incrementer+0x"
    run_mdat run -n 1 --invariant "counter >= 0" "$WORK/prog"
    expect_status 2
    expect_err "the program's debug information is corrupt: "
    ;;
killed_outside)
    # Another shell kills mdat's fork server, or an execution's process:
    # mdat says so and stops (exit 3) after summarizing what it decided;
    # never a wait, a "FAILURE crash" or a "NOT reproduced".
    cp "$TARGETS/many_increments" prog     # a path no other test runs
    # Executions of about a second on this build (a sanitizer build is
    # many times slower): long enough to be killed in, short enough that
    # execution 0, run alone first, ends soon. With page ownership in
    # every execution (MDAT_ALWAYS_OWN_PAGES=1) the first fork server seen
    # is execution 0's and the next the batch's: the one killed.
    export MDAT_ALWAYS_OWN_PAGES=1
    started=$(date +%s%N)
    "$MDAT" run -n 1 -s 1 -o calibrate-out "$WORK/prog" 4 5000 </dev/null >/dev/null 2>&1
    took_ms=$(( ($(date +%s%N) - started) / 1000000 + 1 ))
    rounds=$(( 5000 * 1000 / took_ms ))
    [ "$rounds" -ge 1000 ] || rounds=1000
    start_mdat run -n 50 -s 1 -j 1 --json run.json -o out-dir "$WORK/prog" 4 $rounds
    pids=$(server_and_execution "$WORK/prog") || fail "no fork server with an execution beside it"
    read -r server execution <<<"$pids"
    kill -KILL "$server"
    wait_mdat
    expect_cut_short "the program's fork server (pid $server) was killed from outside by SIGKILL"
    rm -rf out-dir run.json
    start_mdat run -n 50 -s 1 -j 2 --json run.json -o out-dir "$WORK/prog" 4 $rounds
    pids=$(server_and_execution "$WORK/prog") || fail "no fork server with an execution beside it"
    read -r server execution <<<"$pids"
    # Told within a second, even while mdat runs its threads ahead (no
    # wait of mdat's would see the kill).
    t0=$(date +%s%N)
    kill -KILL "$execution"
    wait_mdat
    took=$((($(date +%s%N) - t0) / 1000000))
    echo "killed_outside: the SIGKILLed execution was told after $took ms"
    [ "$took" -lt 3000 ] || fail "the SIGKILL from outside was told after $took ms"
    expect_cut_short "the program (pid $execution) was killed from outside by SIGKILL (not by the program or mdat)"
    expect_err "mdat: execution "
    # A signal with a sender: the sender is named.
    rm -rf out-dir run.json
    start_mdat run -n 50 -s 1 -j 1 --json run.json -o out-dir "$WORK/prog" 4 $rounds
    pids=$(server_and_execution "$WORK/prog") || fail "no fork server with an execution beside it"
    read -r server execution <<<"$pids"
    kill -TERM "$execution"
    wait_mdat
    expect_cut_short "the program (pid $execution) was killed from outside by SIGTERM (sent by process $$, not by the program or mdat)"
    unset MDAT_ALWAYS_OWN_PAGES
    # A SIGKILL the program sends itself is its own crash, and replays.
    rm -rf out-dir
    run_mdat run -n 3 -s 1 -o out-dir "$TARGETS/self_kill"
    expect_status 1
    expect_out "FAILURE crash in execution 0"
    expect_out "the program was killed by SIGKILL, sent by T2 at self_kill.c:$(line_of hostile/self_kill.c 'KILL:')"
    grep -q "NOT reproduced" "$WORK/out" && fail "self_kill: not reproduced"
    "$MDAT" replay "$(first_sched)" </dev/null >"$WORK/replay.out" 2>&1
    [ $? -eq 1 ] && grep -q "reproduced FAILURE crash" "$WORK/replay.out" || fail "replay: $(cat "$WORK/replay.out")"
    rm -rf out-dir
    run_mdat run -n 3 -s 1 -o out-dir "$TARGETS/self_kill" child
    expect_status 1
    expect_out "the program was killed by SIGKILL, sent by a child process of it"
    expect_no_survivor "$TARGETS/self_kill"
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac
finish
