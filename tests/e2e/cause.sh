#!/usr/bin/env bash
# End-to-end tests of the "relevant steps" of mdat's failure reports
# (supervisor/detect/cause_steps.h): failures found by mdat run, replayed,
# and the steps the report points at checked against the trace.
#   cause.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# relevant FILE: the report's relevant-steps section of FILE (its lines
# after the heading, up to the next field of the report).
relevant() {
    awk '/^  relevant steps/ { on = 1; next } on && /^( +[0-9]+ |  \.\.\.$)/ { print; next } { on = 0 }' "$1"
}

case "$TEST" in
checker)
    # A lost update judged by a checker: two threads each add 1 to counter
    # twice (a load and a separate store); the checker wants "counter = 4".
    # The report's relevant steps are the two loads and the two stores of
    # the update that was lost, wherever they are in the execution.
    cat >check_four.sh <<'SH'
#!/bin/sh
grep -qx 'counter = 4' || { echo "expected counter = 4"; exit 1; }
SH
    chmod +x check_four.sh
    run_mdat run --races=off -n 200 -s 3 -j 1 -o out-dir --check "$WORK/check_four.sh" "$TARGETS/search_increments"
    expect_status 1
    expect_out "FAILURE checker"
    sched=$(ls out-dir/*.sched | grep -v original | head -n 1)
    run_mdat replay --trace --trust-check "$sched"
    expect_status 1
    relevant "$WORK/out" >relevant.txt
    [ "$(grep -cE '^ +[0-9]+ [ *] T[23] +R counter -> ' relevant.txt)" -eq 2 ] || fail "not two loads: $(cat out)"
    [ "$(grep -cE '^ +[0-9]+ [ *] T[23] +W counter := ' relevant.txt)" -eq 2 ] || fail "not two stores: $(cat out)"
    # A lost update: A loads, B loads and stores, A stores over B's store a
    # value no greater than B's (B's increment is lost).
    # (thread, R or W, the value read or written) of each step.
    grep -vx '  \.\.\.' relevant.txt | awk '{ sub(/^ +[0-9]+ [ *] /, ""); print $1, $2, $5 }' >shape.txt
    awk 'NR == 1 { a = $1; ok = $2 == "R" }
         NR == 2 { b = $1; ok = ok && $2 == "R" && b != a }
         NR == 3 { ok = ok && $1 == b && $2 == "W"; bw = $3 }
         NR == 4 { ok = ok && $1 == a && $2 == "W" && $3 + 0 <= bw + 0 }
         END { exit !(ok && NR == 4) }' shape.txt || fail "not the shape of a lost update: $(cat relevant.txt)"
    # Each is a step of the trace, as printed there.
    while read -r line; do
        [ "$line" = "..." ] && continue
        grep -qF -- "$line" <(replay_trace "$WORK/out") || fail "relevant step not in the trace: $line"
    done <relevant.txt
    ;;
crash)
    # The worker dereferences the pointer main has not set yet.
    run_mdat run --races=off -n 300 -s 5 -j 1 -o out-dir "$TARGETS/order_bug_sleep"
    expect_status 1
    expect_out "FAILURE crash"
    grep -qE '^  relevant steps' out || fail "no relevant steps in the crash's report: $(cat out)"
    sched=$(ls out-dir/*.sched | grep -v original | head -n 1)
    run_mdat replay "$sched"
    expect_status 1
    grep -qE '^  relevant steps' out || fail "no relevant steps in the replay's report: $(cat out)"
    # The step that loaded the pointer is the first (nothing wrote shared
    # before it); with only shared pages observed it crashed itself (the
    # step dereferences it too), with every access observed the
    # dereference is the next step, and relevant too.
    load=$(grep -E '^ +[0-9]+ [ *] T2 +R shared -> NULL' out | head -n 1 | awk '{print $1}')
    [ -n "$load" ] || fail "no load of shared in the last steps: $(cat out)"
    grep -qE "^  relevant steps: $load(, $((load + 1)))? \(among the last steps\)" out ||
        fail "step $load is not the first relevant step: $(cat out)"
    ;;
race)
    # A race's two accesses, named by step in its message, are its relevant steps.
    run_mdat run -n 50 -s 1 -j 1 -o out-dir "$TARGETS/race_list_insert"
    expect_status 1
    sched=$(ls out-dir/*.sched | grep -v original | head -n 1)
    run_mdat replay "$sched"
    expect_status 1
    steps=$(grep -oE '\(step [0-9]+\)' out | head -n 2 | tr -dc '0-9 \n' | tr '\n' ' ')
    [ -n "$steps" ] || fail "the race's message names no steps: $(cat out)"
    relevant "$WORK/out" >relevant.txt
    for s in $steps; do
        grep -qE "^  relevant steps: ([0-9]+, )*$s(,| )" out || grep -qE "^ +$s [ *] T" relevant.txt ||
            fail "step $s of the race is not a relevant step: $(cat out)"
    done
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac
finish
