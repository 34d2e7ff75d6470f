#!/usr/bin/env bash
# End-to-end tests of shortest failing schedules (mdat run's shrinking,
# mdat shrink) and of the outcome table (mdat run --outcomes). One test per
# invocation:
#   e2e_shrink.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# shrunk_figures: "S0 P0 S1 P1" from the report's "shrunk from ... to ..." line.
shrunk_figures() {
    sed -nE 's/.*shrunk from ([0-9]+) steps \/ ([0-9]+) preemptions? to ([0-9]+) steps \/ ([0-9]+) preemptions?.*/\1 \2 \3 \4/p' \
        "$WORK/out" | head -n 1
}
# The schedule without its comment lines (the replay command names the file).
body() { grep -v '^#' "$1"; }
# The outcome lines of --outcomes' table (count, share, outcome), without the schedule lines.
outcome_lines() { sed -n '/^mdat: [0-9]* outcomes\? of [0-9]* /,$p' "$WORK/out" | grep -E '^ +[0-9]+ +[0-9.]+% '; }

case "$TEST" in
run)
    # A failure found with preemptions is saved shrunk: no more preemptions
    # and steps than the original, replaying to the same failure at the same
    # place; the original is kept beside it and replays too.
    run_mdat run -n 300 -s 1 --strategy random -o out-dir --json run.json "$TARGETS/deadlock_lock_order"
    expect_status 1
    read -r s0 p0 s1 p1 <<<"$(shrunk_figures)"
    [ -n "${p1:-}" ] || fail "no 'shrunk from ... to ...' line"
    if [ -n "${p1:-}" ]; then
        [ "$p1" -lt "$p0" ] || { [ "$p1" -eq "$p0" ] && [ "$s1" -le "$s0" ]; } ||
            fail "shrinking made it longer: $s0 steps / $p0 preemptions to $s1 / $p1"
        [ "$p1" -lt "$p0" ] || fail "random's deadlock kept all its $p0 preemptions"
    fi
    sched=$(first_sched)
    orig=${sched%.sched}.original.sched
    [ -f "$orig" ] || fail "the original schedule is not kept as $orig"
    expect_out "original: out-dir/$(basename "$orig")"
    grep -qx "steps $s1" "$sched" || fail "the saved schedule does not say steps $s1"
    grep -qx "preemptions $p1" "$sched" || fail "the saved schedule does not say preemptions $p1"
    grep -qx "shrunk-from $s0 $p0" "$sched" || fail "the saved schedule does not say shrunk-from $s0 $p0"
    grep -qx "steps $s0" "$orig" || fail "the original schedule does not say steps $s0"
    expect_replay_identical "$sched"
    "$MDAT" replay "$orig" </dev/null >orig.out 2>&1
    [ $? -eq 1 ] || fail "the original schedule does not replay with exit 1"
    "$MDAT" replay "$sched" </dev/null >shrunk.out 2>&1
    line=$(line_of deadlock_lock_order.c 'BUG:')
    grep -q "deadlock_lock_order.c:$line" shrunk.out || fail "the shrunk replay does not wait at line $line"
    grep -q "deadlock_lock_order.c:$line" orig.out || fail "the original replay does not wait at line $line"
    expect_json '"shrunk": true' run.json
    expect_json "\"preemptions\": $p1" run.json
    expect_json "\"original_steps\": $s0" run.json
    expect_json "\"original_preemptions\": $p0" run.json
    expect_json '"original_schedule_file": "out-dir/[^"]*\.original\.sched"' run.json
    expect_json '"shrink_runs": [1-9]' run.json
    ;;
settings)
    # The shrunk schedule keeps the settings it was found with: the memory
    # model, races, invariants, the input.
    printf 'some input\n' >in.txt
    run_mdat run -n 200 -s 1 --strategy random --memory-model tso --races=off --invariant 'r0 <= 1' \
        --stdin in.txt -o out-dir "$TARGETS/tso_store_buffering"
    expect_status 1
    expect_out "FAILURE assertion"
    expect_out "shrunk"
    sched=$(first_sched)
    for l in "memory-model tso" "races off" "invariant r0 <= 1" "failure assertion"; do
        grep -qx "$l" "$sched" || fail "the shrunk schedule lacks '$l'"
    done
    grep -q '^stdin ' "$sched" || fail "the shrunk schedule lacks its stdin line"
    expect_replay_identical "$sched"
    ;;
