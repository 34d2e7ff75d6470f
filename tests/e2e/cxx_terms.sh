#!/usr/bin/env bash
# End-to-end tests of C++ in the user's terms (issue 25): the programs of
# tests/targets/cxx/ at -O0 and -O2, built by gcc and by clang, run under
# mdat; every file:line of every report, saved trace and --trace output
# must name an existing file and a line within it, and library code inlined
# into the user's function must be told at the user's line
# (scripts/check-locations). Verdicts, start functions and atomic values are
# checked where the program's header says what they must be.
#   cxx_terms.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
CHECK="$SOURCES/../../scripts/check-locations"

PROGRAMS="start_signal future_pool shared_readers latch_barrier jthread_stop atomic_wait shared_handoff
          use_after_free double_free latch_deadlock semaphore_deadlock atomic_flag_wait barrier_deadlock future_values
          barrier_plain_race exit_join exit_cycle sync_values aligned_release null_table shared_raw exit_values"
# Correct programs whose every schedule mdat must pass. latch_barrier's
# std::barrier keeps its phase in a plain member that libstdc++ reads and
# writes through std::__atomic_ref: those accesses are the library's
# atomics, known by their code (docs/architecture.md, "Atomic or plain").
# Programs every step and thread of which is placed at the user's line, or
# told as having no code of the user's on the stack (check-locations
# --user-only): all of them. The destructors of globals that exit() runs
# after main (~barrier, ~deque, ~promise, ~stop_source) are `after main:
# ~barrier (run by exit)`, the end itself `after main: exit`, std::thread's
# own start and end `around poller: _M_run` (docs/architecture.md, "Places
# outside the user's code").
USER_ONLY=${PROGRAMS//$'\n'/ }
CORRECT="future_pool shared_readers latch_barrier jthread_stop atomic_wait shared_handoff sync_values exit_values"

builds_of() {
    local program=$1
    for build in o0 o2 clang_o0 clang_o2; do
        [ -x "$TARGETS/cxx_${program}_$build" ] && echo "cxx_${program}_$build"
    done
}

# Every file:line mdat wrote about one build is real and the user's, and
# every step and thread is placed at the user's line, a library's beside
# it, or said to be outside the user's code (--user-only).
check_locations() {
    local program=$1 build=$2
    local texts=("$WORK/$build.trace.out" "$WORK/$build.run.out")
    for f in "$WORK/out-$build"/*.trace "$WORK/out-$build"/*.status; do
        [ -f "$f" ] && texts+=("$f")
    done
    local strict=()
    case " $USER_ONLY " in *" $program "*) strict=(--user-only) ;; esac
    "$CHECK" --sources "$SOURCES" --user "$program.cpp" "${strict[@]}" "${texts[@]}" >"$WORK/check.out" ||
        fail "$build: $(head -5 "$WORK/check.out")"
}

t_locations() {
    for program in $PROGRAMS; do
        for build in $(builds_of "$program"); do
            "$MDAT" run -n 1 -s 1 --trace -o "$WORK/out-$build" "$TARGETS/$build" </dev/null \
                >"$WORK/$build.trace.out" 2>&1
            "$MDAT" run -n 40 -s 2 -o "$WORK/out-$build" "$TARGETS/$build" </dev/null >"$WORK/$build.run.out" 2>&1
            local st=$?
            case " $CORRECT " in
            *" $program "*) [ "$st" -eq 0 ] || fail "$build: exit $st, a correct program: $(head -4 "$WORK/$build.run.out")" ;;
            esac
            check_locations "$program" "$build"
        done
    done
}

t_verdicts() {
    for build in $(builds_of start_signal); do
        run_mdat run --strategy dfs -n 2000 -o out-dir "$TARGETS/$build"
        expect_status 1
        expect_out "FAILURE deadlock"
        expect_out "waits on condvar start_cv"
        expect_out "start_signal.cpp:$(line_of cxx/start_signal.cpp 'WAIT: the notify') runner"
        # The library function each blocked thread is in, called out of
        # line (std::thread::join from libstdc++.so; at -O0 every template
        # is a function of its own), beside the user's line.
        expect_thread_row "$build" "T1 +waiting-join +main +start_signal.cpp:$(line_of cxx/start_signal.cpp 'WAIT: main joins') main \(in std::thread::join\)  waiting on join T2"
        expect_thread_row "$build" "T2 +waiting-cond +runner +start_signal.cpp:$(line_of cxx/start_signal.cpp 'WAIT: the notify') runner \(in std::condition_variable::wait\)  waiting on condvar start_cv .*"
    done
    # A crash inside code a system header compiled into the program
    # (std::vector's operator[] at -O0) is located at the user's line.
    for build in $(builds_of null_table); do
        run_mdat run -n 20 --json "$WORK/report.json" -o out-dir "$TARGETS/$build"
        expect_status 1
        grep -qE "T2 killed by SIGSEGV accessing 0x0 \(NULL pointer dereference\) at null_table.cpp:$(line_of cxx/null_table.cpp 'CRASH:') reader( \(in [^)]+\))?$" "$WORK/out" ||
            fail "$build: the crash is not at the user's line: $(grep -A1 FAILURE "$WORK/out" | tail -1)"
        local located
        located=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["failures"][0]["location"])' "$WORK/report.json")
        [ "$located" = "null_table.cpp:$(line_of cxx/null_table.cpp 'CRASH:')" ] || fail "$build: the crash is located at $located"
    done
    # Heap errors, whoever compiled them: a double free (clang's -O2 deletes
    # by a tail call, and two threads' caches hide it from glibc) and a use
    # after free (the memory is still mapped: nothing crashes), each named
    # with the block and the free. dpor and dfs find both.
    for strategy in dpor dfs; do
        for build in $(builds_of double_free); do
            run_mdat run --strategy $strategy -n 2000 -o out-dir "$TARGETS/$build"
            expect_status 1
            expect_out "FAILURE heap-error"
            grep -qE "double free: T[23] frees heap#1 \(new at double_free.cpp:25\), but T[23] freed it at step [0-9]+ \(double_free.cpp:20\)" "$WORK/out" ||
                grep -qE "use after free: T[23] reads heap#1 \(new at double_free.cpp:25\)" "$WORK/out" ||
                fail "$build ($strategy): the double free is not named: $(grep -A1 FAILURE "$WORK/out" | tail -1)"
        done
        # The same on an over-aligned block (operator new and delete with
        # std::align_val_t): glibc's abort was told as a SIGABRT crash in
        # std::thread's ~_State_impl.
        local made freed
        made=$(line_of cxx/aligned_release.cpp 'NEW:')
        freed=$(line_of cxx/aligned_release.cpp 'FREE:')
        for build in $(builds_of aligned_release); do
            run_mdat run --strategy $strategy -n 2000 -o out-dir "$TARGETS/$build"
            expect_status 1
            expect_out "FAILURE heap-error"
            grep -qE "double free: T[23] frees heap#1 \(new at aligned_release.cpp:$made\), but T[23] freed it at step [0-9]+ \(aligned_release.cpp:$freed\)" "$WORK/out" ||
                fail "$build ($strategy): the aligned block's double free is not named: $(grep -A1 FAILURE "$WORK/out" | tail -1)"
        done
        for build in $(builds_of use_after_free); do
            run_mdat run --strategy $strategy -n 2000 -o out-dir "$TARGETS/$build"
            expect_status 1
            expect_out "use after free: T2 reads heap#1 (new[] at use_after_free.cpp:21), but T1 freed it at step"
            expect_out "(use_after_free.cpp:24)"
        done
    done
}

# A shared_ptr's raw pointer kept past the last reset, read while main
# drops the owner: a heap error under every strategy, naming the block
# make_shared allocated, the reset that freed it and the reader. Under page
# ownership the reader's page was its own and its reads no steps (pos said
# "no failure in 300 executions" at -O2 and with clang): the free observed
# the page from then on and forgot that the reader's uses were unordered.
t_freed_in_use() {
    local made freed
    made=$(line_of cxx/shared_raw.cpp 'ALLOC:')
    freed=$(line_of cxx/shared_raw.cpp 'FREE:')
    for build in $(builds_of shared_raw); do
        for strategy in portfolio random pct pos dfs dpor; do
            run_mdat run --strategy $strategy -n 300 -s 2 --json "$WORK/report.json" -o out-dir "$TARGETS/$build"
            expect_status 1
            grep -qE "use after free: T2 reads heap#1 \(new at shared_raw.cpp:$made\)\+(16|20), but T1 freed it at step [0-9]+ \(shared_raw.cpp:$freed\)" "$WORK/out" ||
                fail "$build ($strategy): $(grep -A1 -E 'FAILURE|no failure' "$WORK/out" | head -2 | tail -1)"
            grep -qE "^ +T2 +running +render +shared_raw.cpp:($(line_of cxx/shared_raw.cpp 'USE:')|$(line_of cxx/shared_raw.cpp 'USE2:')|$(line_of cxx/shared_raw.cpp 'PRINT:')) render$" "$WORK/out" ||
                fail "$build ($strategy): the reader's place: $(grep -A4 '^  threads:' "$WORK/out")"
            grep -q '"kind": "heap-error"' "$WORK/report.json" || fail "$build ($strategy): the JSON report's kind"
        done
    done
}

# Watched globals after main: exit() runs their destructors, which free
# what they hold without clearing them. Each reads as a person reads it
# while the program runs; once freed it is told as destroyed, never read
# (it was `use_count -1544683135`, `size 4 {-65536, 7, ...}`).
t_exit_values() {
    for build in $(builds_of exit_values); do
        run_mdat run -n 1 --watch current --watch items --watch title --watch updates --trace=status,every \
            "$TARGETS/$build"
        expect_status 0
        grep -qE '^ +(\* )?items +size 4 \{1, 2, 3, 4\}$' "$WORK/out" || fail "$build: items never read as {1, 2, 3, 4}"
        grep -qE '^ +(\* )?current +points to \{width = 4\}, use_count 1$' "$WORK/out" ||
            fail "$build: current never read with use_count 1"
        grep -qE '^ +(\* )?title +"a title too long' "$WORK/out" || fail "$build: title never read"
        # After main: what exit() freed is not read.
        sed -n '/after main/,$p' "$WORK/out" | grep -E '^ +(\* )?(current|items|title) ' |
            grep -vE '(points to \{width = [34]\}, use_count [01]|size [34] \{1, 2, 3(, 4)?\}|"a title too long for the string.s own buffer"|destroyed \(exit\(\) freed what it held\)|not read after exit\(\) \(may be freed\))$' \
            >"$WORK/after.out"
        [ -s "$WORK/after.out" ] && fail "$build: after main: $(sort -u "$WORK/after.out" | head -3)"
        for watched in current items title; do
            tail -n 12 "$WORK/out" | grep -qE "^ +(\* )?$watched +destroyed \(exit\(\) freed what it held\)$" ||
                fail "$build: $watched at the end: $(grep -E "^ +(\* )?$watched " "$WORK/out" | tail -1)"
        done
    done
}

# A program built with -gsplit-dwarf: its lines are in the executable,
# its variables, types and inlined calls in .dwo files mdat does not read.
# mdat said the program had no debug information; it says what is going on
# in one line, and its lines are still the user's.
t_split_dwarf() {
    local said="its debug information is in split DWARF .dwo files, which mdat does not read; build without -gsplit-dwarf"
    run_mdat run --strategy dfs -n 2000 -o out-dir "$TARGETS/cxx_split_dwarf"
    expect_status 1
    expect_out "mdat: $TARGETS/cxx_split_dwarf: $said (lines are known; variables, types and inlined calls are not)"
    grep -q "no debug information" "$WORK/out" && fail "split DWARF said to be missing"
    expect_out "FAILURE deadlock"
    expect_out "start_signal.cpp:$(line_of cxx/start_signal.cpp 'WAIT: the notify') runner"
    run_mdat run -n 1 --watch go "$TARGETS/cxx_split_dwarf"
    expect_status 2
    expect_err "no variable named 'go' ($said)"
    # A program built without it says nothing of the kind.
    run_mdat run -n 1 "$TARGETS/cxx_start_signal_o0"
    grep -q "split DWARF" "$WORK/out" && fail "a program without split DWARF said to have it"
}

# Each failure's kind is right under every strategy (the acceptance of
# issue 25): every C++ program of the suite under portfolio, pct, pos,
# surw, random, dfs and dpor, a small -n each. A failure of another kind,
# or any failure of a correct program, is a wrong verdict; a randomized
# strategy (and dfs, within its preemption bound) may miss a bug in so few
# executions, dpor may not. Each
# strategy runs one build of a program of tests/targets/cxx/, another for
# the next strategy (gcc and clang, -O0 and -O2 in turn).
#   kinds_cxx: tests/targets/cxx/; kinds_more: the other C++ targets.
KINDS_STRATEGIES="portfolio pct pos surw random dfs dpor"
KIND_OPTS=()    # mdat's own options for the next expect_kind (--fail-on-exit)

# expect_kind BINARY KIND [ARGS...]: each strategy's verdict on BINARY.
expect_kind() {
    local binary=$1 want=$2 strategy got
    shift 2
    for strategy in $KINDS_STRATEGIES; do
        expect_kind_under "$strategy" "$binary" "$want" "$@"
    done
}

expect_kind_under() {
    local strategy=$1 binary=$2 want=$3 got
    shift 3
    rm -f "$WORK/kind.json"
    run_mdat run --strategy "$strategy" -n 50 -s 1 --no-shrink -o out-dir --json "$WORK/kind.json" \
        "${KIND_OPTS[@]}" "$TARGETS/$binary" "$@"
    got=$(python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["failures"]
print(f[0]["kind"] if f else "none")' "$WORK/kind.json" 2>/dev/null || echo "no report (exit $status)")
    case "$got" in
    "$want") ;;
    none) [ "$strategy" = dpor ] && fail "$binary $* ($strategy): no failure found, $want expected" ;;
    *) fail "$binary $* ($strategy): $got, expected $want: $(grep -A1 FAILURE "$WORK/out" | tail -1)" ;;
    esac
}

t_kinds_cxx() {
    local spec program want builds n i=0 s
    for spec in aligned_release:heap-error atomic_flag_wait:deadlock atomic_wait:none barrier_deadlock:deadlock \
                barrier_plain_race:race double_free:heap-error exit_cycle:deadlock exit_join:deadlock \
                exit_values:none future_pool:none future_values:none jthread_stop:none latch_barrier:none \
                latch_deadlock:deadlock null_table:crash semaphore_deadlock:deadlock shared_handoff:none \
                shared_raw:heap-error shared_readers:none start_signal:deadlock sync_values:none \
                use_after_free:heap-error; do
        program=${spec%%:*} want=${spec#*:}
        read -ra builds <<<"$(builds_of "$program" | tr '\n' ' ')"
        n=${#builds[@]}
        [ "$n" -gt 0 ] || { fail "$program: no build"; continue; }
        s=0
        for strategy in $KINDS_STRATEGIES; do
            expect_kind_under "$strategy" "${builds[$(((i + s) % n))]}" "$want"
            s=$((s + 1))
        done
        i=$((i + 1))
    done
}

t_kinds_more() {
    expect_kind cxx_threads_o2 none
    expect_kind cxx_async_o2 none
    expect_kind cxx_race_o2 race
    expect_kind race_cxx_condvar none
    expect_kind race_cxx_barrier_o2 none
    expect_kind race_cxx_heap_counter_o0 race
    expect_kind search_cxx_lost_wakeup_o2 deadlock
    expect_kind search_cxx_lost_wakeup_o2 none locked
    expect_kind diff_cxx_atomic_wait_o2 deadlock early
    expect_kind diff_cxx_condvar_pred_o0 deadlock one
    expect_kind diff_cxx_mutex_counter_o2 race unlocked
    KIND_OPTS=(--fail-on-exit)
    expect_kind diff_cxx_stock_o2 exit-status racy
    expect_kind diff_cxx_stock_o0 none
    KIND_OPTS=()
    expect_kind diff_cxx_shared_mutex_o2 none
    expect_kind diff_cxx_semaphore_o0 none
}

# What libstdc++ does atomically is synchronisation, whatever the type of
# what it touches; the user's plain accesses beside it are not. A correct
# std::barrier/std::latch program passes every schedule dpor and dfs try
# (gcc -O2 keeps the phase's release store and acquire loads as plain
# movs on a plain member: a race on the slots it orders, were they not
# known as atomics). A plain int updated by the barrier's completion (the
# user's code, inlined into std::barrier's arrive at -O2) and read by main
# on the line of an atomic load is still a race.
t_atomics() {
    local update read
    update=$(line_of cxx/barrier_plain_race.cpp 'UPDATE:')
    read=$(line_of cxx/barrier_plain_race.cpp 'READ:')
    for strategy in dpor dfs; do
        for build in $(builds_of latch_barrier); do
            run_mdat run --strategy $strategy -n 500 -o out-dir "$TARGETS/$build"
            [ "$status" -eq 0 ] || fail "$build ($strategy): exit $status, a correct program: $(grep -A1 FAILURE "$WORK/out" | head -2)"
        done
    done
    for strategy in portfolio dpor dfs; do
        for build in $(builds_of barrier_plain_race); do
            run_mdat run --strategy $strategy -n 500 -o out-dir "$TARGETS/$build"
            expect_status 1
            expect_out "FAILURE race"
            grep -qE "race on phases: T[0-9]+ (writes at barrier_plain_race.cpp:$update .*, T1 read at barrier_plain_race.cpp:$read|reads at barrier_plain_race.cpp:$read .*, T[0-9]+ wrote at barrier_plain_race.cpp:$update) " "$WORK/out" ||
                fail "$build ($strategy): no race on phases between the completion and main: $(grep -A1 FAILURE "$WORK/out" | tail -1)"
        done
    done
}

# The thread's start function is the one the user passed; atomics read as
# values; the user's line with the library function beside it.
t_names() {
    for build in $(builds_of start_signal); do
        run_mdat run -n 1 -s 1 --trace "$TARGETS/$build"
        expect_out "start runner"
        expect_out "start starter"
        expect_out "atomic go := true"
        grep -q "_M_i\|_M_base" "$WORK/out" && fail "$build: an atomic printed as libstdc++'s members"
    done
    # A shared_ptr watched reads as what it points to, with its use count.
    for build in $(builds_of shared_handoff); do
        run_mdat run -n 3 -s 1 --trace=status --watch slot "$TARGETS/$build"
        grep -qE "^ +slot +points to \{weight = 5\}, use_count 1$" "$WORK/out" ||
            fail "$build: the watched shared_ptr slot does not read as its pointee and use count"
        grep -qE "^ +slot +nullptr$" "$WORK/out" || fail "$build: the empty shared_ptr slot does not read as nullptr"
        grep -q "_M_ptr\|_M_refcount" "$WORK/out" && fail "$build: a shared_ptr printed as libstdc++'s members"
    done
    # A promise and a stop_source read as their state, a ready promise with
    # its value. After every step: clang's builds switch threads nowhere
    # between main's request_stop and exit(), whose destructors free the
    # stop state (read after them, it is freed memory).
    for build in $(builds_of future_values); do
        run_mdat run -n 2 -s 1 --trace=status,every --watch answer_promise --watch stopper "$TARGETS/$build"
        expect_status 0
        for row in "answer_promise +not ready" "answer_promise +ready, value 42" "stopper +stop not requested" \
            "stopper +stop requested"; do
            grep -qE "^ +(\* )?$row$" "$WORK/out" || fail "$build: no watch row /$row/"
        done
        grep -q "_M_future\|_M_state\|_M_status" "$WORK/out" && fail "$build: a promise or stop_source printed as libstdc++'s members"
    done
    # A std::shared_mutex, a std::condition_variable_any, a
    # std::atomic_flag and a std::counting_semaphore watched read as their
    # rows in the objects table do, with who holds and who waits: never as
    # libstdc++'s or glibc's members.
    for build in $(builds_of sync_values); do
        run_mdat run -n 30 -s 1 --trace=status --watch table_lock --watch table_changed --watch busy \
            --watch tokens "$TARGETS/$build"
        expect_status 0
        for row in "table_lock +free" "table_lock +writer T3" "table_lock +1 reader" "table_lock +1 reader, waiting T3" \
            "table_changed +nobody waits" "table_changed +waiting T2" "busy +false" "busy +true" "tokens +2" "tokens +1"; do
            grep -qE "^ +(\* )?$row$" "$WORK/out" || fail "$build: no watch row /$row/"
        done
        grep -qE "^ +(\* )?(table_lock|table_changed|busy|tokens) +.*(_M_|__data|__readers)" "$WORK/out" &&
            fail "$build: a sync object watched printed as the library's members: $(grep -m1 -E '^ +(table_lock|table_changed) +.*_M_' "$WORK/out")"
        # Its condvar is the variable's, not a member of libstdc++'s, and
        # so is the mutex libstdc++ makes for it in a heap block.
        grep -q "table_changed._M_cond" "$WORK/out" && fail "$build: the condition_variable_any told by its member _M_cond"
        grep -qE "T3 +lock table_changed \(its mutex\) +sync_values.cpp:$(line_of cxx/sync_values.cpp 'notify_all') writer" "$WORK/out" ||
            fail "$build: notify_all's lock of the condvar's own mutex not told: $(grep -m1 -E 'T3 +lock ' "$WORK/out")"
        grep -qE "(lock|unlock|mutex) heap#" "$WORK/out" &&
            fail "$build: the condvar's own mutex told as a heap block: $(grep -m1 -E '(lock|unlock|mutex) heap#' "$WORK/out")"
        # A vector's end pointer is told as what it is, never as its size
        # holding an address.
        grep -qE "T3 +W rows \(end\) := " "$WORK/out" || fail "$build: push_back's store of the vector's end not told"
        grep -qE "\.(size|capacity)\(\) (->|:=) (0x|heap#)" "$WORK/out" &&
            fail "$build: a pointer told as a size: $(grep -m1 -E '\.(size|capacity)\(\) (->|:=) (0x|heap#)' "$WORK/out")"
    done
    # The function the user passed, whatever the compiler inlined at its
    # first instruction (clang -O2: _M_acquire, __shared_count).
    for build in $(builds_of semaphore_deadlock) $(builds_of future_pool); do
        run_mdat run -n 1 -s 1 --trace "$TARGETS/$build"
        case $build in
        *semaphore*) expect_out "start consumer" ;;
        *) expect_out "start pool_worker" ;;
        esac
        grep -qE "(create|start) (_M_|__)" "$WORK/out" && fail "$build: a thread started in a library function"
    done
    run_mdat run -n 1 -s 1 --trace "$TARGETS/cxx_start_signal_o2"
    expect_out "start_signal.cpp:$(line_of cxx/start_signal.cpp 'BUG:') starter (in std::atomic<bool>::store)"
    # The same at -O0, where the library's templates are called, not
    # inlined, and for what libstdc++.so does (join, notify_one), called
    # directly or jumped to (gcc -O2 ends starter with a jump to
    # notify_one): every build names the library function the same way.
    local lock load notify
    lock=$(line_of cxx/start_signal.cpp 'unique_lock<std::mutex> held')
    load=$(line_of cxx/start_signal.cpp 'if (!go.load())')
    notify=$(line_of cxx/start_signal.cpp 'notify_one();')
    for build in $(builds_of start_signal); do
        run_mdat run -n 1 -s 1 --trace "$TARGETS/$build"
        grep -qE "T2 +lock start_lock +start_signal.cpp:$lock runner \(in std::unique_lock<std::mutex>::unique_lock\)" "$WORK/out" ||
            fail "$build: the lock is not told in std::unique_lock's constructor: $(grep 'lock start_lock' "$WORK/out")"
        expect_out "start_signal.cpp:$load runner (in std::atomic<bool>::load)"
        expect_out "start_signal.cpp:$(line_of cxx/start_signal.cpp 'BUG:') starter (in std::atomic<bool>::store)"
        expect_out "start_signal.cpp:$notify starter (in std::condition_variable::notify_one)"
        grep -qE "T1 +join T2 +start_signal.cpp:$(line_of cxx/start_signal.cpp 'WAIT: main joins') main \(in std::thread::join\)" "$WORK/out" ||
            fail "$build: the join is not told in std::thread::join: $(grep 'join T2' "$WORK/out")"
    done
}

# C++20 sync objects built on atomic waits are named as the user declared
# them, with their count, in the headline, the thread table and the objects
# table: never as the futex word libstdc++ sleeps on.
t_sync() {
    for build in $(builds_of latch_deadlock); do
        run_mdat run --strategy dfs -n 2000 -o out-dir "$TARGETS/$build"
        expect_status 1
        expect_out "FAILURE deadlock"
        expect_out "T1 waits on latch start_line (count 1)"
        grep -qE "^ +T4 +waiting-futex watcher .*waiting on latch start_line \(count 1\)$" "$WORK/out" ||
            fail "$build: the watcher T4 is not shown waiting on the latch"
        # Blocked inside std::latch::wait, shown at the user's line.
        expect_thread_row "$build" "T1 +waiting-futex main +latch_deadlock.cpp:25 main \(in std::latch::wait\)  waiting on latch start_line \(count 1\)"
        # (gcc -O2 ends watcher with a jump to __atomic_wait_address, clang -O2
        # consumer with one to __atomic_wait_address_bare: a tail call, after
        # which no return address leads back to their lines.)
        expect_thread_row "$build" "T4 +waiting-futex watcher +latch_deadlock.cpp:19 watcher( \(in std::latch::wait\))?  waiting on .*"
        grep -q "futex word" "$WORK/out" && fail "$build: a latch told as a futex word"
        grep -q "_M_a\b" "$WORK/out" && fail "$build: a latch printed as libstdc++'s member"
        local status_file
        status_file=$(ls "$WORK"/out-dir/*.status 2>/dev/null | head -n 1)
        grep -qE "^ +(\* )?start_line \(std::latch\) +1 +(T1 T4|T4 T1)$" "$status_file" ||
            fail "$build: the objects table lacks the latch with count 1 and waiters T1 T4: $(grep -A3 futex "$status_file")"
    done
    # A semaphore sleeps on its own counter; an atomic<bool> and a barrier
    # on a proxy word of libstdc++'s waiter pool: each is told as the object
    # the user declared, with the line that waits among the steps.
    for build in $(builds_of semaphore_deadlock); do
        run_mdat run --strategy dfs -n 2000 -o out-dir "$TARGETS/$build"
        expect_status 1
        expect_out "T3 waits on semaphore slots (count 0)"
        expect_out "semaphore_deadlock.cpp:$(line_of cxx/semaphore_deadlock.cpp 'WAIT:') consumer"
        expect_thread_row "$build" \
            "T3 +waiting-futex consumer +semaphore_deadlock.cpp:22 consumer( \(in std::counting_semaphore<4l?>::acquire\))?  waiting on semaphore slots \(count 0\)"
        expect_object_row "$build" "slots \(std::counting_semaphore\) +0 +T3"
        # Its value as a person reads it, not libstdc++'s members.
        expect_out "R slots -> 0"
        grep -q "_M_sem\|_M_counter" "$WORK/out" && fail "$build: a semaphore printed as libstdc++'s members"
    done
    for build in $(builds_of atomic_flag_wait); do
        run_mdat run --strategy dfs -n 2000 -o out-dir "$TARGETS/$build"
        expect_status 1
        expect_out "T1 waits on atomic acks (== 0)"
        grep -qE "^ +T2 +waiting-futex .*waiting on atomic ready \(== false, now true, not notified\)$" "$WORK/out" ||
            fail "$build: T2 is not shown waiting on the atomic ready"
        expect_out "atomic_flag_wait.cpp:$(line_of cxx/atomic_flag_wait.cpp 'WAIT: no notify') waiter"
        expect_thread_row "$build" "T2 +waiting-futex [^ ]+ +atomic_flag_wait.cpp:14 waiter( \(in std::atomic<bool>::wait\))?  waiting on atomic ready .*"
        expect_object_row "$build" "ready \(std::atomic\) +1 +T2"
    done
    for build in $(builds_of barrier_deadlock); do
        run_mdat run --strategy dfs -n 2000 -o out-dir "$TARGETS/$build"
        expect_status 1
        expect_out "T2 waits on barrier sync_point (phase 0, expected 3)"
        expect_out "R sync_point (phase) -> 0"
        expect_out "barrier_deadlock.cpp:$(line_of cxx/barrier_deadlock.cpp 'WAIT:') worker"
        expect_thread_row "$build" "T2 +waiting-futex worker +barrier_deadlock.cpp:13 worker( \(in std::barrier<std::__empty_completion>::arrive_and_wait\))?  waiting on barrier sync_point .*"
        expect_object_row "$build" "sync_point \(std::barrier\) +3 +(T2 T3|T3 T2)"
    done
    # A std::future's get() sleeps on the status word of its shared state,
    # a heap block no variable's type describes: told as the future, by
    # the block std::packaged_task made for it, never as a futex word; its
    # wake-up (inside _M_get_result) at the user's line, in std::future::get.
    local made get
    made=$(line_of cxx/future_pool.cpp 'packaged_task<int()> job(\[n\]')
    get=$(line_of cxx/future_pool.cpp 'two.get() + three.get()')
    for build in $(builds_of future_pool); do
        run_mdat run -n 20 -s 1 --trace "$TARGETS/$build"
        expect_status 0
        grep -qE "^ +[0-9]+ +T1 +.* future_pool.cpp:$get main \(in std::future<int>::get\)  -> blocks on future heap#[0-9]+ \(new at future_pool.cpp:$made\)$" "$WORK/out" ||
            fail "$build: main's get() does not block on the future: $(grep -m2 'blocks on' "$WORK/out" | grep -v jobs_)"
        grep -qE "^ +[0-9]+ \*? *T1 +wakes future heap#[0-9]+ \(new at future_pool.cpp:$made\) +future_pool.cpp:$get main \(in std::future<int>::get\)$" "$WORK/out" ||
            fail "$build: main's wake-up from get() is not told at its line: $(grep -m2 ' T1 .*wakes' "$WORK/out")"
        grep -q "futex word" "$WORK/out" && fail "$build: a future told as a futex word: $(grep -m1 'futex word' "$WORK/out")"
    done
    for build in $(builds_of semaphore_deadlock) $(builds_of atomic_flag_wait) $(builds_of barrier_deadlock); do
        grep -q "futex word" "$WORK"/out-dir/"$build"-*.status 2>/dev/null &&
            fail "$build: a C++ sync object told as a futex word"
    done
}

# A lock the user's code reaches by a tail call (take ends in jmp
# pthread_mutex_lock@plt at -O2) is told at take's line, not at the line of
# its caller the return address names; at -O0 (plain calls) the same.
t_tail_calls() {
    local take forward backward
    take=$(line_of tail_lock.c 'TAKE:')
    forward=$(line_of tail_lock.c 'CALLER: forward')
    backward=$(line_of tail_lock.c 'CALLER: backward')
    for build in tail_lock_o2 tail_lock; do
        for strategy in dfs dpor; do
            run_mdat run --strategy $strategy -n 2000 -o out-dir "$TARGETS/$build"
            expect_status 1
            expect_out "FAILURE deadlock"
            expect_thread_row "$build" "T2 +waiting-lock +forward +tail_lock.c:$take take  waiting on mutex (first|second) .*"
            expect_thread_row "$build" "T3 +waiting-lock +backward +tail_lock.c:$take take  waiting on mutex (first|second) .*"
            grep -qE "tail_lock.c:($forward|$backward) " "$WORK/out" &&
                fail "$build ($strategy): a lock told at its caller's line: $(grep -E "tail_lock.c:($forward|$backward) " "$WORK/out" | head -2)"
        done
    done
}

# A step with no code of the user's on the stack is told so, never at a
# library's line: the destructors of globals exit() runs after main
# returned, the end itself, std::thread's own start and end around the
# callable; in the text trace, the json trace and a failure's thread table.
t_outside() {
    for build in $(builds_of latch_barrier); do
        run_mdat run -n 1 -s 1 --trace "$TARGETS/$build"
        expect_status 0
        # (The tree is a block of over-aligned states, new[] with an
        # alignment: a heap block like any other.)
        expect_out "R meet (arrival tree) -> heap#1"
        grep -qE "^ +[0-9]+ +T1 +[RW] meet \(arrival tree\) .* after main: ~barrier \(run by exit\)$" "$WORK/out" ||
            fail "$build: ~barrier after main is not told as run by exit: $(grep 'meet (arrival tree)' "$WORK/out" | tail -2)"
        grep -qE "^ +[0-9]+ +T1 +exit status 0 +after main: exit  -> program ends$" "$WORK/out" ||
            fail "$build: the end after main is not 'after main: exit': $(grep 'exit status' "$WORK/out")"
        run_mdat run -n 1 -s 1 --trace=json "$TARGETS/$build"
        grep -q '"file":"","line":0,"column":0,"function":"~barrier","where":"after main: ~barrier (run by exit)"' \
            "$WORK/out" || fail "$build: the json trace does not tell ~barrier after main as run by exit"
    done
    for build in $(builds_of jthread_stop); do
        run_mdat run -n 1 -s 1 --trace "$TARGETS/$build"
        grep -qE "^ +[0-9]+ +T2 +R heap#[0-9]+ .* around poller: _M_run$" "$WORK/out" ||
            fail "$build: std::thread's start is not told around poller: $(grep ' T2 ' "$WORK/out" | head -3)"
        grep -qE "^ +[0-9]+ +T2 .* around poller: ~_State_impl  -> then the thread ends$" "$WORK/out" ||
            fail "$build: std::thread's end is not told around poller: $(grep ' T2 ' "$WORK/out" | tail -2)"
    done
    # A global std::jthread's destructor joins, after main, a thread that
    # waits for ever: the deadlock names the waiter's line, and main's
    # thread as what it is, exit's destructor.
    for build in $(builds_of exit_join); do
        run_mdat run --strategy dfs -n 200 -o out-dir "$TARGETS/$build"
        expect_status 1
        expect_out "FAILURE deadlock"
        expect_out "T2 waits on atomic go (== false)"
        expect_out "exit_join.cpp:$(line_of cxx/exit_join.cpp 'WAIT:') waiter"
        expect_thread_row "$build" "T1 +waiting-join +main +after main: [~A-Za-z_]+ \(run by exit\)  waiting on join T2"
        grep -qE "^ +[0-9]+ +T1 +join T2 +after main: [~A-Za-z_]+ \(run by exit\)  -> blocks on join T2$" "$WORK/out" ||
            fail "$build: the join after main is not told as exit's: $(grep 'join T2' "$WORK/out" | head -2)"
    done
    # The same destructor in a wait cycle (main returned holding a mutex
    # the worker waits for): the failure is located at T1, which has no
    # line of the user's: the report's location is empty, never a
    # library's line, its function exit's destructor.
    for build in $(builds_of exit_cycle); do
        run_mdat run --strategy dfs -n 200 --json "$WORK/report.json" -o out-dir "$TARGETS/$build"
        expect_status 1
        expect_out "wait cycle T1 -> T2 -> T1: T1 waits on join T2; T2 waits on mutex guard (held by T1)"
        expect_thread_row "$build" "T1 +waiting-join +main +after main: [~A-Za-z_]+ \(run by exit\)  waiting on join T2"
        expect_out "exit_cycle.cpp:$(line_of cxx/exit_cycle.cpp 'WAIT:') take"
        local located
        located=$(python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))["failures"][0]
print(f["kind"], repr(f["location"]), f.get("function"))' "$WORK/report.json")
        [[ $located =~ ^deadlock\ \'\'\ [~A-Za-z_]+$ ]] ||
            fail "$build: the deadlock after main is located at a line of the library's: $located"
    done
}

# A thread's row in the last run's threads list: its place and its wait.
expect_thread_row() {
    local build=$1 row=$2
    grep -qE "^ +$row\$" "$WORK/out" || fail "$build: no thread row /$row/: $(grep -A5 '^  threads:' "$WORK/out")"
}

# The objects table of the last run's saved status has a row matching the
# regular expression (name, value, waiters).
expect_object_row() {
    local build=$1 row=$2 status_file
    status_file=$(ls "$WORK"/out-dir/"$build"-*.status 2>/dev/null | head -n 1)
    grep -qE "^ +(\* )?$row\$" "$status_file" ||
        fail "$build: no objects row /$row/: $(grep -A3 '^    futex' "$status_file" | tail -4)"
}

"t_$TEST"
finish
