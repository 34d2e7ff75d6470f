#!/usr/bin/env bash
# End-to-end tests: runs mdat on the target programs the way a user does and
# asserts on what it prints, writes and exits with. One test per invocation:
#   e2e.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# The step lines of a log or status trace (status adds table lines between them).
step_lines() { grep -E '^ *[0-9]+ [ *] T[0-9]' "$@"; }
# JSON lines printed on stdout among mdat's and the program's own lines.
json_lines() { grep -E '^\{' "$@"; }

# check_jsonl FILE [LOG_TRACE]: FILE is JSON Lines, one event object per
# line with every documented field, then one {"end": true} line; with
# LOG_TRACE, the events are the steps of that log trace, in order.
check_jsonl() {
    python3 - "$@" >"$WORK/jsonl.err" 2>&1 <<'PY' || fail "$1 is not the expected JSON Lines: $(tail -n 1 "$WORK/jsonl.err")"
import json, re, sys
fields = ["step", "thread", "switched", "op", "object", "addr", "value", "file", "line", "column", "function",
          "where", "outcome", "pc"]
with open(sys.argv[1], encoding="utf-8") as f:
    lines = f.read().splitlines()
assert len(lines) >= 2, "fewer than two lines"
objs = [json.loads(l) for l in lines]
assert all(isinstance(o, dict) for o in objs), "a line is not an object"
*events, end = objs
assert end.get("end") is True, "last line is not the end line: %r" % end
for e in events:
    missing = [k for k in fields if k not in e]
    assert not missing, "step %s lacks %s" % (e.get("step"), missing)
    assert isinstance(e["step"], int) and isinstance(e["switched"], bool)
    assert e["addr"] is None or re.fullmatch(r"0x[0-9a-f]+", e["addr"]), e["addr"]
if len(sys.argv) > 2:
    with open(sys.argv[2]) as f:
        steps = [int(l.split()[0]) for l in f if l.strip()]
    assert [e["step"] for e in events] == steps, "steps differ from the log trace"
PY
}

# The recording of a failure at the end of a long execution ("${prog[@]}",
# made to fail by --check false) is the tail of its --full-trace recording.
check_recorded_tail() {
    run_mdat run -n 1 -s 1 --no-shrink --check false -o tail "${prog[@]}"
    expect_status 1
    sed -n '/last steps:/,/schedule:/p' "$WORK/out" >last.tail
    run_mdat run -n 1 -s 1 --no-shrink --check false --full-trace -o full "${prog[@]}"
    expect_status 1
    sed -n '/last steps:/,/schedule:/p' "$WORK/out" | sed 's#full/#tail/#' >last.full
    [ -s last.tail ] || fail "the report shows no last steps"
    diff last.tail last.full >last.diff || fail "the report's last steps differ: $(head -n 5 last.diff)"
    t=$(ls tail/*.trace) f=$(ls full/*.trace)
    total=$(grep -cE '^ *[0-9]+ ' "$f")
    [ "$total" -gt 50000 ] || fail "the execution is not long: $total steps"
    skipped=$(sed -n 's/^  \.\.\. the first \([0-9]*\) steps are not kept.*/\1/p' "$t")
    [ -n "$skipped" ] || fail "the bounded trace does not say it was cut: $(head -n 1 "$t")"
    kept=$(grep -cE '^ *[0-9]+ ' "$t")
    [ $((skipped + kept)) -eq "$total" ] || fail "$skipped not kept + $kept kept != $total steps"
    [ "$kept" -ge 5000 ] && [ "$kept" -le 8000 ] || fail "the tail keeps $kept steps"
    diff <(grep -v '^  \.\.\. the first' "$t") <(tail -n "$(grep -vc '^  \.\.\. the first' "$t")" "$f") >tail.diff ||
        fail "the bounded trace is not the end of the whole one: $(head -n 5 tail.diff)"
    j=$(ls tail/*.jsonl)
    head -n 1 "$j" | grep -q "^{\"omitted_steps\":$skipped}$" || fail "the .jsonl does not count the steps left out"
    sed -n 2p "$j" | grep -q '"full":true' || fail "the kept .jsonl does not start with a whole state"
    svg=$(ls tail/*.svg)
    grep -q "· $total steps, 3 threads · showing the last 1500 steps" "$svg" ||
        fail "the timeline does not count every step: $(grep -o '[0-9]* steps, [0-9]* threads[^<]*' "$svg" | head -n 1)"
    grep -q "waiting-join from before step" "$svg" || fail "a wait that began before the steps told has a start"
}

case "$TEST" in
deadlock)
    run_mdat run -n 300 -s 1 -o out-dir --json run.json "$TARGETS/deadlock_lock_order"
    expect_status 1
    expect_out "FAILURE deadlock"
    expect_out "wait cycle T2 -> T3 -> T2"
    # The headline names what each thread of the cycle waits on; main's
    # join, a consequence, only in the threads table.
    expect_out "none can run; wait cycle T2 -> T3 -> T2: T2 waits on mutex lock_b (held by T3); T3 waits on mutex lock_a (held by T2)"
    expect_out "waiting on mutex lock_b (held by T"
    expect_out "waiting on mutex lock_a (held by T"
    expect_out "deadlock_lock_order.c:$(line_of deadlock_lock_order.c 'BUG:') thread_two"
    expect_out "mdat replay out-dir/deadlock_lock_order-deadlock-s1-e"
    expect_json '"kind": "deadlock"' run.json
    expect_json '"waiting_on": "join T2"' run.json
    expect_json '"location": "deadlock_lock_order.c:[0-9]+"' run.json
    for f in mdat_version program args strategy seed schedules_requested schedules_run elapsed_seconds \
             visible_steps_total ptrace_stops_total failures schedule_file message location threads; do
        expect_json "\"$f\":" run.json
    done
    sched=$(first_sched)
    [ -n "$sched" ] || fail "no schedule file written"
    grep -q '^sha256 [0-9a-f]\{64\}$' "$sched" || fail "schedule lacks the binary's SHA-256"
    expect_replay_identical "$sched"
    ;;
lost_update)
    run_mdat run --races=off -n 300 -s 2 -o out-dir --json run.json "$TARGETS/lost_update"
    expect_status 1
    line=$(line_of lost_update.c 'FAILS:')
    expect_out "FAILURE assertion"
    expect_out "assertion \`counter == 2 * N' failed at lost_update.c:$line in main()"
    expect_json "\"location\": \"lost_update.c:$line\"" run.json
    expect_out "W counter := "
    expect_replay_identical "$(first_sched)"
    ;;
condvar)
    run_mdat run -n 500 -s 3 -o out-dir "$TARGETS/condvar_signal_lost"
    expect_status 1
    expect_out "FAILURE deadlock"
    expect_out "waiting on condvar go_cond (with mutex go_lock)"
    expect_replay_identical "$(first_sched)"
    ;;
semaphore)
    run_mdat run -n 300 -s 4 -o out-dir/nested/deeper "$TARGETS/semaphore_misuse"
    expect_status 1
    expect_out "FAILURE deadlock"
    expect_out "waiting on semaphore full"
    expect_out "semaphore_misuse.c:$(line_of semaphore_misuse.c 'BUG:') consumer"
    ls out-dir/nested/deeper/*.sched >/dev/null 2>&1 || fail "-o with missing parent directories: no schedule written"
    ;;
order_bug)
    run_mdat run --races=off -n 300 -s 5 -o out-dir --json run.json "$TARGETS/order_bug_sleep"
    expect_status 1
    expect_out "FAILURE crash"
    expect_out "killed by SIGSEGV accessing 0x0 (NULL pointer dereference) at order_bug_sleep.c:$(line_of order_bug_sleep.c 'BUG:') worker"
    expect_json '"kind": "crash"' run.json
    expect_replay_identical "$(first_sched)"
    ;;
correct)
    # Correct programs never fail, whatever the schedule.
    for p in correct_counter correct_prodcons correct_semaphores barrier_rwlock condvar_timedwait signals; do
        for strategy in pct random; do
            run_mdat run -n 250 -s 11 --strategy $strategy -o out-dir "$TARGETS/$p"
            [ "$status" -eq 0 ] || { fail "$p under $strategy: exit $status"; show; }
            expect_out "mdat: no failure in 250 executions"
        done
    done
    ;;
many_threads)
    run_mdat run -n 10 -s 6 "$TARGETS/many_threads"
    expect_status 0
    expect_out "no failure in 10 executions"
    run_mdat run -n 1 -s 6 --trace "$TARGETS/many_threads"
    grep -qE '^ +[0-9]+ +\*? *T101 ' "$WORK/out" || fail "no step of thread T101 in the trace"
    ;;
cxx)
    run_mdat run -n 100 -s 7 "$TARGETS/cxx_threads"
    expect_status 0
    run_mdat run -n 1 -s 7 --trace "$TARGETS/cxx_threads"
    expect_out "lock "
    ;;
stripped)
    run_mdat run --races=off -n 300 -s 2 -o out-dir "$TARGETS/stripped_lost_update"
    expect_status 1
    expect_out "has no debug information"
    expect_out "FAILURE assertion"
    grep -qE 'W 0x[0-9a-f]+ := ' "$WORK/out" || fail "stripped binary: writes not shown by address"
    expect_replay_identical "$(first_sched)"
    # A distribution binary: stripped, PIE, with a few exported functions in
    # .dynsym: its code is instrumented (every access it makes a step, when
    # every access is observed; with page ownership this one-thread program
    # shares nothing, and runs natively).
    MDAT_NO_PAGE_OWNERSHIP=1 run_mdat run -n 1 -s 1 --json ls.json /bin/ls /
    expect_status 0

    steps=$(sed -n 's/.*"visible_steps_total": \([0-9]*\).*/\1/p' ls.json)
    [ "${steps:-0}" -gt 100 ] || fail "/bin/ls ran with only ${steps:-0} visible steps: its code was not instrumented"
    ;;
static)
    run_mdat run -n 300 -s 1 -o out-dir "$TARGETS/static_lock_order"
    expect_status 1
    expect_out "FAILURE deadlock"
    expect_out "waiting on mutex lock_a (held by T"
    expect_replay_identical "$(first_sched)"
    # Without debug information the static libc's functions are not the
    # program's: a correct program runs correctly, with its own accesses
    # seen (by symbol) and none of libc's start-up code stepped.
    run_mdat run -n 100 -s 1 --json nodebug.json "$TARGETS/static_nodebug_counter"
    expect_status 0
    expect_out "has no debug information"
    expect_out "no failure in 100 executions"
    run_mdat run -n 1 -s 1 --trace "$TARGETS/static_nodebug_counter"
    expect_status 0
    grep -qE '^ +[0-9]+ +\*? *T[0-9]+ +[RW] counter ' "$WORK/out" || fail "static, no debug info: counter's accesses not seen"
    ! grep -qE ' (_dl_|__libc_|_IO_)' "$WORK/out" || fail "static, no debug info: libc's code was stepped"
    rm -rf out-dir
    run_mdat run -n 300 -s 1 -o out-dir "$TARGETS/static_nodebug_lost_update"
    expect_status 1
    expect_out "FAILURE race"
    expect_replay_identical "$(first_sched)"
    rm -rf out-dir
    run_mdat run -n 300 -s 1 --races=off -o out-dir "$TARGETS/static_nodebug_lost_update"
    expect_status 1
    expect_out "FAILURE assertion"
    expect_replay_identical "$(first_sched)"
    # Stripped too: said, and its system calls still scheduled.
    run_mdat run -n 50 -s 1 "$TARGETS/static_stripped_counter"
    expect_status 0
    expect_out "is static and stripped: its own code cannot be told from libc's"
    expect_out "no failure in 50 executions"
    ;;
nopie)
    run_mdat run --races=off -n 300 -s 2 -o out-dir "$TARGETS/lost_update_nopie"
    expect_status 1
    expect_out "failed at lost_update.c:$(line_of lost_update.c 'FAILS:')"
    ;;
fork)
    run_mdat run -n 50 -s 8 "$TARGETS/fork_child"
    expect_status 0
    expect_out "no failure in 50 executions"
    ;;
