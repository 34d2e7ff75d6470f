#!/usr/bin/env bash
# End-to-end tests of `mdat attach -p PID --print | --json`: the target
# programs are started natively (not under mdat), mdat attaches once they
# are stuck, and the test checks the verdict, the user lines, the exit
# status, and that the process is exactly as it was afterwards (each
# thread's state and wchan in /proc, TracerPid 0), then kills it.
# Usage: attach.sh MDAT TARGETS_DIR SOURCES_DIR TEST
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"

# Attaching to a process that is not mdat's child needs root (or
# CAP_SYS_PTRACE) where Yama's ptrace_scope is 1 or 2, and is impossible at 3.
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
if [ "$scope" -ge 3 ] || { [ "$scope" -ge 1 ] && [ "$(id -u)" -ne 0 ]; }; then
    echo "SKIP: Yama ptrace_scope $scope does not let this user attach to a process it did not start"
    exit 77
fi

PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# start PROG [ARGS...]: runs a target natively in the background; $PID.
start() {
    local prog=$1
    shift
    "$TARGETS/$prog" "$@" </dev/null >"$WORK/prog.out" 2>&1 &
    PID=$!
    PIDS+=("$PID")
}

# Each thread of $1 as "tid state wchan", one a line.
snapshot() {
    local t stat rest wchan
    for t in /proc/"$1"/task/*; do
        # Builtins only: a crowd of threads is read in a blink.
        { read -r stat <"$t/stat"; } 2>/dev/null || continue
        wchan=""
        { read -r wchan <"$t/wchan"; } 2>/dev/null    # no final newline: read says 1, but reads it
        rest=${stat##*) }
        echo "${t##*/} ${rest%% *} $wchan"
    done | sort -n
}

# wait_stuck PID THREADS: until the process has THREADS threads, all
# sleeping in the kernel (state S, a wchan), the same in two looks 0.2 s
# apart. Fails after 10 s.
wait_stuck() {
    local pid=$1 want=$2 before="" now i
    for i in $(seq 100); do
        now=$(snapshot "$pid")
        if [ "$(echo "$now" | grep -c .)" -eq "$want" ] && ! echo "$now" | awk '$2 != "S" || $3 == "0" || $3 == "" {bad=1} END {exit !bad}' &&
            [ "$now" = "$before" ]; then
            return 0
        fi
        before=$now
        sleep 0.1
    done
    fail "process $pid did not hang with $want threads: $(snapshot "$pid" | tr '\n' ';')"
    return 1
}

# asleep_snapshot PID: the snapshot once every thread sleeps in the kernel
# (a thread that wakes now and then, a ticker, may be caught running by a
# single look, and is then never seen "as before"). Looks for up to 2 s.
asleep_snapshot() {
    local now i
    for i in $(seq 40); do
        now=$(snapshot "$1")
        echo "$now" | awk '$2 != "S" || $3 == "0" || $3 == "" {bad=1} END {exit !bad}' || break
        sleep 0.05
    done
    echo "$now"
}

# expect_as_before PID SNAPSHOT: the threads are back in the states and
# waits they had (a wait broken off by the attach is made again at once:
# allow it 2 s), and nothing traces the process.
expect_as_before() {
    local pid=$1 before=$2 now i
    for i in $(seq 20); do
        now=$(snapshot "$pid")
        [ "$now" = "$before" ] && break
        sleep 0.1
    done
    [ "$now" = "$before" ] || fail "process $pid changed: before [$(echo "$before" | tr '\n' ';')] after [$(echo "$now" | tr '\n' ';')]"
    grep -q '^TracerPid:[[:space:]]*0$' /proc/"$pid"/status || fail "process $pid is still traced: $(grep TracerPid /proc/"$pid"/status)"
}

stop() { kill -9 "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

# wait_threads PID THREADS: until the process has THREADS threads. Fails after 10 s.
wait_threads() {
    local i
    for i in $(seq 100); do
        [ "$(ls /proc/"$1"/task 2>/dev/null | wc -l)" -eq "$2" ] && return 0
        sleep 0.1
    done
    fail "process $1 did not reach $2 threads"
    return 1
}

# expect_let_go PID: after a watch the threads run on: none held in a
# trace stop (t) or stopped (T), and nothing traces the process.
expect_let_go() {
    local states
    states=$(snapshot "$1" | awk '{print $2}' | tr -d '\n')
    case "$states" in
    *[tTZX]*) fail "process $1 not let go as it was: thread states $states" ;;
    esac
    grep -q '^TracerPid:[[:space:]]*0$' /proc/"$1"/status || fail "process $1 is still traced"
}

# attach_stuck PROG THREADS: starts PROG, waits until it hangs, attaches
# with --print, checks exit 1 and the process unchanged; leaves it running.
attach_stuck() {
    start "$1"
    wait_stuck "$PID" "$2" || return 1
    local before
    before=$(snapshot "$PID")
    run_mdat attach -p "$PID" --print
    expect_status 1 attach -p "$PID" --print
    expect_as_before "$PID" "$before"
}

# The live view (mdat attach -p PID, no --print) in a tmux pane of its own
# server: tui_open PID starts it, $MDAT_PID is mdat's pid; screen, keys,
# wait_screen TEXT [SECONDS] as tests/e2e/tui.sh has them.
# Each view gets a tmux server of its own: one started right after the
# last one was killed on the same socket can fail to start.
TUI_VIEWS=0
tui_open() {
    command -v tmux >/dev/null || { fail "tmux is not installed"; finish; }
    TUI_VIEWS=$((TUI_VIEWS + 1))
    SOCK="mdat-attach-$TEST-$$-$TUI_VIEWS"
    rm -f "$WORK/exit"
    tmux -L "$SOCK" new-session -d -s live -x 120 -y 40 \
        "env LANG=C.UTF-8 $(printf '%q ' "$MDAT") attach -p $1 2>$WORK/live.err; echo \$? >$WORK/exit; sleep 600"
    local pane waited=0
    pane=$(tmux -L "$SOCK" list-panes -t live -F '#{pane_pid}')
    MDAT_PID=
    while [ -z "$MDAT_PID" ] && [ "$waited" -lt 200 ]; do
        MDAT_PID=$(pgrep -P "$pane" -f "attach -p" | head -n 1)
        sleep 0.05
        waited=$((waited + 1))
    done
}
tui_close() { tmux -L "$SOCK" kill-server 2>/dev/null; }
screen() { tmux -L "$SOCK" capture-pane -p -t live 2>/dev/null; }
keys() { tmux -L "$SOCK" send-keys -t live "$@"; }
# wait_for_screen GREP_FLAG PATTERN SECONDS SHOWN: until the live view
# matches (grep -F or -E), else a failure naming SHOWN.
wait_for_screen() {
    local waited=0
    while ! screen | grep -q"$1" -- "$2"; do
        if [ "$waited" -ge $(($3 * 20)) ]; then
            fail "the live view never showed: $4"
            screen
            cat "$WORK/live.err" 2>/dev/null
            return 1
        fi
        sleep 0.05
        waited=$((waited + 1))
    done
}
# wait_screen TEXT [SECONDS]: until the live view shows TEXT (10 s).
wait_screen() { wait_for_screen F "$1" "${2:-10}" "$1"; }
# wait_screen_re REGEX [SECONDS]: as wait_screen, an extended regular expression.
wait_screen_re() { wait_for_screen E "$1" "${2:-10}" "/$1/"; }
# take_over TEXT [SECONDS]: the TUI attached to $PID, once its live view
# shows TEXT, takes the schedule over (key t).
take_over() {
    tui_open "$PID"
    wait_screen "$1" "${2:-10}" || { tui_close; finish; }
    keys t
    wait_screen "TAKEN OVER since" || { tui_close; finish; }
}
# The take-over's step lines (a run's trace lines: "     3 * T2   lock lock_b ...").
step_lines() { screen | grep -E '^ +[0-9]+ [ *] T[0-9]'; }
# wait_exit STATUS: mdat's exit status once it ends.
wait_exit() {
    local waited=0
    while [ ! -s "$WORK/exit" ] && [ "$waited" -lt 200 ]; do sleep 0.05; waited=$((waited + 1)); done
    [ "$(cat "$WORK/exit" 2>/dev/null)" = "$1" ] || fail "mdat attach -p exited with '$(cat "$WORK/exit" 2>/dev/null)', expected $1"
}

