#!/usr/bin/env bash
# check_examples.sh - runs mdat on every program of one problem in examples/
# and checks that it reports what cases.txt says.
#
#   check_examples.sh MDAT EXAMPLES_BIN_DIR EXAMPLES_SOURCE_DIR PROBLEM
#
# For a buggy program (expect = deadlock, assertion, crash, checker,
# step-limit ...): `mdat run -n SCHEDULES -s SEED --strategy STRATEGY` must
# exit 1 with a failure of exactly that kind (read from --json), at the line
# of the source's marker comment when the case names one (/* BUG: */ or
# /* FAILS: */), and `mdat replay` of the saved schedule must reproduce it.
# For a correct program (expect = ok): SCHEDULES executions with the
# strategy (`both`: pct AND random) must find nothing (exit 0).
# Programs run from EXAMPLES_BIN_DIR/PROBLEM, as the READMEs' commands do,
# so options like `--check ./check_restroom.sh` work as written.
# Prints one line per case with the execution that failed and the seconds it
# took; exits 1 if any check failed.
set -uo pipefail
MDAT=$(realpath "$1") BIN=$(realpath "$2") SRC=$(realpath "$3") PROBLEM=$4
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$BIN/$PROBLEM" || exit 2
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
show() { echo "--- mdat stdout"; tail -n 40 "$WORK/out"; echo "--- mdat stderr"; cat "$WORK/err"; }
# json_first FIELD FILE: the first value of "FIELD" in FILE, without quotes.
json_first() { sed -n "s/^ *\"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$2" | head -n 1; }
# marker_line PROGRAM MARKER: line number of /* MARKER: in PROGRAM.c.
marker_line() { grep -n "/\* $2:" "$SRC/$PROBLEM/$1.c" | head -n 1 | cut -d: -f1; }

run_mdat() {    # run_mdat ARGS...: status in $status, output in $WORK/out and $WORK/err
    "$MDAT" "$@" </dev/null >"$WORK/out" 2>"$WORK/err"
    status=$?
}

check_correct() {   # check_correct PROGRAM STRATEGY SCHEDULES SEED MDAT-OPTIONS... ./PROGRAM ARGS...
    local program=$1 strategies=$2 n=$3 seed=$4; shift 4
    local strategy
    [ "$strategies" = both ] && strategies="pct random"
    for strategy in $strategies; do
        local t0=$SECONDS
        run_mdat run -n "$n" -s "$seed" -j 1 --strategy "$strategy" -o "$WORK/out-dir" "$@"
        if [ "$status" -ne 0 ] || ! grep -qF "no failure in $n executions" "$WORK/out"; then
            fail "$program ($strategy, seed $seed): expected no failure in $n executions, mdat exited $status"
            show
        else
            echo "ok   $program: no failure in $n $strategy executions (seed $seed, $((SECONDS - t0)) s)"
        fi
    done
}

