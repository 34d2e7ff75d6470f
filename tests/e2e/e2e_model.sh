#!/usr/bin/env bash
# End-to-end tests of what mdat shows about a program: names of variables and
# heap blocks, the sync-object model (holders, values, waiters), thread
# states, and pthread API misuse. One test per invocation:
#   e2e_model.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# expect_misuse CASE MESSAGE MARKER: `api_misuse CASE` is reported as misuse
# with that message at the marked line, and the schedule replays it.
expect_misuse() {
    local which=$1 message=$2 marker=$3
    rm -rf out-dir
    run_mdat run --races=off -n 50 -s 1 -o out-dir --json run.json "$TARGETS/api_misuse" "$which"
    expect_status 1
    expect_out "FAILURE misuse"
    expect_out "$message"
    expect_json '"kind": "misuse"' run.json
    expect_json "\"location\": \"api_misuse.c:$(line_of api_misuse.c "$marker")\"" run.json
    local sched
    sched=$(first_sched)
    [ -n "$sched" ] || { fail "$which: no schedule saved"; return; }
    expect_replay_identical "$sched"
}

# final_state JSONL: the state on the last line of a saved JSON Lines trace,
# one line per thread and object, easy to grep:
#   thread 2 waiting-lock waits_for=3 on=mutex lock_b (held by T3)
#   mutex lock_a holder=2 count=1 limit=0 mutex= waiters=3
final_state() {
    python3 - "$1" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
state = json.loads(lines[-1]).get("state") or {"threads": [], "objects": []}
for t in state["threads"]:
    print(f"thread {t['id']} {t['status']} waits_for={t['waits_for']} on={t['waiting_on']}")
for o in state["objects"]:
    w = ",".join(str(i) for i in o["waiters"])
    print(f"{o['kind']} {o['name']} holder={o['holder']} count={o['count']} limit={o['limit']} mutex={o['mutex_name']} waiters={w}")
PY
}

# all_states JSONL: every distinct object row of every state in a trace.
all_states() {
    python3 - "$1" <<'PY'
import json, sys
seen = set()
for line in open(sys.argv[1]):
    state = json.loads(line).get("state")
    for o in (state or {}).get("objects", []):
        w = ",".join(str(i) for i in o["waiters"])
        row = f"{o['kind']} {o['name']} holder={o['holder']} count={o['count']} limit={o['limit']} waiters={w}"
        if row not in seen:
            seen.add(row)
            print(row)
    for t in (state or {}).get("threads", []):
        row = f"thread {t['id']} {t['status']} on={t['waiting_on']}"
        if row not in seen:
            seen.add(row)
            print(row)
PY
}

expect_line() { grep -qxF -- "$2" "$1" || fail "$1 lacks the line: $2"; }

case "$TEST" in
misuse)
    expect_misuse unlock-other "T2 unlocks mutex lock, which T1 holds" "UNLOCK_OTHER:"
    expect_misuse unlock-free "T2 unlocks mutex lock, which is not locked" "UNLOCK_FREE:"
    expect_misuse cond-nolock "T2 waits on condvar ready without holding mutex lock" "COND_NOLOCK:"
    expect_misuse destroy-held "T1 destroys mutex lock, still locked by T2, which has exited" "DESTROY_HELD:"
    expect_misuse sem-destroy "T1 destroys semaphore items while T2 waits on it" "SEM_DESTROY:"
    # Whoever joins second is reported; with seed 1 that is main.
    expect_misuse double-join "T1 joins T2, which T3 already joined" "DOUBLE_JOIN_MAIN:"
    # Correct programs that init, destroy and join properly are not misuse.
    for prog in heap_queue correct_prodcons correct_semaphores barrier_rwlock; do
        run_mdat run -n 100 -s 1 -o out-dir "$TARGETS/$prog"
        expect_status 0
    done
    ;;