# expect_finishes WHAT LINE: the program let go ($PID) ends within 5 s
# with status 0 and prints LINE (133 would be a SIGTRAP left behind).
expect_finishes() {
    local waited=0
    while kill -0 "$PID" 2>/dev/null && [ "$waited" -lt 100 ]; do sleep 0.05; waited=$((waited + 1)); done
    if kill -0 "$PID" 2>/dev/null; then
        fail "$1, the program did not finish: $(snapshot "$PID" | tr '\n' ';')"
        stop "$PID"
        return
    fi
    wait "$PID"
    local st=$?
    [ "$st" = 0 ] || fail "$1, the program ended with status $st (133: a SIGTRAP left behind)"
    grep -qx "$2" "$WORK/prog.out" || fail "$1, the program printed: $(cat "$WORK/prog.out")"
}

case "$TEST" in
deadlock)
    attach_stuck attach_bank_deadlock 3
    l=$(line_of attach/bank_deadlock.c "BUG:")
    w=$(line_of attach/bank_deadlock.c "WAIT: main")
    expect_out "deadlock: T2 waits on mutex acct["
    grep -qE '^deadlock: T2 waits on mutex acct\[[01]\]\.lock held by T3; T3 waits on mutex acct\[[01]\]\.lock held by T2$' "$WORK/out" ||
        fail "no T2/T3 cycle over acct[0].lock and acct[1].lock"
    [ "$(grep -c "bank_deadlock.c:$l transfer  (began in transfer)" "$WORK/out")" -eq 2 ] ||
        fail "T2 and T3 are not both shown at bank_deadlock.c:$l in transfer"
    expect_out "bank_deadlock.c:$w main"
    expect_out "waits to join T2 (in pthread_join)"
    grep -qE '^  mutex +acct\[0\]\.lock +held by T[23]; waiting: T[23]$' "$WORK/out" || fail "acct[0].lock's holder and waiter missing"
    stop "$PID"
    ;;
json)
    start attach_bank_deadlock
    wait_stuck "$PID" 3 || finish
    before=$(asleep_snapshot "$PID")
    run_mdat attach -p "$PID" --json
    expect_status 1 attach -p "$PID" --json
    expect_as_before "$PID" "$before"
    python3 - "$WORK/out" "$PID" "$(line_of attach/bank_deadlock.c "BUG:")" <<'EOF' || fail "JSON report wrong"
import json, sys
r = json.load(open(sys.argv[1]))
pid, line = int(sys.argv[2]), int(sys.argv[3])
assert r["pid"] == pid and r["verdict"]["kind"] == "deadlock" and r["verdict"]["stuck"] is True, r["verdict"]
assert r["cycle"] == [2, 3], r["cycle"]
t = {x["thread"]: x for x in r["threads"]}
assert t[1]["tid"] == pid and t[1]["wait"]["kind"] == "join" and t[1]["wait"]["joins"]["thread"] == 2, t[1]
for n, other in ((2, 3), (3, 2)):
    w = t[n]["wait"]
    assert w["kind"] == "sync" and w["object_kind"] == "mutex" and w["object"] in ("acct[0].lock", "acct[1].lock"), w
    assert w["holder"]["thread"] == other and w["holder"]["tid"] == t[other]["tid"], w
    assert t[n]["location"]["file"] == "bank_deadlock.c" and t[n]["location"]["line"] == line, t[n]["location"]
    assert t[n]["start"] == "transfer" and t[n]["in_call"] == "pthread_mutex_lock", t[n]
names = sorted(o["name"] for o in r["objects"])
assert names == ["acct[0].lock", "acct[1].lock"], names
for o in r["objects"]:
    assert o["kind"] == "mutex" and len(o["waiters"]) == 1 and o["holder"]["thread"] in (2, 3), o
EOF
    stop "$PID"
    ;;
lost_wakeup)
    attach_stuck attach_lost_wakeup 2
    l=$(line_of attach/lost_wakeup.c "BUG:")
    expect_out "lost wake-up: T2 waits on a condvar and no thread is left that could signal it (T1: join T2; T2: condvar ready)"
    expect_out "lost_wakeup.c:$l waiter  (began in waiter)"
    expect_out "waits on condvar ready (in pthread_cond_wait)"
    stop "$PID"
    ;;
lost_wakeup_static)
    # Static, -O2, no -g: libc's own symbols say which call waits, the
    # program's symbols name the condvar and the functions.
    attach_stuck attach_lost_wakeup_static 2
    expect_out "lost wake-up: T2 waits on a condvar and no thread is left that could signal it (T1: join T2; T2: condvar ready)"
    grep -qE '^  T2 .* blocked +waiter\+0x[0-9a-f]+  \(began in waiter\)$' "$WORK/out" || fail "T2 not placed in waiter"
    stop "$PID"
    ;;