fewest_preemptions)
    # Edits of a schedule stop at a local minimum (random's lost wake-up of a
    # barrier stayed at 4 preemptions); the bounded search finds the one
    # preemption dfs --preemption-bound 1 needs (bound 0 finds nothing), and
    # the schedule saved with it replays to the same wait.
    # (--shrink-time 0: the re-execution budget alone bounds it, whatever the machine's load.)
    run_mdat run -n 1 -s 1 --strategy random --shrink-time 0 -o out-dir "$TARGETS/barrier_lost_wakeup"
    expect_status 1
    expect_out "FAILURE deadlock in execution 0"
    read -r s0 p0 s1 p1 <<<"$(shrunk_figures)"
    [ -n "${p1:-}" ] || fail "no 'shrunk from ... to ...' line"
    [ "${p0:-0}" -gt 1 ] || fail "random's schedule has only ${p0:-?} preemptions: nothing to search for"
    [ "${p1:-}" = 1 ] || fail "shrunk to ${p1:-?} preemptions, not the minimum 1"
    sched=$(first_sched)
    grep -qx "preemptions 1" "$sched" || fail "the saved schedule does not say preemptions 1"
    expect_replay_identical "$sched"
    line=$(line_of barrier_lost_wakeup.c 'WAIT: no re-check')
    grep -q "barrier_lost_wakeup.c:$line" "$WORK/replay.out" || fail "the shrunk replay does not wait at line $line"
    for bound in 0 1; do
        run_mdat run -n 2000 --strategy dfs --preemption-bound $bound "$TARGETS/barrier_lost_wakeup"
        expect_status $((bound == 0 ? 0 : 1))
    done
    # One preemption at one place among twenty alike writers (pct's find has
    # 15): the edits and dfs within the budget stopped at 15, the walk of
    # one-preemption schedules reaches the place.
    rm -rf out-dir
    run_mdat run -n 1000 -s 2 --strategy pct --races off --shrink-time 0 -o out-dir "$TARGETS/search_two_stages"
    expect_status 1
    expect_out "FAILURE assertion in execution 127"
    read -r s0 p0 s1 p1 <<<"$(shrunk_figures)"
    [ "${p0:-0}" -gt 1 ] || fail "pct's schedule has only ${p0:-?} preemptions: nothing to search for"
    [ "${p1:-}" = 1 ] || fail "two_stages shrunk to ${p1:-?} preemptions, not the minimum 1"
    expect_replay_identical "$(first_sched)"
    # Each shrunk to the least bound under which dfs finds it (checked
    # below), where edits of the schedule stopped above it: Peterson's
    # stores swapped (5 before; the two preemptions swap the threads'
    # roles), a three-lock cycle (3 before), a spin barrier's lost arrival (6
    # before: the switches between spinning threads were counted). The
    # spin barrier as random finds it with page ownership from execution 0
    # on (its 13 preemptions); observing every access from the start (the
    # default for it) the same seed's schedule needs about 1,000
    # re-executions to reach 1 (2 within 200 and 400).
    for c in "shrink_turn_swapped 2 2 assertion 0" "shrink_lock_cycle 6 1 deadlock 0" \
             "shrink_spin_arrival 1 1 livelock 1"; do
        read -r prog seed least kind own <<<"$c"
        rm -rf out-dir
        MDAT_ALWAYS_OWN_PAGES=$own run_mdat run -n 100 -s "$seed" --strategy random --races off --shrink-time 0 \
            -o out-dir --json run.json "$TARGETS/$prog"
        expect_status 1
        expect_out "FAILURE $kind"
        read -r s0 p0 s1 p1 <<<"$(shrunk_figures)"
        [ "${p0:-0}" -gt "$least" ] || fail "$prog: random's schedule has only ${p0:-?} preemptions"
        [ "${p1:-}" = "$least" ] || fail "$prog shrunk to ${p1:-?} preemptions, not the minimum $least"
        expect_replay_identical "$(first_sched)"
        location=$(sed -nE 's/.*"location": "([^"]*)".*/\1/p' run.json | head -n 1)
        for bound in $((least - 1)) "$least"; do
            [ "$bound" -ge 0 ] || continue
            run_mdat run -n 2000 --strategy dfs --preemption-bound $bound --races off --no-shrink \
                --json dfs.json "$TARGETS/$prog"
            if [ "$bound" -lt "$least" ]; then
                expect_status 0
            else
                expect_status 1
                grep -q "\"location\": \"$location\"" dfs.json ||
                    fail "$prog: dfs at bound $bound does not fail at $location"
            fi
        done
    done
    # The lock cycle from other seeds of random: each shrinks to the one
    # preemption (checked against dfs above). Seeds 2, 3 and 5 stopped at 3:
    # the search at the best's places spent its share on the combinations of
    # free choices before its first preemption, and round robin gave the
    # processor back to the preempted mover (strategy_dfs.c, at_pcs).
    for seed in 2 3 5; do
        rm -rf out-dir
        run_mdat run -n 100 -s "$seed" --strategy random --races off --shrink-time 0 -o out-dir \
            "$TARGETS/shrink_lock_cycle"
        expect_status 1
        expect_out "FAILURE deadlock"
        read -r s0 p0 s1 p1 <<<"$(shrunk_figures)"
        [ "${p1:-}" = 1 ] || fail "shrink_lock_cycle seed $seed shrunk to ${p1:-?} preemptions, not the minimum 1"
        expect_replay_identical "$(first_sched)"
    done
    ;;