exec)
    # The traced program replaces itself with execve: the new image runs to its end.
    run_mdat run -n 3 -s 1 /usr/bin/env true
    expect_status 0
    run_mdat run -n 1 -s 1 /usr/bin/env sh -c 'echo from-the-new-image'
    expect_status 0
    expect_out "from-the-new-image"
    run_mdat run -n 2 -s 1 --fail-on-exit -o out-dir /usr/bin/env sh -c 'exit 4'
    expect_status 1
    expect_out "exited with status 4"
    ;;
timeout)
    # A loop without visible operations: the step never ends, a hang.
    run_mdat run -n 2 -s 1 --timeout 1 -o out-dir "$TARGETS/spin_forever"
    expect_status 1
    expect_out "FAILURE hang"
    expect_out "without reaching a visible operation"
    expect_out "at spin_forever.c:$(line_of spin_forever.c 'BUG:') spinner"
    sched=$(first_sched)
    "$MDAT" replay "$sched" </dev/null >replay.out 2>&1
    [ $? -eq 1 ] || fail "replaying the hang did not exit 1: $(cat replay.out)"
    grep -q "FAILURE hang\|reproduced" replay.out || fail "replay did not reproduce the hang: $(cat replay.out)"
    ;;
timeout_loaded)
    # A correct program's long step (about 0.5 s of CPU time natively) on a
    # CPU it shares with three busy loops: it takes longer than --timeout
    # by the clock, yet uses less CPU time than that, so it is no hang
    # (a wall-clock timeout reported one). A real hang is still one.
    taskset -pc 0 $$ >/dev/null || fail "cannot pin the test to CPU 0"
    loops=()
    for _ in 1 2 3; do
        sh -c 'while :; do :; done' &
        loops+=($!)
    done
    run_mdat run -n 2 -s 1 --timeout 1 --no-shrink -o out-dir "$TARGETS/long_compute" 300
    expect_status 0 "long_compute"
    expect_out "no failure in 2 executions"
    run_mdat run -n 1 -s 1 --timeout 1 --no-shrink -o out-dir "$TARGETS/spin_forever"
    kill "${loops[@]}"
    expect_status 1 "spin_forever"
    expect_out "FAILURE hang"
    ;;
