#!/usr/bin/env bash
# End-to-end tests of mdat lincheck on the structures of tests/lincheck:
# the correct ones proved, each buggy one found, shown as a table, shrunk
# and replayed; bad specs refused. One test per invocation:
#   lincheck.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4
LC=$(cd "$(dirname "$0")/../lincheck" && pwd)
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# The replay command lincheck printed, run; its exit status in $replay_status.
replay_printed() {
    local cmd
    cmd=$(sed -n 's/^Replay it: mdat replay //p' "$WORK/out")
    [ -n "$cmd" ] || { fail "no 'Replay it:' line"; return; }
    # shellcheck disable=SC2086
    "$MDAT" replay $cmd </dev/null >"$WORK/replay.out" 2>"$WORK/replay.err"
    replay_status=$?
    [ "$replay_status" -eq 1 ] || fail "the printed replay exits $replay_status, not 1: $(tail -3 "$WORK/replay.err")"
    # The replayed program prints the same results the table shows.
    local sched=${cmd##* }
    local stdout=${sched%.sched}.stdout
    # The results and the real-time stamps (@rt): the virtual clock replays too.
    grep -E '^(init|post|T[0-9]+|@rt) ' "$WORK/replay.out" >"$WORK/replay.results"
    diff -u "$stdout" "$WORK/replay.results" >"$WORK/replay.diff" ||
        fail "the replay's results differ from the failure's: $(cat "$WORK/replay.diff")"
}

# expect_found SPEC ARGS...: lincheck finds the bug, shows a table, shrinks and replays it.
expect_found() {
    run_mdat lincheck -o out-dir --json lc.json "$@"
    expect_status 1
    grep -qE "NOT (LINEARIZABLE|SEQUENTIALLY CONSISTENT)" "$WORK/out" || fail "no NOT LINEARIZABLE or NOT SEQUENTIALLY CONSISTENT headline"
    expect_out "The interleaving (steps in the code under test"
    grep -qE '^ +\| T2 +\| T3' "$WORK/out" || fail "no table with columns T2 and T3"
    expect_json '"kind": "checker"' lc.json
    expect_json '"allowed_outcomes"' lc.json
    replay_printed
}

case "$TEST" in
mutex_queue)
    # Linearizability (the default): every class of interleavings run,
    # real time checked on each, nothing found; not called proved.
    run_mdat lincheck -s 1 --scenarios 4 -o out-dir --json lc.json "$LC/queue_mutex.lc"
    expect_status 0
    [ "$(grep -cE '^  scenario +[0-9]+  SC-proved ' "$WORK/out")" -eq 4 ] || fail "not every scenario's classes all run"
    expect_out "4 of 4 scenarios checked, 4 SC-proved (dpor: every class; real time checked on one interleaving per class)"
    expect_json '"check": "linearizable"' lc.json
    expect_json '"scenarios_all_classes": 4' lc.json
    expect_json '"failure": null' lc.json
    [ -f out-dir/lincheck/harness.c ] || fail "the generated harness is not kept"
    # Sequential consistency: dpor proves it.
    run_mdat lincheck -s 1 --scenarios 4 --consistency sequential -o out-dir --json lc.json "$LC/queue_mutex.lc"
    expect_status 0
    [ "$(grep -cE '^  scenario +[0-9]+  proved ' "$WORK/out")" -eq 4 ] || fail "not every scenario proved"
    expect_out "4 of 4 scenarios checked, 4 proved"
    expect_json '"scenarios_proved": 4' lc.json
    # A randomized strategy samples other interleavings of the same
    # scenarios, real time and all: still nothing.
    run_mdat lincheck -s 1 --scenarios 3 --strategy random -n 200 -o out-dir "$LC/queue_mutex.lc"
    expect_status 0
    expect_out "no failure found"
    ;;
treiber)
    run_mdat lincheck -s 1 --scenarios 6 -o out-dir "$LC/treiber.lc"
    expect_status 0
    expect_out "6 of 6 scenarios checked"
    expect_out "no failure found"
    ;;
treiber_modes)
    # The same stack judged by sequential consistency (dpor proves each
    # scenario) and explored by a randomized strategy.
    run_mdat lincheck -s 1 --scenarios 6 --consistency sequential -o out-dir "$LC/treiber.lc"
    expect_status 0
    expect_out "6 of 6 scenarios checked, 6 proved"
    run_mdat lincheck -s 1 --scenarios 3 --strategy random -n 200 -o out-dir "$LC/treiber.lc"
    expect_status 0
    expect_out "no failure found"
    ;;
lazy_linearizable)
    # A push seen by other threads only after its own thread's next pop:
    # each result is one a serial order gives, real time rules them out.
    expect_found -s 1 --scenarios 5 "$LC/queue_lazy.lc"
    expect_out "NOT LINEARIZABLE: the serial orders that give these results go against real time"
    expect_out "T2 push(1) -> 0 ended (t="
    expect_out "before T3 pop() -> -1 began"
    expect_out "every result is one serial orders give; real time rules those orders out"
    ;;
lazy_sequential)
    # The same scenarios judged by sequential consistency (the first
    # version's check) pass, proved by dpor; so do quiescent ones.
    run_mdat lincheck -s 1 --scenarios 5 --consistency sequential -o out-dir --json lc.json "$LC/queue_lazy.lc"
    expect_status 0
    expect_out "5 of 5 scenarios checked, 5 proved"
    expect_json '"check": "sequential"' lc.json
    run_mdat lincheck -s 1 --scenarios 5 --consistency quiescent -o out-dir "$LC/queue_lazy.lc"
    expect_status 0
    ;;