sync_kinds)
    attach_stuck attach_sync_kinds 4
    expect_out "hang: every thread waits and none can wake another (T1: join T2; T2: semaphore items; T3: barrier gate; T4: rwlock table)"
    expect_out "sync_kinds.c:$(line_of attach/sync_kinds.c "WAIT: semaphore") consumer  (began in consumer)"
    expect_out "sync_kinds.c:$(line_of attach/sync_kinds.c "WAIT: barrier") arriver  (began in arriver)"
    expect_out "sync_kinds.c:$(line_of attach/sync_kinds.c "WAIT: rwlock") writer  (began in writer)"
    grep -qE '^  semaphore items +value 0; waiting: T2$' "$WORK/out" || fail "semaphore items: value and waiter"
    grep -qE '^  barrier +gate +waiting: T3$' "$WORK/out" || fail "barrier gate: waiter"
    grep -qE '^  rwlock +table +held for reading \(1\); waiting: T4$' "$WORK/out" || fail "rwlock table: readers and waiter"
    stop "$PID"
    ;;
holder_ended)
    attach_stuck attach_holder_ended 1
    grep -qE '^hang: T1 waits on mutex config_lock held by tid [0-9]+, which has ended without unlocking it$' "$WORK/out" ||
        fail "no verdict naming the ended holder"
    expect_out "holder_ended.c:$(line_of attach/holder_ended.c "WAIT: main") main"
    stop "$PID"
    ;;
main_exits)
    # The main thread has ended (pthread_exit): a zombie leader, its
    # threads deadlocked. wait_stuck wants every thread in S: count the two.
    start attach_main_exits
    for i in $(seq 100); do
        [ "$(snapshot "$PID" | awk '$2 == "S" && $3 != "0"' | grep -c .)" -eq 2 ] && break
        sleep 0.1
    done
    before=$(snapshot "$PID")
    run_mdat attach -p "$PID" --print
    expect_status 1 attach -p "$PID" --print
    expect_as_before "$PID" "$before"
    grep -qE '^  T1 .* ended +\(the other threads go on\)$' "$WORK/out" || fail "T1 not shown as ended"
    expect_out "deadlock: T2 waits on mutex right held by T3; T3 waits on mutex left held by T2"
    expect_out "main_exits.c:$(line_of attach/main_exits.c "WAIT: right_first") right_first"
    stop "$PID"
    ;;
crowd)
    # 301 threads: all read, the verdict names eight and counts the rest.
    attach_stuck attach_crowd 301
    expect_out "process $PID (attach_crowd, $TARGETS/attach_crowd): 301 threads"
    expect_out "lost wake-up: T2, T3, T4, T5, T6, T7, T8, T9 and 292 more wait on a condvar and no thread is left that could signal it"
    grep -qE '^  condvar +go +waiting: T2 T3 .* T65 and 236 more$' "$WORK/out" || fail "condvar go's waiters not listed and counted"
    [ "$(grep -c "crowd.c:$(line_of attach/crowd.c "BUG:") waiter  (began in waiter)" "$WORK/out")" -eq 300 ] ||
        fail "not every waiter placed at its line"
    stop "$PID"
    ;;
pipe)
    attach_stuck attach_pipe_reader 2
    l=$(line_of attach/pipe_reader.c "BUG:")
    # The pipe's descriptor is 3, or higher where the test's runner left some open.
    grep -qE '^hang: every thread waits and none can wake another \(T1: join T2; T2: read\(fd [0-9]+: pipe\)\)$' "$WORK/out" ||
        fail "no hang verdict naming the join and the read on the pipe"
    expect_out "pipe_reader.c:$l reader  (began in reader)"
    stop "$PID"
    ;;
pipe_from_outside)
    # A read on a pipe whose write end another process holds (a sleep, the
    # left of a shell pipeline): it may still be written, so nothing is stuck.
    exec 9< <(exec sleep 30)
    PIDS+=("$!")
    bash -c 'read -r line' <&9 &
    PID=$!
    PIDS+=("$PID")
    exec 9<&-
    wait_stuck "$PID" 1 || finish
    before=$(asleep_snapshot "$PID")
    run_mdat attach -p "$PID" --print
    expect_status 0 attach -p "$PID" --print
    expect_out "waits in read(fd 0: pipe) (from outside the program)"
    expect_out "no deadlock: every waiting thread waits for something that can end it"
    expect_as_before "$PID" "$before"
    stop "$PID"
    ;;
cxx_o2)
    attach_stuck attach_cxx_deadlock_o2 3
    w=$(line_of attach/cxx_deadlock.cpp "WAIT: main")
    grep -qE '^deadlock: T2 waits on mutex (first|second)_mutex held by T3; T3 waits on mutex (first|second)_mutex held by T2$' "$WORK/out" ||
        fail "no cycle over first_mutex and second_mutex"
    expect_out "cxx_deadlock.cpp:$w main"
    # The pthread_mutex_lock call comes from std::mutex::lock inlined from
    # a system header: shown at the user's line it was inlined at.
    l=$(line_of attach/cxx_deadlock.cpp "BUG:")
    [ "$(grep -c "cxx_deadlock.cpp:$l lock_both  (began in lock_both)" "$WORK/out")" -eq 2 ] ||
        fail "T2 and T3 not shown at cxx_deadlock.cpp:$l in lock_both"
    expect_out "waits to join T2 (in std::thread::join)"
    stop "$PID"
    ;;
stripped)
    attach_stuck attach_bank_stripped 3
    grep -qE '^deadlock: T2 waits on mutex 0x[0-9a-f]+ held by T3; T3 waits on mutex 0x[0-9a-f]+ held by T2$' "$WORK/out" ||
        fail "no cycle named by addresses"
    [ "$(grep -cE 'blocked +attach_bank_stripped\+0x[0-9a-f]+$' "$WORK/out")" -eq 3 ] || fail "threads not placed by module+offset"
    expect_out "(in pthread_mutex_lock)"
    stop "$PID"
    ;;
registers)
    # gdb reads every thread's registers before and after: mdat changed none.
    command -v gdb >/dev/null || { echo "SKIP: gdb is not installed"; exit 77; }
    start attach_bank_deadlock
    wait_stuck "$PID" 3 || finish
    regs() {
        gdb -p "$PID" -batch -nx -ex 'thread apply all info registers rip rsp rbp rax rbx rcx rdx rsi rdi r8 r9 r10 r11 r12 r13 r14 r15 eflags orig_rax fs_base' 2>/dev/null |
            grep -E '^(Thread|[a-z0-9_]+ +0x)'
    }
    regs >"$WORK/regs.before"
    wait_stuck "$PID" 3 || finish
    run_mdat attach -p "$PID" --print
    expect_status 1 attach -p "$PID" --print
    wait_stuck "$PID" 3 || finish
    regs >"$WORK/regs.after"
    [ "$(grep -c '^rip' "$WORK/regs.before")" -eq 3 ] || fail "gdb did not read three threads' registers"
    diff "$WORK/regs.before" "$WORK/regs.after" >/dev/null || fail "registers changed: $(diff "$WORK/regs.before" "$WORK/regs.after" | head -5)"
    stop "$PID"
    ;;
