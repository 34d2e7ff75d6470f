#!/usr/bin/env bash
# End-to-end tests of the search strategies (pos, surw, dfs, dpor): dpor's
# class counts on programs whose counts are derived by hand in their
# headers (tests/targets/search/), a bug found by every strategy with a
# schedule that replays, -j never changing the answer, and bad input.
#   search.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# expect_classes N ARGS...: dpor explores exactly N classes and says so.
expect_classes() {
    local n=$1
    shift
    run_mdat run --strategy dpor -n 1000 -o out-dir --json "$WORK/run.json" "$@"
    expect_status 0 "$@"
    expect_out "mdat: explored all $n distinct interleavings (classes), no failure"
    expect_json '"exhaustive": true' "$WORK/run.json"
    expect_json "\"classes\": $n,?\$" "$WORK/run.json"
}

t_classes() {
    expect_classes 1 --races off "$TARGETS/search_disjoint"
    expect_classes 2 --races off "$TARGETS/search_shared_writes" 1
    expect_classes 6 --races off "$TARGETS/search_shared_writes" 2
    expect_classes 20 --races off "$TARGETS/search_shared_writes" 3
    expect_classes 4 --races off "$TARGETS/search_reads_lock" reads
    # Race-free: proved correct with the race detector on; one class per
    # order of the two critical sections.
    expect_classes 2 "$TARGETS/search_reads_lock" lock
}