step_limit)
    # Spinning on a flag nobody sets: a livelock, found from the execution
    # itself, with or without a step limit: at once when every access is
    # observed (the spin re-reads what nobody can change any more), and
    # from repeated states when the flag's page is the spinner's own (page
    # ownership: the spin runs natively, then observed).
    run_mdat run -n 2 -s 1 -o out-dir --json run.json "$TARGETS/livelock_flag"
    expect_status 1
    expect_out "FAILURE livelock"
    expect_out "T2 spins on ready, which no thread can change any more"
    expect_out "livelock_flag.c:$(line_of livelock_flag.c 'BUG:') waiter"
    expect_json '"kind": "livelock"' run.json
    expect_replay_identical "$(first_sched)"
    rm -rf out-dir
    MDAT_ALWAYS_OWN_PAGES=1 run_mdat run -n 2 -s 1 -o out-dir --json run.json "$TARGETS/livelock_flag"
    expect_status 1
    expect_out "FAILURE livelock"
    expect_out "keeps running without progress"
    expect_out "livelock_flag.c:$(line_of livelock_flag.c 'BUG:') waiter"
    expect_json '"kind": "livelock"' run.json
    expect_replay_identical "$(first_sched)"
    # A long execution's saved traces keep about its last 5000 steps, and
    # say so; the JSON Lines then start with a whole state.
    stem=$(first_sched); stem=${stem%.sched}
    head -n 1 "$stem.trace" | grep -q "^  \.\.\. the first [0-9]* steps are not kept" ||
        fail "the long trace does not say it was cut: $(head -n 1 "$stem.trace")"
    [ "$(wc -l <"$stem.trace")" -lt 7000 ] || fail "the saved trace is not bounded: $(wc -l <"$stem.trace") lines"
    head -n 1 "$stem.jsonl" | grep -q '^{"omitted_steps":[0-9]*}$' || fail "the .jsonl does not say it was cut"
    sed -n 2p "$stem.jsonl" | grep -q '"full":true' || fail "the kept .jsonl does not start with a whole state"
    MDAT_ALWAYS_OWN_PAGES=1 run_mdat run -n 2 -s 1 -o out-full --full-trace "$TARGETS/livelock_flag"
    full=$(ls out-full/*.trace | head -n 1)
    grep -q "steps are not kept" "$full" && fail "--full-trace still cut the trace"
    [ "$(wc -l <"$full")" -gt 10000 ] || fail "--full-trace kept only $(wc -l <"$full") lines"
    run_mdat run -n 2 -s 1 --max-steps 3000 -o out-dir2 "$TARGETS/livelock_flag"
    expect_status 1
    expect_out "FAILURE livelock"
    # A correct program cut short by --max-steps is incomplete, not a failure.
    run_mdat run -n 3 -s 1 --max-steps 20 --json inc.json "$TARGETS/correct_counter"
    expect_status 0
    expect_out "3 executions did not end: still making progress after 20 steps"
    expect_out "raise --max-steps"
    expect_json '"incomplete": 3' inc.json
    ;;
stdin)
    # Every execution reads the same input, from mdat's stdin or --stdin;
    # a failure's schedule keeps it, and replay feeds it again.
    printf '1 2 3 4 5\n6 7 8 9 10\n' >numbers.txt
    "$MDAT" run -n 40 -s 1 --check 'grep -qx "total 55"' "$TARGETS/stdin_sum" <numbers.txt >out 2>err
    [ $? -eq 0 ] || fail "stdin_sum with its input on stdin: $(cat out err)"
    grep -q "reads the same 21 bytes of input from standard input" out || fail "input not announced: $(cat out)"
    run_mdat run -n 40 -s 1 --stdin numbers.txt --check 'grep -qx "total 55"' "$TARGETS/stdin_sum"
    expect_status 0
    # A checker that wants another total fails every execution; the saved
    # schedule replays with the saved input.
    run_mdat run -n 3 -s 1 --stdin numbers.txt -o out-dir --check 'grep -qx "total 56"' "$TARGETS/stdin_sum"
    expect_status 1
    expect_out "FAILURE checker"
    sched=$(first_sched)
    grep -q "^stdin .*\.stdin [0-9a-f]\{64\}$" "$sched" || fail "the schedule does not name its input: $(grep stdin "$sched")"
    cmp -s numbers.txt "${sched%.sched}.stdin" || fail "the saved input differs from the program's"
    expect_replay_identical "$sched" --trust-check
    # Bad input: a missing file, a directory.
    run_mdat run -n 1 --stdin no-such-file "$TARGETS/stdin_sum"
    expect_status 2
    expect_err "cannot open the program's input no-such-file"
    [ "$(wc -l <err)" -eq 1 ] || fail "not one line: $(cat err)"
    "$MDAT" run -n 1 "$TARGETS/stdin_sum" <. >out 2>err
    [ $? -eq 2 ] || fail "stdin that is a directory: exit $?"
    grep -q "is a directory" err || fail "stdin that is a directory: $(cat err)"
    ;;
not_started)
    # The loader cannot find a library: the program never ran, which is an
    # error with the loader's own words, never "no failure".
    run_mdat run -n 5 -s 1 "$TARGETS/missing_lib"
    expect_status 3
    expect_err "did not start: it exited with status 127 before reaching its entry point"
    expect_err "libmdat_gone.so: cannot open shared object file"
    [ "$(wc -l <err)" -eq 1 ] || fail "not one line: $(cat err)"
    # exec of a file that is not there
    run_mdat run -n 1 /usr/bin/env /no/such/program
    expect_status 0
    ;;
long_correct)
    # Long correct programs are never failures: 16 threads x 1,500 locked
    # increments is ~150,000 steps, under the default limits.
    run_mdat run -n 2 -s 1 -j 1 --json long.json "$TARGETS/many_increments" 16 1500
    expect_status 0
    expect_out "no failure in 2 executions"
    expect_json '"incomplete": 0' long.json
    # Cut short, it is incomplete: not a failure, and it says which option to raise.
    run_mdat run -n 2 -s 1 -j 1 --max-steps 5000 "$TARGETS/many_increments" 16 1500
    expect_status 0
    expect_out "2 executions did not end: still making progress after 5000 steps"
    ;;
starvation)
    # Readers that keep the writer out for ever under some schedule: a
    # livelock, found from the execution itself (not a timeout).
    run_mdat run -n 50 -s 1 -o out-dir "$TARGETS/writer_starvation"
    expect_status 1
    expect_out "FAILURE livelock"
    expect_out "keep running without progress"
    expect_replay_identical "$(first_sched)"
    ;;
pipes)
    # Reads that would block wait in mdat's model while the other stages run.
    for strategy in pct random; do
        run_mdat run -n 150 -s 3 --strategy $strategy "$TARGETS/pipe_pipeline"
        expect_status 0
        expect_out "no failure in 150 executions"
    done
    run_mdat run -n 1 -s 1 --trace "$TARGETS/pipe_pipeline"
    expect_out "blocks on read(fd"
    # Two threads each reading what the other has not written: a deadlock
    # that names both reads.
    run_mdat run -n 20 -s 1 -o out-dir --json dl.json "$TARGETS/pipe_deadlock"
    expect_status 1
    expect_out "FAILURE deadlock"
    expect_out "waiting-io    ping           pipe_deadlock.c:$(line_of real/pipe_deadlock.c 'BUG:') ping  waiting on read(fd"
    expect_out "waiting-io    pong           pipe_deadlock.c:$(line_of real/pipe_deadlock.c 'WAIT:') pong  waiting on read(fd"
    expect_replay_identical "$(first_sched)"
    ;;
fork_wait)
    # fork and waitpid are steps; the waiting thread waits in the model.
    run_mdat run -n 60 -s 2 "$TARGETS/fork_waitpid"
    expect_status 0
    run_mdat run -n 1 -s 1 --trace "$TARGETS/fork_waitpid"
    expect_out "T2   fork                                 fork_waitpid.c:"
    expect_out "T2   wait a child"
    ;;
own_lib)
    # The program's own shared library gets breakpoints like the executable.
    run_mdat run --races=off -n 300 -s 1 -o out-dir "$TARGETS/own_lib_user"
    expect_status 1
    expect_out "FAILURE assertion"
    expect_out "own_lib.c:$(line_of real/own_lib.c 'BUG:') bump (libmdat_counter.so)"
    expect_replay_identical "$(first_sched)"
    ;;
real_styles)
    # Programs in the styles of code nobody here wrote, at -O0 and -O2:
    # correct ones never fail (no false race either: libgomp's own locks
    # and barriers, std::async's futures and std::atomic order them), racy
    # ones fail as a race with both accesses named, and replay.
    for opt in o0 o2; do
        for strategy in pct random; do
            for prog in thread_pool:15 omp_reduction:60 omp_constructs:20 cxx_async:40; do
                run_mdat run -n "${prog#*:}" -s 4 --strategy $strategy "$TARGETS/${prog%:*}_$opt"
                expect_status 0
                expect_out "no failure in ${prog#*:} executions"
            done
        done
        rm -rf "$WORK/out-dir"
        run_mdat run -n 50 -s 1 -o out-dir "$TARGETS/omp_race_$opt"
        expect_status 1
        expect_out "FAILURE race"
        expect_out "race on sum: T"
        expect_out "omp_race.c:$(line_of real/omp_race.c 'BUG:')"
        expect_replay_identical "$(first_sched)"
        rm -rf "$WORK/out-dir"
        run_mdat run -n 50 -s 1 -o out-dir "$TARGETS/cxx_race_$opt"
        expect_status 1
        expect_out "race on hits: T"
        expect_out "cxx_race.cpp:$(line_of real/cxx_race.cpp 'BUG:')"
        expect_replay_identical "$(first_sched)"
    done
    # libgomp's waiting threads sleep at once under mdat (GOMP_SPINCOUNT=0
    # unless the user says how they wait): the spin is no visible step, so
    # the traces are the same with it (in an environment as long), and it
    # would only cost stops while no other thread can run.
    stops() { sed -n 's/.*"ptrace_stops_total": \([0-9]*\).*/\1/p' "$1"; }
    for spin in 000000 300000; do
        rm -rf out-dir
        GOMP_SPINCOUNT=$spin run_mdat run -n 3 -s 2 --strategy random --trace -o out-dir --json "spin$spin.json" \
            "$TARGETS/omp_constructs_o2"
        expect_status 0
        sed -E 's/[0-9]+\.[0-9]+ s\)/# s)/' "$WORK/out" >"$WORK/spin$spin.trace"
    done
    diff -u "$WORK/spin000000.trace" "$WORK/spin300000.trace" >"$WORK/spin.diff" ||
        fail "omp_constructs: the traces differ with libgomp spinning: $(head -n 12 "$WORK/spin.diff")"
    rm -rf out-dir
    run_mdat run -n 3 -s 2 --strategy random -o out-dir --json spin_default.json "$TARGETS/omp_constructs_o2"
    expect_status 0
    [ $(( $(stops spin_default.json) * 2 )) -le "$(stops spin300000.json)" ] ||
        fail "omp_constructs: $(stops spin_default.json) stops by default against $(stops spin300000.json) spinning"
    # C11's <threads.h> locks and condition variables are steps like POSIX's.
    for strategy in pct random; do
        run_mdat run -n 100 -s 2 --strategy $strategy "$TARGETS/c11_threads"
        expect_status 0
    done
    run_mdat run -n 1 -s 1 --trace "$TARGETS/c11_threads"
    expect_out "lock m                               c11_threads.c:"
    expect_out "cond_wait c "
    # A thread waiting inside libgomp is said to wait for what the user's
    # call there is about (omp_set_lock: the lock), placed at that call.
    found=
    for seed in 1 2 3 4; do
        run_mdat run --races off -n 1 -s $seed --strategy random --trace "$TARGETS/omp_constructs_o0"
        grep -q "wakes omp lock lk                    omp_constructs.c:$(line_of real/omp_constructs.c 'omp_set_lock(&lk)')" \
            "$WORK/out" && found=1 && break
    done
    [ -n "$found" ] || fail "no schedule showed a wait for the omp lock lk at its omp_set_lock"
    # Threads are named by what they run, never by an address.
    run_mdat run -n 1 -s 1 --trace "$TARGETS/omp_constructs_o0"
    expect_out "start omp parallel at omp_constructs.c:"
    run_mdat run -n 1 -s 1 --trace "$TARGETS/cxx_async_o0"
    expect_out "start lambda at cxx_async.cpp:"
    grep -E '^ +[0-9]+ [ *] T[0-9]+ +start 0x' "$WORK/out" && fail "a thread is named by an address"
    ;;
x86_rmw)
    # At -O2 counter++ is one instruction without LOCK: a load and a store
    # another thread can come between, as on hardware.
    # Not through a pipe: grep -q stops reading early, and under pipefail
    # objdump's SIGPIPE would fail the test.
    objdump -d "$TARGETS/counter_o2" >"$WORK/counter_o2.s"
    grep -qE 'add[lq]? +\$0x[0-9a-f]+,0x[0-9a-f]+\(%rip\)' "$WORK/counter_o2.s" ||
        fail "counter_o2 is not built as a one-instruction increment"
    run_mdat run --races=off -n 300 -s 1 -o out-dir "$TARGETS/counter_o2"
    expect_status 1
    expect_out "FAILURE assertion"
    sched=$(first_sched)
    grep -q " R counter -> " "${sched%.sched}.trace" || fail "the load half is not a step of its own"
    grep -q " W counter := " "${sched%.sched}.trace" || fail "the store half is not a step of its own"
    expect_replay_identical "$sched"
    # A compare-and-swap says what it did: stored, or found something else and failed.
    found_failed=
    for seed in 1 2 3 4 5 6 7 8; do
        run_mdat run --races=off -n 1 -s $seed --strategy random --trace "$TARGETS/cas_fail"
        expect_status 0
        expect_out "cas top expected"
        grep -q "cas top expected [^ ]*, found [^ ]* -> failed" "$WORK/out" && found_failed=1
    done
    [ -n "$found_failed" ] || fail "no schedule showed a failed CAS"
    for strategy in pct random; do
        run_mdat run --races=off -n 300 -s 2 --strategy $strategy "$TARGETS/cas_fail"
        expect_status 0
    done
    ;;
pages)
    # Page ownership: programs that work on data share little, so a run
    # costs steps for what is shared, not for the data; a racy variant of
    # each is still a race with both accesses named, its schedule says it
    # observed only shared pages and replays to it; a thread spinning on
    # memory nobody else touched yet is no hang.
    if ! grep -qw ospke /proc/cpuinfo; then
        echo "skipped: this CPU (or kernel) offers no protection keys"
        exit 77
    fi
    for prog in data_sum data_buffers data_matmul data_pipeline data_lookup; do
        src=bench/$prog.c
        run_mdat run -n 4 -s 1 --json run.json "$TARGETS/${prog}_o2"
        expect_status 0
        expect_out "no failure in 4 executions"
        python3 - run.json "$prog" 2>"$WORK/py.err" <<'PY' || fail "$prog: $(cat "$WORK/py.err")"
import json, sys
s = json.load(open(sys.argv[1]))
# Full observation made each of these 0.5-67 million steps an execution.
# data_matmul's matrices share their edge pages (c's last rows and b's
# first, c's quarters) and data_lookup's table shares its first page with
# the total added under the lock: those pages are observed.
assert s["visible_steps_total"] < 4 * 80000, (sys.argv[2], s["visible_steps_total"])