stopped)
    # A process stopped (T) before the attach stays stopped after it, and
    # goes on with SIGCONT.
    start attach_bank_deadlock
    wait_stuck "$PID" 3 || finish
    kill -STOP "$PID"
    for i in $(seq 50); do grep -q '^State:.*T' /proc/"$PID"/status && break; sleep 0.1; done
    before=$(snapshot "$PID")
    echo "$before" | awk '$2 != "T" {bad=1} END {exit bad}' || fail "not every thread stopped: $before"
    run_mdat attach -p "$PID" --print
    expect_status 1 attach -p "$PID" --print
    expect_out "; the process is stopped (SIGCONT resumes it)"
    [ "$(grep -cE '^  T[0-9]+ .* stopped ' "$WORK/out")" -eq 3 ] || fail "threads not shown as stopped"
    expect_as_before "$PID" "$before"
    kill -CONT "$PID"
    sleep 0.3
    snapshot "$PID" | awk '$2 != "S" {bad=1} END {exit bad}' || fail "SIGCONT did not resume it: $(snapshot "$PID")"
    stop "$PID"
    ;;
healthy)
    # A busy pool attached to 100 times while it runs, a real-time signal
    # sent during each attach: every attach says nothing is stuck, and the
    # program's sum and signal count come out right.
    start attach_busy_pool "$WORK/stop"
    sleep 0.2
    attaches=0 sent=0
    for i in $(seq 100); do
        kill -s RTMIN "$PID" && sent=$((sent + 1))
        "$MDAT" attach -p "$PID" --print </dev/null >"$WORK/out" 2>"$WORK/err" &
        kill -s RTMIN "$PID" && sent=$((sent + 1))
        wait $!
        status=$?
        [ "$status" -eq 0 ] || { fail "attach $i: exit $status, expected 0"; show; break; }
        grep -q '^no deadlock' "$WORK/out" || fail "attach $i: no 'no deadlock' verdict"
        attaches=$((attaches + 1))
    done
    touch "$WORK/stop"
    wait "$PID"
    status=$?
    [ "$status" -eq 0 ] || fail "busy_pool exited $status"
    read -r _ tasks _ total _ signals <"$WORK/prog.out"
    want=$(python3 -c "n = $tasks * 1000; print(n * (n - 1) // 2)")
    [ "$total" = "$want" ] || fail "busy_pool total $total after $tasks tasks, expected $want"
    [ "$signals" -eq "$sent" ] || fail "busy_pool received $signals signals, $sent were sent"
    [ "$attaches" -eq 100 ] || fail "only $attaches attaches succeeded"
    echo "healthy: $attaches attaches, $tasks tasks, $signals signals"
    ;;
churn)
    # Threads made and ended while mdat attaches: 50 attaches, each sees a
    # process that is not stuck, and the program's sum comes out right.
    start attach_thread_churn "$WORK/stop"
    sleep 0.2
    for i in $(seq 50); do
        run_mdat attach -p "$PID" --print
        [ "$status" -eq 0 ] || { fail "attach $i: exit $status, expected 0"; break; }
    done
    touch "$WORK/stop"
    wait "$PID"
    status=$?
    [ "$status" -eq 0 ] || fail "thread_churn exited $status"
    read -r _ rounds _ total <"$WORK/prog.out"
    [ "$total" -eq $((rounds * 10)) ] || fail "thread_churn total $total after $rounds rounds"
    echo "churn: $rounds rounds"
    ;;
tui_deadlock)
    # The live view on a native lock-order deadlock: the cycle with user
    # lines; the step and replay keys say what is not available; q
    # leaves the process as it was.
    start attach_bank_deadlock
    wait_stuck "$PID" 3 || finish
    before=$(asleep_snapshot "$PID")
    l=$(line_of attach/bank_deadlock.c "BUG:")
    tui_open "$PID"
    wait_screen "deadlock: T2 waits on mutex acct[" || { tui_close; finish; }
    wait_screen "bank_deadlock.c:$l transfer"
    wait_screen "waits to join T2 (in pthread_join)"
    wait_screen "live view, read at"
    keys s
    wait_screen "take over (t) to hold its threads and step them"
    keys b
    wait_screen "no replay or step back from an attach point"
    # Refreshes: the process is read again without a key.
    first=$(screen | grep -o "read at [0-9:]*")
    waited=0
    while [ "$(screen | grep -o "read at [0-9:]*")" = "$first" ] && [ "$waited" -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
    [ "$(screen | grep -o "read at [0-9:]*")" != "$first" ] || fail "the live view did not refresh in 10 s"
    keys q
    wait_exit 1
    tui_close
    expect_as_before "$PID" "$before"
    stop "$PID"
    ;;
tui_healthy)
    # A busy program watched live and let go: it finishes with the right output.
    start attach_busy_pool "$WORK/stop"
    tui_open "$PID"
    wait_screen "no deadlock" || { tui_close; finish; }
    sleep 5     # two more refreshes
    keys q
    wait_exit 0
    tui_close
    touch "$WORK/stop"
    wait "$PID"
    status=$?
    [ "$status" -eq 0 ] || fail "busy_pool exited $status after the live view"
    read -r _ tasks _ total _ <"$WORK/prog.out"
    want=$(python3 -c "n = $tasks * 1000; print(n * (n - 1) // 2)")
    [ "$total" = "$want" ] || fail "busy_pool total $total after $tasks tasks, expected $want"
    ;;
tui_killed)
    # mdat killed while it watches (SIGKILL, SIGTERM, SIGINT, SIGHUP, at
    # any moment of its refreshes): the process is never left stopped or
    # traced.
    start attach_bank_deadlock
    wait_stuck "$PID" 3 || finish
    before=$(asleep_snapshot "$PID")
    for sig in KILL TERM INT HUP KILL KILL; do
        tui_open "$PID"
        wait_screen "deadlock: T2 waits" 30 || { tui_close; finish; }
        sleep "0.$((RANDOM % 10))"
        kill -"$sig" "$MDAT_PID"
        waited=0
        while kill -0 "$MDAT_PID" 2>/dev/null && [ "$waited" -lt 100 ]; do sleep 0.05; waited=$((waited + 1)); done
        kill -0 "$MDAT_PID" 2>/dev/null && fail "mdat still runs after SIG$sig"
        expect_as_before "$PID" "$before"
        tui_close
    done
    stop "$PID"
    ;;