seq_found)
    # A correct stack passed off as a queue: its own serial runs (Line-Up)
    # find nothing, the spec's sequential FIFO (seq lines) finds it.
    run_mdat lincheck -s 1 --init 1 --scenarios 10 -o out-dir "$LC/queue_lifo_lineup.lc"
    expect_status 0
    expect_out "no failure found"
    expect_found -s 1 --init 1 --scenarios 10 "$LC/queue_lifo.lc"
    expect_out ", run on the sequential implementation"
    expect_out "pop() -> 3  ✗"
    expect_out "serial orders run on the sequential implementation (the spec's seq lines) give"
    grep -q 'seq_queue_pop(s)' out-dir/lincheck/harness.c || fail "the harness does not call the seq implementation"
    ;;
seq_correct)
    # The correct mutex queue against the same sequential FIFO: nothing.
    run_mdat lincheck -s 1 --init 1 --scenarios 10 -o out-dir "$LC/queue_mutex_seq.lc"
    expect_status 0
    expect_out "10 of 10 scenarios checked, 10 SC-proved"
    printf 'source %s/queue_mutex.c\nstate struct queue *q = queue_new(4);\nop pop() -> int queue_pop(q)\nseq pop seq_pop(s)\n' "$LC" >noseqstate.lc
    run_mdat lincheck noseqstate.lc
    expect_status 2
    expect_err "no seq state line"
    ;;
post_part)
    # Calls after every thread has ended, by main: the lazy queue's parked
    # pushes never reach the queue, so a post pop finds it empty, which no
    # serial order gives, even under sequential consistency.
    expect_found -s 1 --post 2 --scenarios 10 --consistency sequential "$LC/queue_lazy.lc"
    expect_out "NOT SEQUENTIALLY CONSISTENT"
    expect_out "| post push(3) pop()"
    grep -qE '^  post  \| pop\(\) -> -1  ✗' "$WORK/out" || fail "no post row with the impossible pop"
    expect_json '"post": \[' lc.json
    # The correct queue with a post part: nothing.
    run_mdat lincheck -s 1 --post 2 --scenarios 4 -o out-dir "$LC/queue_mutex.lc"
    expect_status 0
    expect_out "no failure found"
    run_mdat lincheck --post 7 "$LC/queue_mutex.lc"
    expect_status 2
    expect_err "--post wants 0 to 6"
    ;;
size_unlocked)
    expect_found -s 1 --scenarios 10 "$LC/queue_size_unlocked.lc"
    expect_out "size() -> -1  ✗"
    expect_out "shrunk from 4 calls to 3"
    ;;
aba)
    expect_found -s 8 --init 2 --scenarios 1 "$LC/treiber_aba.lc"
    expect_out "shrunk from 6 calls to 4"
    expect_out "every result alone is possible; their combination is not"
    ;;
ring_tso)
    # Found under x86-TSO (ring_sc: not under sc). Which stores the shown
    # interleaving flushes depends on how it was shrunk; the execution's
    # whole trace shows the store buffers at work.
    expect_found -s 1 --memory-model tso -n 300 --scenarios 1 "$LC/ring_peterson.lc"
    expect_out "tso memory"
    trace=$(sed -n 's/.*(steps in the code under test; the whole trace: \(.*\.trace\)):$/\1/p' "$WORK/out")
    [ -f "$trace" ] || fail "no whole trace named: $(grep -m1 'the whole trace' "$WORK/out")"
    grep -q " flush .*reaches memory" "$trace" || fail "the whole trace shows no store reaching memory"
    ;;
ring_sc)
    # The same scenarios under sc: Peterson's lock holds, nothing to find.
    run_mdat lincheck -s 1 --strategy portfolio -n 300 --scenarios 3 -o out-dir "$LC/ring_peterson.lc"
    expect_status 0
    expect_out "no failure found"
    ;;
set_contains)
    expect_found -s 16 --init 2 --scenarios 1 "$LC/set_array.lc"
    expect_out "contains(2) -> 0  ✗"
    ;;
example)
    # examples/lincheck_queue/README.md's two commands, as it shows them.
    EX=$(cd "$(dirname "$0")/../../examples/lincheck_queue" && pwd)
    expect_found -s 1 --scenarios 10 "$EX/queue.lc"
    expect_out "size() -> -1  ✗"
    run_mdat lincheck -s 1 --scenarios 10 -o out-dir "$EX/queue_fixed.lc"
    expect_status 0
    expect_out "10 of 10 scenarios checked"
    expect_out "no failure found"
    ;;
bad_spec)
    printf 'source x.c\nfrobnicate 3\n' >bad.lc
    run_mdat lincheck bad.lc
    expect_status 2
    expect_err "bad.lc:2: unknown keyword"
    printf 'source broken.c\nstate int *p = 0;\nop get() -> int  *p\n' >broken.lc
    printf 'int broken(void) { return }\n' >broken.c
    run_mdat lincheck -o out-dir broken.lc
    expect_status 2
    expect_err "the harness did not build"
    run_mdat lincheck --threads 9 "$LC/treiber.lc"
    expect_status 2
    expect_err "--threads wants 1 to 4"
    run_mdat lincheck --memory-model tso --strategy dpor "$LC/treiber.lc"
    expect_status 2
    run_mdat lincheck --consistency strict "$LC/treiber.lc"
    expect_status 2
    expect_err "--consistency wants linearizable, sequential or quiescent"
    run_mdat lincheck --consistency strict "$LC/treiber.lc"
    expect_status 2
    expect_err "--consistency wants linearizable, sequential or quiescent"
    ;;
*)
    fail "unknown test $TEST"
    ;;
esac
finish