assert s["ptrace_stops_by_reason"]["pages"] > 0, s["ptrace_stops_by_reason"]
PY
        # (Ownership from execution 0 on: most of these races come before
        # its trial without ownership would give up.)
        rm -rf out-dir
        MDAT_ALWAYS_OWN_PAGES=1 run_mdat run -n 100 -s 1 -o out-dir "$TARGETS/${prog}_o2" racy
        expect_status 1
        expect_out "FAILURE race"
        lines=$(grep -n 'RACY:' "$SOURCES/$src" | cut -d: -f1 | tr '\n' '|')
        grep -qE "race on [^:]+: T[0-9]+ (reads|writes) at $prog.c:(${lines%|}) in [a-z_]+ \(step [0-9]+\), T[0-9]+ (read|wrote) at $prog.c:(${lines%|}) in" "$WORK/out" ||
            fail "$prog racy: the race is not named at its RACY lines ($lines)"
        grep -q '^pages own$' "$(first_sched)" || fail "$prog racy: the schedule does not say pages own"
        expect_replay_identical "$(first_sched)"
    done
    # Ownership only where it pays (explore/one_execution.c run_one,
    # explore/observe_choice.c): a program that mostly synchronises runs
    # every execution observing every access, without ownership's stops,
    # execution 0 included (its trial ended); with MDAT_ALWAYS_OWN_PAGES=1
    # every one follows ownership. One that works on data keeps ownership
    # from execution 0 on. A failure found after execution 0 says how it
    # observed memory, and replays so.
    for spec in "restroom_n 3 3 4 2:20:none" "data_sum_o2:4:more"; do
        IFS=: read -r args n want <<<"$spec"
        run_mdat run -n 1 -s 1 --json one.json $TARGETS/$args
        run_mdat run -n "$n" -s 1 --json many.json $TARGETS/$args
        MDAT_ALWAYS_OWN_PAGES=1 run_mdat run -n "$n" -s 1 --json always.json $TARGETS/$args
        python3 - "$WORK/one.json" "$WORK/many.json" "$WORK/always.json" "$want" 2>"$WORK/py.err" <<'PY' || fail "$args: $(cat "$WORK/py.err")"
import json, sys
one, many, always = (json.load(open(f))["ptrace_stops_by_reason"]["pages"] for f in sys.argv[1:4])
if sys.argv[4] == "none":
    assert one == 0 and many == 0, (one, many)
else:
    assert 0 < one < many, (one, many)
assert always > 0 and always >= many, (always, one, many)
PY
    done
    # Execution 0's failure found by its trial replays without ownership.
    rm -rf out-dir
    run_mdat run -n 20 -s 1 -o out-dir "$TARGETS/data_buffers_o2" racy
    expect_status 1
    expect_out "FAILURE race in execution 0"
    grep -q '^pages' "$(first_sched)" && fail "data_buffers racy: execution 0's trial says pages"
    expect_replay_identical "$(first_sched)"
    rm -rf out-dir
    run_mdat run -n 200 -s 1 -o out-dir "$TARGETS/barrier_lost_wakeup"
    expect_status 1
    found=$(sed -n 's/.*FAILURE deadlock in execution \([0-9]*\).*/\1/p' "$WORK/out" | head -n 1)
    [ -n "$found" ] && [ "$found" -gt 0 ] || fail "barrier_lost_wakeup: no deadlock found after execution 0 ($found)"
    grep -q '^pages' "$(first_sched)" && fail "barrier_lost_wakeup: execution $found observed only shared pages"
    expect_replay_identical "$(first_sched)"
    # The same racy program observing every access finds the same race.
    rm -rf out-dir
    MDAT_NO_PAGE_OWNERSHIP=1 run_mdat run -n 100 -s 1 -o out-dir "$TARGETS/data_lookup_o2" racy
    expect_status 1
    expect_out "FAILURE race"
    ! grep -q '^pages' "$(first_sched)" || fail "MDAT_NO_PAGE_OWNERSHIP: the schedule says pages"
    # A flag set by a thread main waits for by spinning: main owns it until
    # the other touches it, which it cannot while main spins alone; the run
    # starts again with the flag observed, and ends.
    run_mdat run -n 5 -s 1 --races=off --timeout 30 "$TARGETS/race_unlocked_flag"
    expect_status 0
    expect_out "no failure in 5 executions"
    ;;
heap_errors)
    # A double free and a use after free that crash nothing (two threads'
    # caches, memory still mapped): found by every strategy, named with the
    # block, who freed it, at which step and line, and replayed.
    alloc=$(line_of heap/refcount_bug.c ALLOC)
    for strategy in portfolio random pct pos dfs dpor; do
        rm -rf out-dir
        run_mdat run -n 300 -s 2 --strategy $strategy -o out-dir --json run.json "$TARGETS/heap_refcount_bug"
        expect_status 1
        expect_out "FAILURE heap-error"
        grep -qE "(double free: T[23] frees|use after free: T[23] reads) heap#1 \(malloc at refcount_bug.c:$alloc\)(\+[0-9]+)?, but T[23] freed it at step [0-9]+ \(refcount_bug.c:[0-9]+\)" "$WORK/out" ||
            fail "refcount_bug ($strategy): $(grep -A1 FAILURE "$WORK/out" | tail -1)"
        expect_json '"kind": "heap-error"' run.json
        expect_replay_identical "$(first_sched)"
    done
    alloc=$(line_of heap/use_after_free.c ALLOC)
    bug=$(line_of heap/use_after_free.c BUG:)
    for strategy in portfolio random pct pos dfs dpor; do
        rm -rf out-dir
        run_mdat run -n 300 -s 2 --strategy $strategy -o out-dir "$TARGETS/heap_use_after_free"
        expect_status 1
        expect_out "use after free: T2 reads heap#1 (malloc at use_after_free.c:$alloc)+4, but T1 freed it at step"
        expect_out "(use_after_free.c:$bug)"
        expect_out "use_after_free.c:$(line_of heap/use_after_free.c FAILS:) worker"
        expect_replay_identical "$(first_sched)"
    done
    # The freeing thread reads its block again, on a page only it touched
    # (with page ownership in every execution, and as it comes).
    alloc=$(line_of heap/own_page_uaf.c ALLOC)
    for strategy in portfolio random pct dpor always; do
        rm -rf out-dir
        always=0
        [ $strategy = always ] && strategy=portfolio && always=1
        MDAT_ALWAYS_OWN_PAGES=$always run_mdat run -n 50 -s 2 --strategy $strategy -o out-dir "$TARGETS/heap_own_page_uaf"
        expect_status 1
        expect_out "use after free: T2 reads heap#1 (malloc at own_page_uaf.c:$alloc)+20, but T2 freed it at step"
        expect_out "(own_page_uaf.c:$(line_of heap/own_page_uaf.c FREE))"
        expect_replay_identical "$(first_sched)"
    done
    # Blocks of C's aligned allocators are heap blocks like malloc's: a
    # double free of a posix_memalign block was a SIGABRT crash in libc (or
    # nothing, under mdat's allocator), a use after free of an aligned_alloc,
    # memalign or valloc block no failure at all.
    alloc=$(line_of heap/aligned_blocks.c POSIX_MEMALIGN:)
    freed=$(line_of heap/aligned_blocks.c FREE2:)
    for strategy in portfolio random pct pos dfs dpor; do
        rm -rf out-dir
        run_mdat run -n 300 -s 2 --strategy $strategy -o out-dir --json run.json "$TARGETS/heap_aligned_blocks" double-free
        expect_status 1
        grep -qE "double free: T[23] frees heap#1 \(posix_memalign at aligned_blocks.c:$alloc\), but T[23] freed it at step [0-9]+ \(aligned_blocks.c:$freed\)" "$WORK/out" ||
            fail "aligned_blocks double-free ($strategy): $(grep -A1 FAILURE "$WORK/out" | tail -1)"
        expect_json '"kind": "heap-error"' run.json
        expect_replay_identical "$(first_sched)"
    done
    for how in use-after-free:aligned_alloc:ALIGNED_ALLOC memalign:memalign:BY_MEMALIGN valloc:valloc:VALLOC; do
        IFS=: read -r mode fn marker <<<"$how"
        for strategy in portfolio dpor; do
            rm -rf out-dir
            run_mdat run -n 300 -s 2 --strategy $strategy -o out-dir "$TARGETS/heap_aligned_blocks" "$mode"
            expect_status 1
            expect_out "use after free: T2 reads heap#1 ($fn at aligned_blocks.c:$(line_of heap/aligned_blocks.c "$marker:"))+4, but T1 freed it at step"
            expect_out "(aligned_blocks.c:$(line_of heap/aligned_blocks.c FREE:))"
            expect_out "aligned_blocks.c:$(line_of heap/aligned_blocks.c USE:) serve"
            expect_replay_identical "$(first_sched)"
        done
    done
    # A block freed while another thread is in the middle of reading it: the
    # reader had taken the block's page over (ordered after its creation),
    # and its reads were no steps, so no schedule put the free between them
    # under page ownership (pos, random, surw said "no failure"). The free
    # is a use of the whole block: unordered with the reader's, it makes
    # the page observed from the start of a rerun.
    alloc=$(line_of heap/free_in_use.c ALLOC)
    for build in o0 o2; do
        for strategy in portfolio random pct pos surw dfs dpor; do
            rm -rf out-dir
            run_mdat run -n 300 -s 2 --strategy $strategy -o out-dir --json run.json "$TARGETS/heap_free_in_use_$build"
            expect_status 1
            grep -qE "use after free: T2 reads heap#1 \(malloc at free_in_use.c:$alloc\)(\+[0-9]+)?, but T1 freed it at step [0-9]+ \(free_in_use.c:$(line_of heap/free_in_use.c BUG:)\)" "$WORK/out" ||
                fail "free_in_use_$build ($strategy): $(grep -A1 -E 'FAILURE|no failure' "$WORK/out" | head -2 | tail -1)"
            expect_out "free_in_use.c:$(line_of heap/free_in_use.c USE:) summer"
            expect_json '"kind": "heap-error"' run.json
            expect_replay_identical "$(first_sched)"
        done
    done
    # Correct programs whose blocks are freed and handed out again (by malloc,
    # and by the C library inside strdup and asprintf), across threads.
    for prog in heap_reuse_ok heap_refcount_ok heap_queue correct_prodcons cxx_threads_o2; do
        for strategy in portfolio dfs dpor; do
            run_mdat run -n 200 -s 3 --strategy $strategy "$TARGETS/$prog"
            grep -q "FAILURE" "$WORK/out" && fail "$prog ($strategy): $(grep -A1 FAILURE "$WORK/out" | tail -1)"
        done
    done
    ;;