no_shrink)
    run_mdat run -n 300 -s 1 --strategy random --no-shrink -o out-dir --json run.json "$TARGETS/deadlock_lock_order"
    expect_status 1
    grep -q "shrunk" "$WORK/out" && fail "--no-shrink still shrank"
    ls out-dir/*.original.sched >/dev/null 2>&1 && fail "--no-shrink kept an original schedule"
    expect_json '"shrunk": false' run.json
    grep -q '^shrunk-from' "$(first_sched)" && fail "an unshrunk schedule says shrunk-from"
    expect_replay_identical "$(first_sched)"
    ;;
budget_cut)
    # A shrinking budget that runs out in the middle of a re-execution (here
    # often while a new thread is being made) ends that re-execution as
    # incomplete: never an error of mdat's ("new thread ... did not stop"
    # was one), and the failure is still reported and saved.
    for budget in 0.005 0.01 0.02 0.03 0.05; do
        rm -rf out-dir
        run_mdat run -n 1 -s 6 --check false --shrink-time "$budget" -o out-dir "$TARGETS/many_threads"
        expect_status 1
        expect_out "FAILURE checker in execution 0"
        [ -s "$WORK/err" ] && fail "--shrink-time $budget: $(head -n 1 "$WORK/err")"
        [ -n "$(first_sched)" ] || fail "--shrink-time $budget: no schedule saved"
    done
    ;;
command)
    # mdat shrink FILE: the same shrinking for a saved schedule, the same
    # result every time and the same as mdat run's under any -j.
    run_mdat run -n 300 -s 1 --strategy random --no-shrink -o plain "$TARGETS/deadlock_lock_order"
    expect_status 1
    plain=$(ls plain/*.sched | head -n 1)
    run_mdat shrink -o short.sched "$plain"
    expect_status 0
    expect_out "shrunk from"
    expect_out "replay:   mdat replay short.sched"
    [ -f short.sched ] || fail "mdat shrink -o short.sched wrote nothing"
    "$MDAT" replay short.sched </dev/null >replay.out 2>&1
    [ $? -eq 1 ] || fail "the shrunk schedule does not replay with exit 1: $(tail -2 replay.out)"
    run_mdat shrink "$plain"
    expect_status 0
    default=${plain%.sched}.shrunk.sched
    [ -f "$default" ] || fail "mdat shrink FILE did not write $default"
    cmp -s <(body short.sched) <(body "$default") || fail "two shrinks of the same schedule differ"
    # Options may come after the file, as people type them.
    run_mdat shrink "$plain" -o after.sched
    expect_status 0
    cmp -s <(body short.sched) <(body after.sched) || fail "mdat shrink FILE -o OUT: not the same shrink as -o OUT FILE"
    run_mdat replay after.sched --trace
    expect_status 1
    grep -qE '^ +[0-9]+ ' "$WORK/out" || fail "mdat replay FILE --trace printed no trace"
    for j in 1 2; do
        run_mdat run -n 300 -s 1 --strategy random -j $j -o j$j "$TARGETS/deadlock_lock_order"
        expect_status 1
    done
    s1=$(ls j1/*.sched | grep -v original | head -n 1)
    s2=$(ls j2/*.sched | grep -v original | head -n 1)
    cmp -s <(body "$s1") <(body "$s2") || fail "-j1 and -j2 saved different shrunk schedules"
    cmp -s <(body "$s1") <(body short.sched) || fail "mdat run's shrunk schedule differs from mdat shrink's"
    ;;
command_errors)
    run_mdat shrink
    expect_status 2
    run_mdat shrink --shrink-budget 0 x.sched
    expect_status 2
    expect_err "--shrink-budget wants a number of re-executions > 0"
    run_mdat shrink --shrink-time -1 x.sched
    expect_status 2
    run_mdat shrink nosuch.sched
    expect_status 3
    # A schedule that does not fail has nothing to shrink.
    run_mdat run -n 5 -s 1 --outcomes -o ok "$TARGETS/correct_counter"
    expect_status 0
    run_mdat shrink "$(ls ok/*.sched | head -n 1)"
    expect_status 3
    expect_err "does not fail: nothing to shrink"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "not a one-line error"
    run_mdat run --shrink-budget x "$TARGETS/correct_counter"
    expect_status 2
    ;;
outcomes)
    # Every execution counted: exit 0 with counter = 4, or the lost update's
    # assertion with counter = 2 or 3 where it failed; the same table under
    # -j1 and -j2; a schedule per outcome.
    for j in 1 2; do
        run_mdat run --outcomes --races=off --watch counter -n 100 -s 1 -j $j -o o$j --json o$j.json \
            "$TARGETS/lost_update"
        expect_status 1
        outcome_lines >table$j
        sed -n '/ outcomes\? of/p' "$WORK/out" >head$j
    done
    grep -qE "[23] outcomes of 100 executions \(seed 1; sampled" head1 || fail "not 2 or 3 outcomes of 100: $(cat head1)"
    grep -qE '%  exit 0, counter = 4, stdout [0-9a-f]{12}$' table1 || fail "no 'exit 0, counter = 4' outcome"
    grep -qE "%  assertion at lost_update.c:$(line_of lost_update.c '/\* FAILS'), counter = [23]," table1 ||
        fail "no assertion outcome with counter = 2 or 3"
    grep -vqE 'exit 0, counter = 4,|lost_update.c:[0-9]+, counter = [23],' table1 && fail "an outcome of neither kind: $(cat table1)"
    total=$(awk '{s += $1} END {print s}' table1)
    [ "$total" = 100 ] || fail "the counts add up to $total, not 100"
    cmp -s table1 table2 || fail "-j1 and -j2 give different tables: $(diff table1 table2)"
    expect_json '"outcomes": \[' o1.json
    expect_json '"exhaustive": false' o1.json
    python3 - o1.json <<'PY' || fail "o1.json's outcomes are not as documented"
import json, sys
d = json.load(open(sys.argv[1]))
o = d["outcomes"]
assert sum(x["count"] for x in o) == 100 and len(o) in (2, 3)
ok = [x for x in o if x["failure"] == "none"][0]
assert ok["exited"] and ok["exit_status"] == 0 and ok["watches"] == {"counter": "4"}, ok
bad = [x for x in o if x["failure"] == "assertion"][0]
assert bad["location"].startswith("lost_update.c:") and bad["exit_status"] is None, bad
assert bad["watches"]["counter"] in ("2", "3"), bad
assert abs(sum(x["share"] for x in o) - 1) < 1e-9
PY
    expect_json '"stdout_sha256": "[0-9a-f]{64}"' o1.json
    for s in $(sed -nE 's/.*"schedule_file": "(o1\/[^"]*outcome[^"]*)".*/\1/p' o1.json); do
        [ -f "$s" ] || fail "outcome schedule $s not saved"
    done
    ok=$(ls o1/*outcome*.sched | head -n 1)
    "$MDAT" replay "$ok" </dev/null >r.out 2>&1
    [ $? -eq 0 ] || fail "the first outcome's schedule does not replay with exit 0"
    ;;
outcomes_tso)
    # The store-buffering litmus test: r0 = r1 = 0 is an outcome under tso only.
    for m in sc tso; do
        run_mdat run --outcomes --races=off --watch r0 --watch r1 -n 300 -s 1 --strategy random \
            --memory-model $m -o out-$m "$TARGETS/tso_sb_litmus"
        expect_status 0
        outcome_lines | sed -E 's/^ +[0-9]+ +[0-9.]+%  //; s/, stdout.*//' | sort >set-$m
    done
    printf '%s\n' 'exit 0, r0 = 0, r1 = 1' 'exit 0, r0 = 1, r1 = 0' 'exit 0, r0 = 1, r1 = 1' >want-sc
    printf '%s\n' 'exit 0, r0 = 0, r1 = 0' 'exit 0, r0 = 0, r1 = 1' 'exit 0, r0 = 1, r1 = 0' 'exit 0, r0 = 1, r1 = 1' >want-tso
    diff -u want-sc set-sc >d || fail "sc outcomes: $(cat d)"
    diff -u want-tso set-tso >d || fail "tso outcomes: $(cat d)"
    # The (0, 0) outcome's schedule replays to it.
    zero=$(sed -n '/r0 = 0, r1 = 0/{n;s/.*schedule //p}' "$WORK/out")
    "$MDAT" replay "$zero" </dev/null >r.out 2>&1
    grep -q "^r0 = 0, r1 = 0$" r.out || fail "$zero does not replay to r0 = r1 = 0: $(cat r.out)"
    ;;
outcomes_dpor)
    # dpor's table is exact: search_increments 3 ends with counter = 2 .. 6
    # (derived in its header), each class counted once, the same under -j1
    # and -j2; lost_update (N = 2) ends 4 (exit 0) or fails its assertion
    # with 2 or 3. Every outcome's schedule replays to that outcome.
    for j in 1 2; do
        run_mdat run --strategy dpor --outcomes --races=off --watch counter -n 1000 -s 1 -j $j -o inc$j \
            --json inc$j.json "$TARGETS/search_increments" 3
        expect_status 0
        outcome_lines >table$j
        cp "$WORK/out" run$j.out
    done
    cmp -s table1 table2 || fail "-j1 and -j2 give different tables: $(diff table1 table2)"
    classes=$(sed -nE 's/^mdat: explored all ([0-9]+) distinct interleavings.*/\1/p' run1.out)
    [ -n "$classes" ] || fail "the search did not say it explored every class"
    grep -q "^mdat: 5 outcomes of $classes distinct interleavings (classes), each counted once" run1.out ||
        fail "no header of 5 outcomes of $classes classes: $(grep outcomes run1.out)"
    grep -q "^  exact: all $classes distinct interleavings (classes) explored$" run1.out || fail "the table is not said exact"
    sed -E 's/^ +[0-9]+ +[0-9.]+%  //; s/, stdout.*//' table1 | sort >set
    printf 'exit 0, counter = %s\n' 2 3 4 5 6 >want
    diff -u want set >d || fail "dpor outcomes of search_increments 3: $(cat d)"
    total=$(awk '{s += $1} END {print s}' table1)
    [ "$total" = "$classes" ] || fail "the counts add up to $total, not the $classes classes"
    python3 - inc1.json "$classes" <<'PY' || fail "inc1.json is not an exact table"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exhaustive"] is True and d["classes"] == int(sys.argv[2]), d