heap_names)
    # malloc called through the PLT (its stub is where mdat follows it) and,
    # with -fno-plt, through the GOT (followed at malloc itself).
    for prog in heap_queue heap_queue_noplt; do
        run_mdat run -n 1 -s 2 --trace=status "$TARGETS/$prog"
        expect_status 0
        note=$(line_of heap_queue.c 'NOTE:')
        # Through the global pointer q, with DWARF's member names.
        expect_out "lock q->lock "
        expect_out "R q->count -> 0 "
        expect_out "W q->items[0] := 1 "
        expect_out "cond_signal q->not_empty "
        # The sync objects that live on the heap are in the tables by those names.
        grep -qE '^ +\*? q->lock +normal +(free|T[0-9]) ' out || fail "$prog: no q->lock row in the mutex table"
        grep -qE '^ +\*? q->not_full +' out || fail "$prog: no q->not_full row in the condvar table"
        # Memory only a local points to: by its allocation. The producer's
        # own block is no step while pages are owned (nobody shares it):
        # with every access observed, it is.
        MDAT_NO_PAGE_OWNERSHIP=1 run_mdat run -n 1 -s 2 --trace=status "$TARGETS/$prog"
        expect_status 0
        expect_out "W heap#2 (malloc at heap_queue.c:$note) := 1 "

    done
    ;;
names)
    # Variables, members, elements, typed values, inlined code and TLS, as a
    # student would write them.
    run_mdat run -n 1 -s 1 --trace "$TARGETS/names"
    expect_status 0
    expect_out "R accounts[1].balance -> 0 "
    expect_out "W accounts[1].balance := 100 "
    expect_out "names.c:$(line_of names.c 'DEPOSIT:') deposit (inlined into main)"
    expect_out "W accounts[2].tag := BLUE "
    expect_out "W grade := 'B' "
    expect_out "W ratio := 0.5 "
    expect_out "W shared_hits := NULL "
    expect_out "W tls_hits (T2) := 5 "
    expect_out "names.c:$(line_of names.c 'TLS:') main"
    # C++: std::mutex by the student's name, not its _M_mutex insides; memory
    # from operator new by its allocation (every access observed: with page
    # ownership the block is its thread's, and no step touches it).
    MDAT_NO_PAGE_OWNERSHIP=1 run_mdat run -n 1 -s 1 --trace "$TARGETS/cxx_threads"

    expect_status 0
    expect_out "lock counter_mutex "
    expect_out "unlock counter_mutex "
    # Code of library templates compiled into the program is shown at the
    # user's line that led there.
    expect_out "lock counter_mutex                   cxx_threads.cpp:$(line_of cxx_threads.cpp 'lock_guard<std::mutex> guard') incrementer"
    grep -qE 'heap#[0-9]+ \(new at cxx_threads\.cpp:[0-9]+\)' out || fail "no heap block named by its operator new"
    # Watches: values by their DWARF types.
    run_mdat run -n 1 -s 1 --trace=json --watch 'accounts[2]' --watch grade "$TARGETS/names"
    expect_status 0
    grep '^{' out | tail -n 1 >end.json
    python3 - end.json <<'PY' || fail "watches in the final state are wrong: $(cat end.json)"