races)
    # Racy programs no assert catches: the race itself is the failure, with

    # both accesses named, and the schedule replays to it.
    for strategy in random pct; do
        for case in "race_unlocked_flag:done:races/unlocked_flag.c" "race_double_checked:instance:races/double_checked.c" \
                    "race_list_insert:head:races/list_insert.c" "lost_update:counter:lost_update.c"; do
            IFS=: read -r prog var src <<<"$case"
            rm -rf out-dir
            run_mdat run -n 100 -s 1 --strategy $strategy -o out-dir --json run.json "$TARGETS/$prog"
            expect_status 1
            expect_out "FAILURE race"
            grep -qE "race on $var: T[0-9]+ (reads|writes) at ${src##*/}:[0-9]+ in [a-z_]+ \(step [0-9]+\), T[0-9]+ (read|wrote) at ${src##*/}:[0-9]+ in [a-z_]+ \(step [0-9]+\), with no synchronization between them" "$WORK/out" ||
                fail "$prog ($strategy): no race on $var named with both accesses"
            expect_json '"kind": "race"' run.json
            expect_replay_identical "$(first_sched)"
        done
    done
    # A C++ program's heap: mdat's allocator reserved its region before the
    # entry point (the C++ library's constructors allocate), and its pages
    # are followed all the same (page ownership of the randomized strategies).
    alloc=$(line_of races/cxx_heap_counter.cpp ALLOC)
    for prog in race_cxx_heap_counter_o0 race_cxx_heap_counter_o2; do
        for strategy in portfolio random pct; do
            run_mdat run -n 100 -s 1 --strategy $strategy "$TARGETS/$prog"
            expect_status 1
            expect_out "race on heap#1 (new at cxx_heap_counter.cpp:$alloc)"
        done
    done
    # Correctly synchronized programs in many styles: no race under either strategy.
    for prog in race_spin_xchg race_c11_flag race_tls_and_queue race_cxx_condvar futex_flag correct_prodcons \
                heap_queue cxx_threads cxx_threads_o2 correct_semaphores barrier_rwlock race_c11_heap_flag_o0 \
                race_c11_heap_flag_o2 race_cxx_barrier_o0 race_cxx_barrier_o2; do

        for strategy in random pct; do
            run_mdat run -n 100 -s 3 --strategy $strategy "$TARGETS/$prog"
            expect_status 0
            grep -q "FAILURE" "$WORK/out" && fail "$prog ($strategy): $(grep -A1 FAILURE "$WORK/out" | tail -1)"
        done
    done
    # warn: each pair of racing places told once, and the run goes on to the assert.
    run_mdat run -n 50 -s 1 --races=warn "$TARGETS/lost_update"
    expect_status 1
    expect_out "FAILURE assertion"
    expect_err "mdat: warning: race on counter"
    pairs=$(grep -c "mdat: warning: race on counter" "$WORK/err")
    distinct=$(grep "mdat: warning: race on counter" "$WORK/err" | sed 's/(step [0-9]*)//g; s/T[0-9]*//g; s/(execution [0-9]*)//' | sort -u | wc -l)
    [ "$pairs" -eq "$distinct" ] || fail "a pair of racing places was warned about more than once ($pairs warnings, $distinct pairs)"
    run_mdat run -n 50 -s 1 --races=off "$TARGETS/lost_update"
    expect_status 1
    expect_out "FAILURE assertion"
    run_mdat run --races=maybe "$TARGETS/lost_update"
    expect_status 2
    expect_err "--races wants fail, warn or off"
    ;;
preempt)
    # --preempt sync: switches only before calls; the lock-order deadlock and
    # the race are still found, the schedule says sync and replays exactly.
    run_mdat run -n 200 -s 1 --preempt sync -o out-dir "$TARGETS/deadlock_lock_order"
    expect_status 1
    expect_out "FAILURE deadlock"
    grep -q '^preempt sync$' "$(first_sched)" || fail "the schedule does not record --preempt sync"
    expect_replay_identical "$(first_sched)"
    rm -rf out-dir
    run_mdat run -n 50 -s 1 --preempt sync -o out-dir "$TARGETS/lost_update"
    expect_status 1
    expect_out "FAILURE race"
    expect_replay_identical "$(first_sched)"
    # A thread spinning on a plain flag still lets the others in.
    run_mdat run -n 20 -s 1 --preempt sync --races=off "$TARGETS/race_unlocked_flag"
    expect_status 0
    run_mdat run -n 50 -s 2 --preempt races --races=warn "$TARGETS/correct_prodcons"
    expect_status 0
    run_mdat run --preempt races --races=off "$TARGETS/lost_update"
    expect_status 2
    expect_err "--preempt races needs the race detector"
    run_mdat run --preempt often "$TARGETS/lost_update"
    expect_status 2
    ;;
tso)
    # The store-buffering litmus test and Peterson without a fence: correct
    # on a sequentially consistent machine, broken by x86's store buffers.
    for prog in tso_store_buffering tso_peterson_nofence tso_peterson_fence; do
        for strategy in random pct; do
            run_mdat run -n 300 -s 1 --races=off --strategy $strategy "$TARGETS/$prog"
            expect_status 0
        done
    done
    # The schedules as found (--no-shrink): shrunk, they may need no flush
    # at all, since every buffer is committed when its thread ends.
    for prog in tso_store_buffering tso_peterson_nofence; do
        rm -rf out-dir
        run_mdat run -n 300 -s 1 --races=off --strategy random --memory-model tso --no-shrink -o out-dir "$TARGETS/$prog"
        expect_status 1
        expect_out "FAILURE assertion"
        sched=$(first_sched)
        grep -q '^memory-model tso$' "$sched" || fail "$prog: the schedule does not say memory-model tso"
        grep -qE '(^| )[0-9]+:f[0-9]+' "$sched" || fail "$prog: no flush choice in the schedule"
        grep -qE ' flush [a-z_]+(\[[0-9]\])? := [0-9]+ +-> T[0-9]+.s store at ' "${sched%.sched}.trace" ||
            fail "$prog: the trace shows no store reaching memory"
        expect_replay_identical "$sched"
    done
    # With the fence (mfence) it is correct on x86 too; so are the mutex,
    # semaphore, C11-atomic and xchg-spinlock programs.
    for prog in tso_peterson_fence race_spin_xchg race_c11_flag correct_prodcons correct_semaphores; do
        for strategy in random pct; do
            run_mdat run -n 200 -s 2 --strategy $strategy --memory-model tso $( [ $prog = tso_peterson_fence ] && echo --races=off ) "$TARGETS/$prog"
            expect_status 0
            grep -q FAILURE "$WORK/out" && fail "$prog under tso ($strategy): $(grep -A1 FAILURE "$WORK/out" | tail -1)"
        done
    done
    # A CPU drains its store buffer: pct once kept a pending store from the
    # other thread for ever and called the spin a livelock (execution 38 of
    # seed 1). The bug is an assertion, or nothing found; never a livelock.
    run_mdat run -n 200 -s 1 --races=off --strategy pct --memory-model tso "$TARGETS/tso_peterson_nofence"
    grep -q "FAILURE livelock" "$WORK/out" && fail "Peterson under tso (pct): $(grep -A1 FAILURE "$WORK/out" | tail -1)"
    run_mdat run --memory-model arm "$TARGETS/lost_update"
    expect_status 2
    expect_err "--memory-model wants sc or tso"
    ;;
invariant)
    # A broken invariant fails at the first step after which it is false,
    # with the values of its terms; the schedule replays to it.
    run_mdat run -n 100 -s 1 --races=off -o out-dir --json run.json --invariant 'counter <= 1' "$TARGETS/lost_update"
    expect_status 1
    expect_out "FAILURE invariant"
    expect_out "invariant counter <= 1 broken: counter = 2"
    expect_json '"kind": "invariant"' run.json
    expect_replay_identical "$(first_sched)"
    # One that holds (the lock keeps the room to one sex and the capacity) passes.
    run_mdat run -n 50 -s 1 --invariant 'inside[0] == 0 || inside[1] == 0' --invariant 'inside[0] + inside[1] <= capacity' \
        "$TARGETS/restroom_n" 3 3 2 2
    expect_status 0
    # Bad expressions are the user's mistake: exit 2 before anything runs.
    run_mdat run --invariant 'no_such_variable > 0' "$TARGETS/lost_update"
    expect_status 2
    expect_err "invariant 'no_such_variable > 0': no variable named 'no_such_variable'"
    run_mdat run --invariant 'counter >' "$TARGETS/lost_update"
    expect_status 2
    ;;