o = d["outcomes"]
assert sorted(int(x["watches"]["counter"]) for x in o) == [2, 3, 4, 5, 6], o
assert sum(x["count"] for x in o) == d["classes"] and abs(sum(x["share"] for x in o) - 1) < 1e-9
assert all(x["reproduced"] for x in o)
PY
    python3 -c 'import json,sys; print(open(sys.argv[1]).read().count("\"exhaustive\""))' inc1.json >n
    [ "$(cat n)" = 1 ] || fail "\"exhaustive\" written $(cat n) times in inc1.json"
    # Each saved schedule replays to its own outcome.
    sed -n '/counter = [0-9]/{s/.*counter = \([0-9]*\).*/\1/;h;n;s/.*schedule //;G;s/\n/ /p}' run1.out >pairs
    [ "$(wc -l <pairs)" = 5 ] || fail "not 5 schedules: $(cat pairs)"
    while read -r sched value; do
        "$MDAT" replay --watch counter "$sched" </dev/null >r.out 2>&1
        [ $? -eq 0 ] || fail "$sched does not replay with exit 0"
        grep -qx "mdat: watched, at the end: counter = $value" r.out || fail "$sched does not replay to counter = $value: $(tail -2 r.out)"
        grep -qx "counter = $value" r.out || fail "$sched does not print counter = $value"
    done <pairs
    # lost_update: failures are outcomes too, with the values where they failed.
    run_mdat run --strategy dpor --outcomes --races=off --watch counter -n 1000 -s 1 -o lost "$TARGETS/lost_update"
    expect_status 1
    line=$(line_of lost_update.c '/\* FAILS')
    outcome_lines | sed -E 's/^ +[0-9]+ +[0-9.]+%  //; s/, stdout.*//' | sort >set
    printf '%s\n' "assertion at lost_update.c:$line, counter = 2" "assertion at lost_update.c:$line, counter = 3" \
        'exit 0, counter = 4' >want
    diff -u want set >d || fail "dpor outcomes of lost_update: $(cat d)"
    expect_out "  exact: all "
    for value in 2 3; do
        sched=$(sed -n "/counter = $value,/{n;s/.*schedule //p}" "$WORK/out")
        "$MDAT" replay --watch counter "$sched" </dev/null >r.out 2>&1
        [ $? -eq 1 ] || fail "$sched does not reproduce the assertion"
        grep -qx "mdat: watched, where it failed: counter = $value" r.out || fail "$sched does not fail with counter = $value"
    done
    # -n reached before the end: the table may be incomplete, and says so.
    run_mdat run --strategy dpor --outcomes --races=off --watch counter -n 4 -s 1 -o part --json part.json \
        "$TARGETS/search_increments" 3
    expect_status 0
    expect_out "mdat: 4 outcomes of 4 distinct interleavings (classes), each counted once"
    expect_out "  may be incomplete: the search stopped at -n 4 executions before it had explored every one: other outcomes may be reachable"
    expect_json '"exhaustive": false' part.json
    ;;