check_buggy() {     # check_buggy PROGRAM KIND STRATEGY SCHEDULES SEED MARKER MDAT-OPTIONS... ./PROGRAM ARGS...
    local program=$1 kind=$2 strategy=$3 n=$4 seed=$5 marker=$6; shift 6
    local t0=$SECONDS json="$WORK/run.json" before=$failures
    rm -rf "$WORK/out-dir" "$json"
    # Shrinking on a budget small enough for the suite (the shrunk schedule
    # must still fail at the marked line and replay).
    run_mdat run -n "$n" -s "$seed" -j 1 --strategy "$strategy" --shrink-budget 40 -o "$WORK/out-dir" --json "$json" "$@"
    if [ "$status" -ne 1 ] || [ ! -s "$json" ]; then
        fail "$program ($strategy, seed $seed): expected failure kind $kind within $n schedules, mdat exited $status"
        show
        return
    fi
    local got execution location sched
    got=$(json_first kind "$json")
    execution=$(json_first execution "$json")
    location=$(json_first location "$json")
    sched=$(json_first schedule_file "$json")
    if [ "$got" != "$kind" ]; then
        fail "$program ($strategy, seed $seed): expected failure kind $kind, mdat found $got in execution $execution"
        show
        return
    fi
    if [ "$kind" = checker ] && ! grep -qF "(exit 1): log line" "$json"; then
        # Our checkers exit 1 and name a log line; anything else (exit 127:
        # checker not found) is not the violation we are looking for.
        fail "$program: the checker did not report a violation: $(grep -m1 "\"message\"" "$json")"
    fi
    if [ "$marker" != "-" ]; then
        local line
        line=$(marker_line "$program" "$marker")
        if [ -z "$line" ]; then
            fail "$program: no /* $marker: */ comment in $program.c"
        elif [ "$kind" = deadlock ]; then
            # Some blocked thread waits at the marked line.
            grep -qE "\"location\": \"$program\\.c:$line " "$json" ||
                fail "$program: no thread of the deadlock is at $program.c:$line ($marker)"
        elif [ "$location" != "$program.c:$line" ]; then
            fail "$program: failure reported at $location, expected $program.c:$line ($marker)"
        fi
    fi
    "$MDAT" replay --trust-check "$sched" </dev/null >"$WORK/replay" 2>&1
    local rst=$?
    if [ "$rst" -ne 1 ] || ! grep -qF "reproduced FAILURE $kind" "$WORK/replay"; then
        fail "$program: replay of $sched exited $rst: $(tail -n 3 "$WORK/replay")"
    fi
    [ "$failures" -eq "$before" ] &&
        echo "ok   $program: $kind in execution $execution of $n ($strategy, seed $seed, $((SECONDS - t0)) s)"
}

cases=0
while read -r problem program expect strategy seed n marker args opts; do
    case "$problem" in ''|'#'*) continue ;; esac
    [ "$problem" = "$PROBLEM" ] || continue
    cases=$((cases + 1))
    [ "$args" = - ] && args=""
    # eval: the options are written as on a command line (--check "./check_restroom.sh 4").
    if [ "$expect" = ok ]; then
        eval "check_correct $program $strategy $n $seed $opts ./$program $args"
    else
        eval "check_buggy $program $expect $strategy $n $seed $marker $opts ./$program $args"
    fi
done <"$SRC/cases.txt"

# Every buggy program has a saved schedule (scripts/shortest-schedules),
# copied by the build next to it: it replays the failure on this machine's
# build, which is what lectures and scripts/demo play.
while read -r problem program expect _; do
    case "$problem" in ''|'#'*) continue ;; esac
    [ "$problem" = "$PROBLEM" ] && [ "$expect" != ok ] || continue
    [ -e "$WORK/$program.sched.checked" ] && continue
    touch "$WORK/$program.sched.checked"
    if [ ! -s "$program.sched" ]; then
        fail "$program: no saved schedule $program.sched (make it with scripts/shortest-schedules)"
        continue
    fi
    # The examples' own checkers: trusted (a schedule from elsewhere is not).
    "$MDAT" replay --trust-check "$program.sched" </dev/null >"$WORK/replay" 2>&1
    rst=$?
    if [ "$rst" -ne 1 ] || ! grep -qF "reproduced FAILURE $expect" "$WORK/replay"; then
        fail "$program: the saved schedule $program.sched does not replay its $expect (exit $rst): $(tail -n 3 "$WORK/replay")"
    else
        echo "ok   $program.sched: replays its $expect in $(sed -n 's/^steps //p' "$program.sched") steps"
    fi
done <"$SRC/cases.txt"

[ "$cases" -gt 0 ] || fail "no cases for $PROBLEM in cases.txt"
if [ "$failures" -gt 0 ]; then
    echo "$PROBLEM: $failures check(s) failed"
    exit 1
fi
echo "$PROBLEM: all $cases cases ok"
