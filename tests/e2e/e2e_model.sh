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
    run_mdat run -n 50 -s 1 -o out-dir --json run.json "$TARGETS/api_misuse" "$which"
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
    run_mdat run -n 1 -s 2 --trace "$TARGETS/heap_queue"
    expect_status 0
    alloc=$(line_of heap_queue.c 'ALLOC:')
    expect_out "lock heap#1 (calloc at heap_queue.c:$alloc)"
    expect_out "cond_signal heap#1 (calloc at heap_queue.c:$alloc)+40"
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac

finish