import json, sys
w = {x["expr"]: x for x in json.load(open(sys.argv[1]))["state"]["watches"]}
assert w["accounts[2]"]["value"] == "{id = 0, balance = 0, tag = BLUE}", w
assert w["grade"]["value"] == "'B'", w
PY
    # A watch that can name nothing is refused before the program runs, in
    # one line, as an invariant is: no such variable, an index out of an
    # array's bounds, no such member; by run, replay and attach alike.
    "$MDAT" run -n 1 -s 1 --check false -o "$WORK/sched-names" "$TARGETS/names" </dev/null >/dev/null 2>&1
    sched=$(ls "$WORK"/sched-names/*.sched | grep -v original | head -n 1)
    for bad in "nosuch|no variable named 'nosuch'" "accounts[3].balance|index 3 out of bounds for 'accounts' (size 3)" \
               "accounts[1].nosuch|'accounts[1]' has no member 'nosuch'"; do
        expr=${bad%%|*} why=${bad#*|}
        run_mdat run -n 1 -s 1 --watch "$expr" "$TARGETS/names"
        expect_status 2
        expect_err "mdat run: --watch '$expr': $why"
        [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "--watch '$expr': not one line: $(cat "$WORK/err")"
        grep -q "exploring" "$WORK/out" && fail "--watch '$expr': the run started"
        run_mdat replay --trust-check --watch "$expr" "$sched"
        expect_status 2
        expect_err "mdat replay: --watch '$expr': $why"
        run_mdat attach --watch "$expr" "$TARGETS/names"
        expect_status 3
        expect_err "mdat: --watch '$expr': $why"
        [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "attach --watch '$expr': not one line: $(cat "$WORK/err")"
    done
    # What a pointer points to is only known at run time, and a
    # thread-local variable is each thread's: accepted, then told in the state.
    run_mdat run -n 1 -s 1 --watch '*shared_hits' --watch tls_hits --watch 'accounts[1].balance' "$TARGETS/names"
    expect_status 0
    ;;
state_deadlock)
    # The saved JSON Lines trace ends with the deadlock as the model sees it.
    run_mdat run -n 300 -s 1 -o out-dir "$TARGETS/deadlock_lock_order"
    expect_status 1
    sched=$(first_sched)
    final_state "${sched%.sched}.jsonl" >final.txt
    expect_line final.txt "thread 1 waiting-join waits_for=2 on=join T2"
    expect_line final.txt "thread 2 waiting-lock waits_for=3 on=mutex lock_b (held by T3)"
    expect_line final.txt "thread 3 waiting-lock waits_for=2 on=mutex lock_a (held by T2)"
    expect_line final.txt "mutex lock_a holder=2 count=1 limit=0 mutex= waiters=3"
    expect_line final.txt "mutex lock_b holder=3 count=1 limit=0 mutex= waiters=2"
    # The status view prints the same tables, marking what changed.
    status_file="${sched%.sched}.status"
    grep -q "final state after step" "$status_file" || fail "no final tables in $status_file"
    grep -qE '^  \* lock_b +normal +T3 +T2$' "$status_file" || fail "$status_file lacks the changed lock_b row"
    ;;
state_semaphore)
    run_mdat run -n 300 -s 1 -o out-dir "$TARGETS/semaphore_misuse"
    expect_status 1
    sched=$(first_sched)
    final_state "${sched%.sched}.jsonl" >final.txt
    expect_line final.txt "thread 2 waiting-sem waits_for=0 on=semaphore mutex"
    expect_line final.txt "thread 3 waiting-sem waits_for=0 on=semaphore full"
    expect_line final.txt "semaphore full holder=0 count=0 limit=0 mutex= waiters=3"
    expect_line final.txt "semaphore mutex holder=0 count=0 limit=0 mutex= waiters=2"
    expect_line final.txt "semaphore empty holder=0 count=1 limit=0 mutex= waiters="
    ;;
state_cache)
    # Objects are read again only when something may have changed them:
    # the states must be those of a full reading at every step.
    for target in semaphore_misuse condvar_signal_lost barrier_rwlock futex_flag correct_prodcons api_misuse; do
        for seed in 1 2 3; do
            "$MDAT" run -n 1 -s $seed --strategy random --trace=json "$TARGETS/$target" </dev/null 2>/dev/null |
                grep '^{' >cached.jsonl
            MDAT_STATE_FULL=1 "$MDAT" run -n 1 -s $seed --strategy random --trace=json "$TARGETS/$target" </dev/null 2>/dev/null |
                grep '^{' >full.jsonl
            [ -s full.jsonl ] || fail "$target: no trace"
            cmp -s cached.jsonl full.jsonl || fail "$target seed $seed: cached states differ: $(diff cached.jsonl full.jsonl | head -4)"
        done
    done
    ;;
state_condvar)
    run_mdat run -n 300 -s 1 -o out-dir "$TARGETS/condvar_signal_lost"
    expect_status 1
    sched=$(first_sched)
    final_state "${sched%.sched}.jsonl" >final.txt
    # One of the two waiters (T2 or T3, as the schedule has it) sleeps for ever.
    stuck=$(sed -n 's/^thread \([23]\) waiting-cond waits_for=0 on=condvar go_cond (with mutex go_lock)$/\1/p' final.txt)
    [ -n "$stuck" ] || fail "no waiter is left waiting on go_cond: $(cat final.txt)"
    expect_line final.txt "condvar go_cond holder=0 count=0 limit=0 mutex=go_lock waiters=$stuck"
    expect_line final.txt "mutex go_lock holder=0 count=0 limit=0 mutex= waiters="
    ;;
state_barrier_rwlock)
    run_mdat run -n 1 -s 1 --trace=json "$TARGETS/barrier_rwlock"
    expect_status 0
    grep '^{' out >trace.jsonl
    all_states trace.jsonl >rows.txt
    expect_line rows.txt "barrier phase_barrier holder=0 count=0 limit=3 waiters="
    expect_line rows.txt "barrier phase_barrier holder=0 count=2 limit=3 waiters=3,4"
    grep -qE '^rwlock data_lock holder=[2-4] count=0 ' rows.txt || fail "no writer ever holds data_lock"
    grep -qE '^rwlock data_lock holder=0 count=[1-3] ' rows.txt || fail "no reader ever holds data_lock"
    grep -qE '^thread [0-9]+ waiting-barrier on=barrier phase_barrier$' rows.txt || fail "nobody waits at the barrier"
    ;;
outcomes)
    # What a step led to, in words that do not mislead: a cancel is a step
    # and the wait it ends says so; a thread that runs on to its end after
    # its last operation "then ends" (that operation did not end it); a
    # signal nobody waits for is marked (the lost wake-up).
    for strategy in pct random; do
        run_mdat run -n 100 -s 2 --strategy $strategy "$TARGETS/cancel_wait"
        expect_status 0
    done
    run_mdat run -n 1 -s 3 --trace "$TARGETS/cancel_wait"
    expect_out "T1   cancel T2                            cancel_wait.c:$(line_of cancel_wait.c 'CANCEL:') main"
    expect_out "interrupts cond_wait        cancel_wait.c:"
    expect_out "-> cancelled (pthread_cancel): its cleanup handlers run"
    expect_out "-> then the thread ends (pthread_cancel had asked it to)"
    grep -q -- "-> exits" out && fail "a step still says it exits"
    run_mdat run -n 1 -s 1 --trace "$TARGETS/correct_counter"
    expect_out "-> then the thread ends"
    found=
    for seed in 1 2 3 4 5 6; do
        run_mdat run -n 1 -s $seed --trace "$TARGETS/condvar_signal_lost"
        grep -q "cond_signal go_cond (nobody waits: no effect)" out && found=1 && break
    done
    [ -n "$found" ] || fail "no schedule marked the signal nobody waited for"
    ;;
state_futex)
    # Some schedule makes the waiter sleep on the word before main sets it.
    found=
    for seed in 1 2 3 4 5 6 7 8; do
        run_mdat run -n 1 -s "$seed" --strategy random --trace=json "$TARGETS/futex_flag"
        grep '^{' out >trace.jsonl
        all_states trace.jsonl >rows.txt
        if grep -qxF "thread 2 waiting-futex on=futex word ready" rows.txt; then
            found=$seed
            expect_line rows.txt "futex ready holder=0 count=0 limit=0 waiters=2"
            break
        fi
    done
    [ -n "$found" ] || fail "in 8 schedules the waiter never waited on the futex word ready"
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac

finish