checker)
    run_mdat run --races=off -n 300 -s 9 -o out-dir --check "$TARGETS/check_mutex_log.sh" "$TARGETS/output_checker"
    expect_status 1
    expect_out "FAILURE checker"
    expect_out "mutual exclusion violated"
    sched=$(first_sched)
    [ -s "${sched%.sched}.stdout" ] || fail "the failing execution's output was not kept"
    # A schedule is data: its checker runs only when the user says so.
    run_mdat replay "$sched"
    expect_status 2
    expect_err "asks to check the program's output with: $TARGETS/check_mutex_log.sh"
    expect_err "pass --trust-check to run it"
    expect_replay_identical "$sched" --trust-check
    expect_replay_identical "$sched" --check "$TARGETS/check_mutex_log.sh"
    # A checker the shell cannot find is mdat's problem to report, not the program's.
    run_mdat run -n 5 -s 1 --check ./no_such_checker.sh "$TARGETS/correct_counter"
    expect_status 3
    expect_err "cannot run the checker \"./no_such_checker.sh\""
    ;;
checker_evidence)
    # A lost update that only the output shows: the report quotes the output
    # the checker rejected and what the checker said, in text, JSON, JUnit
    # and on replay; the sum quoted is the one the program printed.
    run_mdat run --races=off -n 200 -s 1 -o out-dir --json run.json --junit run.xml \
        --check "$TARGETS/check_sum.sh" "$TARGETS/lost_update_sum"
    expect_status 1
    expect_out "FAILURE checker"
    expect_out "  the output the checker rejected:"
    expect_out "    | rounds=10"
    expect_out "  the checker said:"
    sched=$(first_sched)
    printed=$(grep '^sum=' "${sched%.sched}.stdout")
    [ -n "$printed" ] || fail "the failing execution's output has no sum= line"
    grep -qxF -- "    | $printed" "$WORK/out" || fail "the report does not quote the program's $printed"
    got=${printed#sum=}
    [ "$got" -lt 110 ] || fail "the rejected output's sum is $got: no update was lost"
    grep -qxF -- "    | expected sum=110, got sum=$got ($((110 - got)) lost)" "$WORK/out" ||
        fail "the report does not quote the checker's words"
    python3 - "$WORK/run.json" "$printed" <<'PY' || fail "run.json: the checker's evidence is missing or wrong"
import json, sys
f = json.load(open(sys.argv[1]))["failures"][0]
e = f["checker_evidence"]
assert e["output_first_lines"] == ["rounds=10", sys.argv[2], "done"], e
assert e["output_lines"] == 3 and e["checker_said"][0].startswith("expected sum=110, got "), e
PY
    grep -qF -- "| $printed" run.xml || fail "the JUnit report does not quote the output"
    run_mdat replay --trust-check "$sched"
    expect_status 1
    expect_out "    | $printed"
    expect_out "  the checker said:"
    # Other failures have no such section, and null in JSON.
    run_mdat run --races=off -n 300 -s 1 -o out-dir2 --json other.json "$TARGETS/lost_update"
    expect_status 1
    grep -q "the output the checker rejected" "$WORK/out" && fail "an assertion shows checker evidence"
    expect_json '"checker_evidence": null' other.json
    ;;
exit_status)
    run_mdat run -n 5 -s 1 "$TARGETS/exit_nonzero"
    expect_status 0
    run_mdat run -n 5 -s 1 --fail-on-exit -o out-dir "$TARGETS/exit_nonzero"
    expect_status 1
    expect_out "FAILURE exit-status"
    expect_out "exited with status 3"
    ;;
thread_ends)
    # main leaving with pthread_exit while its workers run: no failure, the
    # workers' output, and their accesses emulated as before main left (the
    # memory is reached through a live thread). The stops say what they were
    # for: no thread but main reports an exit event; each new thread costs
    # its clone event and its first stop. (Counted with every access
    # observed: with page ownership, faults and key changes cost stops of
    # their own, and e2e.pages counts those.)
    MDAT_NO_PAGE_OWNERSHIP=1 run_mdat run -n 100 -s 1 --json run.json -o out-dir "$TARGETS/thread_ends" main-first

    expect_status 0
    expect_out "no failure in 100 executions"
    python3 - run.json 2>"$WORK/py.err" <<'PY' || fail "the stops by reason are not what the program makes: $(cat "$WORK/py.err")"
import json, sys
s = json.load(open(sys.argv[1]))
r = s["ptrace_stops_by_reason"]
runs, steps = s["schedules_run"], s["visible_steps_total"]
assert runs == 100, runs
assert sum(r.values()) <= s["ptrace_stops_total"], (r, s["ptrace_stops_total"])
assert 0 < r["step"] <= steps, (r["step"], steps)
assert r["thread_end"] == 0, r
assert r["thread_start"] == 4 * runs, r          # two workers: clone event + first stop each
assert r["single_step"] == 0, r                  # every access emulated, after main left too
assert r["call"] <= runs, r                      # no stop for the loader's locking in pthread_create
PY
    # A worker's exit() ends every thread: one step, 'program ends'.
    run_mdat run -n 20 -s 1 --fail-on-exit -o out-dir "$TARGETS/thread_ends" worker-exit
    expect_status 1
    expect_out "FAILURE exit-status"
    expect_out "exited with status 4"
    expect_replay_identical "$(first_sched)"
    run_mdat run -n 1 -s 1 --trace "$TARGETS/thread_ends" worker-exit
    expect_out "exit status 4                        thread_ends.c:$(line_of thread_ends.c 'EXIT:') exiting_worker  -> program ends"
    run_mdat run -n 100 -s 1 "$TARGETS/thread_ends" cancel
    expect_status 0
    expect_out "no failure in 100 executions"
    ;;
run_ahead)
    # mdat runs the user's code between two operations itself when it can
    # (engine/exec_ahead.c): what it shows must be exactly what it shows
    # when the CPU runs that code, step for step, in every style of code,
    # and it must save stops where the code is simple (C++ at -O0).
    stops() { sed -n 's/.*"ptrace_stops_total": \([0-9]*\).*/\1/p' "$1"; }
    steps() { sed -n 's/.*"visible_steps_total": \([0-9]*\).*/\1/p' "$1"; }
    for spec in cxx_threads race_cxx_condvar lost_update counter_o2 names heap_queue c11_threads \
                omp_race_o0 stdin_sum thread_ends "many_increments 6 40"; do
        set -- $spec
        prog=$1
        shift
        [ -x "$TARGETS/$prog" ] || fail "no target $prog"
        rm -rf out-dir
        MDAT_NO_RUN_AHEAD=1 run_mdat run -n 4 -s 3 --keep-going --trace -o out-dir --json cpu.json \
            "$TARGETS/$prog" "$@"
        sed -E 's/[0-9]+\.[0-9]+ s\)/# s)/' "$WORK/out" >"$WORK/cpu.trace"
        rm -rf out-dir
        # The same environment, as long (the program's stack starts below it).
        MDAT_NO_RUN_AHEAD=0 run_mdat run -n 4 -s 3 --keep-going --trace -o out-dir --json ahead.json \
            "$TARGETS/$prog" "$@"
        sed -E 's/[0-9]+\.[0-9]+ s\)/# s)/' "$WORK/out" >"$WORK/ahead.trace"
        [ "$(step_lines "$WORK/cpu.trace" | wc -l)" -gt 10 ] || fail "$prog: too few steps to compare"
        diff -u "$WORK/cpu.trace" "$WORK/ahead.trace" >"$WORK/trace.diff" ||
            fail "$prog: the traces differ with the code run ahead: $(head -n 12 "$WORK/trace.diff")"
        [ "$(stops ahead.json)" -le "$(stops cpu.json)" ] || fail "$prog: more stops when run ahead"
        if [ "$prog" = cxx_threads ]; then
            # About 3.7 stops per step on the CPU (this pointers into main's
            # stack), half that at most when run ahead.
            [ $(( $(stops ahead.json) * 2 )) -le "$(stops cpu.json)" ] ||
                fail "cxx_threads: $(stops ahead.json) stops run ahead against $(stops cpu.json)"
        fi
        if [ "$prog" = many_increments ]; then
            # The lock's and unlock's fast paths in libc, their futex calls
            # when the lock is contended and the loop between them are all
            # carried out by mdat: only making and ending threads stop.
            [ $(( $(stops ahead.json) * 10 )) -le "$(steps ahead.json)" ] ||
                fail "many_increments: $(stops ahead.json) stops for $(steps ahead.json) steps run ahead"
        fi
    done
    ;;
placement)
    # Two mdat runs on one machine do not share a CPU while another idles:
    # the second one's program (which says where it may run) is pinned away
    # from the CPU the first one is busy on.
    [ "$(nproc)" -ge 2 ] || { echo "placement: one CPU, nothing to choose"; exit 0; }
    "$MDAT" run -n 1000000 -j 1 --timeout 60 -o busy-out "$TARGETS/many_increments" 2 100000 \
        </dev/null >/dev/null 2>&1 &
    busy=$!
    busy_cpu=""
    for _ in $(seq 100); do
        busy_cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\)$/\1/p' /proc/$busy/status 2>/dev/null)
        [ -n "$busy_cpu" ] && break
        sleep 0.05
    done
    [ -n "$busy_cpu" ] || { kill -9 $busy; fail "the first mdat did not pin itself to one CPU"; }
    sleep 0.5
    run_mdat run -n 1 -s 1 --check "! grep -q 'Cpus_allowed_list:[[:space:]]*$busy_cpu\$'" -o out-dir \
        /bin/sh -c 'grep Cpus_allowed_list /proc/self/status'
    kill -9 $busy
    wait $busy 2>/dev/null
    expect_status 0
    ;;