tui_takeover)
    # The live view on a deadlock of two threads while a third ticks: t
    # takes over; c steps the ticker from system call to system call, its
    # line moving, s through its visible operations (ticks read and
    # written at its line, the sleep); a deadlocked thread cannot be
    # selected and says why; w saves the steps; q lets go, and the process
    # runs on as before.
    start attach_takeover
    wait_stuck "$PID" 4 || finish
    before=$(asleep_snapshot "$PID")
    tick=$(line_of attach/takeover.c "TICK:")
    nap=$(line_of attach/takeover.c "NAP:")
    count=$(line_of attach/takeover.c "ticks++;")
    take_over "deadlock: T2 waits on mutex b held by T3"
    grep -q "TracerPid:[[:space:]]*$MDAT_PID" /proc/"$PID"/status || fail "the process is not held during the take-over"
    keys 4
    for i in 1 2 3 4 5 6; do
        keys c
        sleep 0.4
    done
    wait_screen_re "T4 +enters write\(0x" || { tui_close; finish; }
    wait_screen_re "T4 +write returns 5 +takeover.c:$tick ticker"
    wait_screen_re "clock_nanosleep returns 0 +takeover.c:$nap ticker"
    for i in 1 2 3 4 5 6; do
        keys s
        sleep 0.4
    done
    wait_screen_re "T4 +R ticks -> [0-9]+ +takeover.c:$count ticker" || { tui_close; finish; }
    wait_screen_re "T4 +W ticks := [0-9]+ +takeover.c:$count ticker"
    wait_screen_re "T4 +sleep +takeover.c:$nap ticker"
    keys 2
    wait_screen "T2 cannot step: it waits on mutex b held by T3"
    keys b
    wait_screen "no replay or step back from an attach point"
    keys w
    wait_screen "steps saved in mdat-attach-$PID.steps"
    grep -qE "T4 +write returns 5 +takeover.c:$tick ticker" "mdat-attach-$PID.steps" ||
        fail "the saved steps lack the write: $(cat "mdat-attach-$PID.steps")"
    grep -q "no replay from an attach point" "mdat-attach-$PID.steps" || fail "the saved steps do not say they cannot replay"
    keys q
    wait_exit 1
    tui_close
    expect_as_before "$PID" "$before"
    # The ticker goes on ticking once let go.
    t4=$(ls /proc/"$PID"/task | sort -n | tail -n 1)
    n1=$(awk '{print $14 + $15}' /proc/"$PID"/task/"$t4"/stat)
    sleep 1
    grep -q "^voluntary_ctxt_switches" /proc/"$PID"/task/"$t4"/status || fail "no ticker"
    v1=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/"$PID"/task/"$t4"/status)
    sleep 0.5
    v2=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/"$PID"/task/"$t4"/status)
    [ "$v2" -gt "$v1" ] || fail "the ticker does not run after the take-over ($v1 -> $v2 context switches)"
    : "$n1"
    stop "$PID"
    ;;
tui_takeover_killed)
    # mdat ended while it holds every thread: SIGTERM, SIGINT and SIGHUP
    # let go first (exit 128 + the signal); after SIGKILL the kernel lets
    # go. Never a thread left stopped or traced.
    start attach_takeover
    wait_stuck "$PID" 4 || finish
    before=$(asleep_snapshot "$PID")
    for sig in TERM INT HUP KILL; do
        take_over "deadlock: T2 waits" 30
        keys 4 s s s
        # Between steps (a SIGKILL in the middle of one is README's known limit).
        wait_screen_re "^ +3   T4 " || { tui_close; finish; }
        kill -"$sig" "$MDAT_PID"
        waited=0
        while kill -0 "$MDAT_PID" 2>/dev/null && [ "$waited" -lt 100 ]; do sleep 0.05; waited=$((waited + 1)); done
        kill -0 "$MDAT_PID" 2>/dev/null && fail "mdat still runs after SIG$sig"
        case $sig in
        TERM) wait_exit 143 ;;
        INT) wait_exit 130 ;;
        HUP) wait_exit 129 ;;
        esac
        expect_as_before "$PID" "$before"
        tui_close
    done
    stop "$PID"
    ;;
tui_takeover_user)
    # u: the ticker, stopped (c) as it enters write, runs one instruction at a
    # time until it is back in ticker's code: the write ran (returns 5) and
    # the line is the write's. A thread in the user's code already says so.
    start attach_takeover
    wait_stuck "$PID" 4 || finish
    before=$(asleep_snapshot "$PID")
    tick=$(line_of attach/takeover.c "TICK:")
    take_over "deadlock: T2 waits on mutex b held by T3"
    keys 4
    for i in $(seq 12); do
        step_lines | tail -n 1 | grep -qE "T4 +enters write\(" && break
        keys c
        sleep 0.4
    done
    step_lines | tail -n 1 | grep -qE "T4 +enters write\(" || fail "the ticker never entered write: $(step_lines)"
    keys u
    wait_screen_re "T4 +write returns 5, back in the user's code after" || { tui_close; finish; }
    step_lines | tail -n 1 | grep -qE "after [0-9]+ instructions? +takeover.c:$tick ticker$" ||
        fail "the step back to user code does not end at takeover.c:$tick: $(step_lines | tail -n 1)"
    keys u
    wait_screen "T4 cannot step: it is in the user's code already"
    keys q
    wait_exit 1
    tui_close
    rm -f "mdat-attach-$PID.steps"
    expect_as_before "$PID" "$before"
    stop "$PID"
    ;;