# Issue 26: a blocked acquisition is no event, so programs that share only
# locks have as many classes as acquisition orders (the counts GenMC and
# Nidhugg give; derived in each target's header).
t_blocking_classes() {
    local nk
    set -- 2 2,1 6 2,2 20 2,3 6 3,1 90 3,2
    while [ $# -gt 0 ]; do
        nk=$2
        expect_classes "$1" --races off "$TARGETS/search_locked_counter" "${nk%,*}" "${nk#*,}"
        shift 2
    done
    expect_classes 6 --races off "$TARGETS/search_philosophers" 3
    expect_classes 14 --races off "$TARGETS/search_philosophers" 4
    expect_classes 28 --races off "$TARGETS/search_lastzero" 4
    expect_classes 64 --races off "$TARGETS/search_lastzero" 5
}

# Blocking left out of the events must not hide a deadlock: dpor still
# finds the naive philosophers' cycle and the lost wake-up, and names them.
t_blocking_deadlocks() {
    run_mdat run --strategy dpor -n 2000 -o out-dir --races off "$TARGETS/search_philosophers" 3 naive
    expect_status 1 "naive philosophers"
    expect_out "FAILURE deadlock"
    expect_out "blocks on mutex fork_lock"
    run_mdat run --strategy dpor -n 2000 -o out-dir --races off "$TARGETS/condvar_signal_lost"
    expect_status 1 "condvar lost wake-up"
    expect_out "FAILURE deadlock"
}

# Issue 26's spin loops: a thread that only re-reads what nobody changed
# is not scheduled while another can run, and the rounds it went before it
# was seen to spin are no events of a class (spin-assume). dpor proves
# Peterson and Dekker (seq_cst atomics, busy-waits) within 16 executions
# each (7 and 11; 32 and 93 before the rounds were left out; GenMC's 4
# count complete executions only, mdat's extra ones are GenMC's blocked
# ones: docs/architecture.md) and finds
# their broken variants (a flag raised after giving the turn away, a flag
# never raised, Dekker's check-then-act); a spin nothing can end is a
# livelock naming what it reads.
t_spin_proofs() {
    local program variant line
    for program in peterson dekker; do
        run_mdat run --strategy dpor -n 16 -o out-dir --races off --json "$WORK/run.json" "$TARGETS/search_$program"
        expect_status 0 "$program"
        grep -qE "^mdat: explored all [0-9]+ distinct interleavings \(classes\), no failure" "$WORK/out" ||
            fail "$program: not proved in 16 executions: $(grep '^mdat:' "$WORK/out")"
        expect_json '"exhaustive": true' "$WORK/run.json"
    done
    # A spin is seen after one round (a second when the first still
    # carries what came before the loop: a stack temporary the loop
    # overwrites): no thread re-reads Peterson's busy-wait more than 4 times
    # in a row (5 when a state had to come back twice before its stack was
    # compared).
    line=$(line_of search/peterson.c "while (atomic_load")
    run_mdat run --strategy dpor -n 16 -o out-dir --races off --trace "$TARGETS/search_peterson"
    local longest
    longest=$(awk -v at="peterson.c:$line" '
        $0 ~ /^ +[0-9]+ / && index($0, at) && $0 ~ / R / {
            t = ($2 == "*") ? $3 : $2; run = (t == last) ? run + 1 : 1; last = t
            if (run > max) max = run; next }
        $0 ~ /^ +[0-9]+ / { last = "" }
        END { print max + 0 }' "$WORK/out")
    [ "$longest" -ge 2 ] && [ "$longest" -le 4 ] ||
        fail "Peterson: a thread re-read the busy-wait $longest times in a row before it was seen to spin"
    for variant in peterson,broken peterson,noflag dekker,broken; do
        program=${variant%,*}
        rm -rf "$WORK/out-dir"
        run_mdat run --strategy dpor -n 500 -o out-dir --races off "$TARGETS/search_$program" "${variant#*,}"
        expect_status 1 "$variant"
        expect_out "FAILURE assertion"
        line=$(line_of "search/$program.c" FAILS)
        expect_out "$program.c:$line"
    done
    rm -rf "$WORK/out-dir"
    run_mdat run --strategy dpor -n 5 -o out-dir "$TARGETS/livelock_flag"
    expect_status 1 "livelock_flag"
    expect_out "FAILURE livelock"
    expect_out "T2 spins on ready, which no thread can change any more"
    local sched
    sched=$(first_sched)
    run_mdat replay "$sched"
    expect_out "reproduced FAILURE livelock"
}

# A correct atomic_flag spinlock (3 threads x 3 increments) costs about
# what the mutex does under every strategy: no execution of 30 needs more
# than 10x the steps every execution of the mutex version stays within.
t_spin_cost() {
    for strategy in pct pos surw random portfolio dfs dpor; do
        run_mdat run --strategy "$strategy" -s 1 -n 30 --max-steps 120 -o out-dir --races off \
            --json "$WORK/run.json" "$TARGETS/search_spin_counter" 3 3 mutex
        expect_status 0 "$strategy mutex"
        expect_json '"incomplete": 0' "$WORK/run.json"
        run_mdat run --strategy "$strategy" -s 1 -n 30 --max-steps 1200 -o out-dir --races off \
            --json "$WORK/run.json" "$TARGETS/search_spin_counter" 3 3
        expect_status 0 "$strategy spinlock"
        expect_json '"incomplete": 0' "$WORK/run.json"
    done
}

t_not_exhaustive() {
    run_mdat run --strategy dpor -n 5 -o out-dir --races off --json "$WORK/run.json" "$TARGETS/search_shared_writes" 3
    expect_status 0
    expect_out "mdat: no failure in 5 distinct interleavings (classes): NOT exhaustive, the search stopped at -n 5 executions"
    expect_json '"exhaustive": false' "$WORK/run.json"
    expect_json '"classes": 5,?$' "$WORK/run.json"
    run_mdat run --strategy dfs --preemption-bound 1 -n 1000 -o out-dir --races off --json "$WORK/run.json" \
        "$TARGETS/search_shared_writes" 2
    expect_status 0
    expect_out "within preemption bound 1, no failure"
    expect_out "every schedule with at most 1 preemptions was run"
    expect_json '"exhaustive": true' "$WORK/run.json"
    expect_json '"bound": 1' "$WORK/run.json"
}

# The bug of search_ordered_flag: found by every strategy within 100
# executions, at the assert, and its schedule replays to the same report.
t_bug_every_strategy() {
    local line
    line=$(line_of search/ordered_flag.c FAILS)
    for strategy in random pct pos surw portfolio dfs dpor; do
        rm -rf "$WORK/out-dir"
        run_mdat run --strategy "$strategy" -s 3 -n 100 -o out-dir --races off "$TARGETS/search_ordered_flag"
        expect_status 1 "--strategy $strategy"
        expect_out "FAILURE assertion"
        expect_out "ordered_flag.c:$line"
        local sched
        sched=$(first_sched)
        [ -n "$sched" ] || { fail "$strategy saved no schedule"; continue; }
        if [ "$strategy" = portfolio ]; then
            # The member that ran the failing execution: slot i mod 8 of a round.
            local index members=(pct pos surw random pct pos surw bounded)
            index=$(sed -n 's/^execution //p' "$sched")
            grep -q "^strategy portfolio/${members[index % 8]}\$" "$sched" ||
                fail "$sched does not name portfolio/${members[index % 8]}"
            expect_out "chosen by ${members[index % 8]})"
        else
            grep -q "^strategy $strategy\$" "$sched" || fail "$sched does not name strategy $strategy"
        fi
        expect_replay_identical "$sched"
    done
    # --depth auto (pct's depth drawn per execution within what -n affords)
    # finds it too, says so, and its schedule replays.
    for strategy in pct portfolio; do
        rm -rf "$WORK/out-dir"
        run_mdat run --strategy "$strategy" --depth auto -s 3 -n 100 -o out-dir --races off "$TARGETS/search_ordered_flag"
        expect_status 1 "--strategy $strategy --depth auto"
        expect_out "depth chosen per execution"
        expect_out "ordered_flag.c:$line"
        expect_replay_identical "$(first_sched)"
    done
    # The longest member's name is recorded whole (seed 2 finds this
    # deadlock in execution 3, random's turn).
    rm -rf "$WORK/out-dir"
    run_mdat run -s 2 -n 4 --no-shrink -o out-dir "$TARGETS/deadlock_lock_order"
    expect_status 1
    expect_out "execution 3 (seed 2, chosen by random)"
    grep -q "^strategy portfolio/random\$" "$(first_sched)" || fail "the schedule does not name portfolio/random"
    expect_replay_identical "$(first_sched)"
}

# Issue 26: a bug that needs one preemption at one place, to the one thread
# of twenty-one that differs (SCTBench's twostage_100 in miniature), is found
# by the default run: the portfolio's bounded member walks the schedules with
# one preemption in order. The same sharded in two finds the same execution,
# and its schedule replays.
t_one_preemption() {
    local line
    line=$(line_of search/two_stages.c FAILS)
    rm -rf "$WORK/out-dir"
    run_mdat run -s 1 -n 300 -o out-dir --races off "$TARGETS/search_two_stages"
    expect_status 1
    expect_out "FAILURE assertion"
    expect_out "two_stages.c:$line"
    expect_out "chosen by bounded)"
    local sched index
    sched=$(first_sched)
    [ -n "$sched" ] || { fail "no schedule saved"; return; }
    grep -q "^strategy portfolio/bounded\$" "$sched" || fail "$sched does not name portfolio/bounded"
    expect_replay_identical "$sched"
    index=$(sed -n 's/^execution //p' "$sched")
    local shard=$(( index % 2 + 1 ))
    rm -rf "$WORK/out-dir"
    run_mdat run -s 1 -n 300 --shard "$shard/2" --no-shrink -o out-dir --races off "$TARGETS/search_two_stages"
    expect_status 1 "--shard $shard/2"
    [ "$(sed -n 's/^execution //p' "$(first_sched)")" = "$index" ] || fail "shard $shard/2 did not fail at execution $index"
}

# -j never changes the answer: the failing execution and its schedule.
t_jobs() {
    for strategy in pos surw portfolio dfs dpor; do
        rm -rf "$WORK/out-dir"
        run_mdat run --strategy "$strategy" -s 11 -n 60 -j 1 -o out-dir --races off "$TARGETS/search_ordered_flag"
        local one
        one=$(grep -E 'FAILURE' "$WORK/out")
        local sched1
        sched1=$(first_sched)
        cp "$sched1" "$WORK/one.sched" 2>/dev/null
        rm -rf "$WORK/out-dir"
        run_mdat run --strategy "$strategy" -s 11 -n 60 -j 2 -o out-dir --races off "$TARGETS/search_ordered_flag"
        [ -n "$one" ] || fail "$strategy -j 1 found nothing"
        [ "$(grep -E 'FAILURE' "$WORK/out")" = "$one" ] || fail "$strategy: -j 2 says $(grep FAILURE "$WORK/out"), -j 1 $one"
        cmp -s "$WORK/one.sched" "$(first_sched)" || fail "$strategy: -j 2 saved another schedule"
        case $strategy in
        dfs | dpor) expect_out "(a systematic search runs its executions in order, in one job)" ;;
        esac
    done
}

# No claim without its grounds (issue 23). The C++ -O2 lost wake-up, whose
# notify_one libstdc++ makes: dpor finds the deadlock; with the flag set
# under the mutex it is correct, and dpor proves it.
t_grounds() {
    local line
    line=$(line_of search/cxx_lost_wakeup.cpp WAIT)
    run_mdat run --strategy dpor -n 1000 -o out-dir --no-shrink "$TARGETS/search_cxx_lost_wakeup_o2"
    expect_status 1
    expect_out "FAILURE deadlock"
    expect_out "cxx_lost_wakeup.cpp:$line"
    run_mdat run --strategy dpor -n 1000 -o out-dir --json "$WORK/run.json" "$TARGETS/search_cxx_lost_wakeup_o2" locked
    expect_status 0
    expect_out "mdat: explored all"
    expect_json '"exhaustive": true' "$WORK/run.json"
    grep -q '"grounds_lost"' "$WORK/run.json" && fail "a proof with grounds_lost in its json"
    # Two printf calls share only stdout's lock, inside libc: both orders,
    # from libc.so and from libc linked into a static executable.
    for prog in diff_printf_two diff_printf_two_static; do
        run_mdat run --strategy dpor --outcomes -o out-dir "$TARGETS/$prog"
        expect_status 0
        expect_out "mdat: 2 outcomes of"
        expect_out "  exact: all"
    done
    # A fork runs beside the schedule, a signal from another thread comes
    # at a time no choice decided: NOT exhaustive, with the reason, in the
    # text, --json and --outcomes; never "explored all".
    run_mdat run --strategy dpor -n 1000 -o out-dir --json "$WORK/run.json" "$TARGETS/fork_child"
    expect_status 0
    expect_out "NOT exhaustive, grounds lost: T1 made a process (fork) that runs beside the program"
    expect_json '"exhaustive": false' "$WORK/run.json"
    expect_json '"kind": "process"' "$WORK/run.json"
    run_mdat run --strategy dfs -n 1000 -o out-dir --outcomes --json "$WORK/run.json" "$TARGETS/signal_wakes_waiter"
    expect_status 0
    expect_out "may be incomplete: grounds lost: SIGUSR1 reached T1 at a time no choice decided"
    expect_json '"kind": "signal"' "$WORK/run.json"
    grep -q "explored all\|exact: all" "$WORK/out" && fail "a proof without its grounds"
}

# dpor against unbounded dfs on a quick part of the differential (the
# whole, every program x -O0/-O2, in scripts/dpor-vs-dfs): the same outcome
# sets, 0 disagreements. The part: 9 programs whose unbounded dfs ends in a
# few seconds, failures among them (a lost wake-up, an assertion, a race).
t_differential() {
    local script programs
    script="$SOURCES/../../scripts/dpor-vs-dfs"
    programs=printf_two,puts_stderr,condvar_if,sem_trywait,atomic_claim,unlocked_counter,ordered_flag,store_buffering
    run_mdat_script() { status=0; "$script" --mdat "$MDAT" --targets "$TARGETS" "$@" >"$WORK/out" 2>"$WORK/err" || status=$?; }
    run_mdat_script -n 5000 --only "$programs"
    expect_status 0
    expect_out ", 0 disagreements;"
    local rows
    rows=$(grep -c " O[02] " "$WORK/out")
    [ "$rows" -eq 18 ] || fail "only $rows programs x builds ran: $(cat "$WORK/out")"
    [ "$(grep -c " same$" "$WORK/out")" -eq "$rows" ] || fail "not every program had the same outcomes from both: $(cat "$WORK/out")"
}

# Busy-waits, where dpor leaves a spinner's rounds out (mark_spins) and
# unbounded dfs does not end: every outcome of dfs's first 200 schedules
# is one of dpor's, and dpor's search ends.
t_spin_differential() {
    local script rows
    script="$SOURCES/../../scripts/dpor-vs-dfs"
    status=0
    "$script" --mdat "$MDAT" --targets "$TARGETS" -n 200 --only spin_handoff,peterson_broken >"$WORK/out" 2>"$WORK/err" ||
        status=$?
    expect_status 0
    expect_out ", 0 disagreements;"
    rows=$(grep -c " O[02] " "$WORK/out")
    [ "$rows" -eq 6 ] || fail "only $rows spin programs x builds ran: $(cat "$WORK/out")"
    [ "$(grep -c " dpor covers$" "$WORK/out")" -eq 6 ] || fail "dpor did not cover dfs: $(cat "$WORK/out")"
}

# Issue 23's false proof: a check-then-act on an atomic stock, the sales
# counted with `sold++' under a mutex (differential/stock_check_take.c and
# cxx_stock.cpp). A thread between that add's load and store (two steps,
# the same registers) was taken for a spinner, and dpor and dfs stopped
# branching there: "exact: all 16 classes", one outcome, at -O2. Every
# build, dpor and dfs within two preemptions find the failure and replay
# it; the correct variants are proved; the differential on them (its
# third search trusts no spin judgement) has no disagreement.
t_check_then_act() {
    local program build strategy sched
    for program in stock_check_take cxx_stock; do
        for build in o0 o2; do
            for strategy in "dpor" "dfs --preemption-bound 2"; do
                rm -rf "$WORK/out-dir"
                # shellcheck disable=SC2086  # the strategy and its option
                run_mdat run --strategy $strategy -n 3000 -o out-dir --fail-on-exit \
                    "$TARGETS/diff_${program}_$build" racy
                expect_status 1 "$program $build $strategy"
                expect_out "FAILURE exit-status"
                sched=$(first_sched)
                run_mdat replay "$sched"
                expect_status 1 "$program $build $strategy replay"
                expect_out "reproduced FAILURE exit-status"
            done
            run_mdat run --strategy dpor -n 3000 -o out-dir --fail-on-exit --outcomes "$TARGETS/diff_${program}_$build"
            expect_status 0 "$program $build correct"
            expect_out "exact: all "
            expect_out "mdat: 1 outcome of"
        done
    done
    local script="$SOURCES/../../scripts/dpor-vs-dfs"
    status=0
    "$script" --mdat "$MDAT" --targets "$TARGETS" -n 300 --only stock >"$WORK/out" 2>"$WORK/err" || status=$?
    expect_status 0
    expect_out ", 0 disagreements;"
    [ "$(grep -c " O[02] " "$WORK/out")" -eq 8 ] || fail "not every stock program ran: $(cat "$WORK/out")"
}

# Five more false proofs dpor gave (each "exact: all 1 classes"): a
# semaphore used as a lock, whose later waits were never moved before an
# earlier holder's wait; a process that ends (main returns, or fails an
# assertion) before a thread it started has run, whose next step is no
# event of the trace; one that ends holding a lock another thread
# waits for, whose acquisition is never made; two threads' write(2)
# calls to stdout, which made no stop; and a buffer the kernel fills in a
# read(2) or pread(2) while another thread looks at it. Every order of
# turns, both outcomes of each end, both orders of the lines and both
# values seen are classes now; the buggy variants fail.
t_dpor_blind_spots() {
    local build
    # proves PROGRAM EXPECTED OPTIONS [ARG...]: dpor --outcomes ends, exact,
    # printing EXPECTED; fails PROGRAM ARG: dpor finds the assertion.
    proves() {
        local program=$1 expected=$2 options=$3
        shift 3
        # shellcheck disable=SC2086  # the options, split
        run_mdat run --strategy dpor -n 500 -o out-dir --outcomes $options "$TARGETS/diff_${program}_$build" "$@"
        expect_status 0 "$program $build"
        expect_out "$expected"
        expect_out "exact: all "
    }
    fails() {
        run_mdat run --strategy dpor -n 500 -o out-dir "$TARGETS/diff_${1}_$build" "$2"
        expect_status 1 "$1 $2 $build"
        expect_out "FAILURE assertion"
    }
    for build in o0 o2; do
        proves sem_lock_order "mdat: 6 outcomes of 6 distinct interleavings (classes)" ""
        fails sem_lock_order buggy
        proves exit_before_worker "mdat: 2 outcomes of" ""
        fails exit_before_worker fail
        proves held_lock_exit "mdat: 2 outcomes of" ""
        fails held_lock_exit fail
        proves raw_writes "mdat: 2 outcomes of 2 distinct interleavings (classes)" ""
        proves kernel_fills "mdat: 2 outcomes of" "--races off"
        proves kernel_fills "mdat: 2 outcomes of" "--races off" pread
    done
}

t_check_stopped() {
    # dpor stops an execution early once it is equivalent to one already
    # run: that execution has no whole output, and the checker must not
    # judge it (a checker that wants a line once failed such a run: a
    # correct program reported as a checker failure whose replay then
    # diverged).
    run_mdat run --strategy dpor -n 300 --races=off --check 'grep -q "3 philosophers ate"' \
        "$TARGETS/search_philosophers"
    expect_status 0
    expect_out "explored all 6 distinct interleavings (classes), no failure"
    grep -q "FAILURE\|diverged" "$WORK/out" "$WORK/err" && fail "a stopped execution was judged"
}

t_bad_input() {
    local prog="$TARGETS/search_disjoint"
    run_mdat run --preemption-bound 2 "$prog"
    expect_status 2
    expect_err "--preemption-bound goes with --strategy dfs, not portfolio"
    run_mdat run --strategy pos --delay-bound 1 "$prog"
    expect_status 2
    expect_err "--delay-bound goes with --strategy dfs, not pos"
    run_mdat run --strategy dfs --preemption-bound -1 "$prog"
    expect_status 2
    expect_err "--preemption-bound wants a number from 0 to 1000000, not \"-1\""
    run_mdat run --strategy pct --depth deep "$prog"
    expect_status 2
    expect_err "--depth wants a number from 1 to 100 or auto, not \"deep\""
    run_mdat run --strategy dfs --delay-bound two "$prog"
    expect_status 2
    expect_err "--delay-bound wants a number from 0 to 1000000, not \"two\""
    run_mdat run --strategy dfs --preemption-bound 1 --delay-bound 1 "$prog"
    expect_status 2
    expect_err "--preemption-bound and --delay-bound cannot go together"
    for strategy in dfs dpor; do
        run_mdat run --strategy "$strategy" --memory-model tso "$prog"
        expect_status 2
        expect_err "--memory-model tso goes with a randomized strategy (random, pct, pos, surw or portfolio), not $strategy"
    done
    run_mdat run --strategy dpor --preempt sync "$prog"
    expect_status 2
    expect_err "--strategy dpor needs --preempt all"
    run_mdat run --strategy bfs "$prog"
    expect_status 2
    expect_err "unknown strategy \"bfs\""
    run_mdat grade --strategy dpor "$prog"
    expect_status 2
    expect_err "grade takes random, pct, pos, surw or portfolio"
    for out in "$WORK/err"; do
        [ "$(wc -l <"$out")" -le 1 ] || fail "more than one line of error: $(cat "$out")"
    done
    # pos takes tso (its flush candidates are events like the others).
    run_mdat run --strategy pos --memory-model tso --races off -n 50 -s 1 -o out-dir "$TARGETS/tso_store_buffering"
    expect_status 1
    expect_out "FAILURE assertion"
}

"t_$TEST"
finish