bad_input)
    for f in not_elf.txt script.sh elf32.bin empty_dir does-not-exist; do
        run_mdat run -n 1 "$TARGETS/$f"
        expect_status 3
        [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "$f: error is not one line: $(cat "$WORK/err")"
        [ ! -s "$WORK/out" ] || fail "$f: printed on stdout: $(cat "$WORK/out")"
    done
    run_mdat run -n 1 "$TARGETS/elf32.bin"
    expect_err "32-bit ELF is not supported"
    run_mdat run -n 1 "$TARGETS/empty_dir"
    expect_err "is a directory"
    run_mdat run -n 1 "$TARGETS/does-not-exist"
    expect_err "no such file"
    ;;
usage)
    run_mdat; expect_status 2
    run_mdat run; expect_status 2
    run_mdat run --strategy magic "$TARGETS/lost_update"; expect_status 2
    expect_err "unknown strategy"
    run_mdat run -n zero "$TARGETS/lost_update"; expect_status 2
    run_mdat frobnicate; expect_status 2
    run_mdat replay; expect_status 2
    run_mdat --help; expect_status 0; expect_out "replay"
    run_mdat run --help; expect_status 0; expect_out "--max-steps"
    run_mdat --version; expect_status 0; expect_out "mdat 0."
    # A long option without its value is named as typed, in one line.
    run_mdat run --watch; expect_status 2
    expect_err "mdat run: --watch is unknown or needs a value (see mdat run --help)"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "more than one line for a missing option value"
    ;;
replay_refuses)
    run_mdat run -n 300 -s 1 -o out-dir "$TARGETS/deadlock_lock_order"
    sched=$(first_sched)
    sed 's/^sha256 .*/sha256 0000000000000000000000000000000000000000000000000000000000000000/' "$sched" >other.sched
    run_mdat replay other.sched
    expect_status 3
    expect_err "is not the binary it was recorded with"
    # Point every choice at a thread that never exists: replay must say it diverged.
    awk '/^choices/{c=1;print;next} c&&!/^end/{gsub(/:t[0-9]+/,":t99")} {print}' "$sched" >bad.sched
    run_mdat replay bad.sched
    expect_status 3
    expect_err "diverged"
    printf 'not a schedule\n' >junk.sched
    run_mdat replay junk.sched
    expect_status 3
    expect_err "not an mdat schedule file"
    ;;
determinism)
    # Same seed, same trace; and -j does not change which failure is reported.
    "$MDAT" run -n 1 -s 42 --trace "$TARGETS/correct_prodcons" >t1 2>&1
    "$MDAT" run -n 1 -s 42 --trace "$TARGETS/correct_prodcons" >t2 2>&1
    diff <(grep -E '^ +[0-9]+ ' t1) <(grep -E '^ +[0-9]+ ' t2) >/dev/null || fail "two runs with seed 42 differ"
    [ "$(grep -cE '^ +[0-9]+ ' t1)" -gt 10 ] || fail "trace too short: $(cat t1)"
    run_mdat run --races=off -n 300 -s 5 -j 1 -o j1 "$TARGETS/lost_update"
    grep -o 'in execution [0-9]*' "$WORK/out" >j1.txt
    run_mdat run --races=off -n 300 -s 5 -j 2 -o j2 "$TARGETS/lost_update"
    grep -o 'in execution [0-9]*' "$WORK/out" >j2.txt
    [ -s j1.txt ] && cmp -s j1.txt j2.txt || fail "-j 1 and -j 2 report different executions: $(cat j1.txt) vs $(cat j2.txt)"
    # Many more workers than CPUs (and than 64): still the same answer.
    run_mdat run --races=off -n 300 -s 5 -j 70 -o j70 "$TARGETS/lost_update"
    cpus=$(nproc)
    expect_out "mdat: -j 70 is more than the $cpus CPU"
    expect_out ", $cpus job"
    grep -o 'in execution [0-9]*' "$WORK/out" >j70.txt
    cmp -s j1.txt j70.txt || fail "-j 1 and -j 70 report different executions: $(cat j1.txt) vs $(cat j70.txt)"
    ;;
keep_going)
    run_mdat run --races=off -n 200 -s 3 --keep-going -o out-dir --json run.json "$TARGETS/lost_update"
    expect_status 1
    expect_out "after 200 executions"
    ;;
trace_files)
    # A failure's one re-run saves its trace in every format, and the reports name them.
    run_mdat run -n 300 -s 1 -o out-dir --json run.json "$TARGETS/deadlock_lock_order"
    expect_status 1
    sched=$(first_sched)
    stem=${sched%.sched}
    for suffix in trace status jsonl; do
        [ -s "$stem.$suffix" ] || fail "no .$suffix trace saved with the failure"
        expect_out "out-dir/$(basename "$stem").$suffix"
    done
    expect_json "\"trace_file\": \"out-dir/[^\"]*\\.trace\"" run.json
    expect_json "\"log\": \"out-dir/[^\"]*\\.trace\"" run.json
    expect_json "\"status\": \"out-dir/[^\"]*\\.status\"" run.json
    expect_json "\"json\": \"out-dir/[^\"]*\\.jsonl\"" run.json
    step_lines "$stem.status" | diff -u "$stem.trace" - >status.diff ||
        fail "the steps of the .status trace differ from the .trace: $(head -20 status.diff)"
    check_jsonl "$stem.jsonl" "$stem.trace"
    ;;
trace_formats)
    # --trace=FORMAT[,every] on run and replay.
    run_mdat run -n 1 -s 1 --trace=json "$TARGETS/correct_counter"
    expect_status 0
    json_lines "$WORK/out" >run.jsonl
    [ "$(wc -l <run.jsonl)" -gt 10 ] || fail "--trace=json printed too few JSON lines: $(cat run.jsonl)"
    check_jsonl run.jsonl
    run_mdat run -n 1 -s 1 --trace "$TARGETS/correct_counter"
    step_lines "$WORK/out" >plain.trace
    run_mdat run -n 1 -s 1 --trace=log "$TARGETS/correct_counter"
    step_lines "$WORK/out" | diff -u plain.trace - >log.diff || fail "--trace=log differs from --trace: $(head log.diff)"
    for spec in status status,every json,every log,every; do
        run_mdat run -n 1 -s 1 --trace=$spec "$TARGETS/correct_counter"
        expect_status 0
        [ "$(step_lines "$WORK/out" | wc -l)" -gt 10 ] || [ "${spec%%,*}" = json ] ||
            fail "--trace=$spec printed too few steps"
    done
    for bad in bogus status,sometimes ''; do
        run_mdat run -n 1 --trace="$bad" "$TARGETS/correct_counter"
        expect_status 2
        [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "--trace=$bad: error is not one line: $(cat "$WORK/err")"
    done
    run_mdat run -n 1 --trace=bogus "$TARGETS/correct_counter"
    expect_err 'unknown trace format "bogus"'
    # Replay renders a saved schedule exactly as the failure's re-run did.
    run_mdat run -n 300 -s 1 -o out-dir "$TARGETS/deadlock_lock_order"
    sched=$(first_sched)
    run_mdat replay --trace=json "$sched"
    expect_status 1
    json_lines "$WORK/out" | diff -u "${sched%.sched}.jsonl" - >replay.diff ||
        fail "replay --trace=json differs from the saved .jsonl: $(head -20 replay.diff)"
    run_mdat replay --trace=status "$sched"
    expect_status 1
    sed -n '/^mdat: replaying/,/^mdat: reproduced/p' "$WORK/out" | sed '1d;$d' |
        diff -u "${sched%.sched}.status" - >replay.diff ||
        fail "replay --trace=status differs from the saved .status: $(head -20 replay.diff)"
    run_mdat replay --trace=status,every "$sched"
    expect_status 1
    run_mdat replay --trace=bogus "$sched"
    expect_status 2
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "replay --trace=bogus: error is not one line: $(cat "$WORK/err")"
    ;;
sigkill)
    # Killing mdat with SIGKILL must not leave any traced process behind.
    "$MDAT" run -n 100000 -s 1 -j 2 -o out-dir "$TARGETS/correct_prodcons" >/dev/null 2>&1 &
    mdat_pid=$!
    sleep 1.5
    pgrep -f "$TARGETS/correct_prodcons" >/dev/null || fail "no tracee was running to begin with"
    kill -KILL "$mdat_pid"
    wait "$mdat_pid" 2>/dev/null
    for _ in $(seq 50); do
        pgrep -f "$TARGETS/correct_prodcons" >/dev/null || break
        sleep 0.1
    done
    left=$(pgrep -af "$TARGETS/correct_prodcons")
    [ -z "$left" ] || fail "processes left behind after SIGKILL: $left"
    ;;
signal_wakes_waiter)
    # A signal sent to a thread blocked in mdat's model interrupts its wait,
    # as the kernel's would: no false deadlock, the handler runs.
    run_mdat run -n 100 -s 1 -o out-dir "$TARGETS/signal_wakes_waiter"
    expect_status 0
    run_mdat run -n 1 -s 1 --trace "$TARGETS/signal_wakes_waiter"
    expect_status 0
    expect_out "signal wake interrupts sem_wait"
    expect_out "woken"
    ;;
signal_during_step)
    # A signal due before an operation that mdat single-steps: the trace
    # says the handler came first and the operation is still to do.
    run_mdat run -n 1 -s 1 --strategy random --trace "$TARGETS/signal_during_step"
    expect_status 0
    expect_out "atomic counter                       signal_during_step.c:$(line_of signal_during_step.c 'XADD:') main  -> SIGUSR1 came first: its handler runs, the operation is still to do"
    expect_out "3 1"
    ;;
clock)
    # Time is virtual: a program seeding rand() with time() and timing a
    # sleep prints the same in every run of a schedule, and replays exactly.
    run_mdat run -n 1 -s 3 "$TARGETS/clock_reader"
    expect_status 0
    grep -v '^mdat' "$WORK/out" >first.txt
    grep -qE '^rounds [1-4] [1-4] total [2-8] on 2026-01-01, 2 s later$' first.txt ||
        fail "unexpected output of clock_reader: $(cat first.txt)"
    run_mdat run -n 1 -s 3 "$TARGETS/clock_reader"
    grep -v '^mdat' "$WORK/out" >second.txt
    cmp -s first.txt second.txt || fail "two runs of one schedule printed different things: $(cat first.txt second.txt)"
    ;;
