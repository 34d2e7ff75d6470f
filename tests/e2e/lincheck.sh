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
    grep -E '^(init|T[0-9]+) ' "$WORK/replay.out" >"$WORK/replay.results"
    diff -u "$stdout" "$WORK/replay.results" >"$WORK/replay.diff" ||
        fail "the replay's results differ from the failure's: $(cat "$WORK/replay.diff")"
}

# expect_found SPEC ARGS...: lincheck finds the bug, shows a table, shrinks and replays it.
expect_found() {
    run_mdat lincheck -o out-dir --json lc.json "$@"
    expect_status 1
    expect_out "NOT LINEARIZABLE"
    expect_out "The interleaving (steps in the code under test"
    grep -qE '^ +\| T2 +\| T3' "$WORK/out" || fail "no table with columns T2 and T3"
    expect_json '"kind": "checker"' lc.json
    expect_json '"allowed_outcomes"' lc.json
    replay_printed
}

case "$TEST" in
mutex_queue)
    run_mdat lincheck -s 1 --scenarios 4 -o out-dir --json lc.json "$LC/queue_mutex.lc"
    expect_status 0
    [ "$(grep -cE '^  scenario +[0-9]+  proved ' "$WORK/out")" -eq 4 ] || fail "not every scenario proved"
    expect_out "4 of 4 scenarios checked, 4 proved"
    expect_json '"scenarios_proved": 4' lc.json
    expect_json '"failure": null' lc.json
    [ -f out-dir/lincheck/harness.c ] || fail "the generated harness is not kept"
    ;;
treiber)
    run_mdat lincheck -s 1 --scenarios 6 -o out-dir "$LC/treiber.lc"
    expect_status 0
    expect_out "6 of 6 scenarios checked, 6 proved"
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
    expect_found -s 1 --memory-model tso -n 300 --scenarios 1 "$LC/ring_peterson.lc"
    expect_out "flush"      # the store buffer shows in the interleaving
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
    expect_out "10 of 10 scenarios checked, 10 proved"
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
    ;;
*)
    fail "unknown test $TEST"
    ;;
esac
finish