tui_takeover_deadlock)
    # Two threads asleep before they take lock_a and lock_b in opposite
    # orders: taken over, s steps each through its visible operations (the
    # sleep, its first lock, the shared balance read and written at its
    # line) until each blocks on the lock the other holds, and the
    # deadlock is named; a blocked thread cannot be selected.
    start attach_gated_deadlock
    wait_stuck "$PID" 3 || finish
    src=attach/gated_deadlock.c
    fa=$(line_of $src "FORWARD_A:") fbal=$(line_of $src "FORWARD_BALANCE:") fb=$(line_of $src "FORWARD_B:")
    bb=$(line_of $src "BACKWARD_B:") ba=$(line_of $src "BACKWARD_A:")
    take_over "no deadlock" 30
    keys 2 s s s s
    wait_screen_re "T2 +W balance := 1 +gated_deadlock.c:$fbal forward" || { tui_close; finish; }
    wait_screen_re "^ +1   T2 +sleep +gated_deadlock.c:[0-9]+ forward"
    wait_screen_re "T2 +lock lock_a +gated_deadlock.c:$fa forward"
    wait_screen_re "T2 +R balance -> 0 +gated_deadlock.c:$fbal forward"
    keys 3 s s
    wait_screen_re "T3 +lock lock_b +gated_deadlock.c:$bb backward" || { tui_close; finish; }
    wait_screen_re "^ +5 [*] T3 +sleep"
    keys 2 s
    wait_screen_re "T2 +lock lock_b +gated_deadlock.c:$fb forward +-> blocks on mutex lock_b held by T3" || { tui_close; finish; }
    keys 3 s s s
    wait_screen_re "T3 +lock lock_a +gated_deadlock.c:$ba backward +-> blocks on mutex lock_a held by T2" || { tui_close; finish; }
    wait_screen "deadlock: T2 waits on mutex lock_b held by T3; T3 waits on mutex lock_a held by T2"
    keys 2
    wait_screen "T2 cannot step: it waits on mutex lock_b held by T3"
    keys w
    wait_screen "10 steps saved in mdat-attach-$PID.steps"
    grep -qE "T3 +lock lock_a +gated_deadlock.c:$ba backward +-> blocks on mutex lock_a held by T2" "mdat-attach-$PID.steps" &&
        grep -q "^deadlock: T2 waits on mutex lock_b" "mdat-attach-$PID.steps" ||
        fail "the saved steps lack the last lock or the deadlock: $(cat "mdat-attach-$PID.steps")"
    rm -f "mdat-attach-$PID.steps"
    keys q
    wait_exit 1     # the look after letting go finds the deadlock the steps made
    tui_close
    # Let go: deadlocked for good, natively now; nothing stopped or traced.
    sleep 0.3
    for t in /proc/"$PID"/task/*; do
        st=$(sed 's/.*) //' "$t"/stat 2>/dev/null | cut -d' ' -f1)
        [ "$st" = S ] || fail "thread ${t##*/} is in state $st after the take-over, not asleep in its wait"
    done
    grep -q '^TracerPid:[[:space:]]*0$' /proc/"$PID"/status || fail "process $PID is still traced"
    stop "$PID"
    ;;
tui_takeover_counter)
    # A racy counter: the take-over's steps show counter read and written
    # at its line, by the adder and by the reader. Let go by q, by a
    # SIGTERM to mdat, and by a SIGKILL of mdat between steps, the program
    # finishes as if mdat had never been there ("counter 5", exit 0): no
    # int3 and no SIGTRAP left behind.
    src=attach/gated_counter.c
    add=$(line_of $src "ADD:") rd=$(line_of $src "READ:")
    for way in q TERM KILL; do
        start attach_gated_counter
        wait_stuck "$PID" 3 || finish
        take_over "no deadlock" 30
        keys 2 s s s s
        wait_screen_re "T2 +R counter -> 1 +gated_counter.c:$add adder" || { tui_close; finish; }
        wait_screen_re "T2 +R counter -> 0 +gated_counter.c:$add adder"
        wait_screen_re "T2 +W counter := 1 +gated_counter.c:$add adder"
        keys 3 s s
        wait_screen_re "[*] T3 +sleep +gated_counter.c:[0-9]+ reader" || { tui_close; finish; }
        wait_screen_re "T3 +R counter -> 1 +gated_counter.c:$rd reader"
        case $way in
        q) keys q; wait_exit 0 ;;
        TERM) kill -TERM "$MDAT_PID"; wait_exit 143 ;;
        KILL) kill -KILL "$MDAT_PID" ;;
        esac
        tui_close
        rm -f "mdat-attach-$PID.steps"
        expect_finishes "let go by $way" "counter 5"
    done
    ;;
tui_takeover_cxx)
    # The same in C++ at -O2: std::mutex::lock, inlined, calls
    # pthread_mutex_lock, and the steps name the mutexes at the user's lines.
    start attach_gated_cxx_deadlock
    wait_stuck "$PID" 3 || finish
    src=attach/gated_cxx_deadlock.cpp
    fa=$(line_of $src "CXX_FORWARD_A:") tot=$(line_of $src "CXX_TOTAL:") fb=$(line_of $src "CXX_FORWARD_B:")
    bb=$(line_of $src "CXX_BACKWARD_B:")
    take_over "no deadlock" 30
    keys 2 s s s s
    wait_screen_re "T2 +lock mb +gated_cxx_deadlock.cpp:$fb forward" || { tui_close; finish; }
    wait_screen_re "T2 +lock ma +gated_cxx_deadlock.cpp:$fa forward"
    wait_screen_re "T2 +RMW total := 1 +gated_cxx_deadlock.cpp:$tot forward"
    keys 3 s s
    wait_screen_re "T3 +lock mb +gated_cxx_deadlock.cpp:$bb backward +-> blocks on mutex mb held by T2" || { tui_close; finish; }
    # T2 holds both: let go, it lets them go, and T3 and main finish.
    keys q
    wait_exit 0
    tui_close
    rm -f "mdat-attach-$PID.steps"
    expect_finishes "let go" "total 0"
    ;;
tui_takeover_spawn)
    # A thread made while every thread is held: stepping (c) main through
    # pthread_create's clone3 (or clone), the new worker is seized before its first
    # instruction (state t, traced by mdat), shown as T2, and steps like
    # the others (u to worker's code, s to its write). q lets both go: the
    # program goes on making workers, nothing stopped or traced.
    start attach_takeover_spawn
    worker=$(line_of attach/takeover_spawn.c "WORKER:")
    take_over "no deadlock"
    keys 1
    # The new thread is T2, or later when the take-over caught a worker
    # alive (under load the window between its making and its end widens).
    for i in $(seq 40); do
        # clone3, or clone where the kernel has no clone3.
        screen | grep -qE "T1 +clone3? makes thread T[2-9] \(tid [0-9]+\), held before its first instruction" && break
        keys c
        sleep 0.3
    done
    wait_screen_re " makes thread T[2-9] \(tid " 2 || { tui_close; finish; }
    tn=$(screen | sed -n 's/.*makes thread T\([2-9]\) (tid .*/\1/p' | head -n 1)
    new=$(screen | sed -n 's/.*makes thread T[2-9] (tid \([0-9]*\)).*/\1/p' | head -n 1)
    [ -n "$new" ] && [ -d /proc/"$PID"/task/"$new" ] || fail "the new thread $new is not in /proc/$PID/task"
    state=$(sed 's/.*) //' /proc/"$PID"/task/"$new"/stat 2>/dev/null | cut -d' ' -f1)
    [ "$state" = "t" ] || fail "the new thread $new runs free (state $state), not held"
    grep -q "TracerPid:[[:space:]]*$MDAT_PID" /proc/"$PID"/task/"$new"/status || fail "the new thread is not traced by mdat"
    keys "$tn" u
    wait_screen_re "T$tn +back in the user's code after" 5 || { tui_close; finish; }
    screen | grep -qE "T$tn +back in the user's code after [0-9]* instructions +takeover_spawn.c:[0-9]* worker" ||
        fail "T$tn is not back in worker: $(step_lines | tail -n 1)"
    keys c
    wait_screen_re "T$tn +enters write\(0x" || { tui_close; finish; }
    wait_screen "takeover_spawn.c:$worker worker"
    keys q
    wait_exit 0
    tui_close
    rm -f "mdat-attach-$PID.steps"
    for t in /proc/"$PID"/task/*; do
        st=$(sed 's/.*) //' "$t"/stat 2>/dev/null | cut -d' ' -f1)
        case $st in t | T) fail "thread ${t##*/} left stopped ($st)" ;; esac
    done
    grep -q '^TracerPid:[[:space:]]*0$' /proc/"$PID"/status || fail "process $PID is still traced"
    v1=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/"$PID"/status)
    sleep 0.5
    v2=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/"$PID"/status)
    [ "$v2" -gt "$v1" ] || fail "main does not go on after the take-over ($v1 -> $v2 context switches)"
    stop "$PID"
    ;;