protections)
    # mdat performs plain loads and stores itself; a forbidden one must
    # still fault exactly where the CPU would make it fault.
    for which in rodata guard; do
        marker=$(echo "$which" | tr a-z A-Z)
        rm -rf out-dir
        run_mdat run -n 5 -s 1 -o out-dir "$TARGETS/protections" "$which"
        expect_status 1
        expect_out "FAILURE crash"
        expect_out "killed by SIGSEGV accessing 0x"
        expect_out "protections.c:$(line_of protections.c "$marker:")"
    done
    ;;
junit)
    # --junit FILE: one test case for the program, failed with the report and
    # the replay command, valid against docs/junit.xsd; a correct program's
    # case passes; an unwritable path is a usage error before exploring.
    xsd="$SOURCES/../../docs/junit.xsd"
    run_mdat run -n 20 -s 1 -j 1 -o out-dir --junit deadlock.xml "$TARGETS/deadlock_lock_order"
    expect_status 1
    run_mdat run -n 5 -s 1 -j 1 -o out-dir --junit correct.xml "$TARGETS/correct_counter"
    expect_status 0
    xmllint --noout --schema "$xsd" deadlock.xml correct.xml 2>xmllint.err || fail "not valid: $(cat xmllint.err)"
    python3 - deadlock.xml correct.xml "$(first_sched)" <<'PY' || fail "the JUnit reports do not say what mdat found"
import sys, xml.etree.ElementTree as ET
bad, good, sched = sys.argv[1:]
root = ET.parse(bad).getroot()
assert root.tag == "testsuites" and root.get("tests") == "1" and root.get("failures") == "1", root.attrib
cases = root.findall("testsuite/testcase")
assert len(cases) == 1 and cases[0].get("name").endswith("deadlock_lock_order"), cases
f = cases[0].find("failure")
assert f.get("type") == "deadlock" and "wait cycle T2 -> T3 -> T2" in f.get("message"), f.attrib
assert "replay:   mdat replay " + sched.split("/")[-2] + "/" + sched.split("/")[-1] in f.text, f.text
assert "threads:" in f.text and "last steps:" in f.text, f.text
props = {p.get("name"): p.get("value") for p in root.iter("property")}
assert props["seed"] == "1" and props["strategy"] == "portfolio", props
ok = ET.parse(good).getroot()
assert ok.get("failures") == "0" and ok.get("errors") == "0" and ok.find(".//failure") is None
PY
    run_mdat run --junit /nonexistent/dir/r.xml "$TARGETS/correct_counter"
    expect_status 2
    expect_err "mdat run: cannot write /nonexistent/dir/r.xml: No such file or directory"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "the error is not one line: $(cat "$WORK/err")"
    ;;
shards)
    # mdat run --shard K/N run by GNU parallel, then mdat merge: the merged
    # run is the unsharded one (each execution a function of seed and
    # index): the same outcome table, steps and lowest failure, replayable.
    same_run() {   # same_run WHOLE.json MERGED.json: outcomes, totals, failures
        python3 - "$1" "$2" >"$WORK/same.err" 2>&1 <<'PY' || fail "merged run differs: $(tail -n 3 "$WORK/same.err")"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda o: (o["count"], o["text"], o["execution"])
assert [key(o) for o in a.get("outcomes", [])] == [key(o) for o in b.get("outcomes", [])], (a.get("outcomes"), b.get("outcomes"))
fail = lambda f: (f["kind"], f["execution"], f["location"])
assert [fail(f) for f in a["failures"]] == [fail(f) for f in b["failures"]], (a["failures"], b["failures"])
if a.get("outcomes") or len(a["failures"]) != 1:
    assert a["visible_steps_total"] == b["visible_steps_total"], (a["visible_steps_total"], b["visible_steps_total"])
    assert a["schedules_run"] == b["schedules_run"]
assert b["merged_shards"] >= 2 and b["complete"] is True
PY
    }
    prog="$TARGETS/diff_unlocked_counter_o0"
    common=(--races=off --outcomes -n 48 --seed 9)
    run_mdat run "${common[@]}" -o whole --json whole.json "$prog"
    expect_status 0
    grep -q '"count": ' whole.json || fail "no outcome table"
    [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["outcomes"]))' whole.json)" -ge 2 ] ||
        fail "the unsharded run has one outcome: the comparison would prove little"
    parallel --will-cite -j 2 "$MDAT" run --shard {}/3 -j 1 "${common[@]}" -o shards "$prog" ::: 1 2 3 \
        </dev/null >parallel.out 2>&1 || fail "GNU parallel: $(tail -3 parallel.out)"
    grep -q "shard 2 of 3: executions 1, 4, 7, ... below 48 (16 of them)" parallel.out ||
        fail "a shard did not say which executions it runs: $(head -5 parallel.out)"
    ! grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' parallel.out || fail "sanitizer report: $(cat parallel.out)"
    run_mdat merge --json merged.json shards/shard-3-of-3.json shards/shard-1-of-3.json shards/shard-2-of-3.json
    expect_status 0
    expect_out "merged 3 shards of the run of"
    expect_out "no failure in 48 executions"
    same_run whole.json merged.json
    # A failure: the merged one is the unsharded run's (the lowest
    # execution), and its schedule replays it.
    common=(-n 40 --seed 4 --races=off)
    run_mdat run "${common[@]}" -o whole --json whole-fail.json "$TARGETS/lost_update"
    expect_status 1
    for k in 1 2; do
        run_mdat run --shard "$k/2" "${common[@]}" -o fail-shards "$TARGETS/lost_update"
        [ "$status" -le 1 ] || fail "shard $k: exit $status"
    done
    run_mdat merge --json merged-fail.json fail-shards/shard-1-of-2.json fail-shards/shard-2-of-2.json
    expect_status 1
    expect_out "FAILURE assertion in execution"
    same_run whole-fail.json merged-fail.json
    sched=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["failures"][0]["schedule_file"])' merged-fail.json)
    run_mdat replay "$sched"
    expect_status 1
    expect_out "reproduced"
    # --keep-going: every distinct failure, each the lowest of its kind and place.
    common=(-n 30 --seed 2 --keep-going)
    run_mdat run "${common[@]}" -o whole --json whole-all.json "$TARGETS/lost_update"
    expect_status 1
    for k in 1 2 3; do
        run_mdat run --shard "$k/3" -j 1 "${common[@]}" -o all-shards "$TARGETS/lost_update"
    done
    run_mdat merge --json merged-all.json all-shards/shard-*-of-3.json
    expect_status 1
    same_run whole-all.json merged-all.json
    ;;
shards_refused)
    # Shards that are not all of one run are refused in one line; a
    # systematic search cannot be sharded by index.
    prog="$TARGETS/correct_counter"
    for k in 1 2; do
        run_mdat run --shard "$k/2" -n 4 -j 1 --seed 3 -o s "$prog"
        expect_status 0
    done
    run_mdat run --shard 2/2 -n 4 -j 1 --seed 4 --json other-seed.json -o s "$prog"
    run_mdat run --shard 2/3 -n 4 -j 1 --seed 3 --json of-three.json -o s "$prog"
    run_mdat run --shard 2/2 -n 4 -j 1 --seed 3 --json other-prog.json -o s "$TARGETS/lost_update"
    refused() {
        local why=$1
        shift
        run_mdat merge "$@"
        expect_status 3
        expect_err "$why"
        [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "merge $*: error is not one line: $(cat "$WORK/err")"
    }
    refused "different settings (seed differs)" s/shard-1-of-2.json other-seed.json
    refused "different settings (the program differs)" s/shard-1-of-2.json other-prog.json
    refused "shard 2 of 2 is missing" s/shard-1-of-2.json
    refused "shard 1 is given twice" s/shard-1-of-2.json s/shard-1-of-2.json s/shard-2-of-2.json
    refused "is shard 2 of 3" s/shard-1-of-2.json of-three.json
    echo '{"format": "mdat-grade-shard"}' >grade-shard.json
    refused "is not a shard report of mdat run --shard" s/shard-1-of-2.json grade-shard.json
    run_mdat merge s/shard-1-of-2.json s/shard-2-of-2.json
    expect_status 0
    expect_out "no failure in 4 executions"
    run_mdat run --strategy dfs --shard 1/2 "$prog"
    expect_status 2
    expect_err "--shard splits the executions of a randomized strategy"
    run_mdat run --shard 3/2 "$prog"
    expect_status 2
    expect_err "--shard wants K/N with 1 <= K <= N"
    ;;
recording_tail)
    # A failure at the end of a long execution: its recording renders only
    # the last steps the files keep (the steps before are run, not
    # rendered), and what it writes is the tail of the whole trace.
    prog=("$TARGETS/many_increments" 2 20000)
    check_recorded_tail
    ;;
recording_restart)
    # The same for an execution that finds a page shared (racily) only in
    # its last steps: its recording starts over with the page observed after
    # it had begun telling those steps, and takes back what it had told.
    prog=("$TARGETS/late_sharing" 20000 racy)
    check_recorded_tail
    ;;
unseen_progress)
    # Threads that repeat the same visible steps (lock, unlock) while a
    # counter moves on a page the lock hands over (no step shows it): no
    # livelock. Seeds 1 and 3 called it one before the memory was compared.
    for seed in 1 3; do
        run_mdat run -n 1 -s $seed --no-shrink "$TARGETS/late_sharing" 20000
        expect_status 0
        expect_out "no failure in 1 execution"
    done
    ;;
pid_wrap)
    # After the PID counter wraps, the template can be numbered 32767: the
    # upper half of every pointer in its thread block reads the same, and
    # finding glibc's cached TID by value failed every fork ("holds the
    # template's TID twice", seen once in CI). In a PID namespace of its
    # own the counter is set so that the template gets that number.
    if ! unshare --pid --fork --mount-proc true 2>/dev/null; then
        echo "SKIP: no PID namespace here (unshare needs root or user namespaces)"
        exit 77
    fi
    for last in $(seq 32756 32766); do
        run_mdat_in_pid_namespace $last run -n 3 --no-shrink "$TARGETS/mutex_owner"
        expect_status 0
        expect_out "no failure in 3 executions"
    done
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac

finish