outcomes_dpor_sb)
    # The store-buffering litmus test under dpor (sequential consistency):
    # exactly (r0, r1) in (0, 1), (1, 0), (1, 1), never (0, 0); dfs within
    # 2 preemptions (enough for each) finds the same set.
    for strategy in dpor dfs; do
        bound=
        [ $strategy = dfs ] && bound="--preemption-bound 2"
        # shellcheck disable=SC2086
        run_mdat run --strategy $strategy $bound --outcomes --races=off --watch r0 --watch r1 -n 1000 -s 1 \
            -o sb-$strategy "$TARGETS/tso_sb_litmus"
        expect_status 0
        case $strategy in
        dpor) expect_out "  exact: all " ;;
        dfs) expect_out "  exact within preemption bound 2: all " ;;
        esac
        outcome_lines | sed -E 's/^ +[0-9]+ +[0-9.]+%  //; s/, stdout.*//' | sort >set-$strategy
        printf '%s\n' 'exit 0, r0 = 0, r1 = 1' 'exit 0, r0 = 1, r1 = 0' 'exit 0, r0 = 1, r1 = 1' >want
        diff -u want set-$strategy >d || fail "$strategy outcomes of sb_litmus: $(cat d)"
        for pair in '0, r1 = 1' '1, r1 = 0' '1, r1 = 1'; do
            sched=$(sed -n "/r0 = $pair,/{n;s/.*schedule //p}" "$WORK/out")
            "$MDAT" replay --watch r0 --watch r1 "$sched" </dev/null >r.out 2>&1
            grep -qx "mdat: watched, at the end: r0 = $pair" r.out || fail "$sched does not replay to r0 = $pair"
        done
    done
    # dfs within a bound: exact within it, and said so.
    run_mdat run --strategy dfs --preemption-bound 0 --outcomes --races=off --watch r0 --watch r1 -n 1000 -s 1 \
        -o sb-bound "$TARGETS/tso_sb_litmus"
    expect_status 0
    expect_out "  exact within preemption bound 0: all "
    expect_out "more preemptions may reach other outcomes"
    ;;
outcomes_errors)
    run_mdat run --outcomes --watch no_such_variable -n 2 "$TARGETS/lost_update"
    expect_status 2
    expect_err "--watch 'no_such_variable'"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "not a one-line error"
    # --keep-going is implied, not an error.
    run_mdat run --outcomes --keep-going --races=off -n 3 -s 1 -o k "$TARGETS/correct_counter"
    expect_status 0
    expect_out "outcome"
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac
finish