livelock_polite)
    # Two threads politely come and go for ever, main joins them: stepped
    # in turn, their state (registers, the mutex, hand[]) comes back.
    start attach_livelock_polite
    wait_threads "$PID" 3 || finish
    sleep 0.2
    run_mdat attach -p "$PID" --print
    expect_status 1 attach -p "$PID" --print
    grep -qE '^livelock: T2 and T3, stepped in turn, come back to the same state every [0-9]+ instructions \(livelock_polite\.c:[0-9]+-[0-9]+ guest\); no other thread can run \(T1: join T2\)$' "$WORK/out" ||
        fail "no round-robin livelock of T2 and T3 in guest"
    expect_let_go "$PID"
    # Still going round afterwards, as before.
    sleep 0.3
    [ -d /proc/"$PID" ] && ! grep -q '^met' "$WORK/prog.out" || fail "livelock_polite ended after the watch"
    stop "$PID"
    ;;
livelock_spin)
    # A spin on a flag nobody sets, storing nothing: whatever the schedule.
    start attach_livelock_spin
    wait_threads "$PID" 2 || finish
    l=$(line_of attach/livelock_spin.c "while (!go)")
    run_mdat attach -p "$PID" --print
    expect_status 1 attach -p "$PID" --print
    grep -qE "^livelock: T2 runs the same [0-9]+ instructions for ever \(livelock_spin\.c:$l spinner\), storing nothing: no thread can change what it reads, whatever the schedule; no other thread can run \(T1: join T2\)\$" "$WORK/out" ||
        fail "no livelock of T2 at livelock_spin.c:$l"
    expect_let_go "$PID"
    # --livelock 0: not watched, only running.
    run_mdat attach -p "$PID" --print --livelock 0
    expect_status 0 attach -p "$PID" --livelock 0
    grep -qx 'no deadlock: T2 is running' "$WORK/out" || fail "--livelock 0 still watched"
    stop "$PID"
    # A handler for SIGUSR1 sets the flag: the verdict says so, and the
    # signal does end the spin.
    start attach_livelock_spin handle
    wait_threads "$PID" 2 || finish
    run_mdat attach -p "$PID" --print
    expect_status 1 attach -p "$PID" --print
    grep -qE '^livelock: T2 runs .*; unless a signal it handles comes \(SIGUSR1\)$' "$WORK/out" ||
        fail "the verdict does not say the handled signal could end it"
    kill -USR1 "$PID"
    wait "$PID"
    status=$?
    [ "$status" -eq 0 ] && grep -q '^went$' "$WORK/prog.out" || fail "SIGUSR1 did not end the spin (exit $status)"
    run_mdat attach -p 1 --livelock x --print
    expect_status 2 attach --livelock x
    expect_err "--livelock wants seconds from 0 (off) to 60, not \"x\""
    run_mdat attach --livelock 1
    expect_status 2 attach --livelock 1
    expect_err "--livelock goes with -p PID"
    ;;
livelock_json)
    start attach_livelock_polite
    wait_threads "$PID" 3 || finish
    sleep 0.2
    run_mdat attach -p "$PID" --json
    expect_status 1 attach -p "$PID" --json
    python3 - "$WORK/out" <<'EOF' || fail "JSON livelock (round-robin) wrong"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"]["kind"] == "livelock" and r["verdict"]["stuck"] is True, r["verdict"]
l = r["livelock"]
assert l["found"] is True and l["schedule"] == "round-robin" and l["threads"] == [2, 3], l
assert l["period"] > 0 and l["period"] % 2 == 0 and l["instructions"] >= 2 * l["period"], l
assert l["where"].startswith("livelock_polite.c:") and l["where"].endswith(" guest") and l["unless"] is None, l
EOF
    stop "$PID"
    start attach_livelock_spin
    wait_threads "$PID" 2 || finish
    run_mdat attach -p "$PID" --json
    expect_status 1 attach -p "$PID" --json
    python3 - "$WORK/out" <<'EOF' || fail "JSON livelock (any schedule) wrong"
import json, sys
r = json.load(open(sys.argv[1]))
l = r["livelock"]
assert r["verdict"]["kind"] == "livelock" and l["found"] and l["schedule"] == "any" and l["threads"] == [2], l
EOF
    stop "$PID"
    # A deadlock is not watched: livelock is null.
    start attach_bank_deadlock
    wait_stuck "$PID" 3 || finish
    run_mdat attach -p "$PID" --json
    python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); assert r["livelock"] is None, r["livelock"]' "$WORK/out" ||
        fail "a deadlock's report has a livelock watch"
    stop "$PID"
    ;;
busy_counter)
    # Busy but making progress: watched, no livelock; a signal sent
    # during the watch is not lost, and the count comes out right.
    start attach_busy_counter
    wait_threads "$PID" 2 || finish
    "$MDAT" attach -p "$PID" --print </dev/null >"$WORK/out" 2>"$WORK/err" &
    mdat=$!
    sleep 0.5
    kill -USR1 "$PID"
    wait "$mdat"
    status=$?
    expect_status 0 attach -p busy_counter
    grep -qE '^no deadlock: T2 is running \(watched' "$WORK/out" || fail "busy_counter not watched, or not 'no deadlock'"
    wait "$PID"
    status=$?
    [ "$status" -eq 0 ] || fail "busy_counter exited $status"
    grep -qx 'count 600000000 signals 1' "$WORK/prog.out" || fail "busy_counter printed $(cat "$WORK/prog.out")"
    ;;
not_livelock)
    # Spins that something outside the running thread can end are not
    # livelocks. Waiting for a time by reading the clock: the loop repeats
    # but for the time it reads, which the watch refuses to follow.
    start attach_clock_loop 60
    wait_threads "$PID" 2 || finish
    run_mdat attach -p "$PID" --print
    expect_status 0 attach -p clock_loop
    grep -qE "^no deadlock: T2 is running \(watched, no livelock told: T2 (reads the time stamp counter \(rdtsc|reads the kernel's clock data|makes system call 228)" "$WORK/out" ||
        fail "clock_loop: the clock is not what ended the watch"
    expect_let_go "$PID"
    stop "$PID"
    # A flag in memory a child process shares and will set.
    start attach_shared_flag 60
    wait_threads "$PID" 2 || finish
    run_mdat attach -p "$PID" --print
    expect_status 0 attach -p shared_flag
    grep -qE '^no deadlock: T2 is running \(watched, no livelock told: T2 reads memory shared with other processes \(MAP_SHARED ' "$WORK/out" ||
        fail "shared_flag: the shared mapping is not what ended the watch"
    expect_let_go "$PID"
    stop "$PID"
    # main sleeps, then sets the flag: a thread that wakes by itself could
    # change anything, so the spinner is not watched.
    start attach_livelock_spin late
    wait_threads "$PID" 2 || finish
    run_mdat attach -p "$PID" --print
    expect_status 0 attach -p livelock_spin late
    grep -qx 'no deadlock: T2 is running' "$WORK/out" || fail "a spin with a sleeping main was watched or called stuck"
    stop "$PID"
    ;;
tui_livelock)
    # The live view tells the same livelock; so does the take-over's l
    # (its watch in the log), after a step; q leaves the process going.
    start attach_livelock_polite
    wait_threads "$PID" 3 || finish
    tui_open "$PID"
    wait_screen "livelock: T2 and T3, stepped in turn, come back to the same state" || { tui_close; stop "$PID"; finish; }
    keys t
    wait_screen "TAKEN OVER since" || { tui_close; stop "$PID"; finish; }
    keys 2 s
    wait_screen_re "^ +1   T2 " || { tui_close; stop "$PID"; finish; }
    keys l
    wait_screen "livelock watch (the threads that can run ran in turn, up to 1000 ms): livelock: T2 and T3" ||
        { tui_close; stop "$PID"; finish; }
    keys q
    wait_exit 1
    tui_close
    expect_let_go "$PID"
    stop "$PID"
    ;;
bad_input)
    run_mdat attach -p abc --print
    expect_status 2 attach -p abc
    expect_err "-p wants a process id (a positive number), not \"abc\""
    run_mdat attach -p 0 --print
    expect_status 2 attach -p 0
    run_mdat attach -p --print
    expect_status 2 attach -p --print
    expect_err "-p wants a process id (a positive number), not \"--print\""
    run_mdat attach --print
    expect_status 2 attach --print
    expect_err "--print and --json go with -p PID"
    run_mdat attach -p 1 --print --json
    expect_status 2 attach --print --json
    run_mdat attach -p abc
    expect_status 2 attach -p abc
    expect_err "-p wants a process id (a positive number), not \"abc\""
    run_mdat attach -p 1 --print ./prog
    expect_status 2 attach -p 1 --print ./prog
    # No such process: a pid above every pid in use.
    gone=$(($(cat /proc/sys/kernel/pid_max) - 1))
    while [ -e "/proc/$gone" ]; do gone=$((gone - 1)); done
    run_mdat attach -p "$gone" --print
    expect_status 3 attach -p "$gone"
    expect_err "mdat attach: no process with pid $gone"
    # mdat itself: the shell's pid becomes mdat's with exec.
    sh -c 'exec "$0" attach -p $$ --print' "$MDAT" </dev/null >"$WORK/out" 2>"$WORK/err"
    status=$?
    expect_status 3 attach -p self
    grep -qE '^mdat attach: process [0-9]+ is mdat itself$' "$WORK/err" || fail "mdat itself not refused"
    # A thread id, not a process.
    start attach_bank_deadlock
    wait_stuck "$PID" 3 || finish
    tid=$(snapshot "$PID" | awk 'NR == 2 {print $1}')
    run_mdat attach -p "$tid" --print
    expect_status 3 attach -p "$tid"
    expect_err "mdat attach: $tid is a thread of process $PID: attach to that (mdat attach -p $PID)"
    stop "$PID"
    # A zombie: a child its parent (here, a sleep) never collects.
    sh -c 'sleep 0.05 & echo $! >"$0"; exec sleep 30' "$WORK/zombie" &
    PIDS+=("$!")
    for i in $(seq 50); do [ -s "$WORK/zombie" ] && grep -q '^State:.*Z' /proc/"$(cat "$WORK/zombie")"/status 2>/dev/null && break; sleep 0.1; done
    run_mdat attach -p "$(cat "$WORK/zombie")" --print
    expect_status 3 attach -p zombie
    expect_err "has ended (a zombie its parent has not collected)"
    # Already traced.
    "$TARGETS/attach_tracer" >"$WORK/traced" 2>&1 &
    tracer=$!
    PIDS+=("$tracer")
    for i in $(seq 50); do [ -s "$WORK/traced" ] && break; sleep 0.1; done
    child=$(cat "$WORK/traced")
    PIDS+=("$child")
    run_mdat attach -p "$child" --print
    expect_status 3 attach -p traced
    expect_err "mdat attach: process $child is already traced by process $tracer (attach_tracer)"
    kill "$tracer"
    # Another user's process, as an unprivileged user (when this is root).
    if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
        sleep 30 &
        other=$!
        PIDS+=("$other")
        setpriv --reuid=65534 --regid=65534 --clear-groups "$MDAT" attach -p "$other" --print </dev/null >"$WORK/out" 2>"$WORK/err"
        status=$?
        expect_status 3 attach -p other-user
        expect_err "mdat attach: process $other belongs to user root (uid 0): only that user or root may attach to it"
    fi
    # A 32-bit program: an i386 ELF of a few bytes that loops on pause().
    python3 - "$WORK/i386" <<'EOF'
import struct, sys
code = bytes.fromhex("b81d000000cd80ebf7")            # mov eax, 29 (pause); int 0x80; jmp back
base, size = 0x08048000, 52 + 32 + 9
ehdr = b"\x7fELF\x01\x01\x01" + b"\0" * 9 + struct.pack("<HHIIIIIHHHHHH", 2, 3, 1, base + 84, 52, 0, 0, 52, 32, 1, 0, 0, 0)
phdr = struct.pack("<IIIIIIII", 1, 0, base, base, size, size, 5, 0x1000)
open(sys.argv[1], "wb").write(ehdr + phdr + code)
EOF
    chmod +x "$WORK/i386"
    "$WORK/i386" &
    p32=$!
    PIDS+=("$p32")
    sleep 0.2
    if [ -e "/proc/$p32/exe" ] && grep -q '^State:.*S' /proc/"$p32"/status 2>/dev/null; then
        run_mdat attach -p "$p32" --print
        expect_status 3 attach -p i386
        expect_err "runs a 32-bit program ($WORK/i386): mdat reads x86-64 processes only"
    else
        echo "note: this kernel does not run i386 programs; the 32-bit case is not checked"
    fi
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac
finish
