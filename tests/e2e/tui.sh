#!/usr/bin/env bash
# End-to-end tests of `mdat attach` (the TUI) inside tmux: keys go in with
# send-keys, the screen comes back with capture-pane, polled until the
# expected text shows (never fixed sleeps). Each test has its own tmux
# server, killed at the end, and checks that no traced program is left.
#   tui.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2 SOURCES=$3 TEST=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

SOCK="mdat-tui-$TEST-$$"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$WORK"' EXIT
command -v tmux >/dev/null || { echo "$TEST: tmux is not installed"; exit 1; }

# screen [-e]: the pane as text (-e: with its colour and attribute escapes).
screen() { tmux -L "$SOCK" capture-pane -p "$@" -t tui 2>/dev/null; }
keys() { tmux -L "$SOCK" send-keys -t tui "$@"; }

# gave_up WHAT: the screen never showed what was expected; later steps
# would only time out too, so the test ends here.
gave_up() {
    fail "$1"
    echo "--- screen"; screen
    echo "--- mdat's stderr"; cat "$WORK/attach.err" 2>/dev/null
    finish
}
# shows TEXT / shows_re REGEX [SECONDS]: polls the screen until it matches
# (a capture can catch a redraw half done); false after SECONDS (default 10).
shows() { poll_screen -F "$1" "${2:-10}"; }
shows_re() { poll_screen -E "$1" "${2:-10}"; }
poll_screen() {
    local how=$1 what=$2 limit=$3 waited=0
    while ! screen | grep -q "$how" -- "$what"; do
        [ "$waited" -ge $((limit * 20)) ] && return 1
        sleep 0.05
        waited=$((waited + 1))
    done
}
# wait_for TEXT / wait_for_re REGEX [SECONDS]: the test cannot go on without it.
wait_for() { shows "$@" || gave_up "screen never showed: $1"; }
wait_for_re() { shows_re "$@" || gave_up "screen never matched: /$1/"; }
# expect_screen TEXT / expect_screen_re REGEX: a check; the test goes on either way.
expect_screen() { shows "$1" 3 || { fail "screen lacks: $1"; screen; }; }
expect_screen_re() { shows_re "$1" 3 || { fail "screen does not match /$1/"; screen; }; }

# restart: ends the tmux server of the previous attach, for the next one.
restart() {
    tmux -L "$SOCK" kill-server 2>/dev/null
    local waited=0
    while tmux -L "$SOCK" has-session 2>/dev/null && [ "$waited" -lt 100 ]; do
        sleep 0.05
        waited=$((waited + 1))
    done
    rm -f "$WORK/exit"
    MDAT_PID=
}

# attach [ENV=VALUE...] -- ARGS...: starts mdat attach in a 100x30 tmux pane
# (TUI_COLS x TUI_ROWS when set)
# (UTF-8 locale unless the test says otherwise); its exit status lands in
# $WORK/exit when it ends, its stderr in $WORK/attach.err.
attach() {
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    local cmd
    cmd=$(printf '%q ' "$MDAT" attach "$@")
    tmux -L "$SOCK" new-session -d -s tui -x "${TUI_COLS:-100}" -y "${TUI_ROWS:-30}" \
        "cd $WORK && env -u LC_ALL -u LC_CTYPE LANG=C.UTF-8 ${envs[*]} $cmd 2>$WORK/attach.err; echo \$? >$WORK/exit; echo MDAT-EXITED; sleep 600"
    # Remember mdat and the program it traces, to check they are gone at the end.
    local pane waited=0
    pane=$(tmux -L "$SOCK" list-panes -t tui -F '#{pane_pid}')
    while [ -z "${MDAT_PID:-}" ] && [ "$waited" -lt 200 ]; do
        MDAT_PID=$(pgrep -P "$pane" -f "attach" | head -n 1)
        sleep 0.05
        waited=$((waited + 1))
    done
}
# The traced program's pid(s) while mdat runs.
tracees() { [ -n "${MDAT_PID:-}" ] && pgrep -P "$MDAT_PID"; }

# finished STATUS: mdat has exited with STATUS, restored the terminal and left no tracee.
finished() {
    local want=$1 waited=0
    while [ ! -s "$WORK/exit" ] && [ "$waited" -lt 200 ]; do sleep 0.05; waited=$((waited + 1)); done
    local st
    st=$(cat "$WORK/exit" 2>/dev/null)
    [ "$st" = "$want" ] || fail "mdat attach exited with '${st:-nothing}', expected $want: $(cat "$WORK/attach.err")"
    wait_for MDAT-EXITED 5
    [ "$(tmux -L "$SOCK" display -p -t tui '#{alternate_on}')" = 0 ] || fail "the terminal was left in the alternate screen"
    for pid in ${TRACEES:-}; do
        alive "$pid" && fail "traced program $pid is still there"
    done
    if grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$WORK/attach.err" 2>/dev/null; then
        fail "sanitizer report from mdat attach: $(grep -m1 -E 'runtime error:|Sanitizer' "$WORK/attach.err")"
    fi
}
# alive PID: the process exists and is not a zombie (its parent may be gone
# and nobody reaps it), within a second or two of mdat's end.
alive() {
    local waited=0 state
    while [ "$waited" -lt 40 ]; do
        state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
        [ -z "$state" ] || [ "$state" = Z ] && return 1
        sleep 0.05
        waited=$((waited + 1))
    done
    return 0
}
# The pane shows a colour (SGR 30-37 or 40-47; 39 and 49 are the defaults).
has_colour() { screen -e | grep -qE $'\e\\[([0-9]+;)*(3[0-7]|4[0-7])(;[0-9]+)*m'; }
note_tracees() { TRACEES="${TRACEES:-} $(tracees)"; }

# The deadlock of deadlock_lock_order by hand: T1 starts and creates both
# threads, T2 takes lock_a, T3 takes lock_b, each then waits for the
# other's lock, and T1 joins T2.
DEADLOCK_KEYS=(1 1 1 2 2 3 3 2 3 1)

# screen_report SIZE: the final screen, kept in $WORK/screen-SIZE.txt, and
# the checks every size shares: as many rows as the terminal, a status line
# that is whole (shortened, never cut with an ellipsis), and the log.
screen_checks() {
    local size=$1 rows=${1#*x}
    screen >"screen-$size.txt"
    [ "$(wc -l <"screen-$size.txt")" -eq "$rows" ] || fail "$size: not $rows rows"
    local status
    status=$(head -n 1 "screen-$size.txt")
    echo "$status" | grep -qE '…|\.\.\.' && fail "$size: the status line is cut: $status"
    echo "$status" | grep -qE "$2" || fail "$size: the status line lacks /$2/: $status"
    # Log rows: a step number, a switch mark, a thread; the cause mark first when it is one.
    local log
    log=$(grep -cE '^[► ] *[0-9]+ [ *] T[0-9]' "screen-$size.txt")
    [ "$log" -ge 6 ] || fail "$size: $log event log lines, not at least 6"
}
# half_empty SIZE: fails when a half of the screen's body (between the
# status line and the message line) is empty: more than 60% of its rows
# blank, or more than 80% of its character cells; or when more than 4
# columns are blank from top to bottom. (0.3.0's demo of lost_update at
# 160x48: the right half 34 of 45 rows and 96% of its cells blank, 19
# blank columns; source code itself leaves about 60% of its cells blank.)
half_empty() {
    python3 - "screen-$1.txt" <<'PY' || fail "$1: $(cat "screen-$1.txt.why")"
import sys
rows = open(sys.argv[1], encoding="utf-8").read().split("\n")
body = rows[1:-3]
cols = max(len(r) for r in rows)
half = cols // 2
why, said = [], []
for name, lo, hi in (("left", 0, half), ("right", half, cols)):
    blank_rows = sum(1 for r in body if not r[lo:hi].strip())
    cells = sum(1 for r in body for c in range(lo, hi) if c >= len(r) or r[c] == " ") / (len(body) * (hi - lo))
    said.append(f"{name}: {blank_rows} of {len(body)} rows, {cells:.0%} of cells blank")
    if blank_rows > 0.6 * len(body) or cells > 0.8:
        why.append(f"the {name} half is empty ({said[-1]})")
blank_cols = sum(1 for c in range(cols) if all(len(r) <= c or r[c] == " " for r in body))
if blank_cols > 4:
    why.append(f"{blank_cols} columns blank from top to bottom")
open(sys.argv[1] + ".why", "w").write("; ".join(why))
print(f"{sys.argv[1]}: {'; '.join(said)}; {blank_cols} blank columns")
sys.exit(1 if why else 0)
PY
}

# A failing schedule of a target, found by mdat run.
run_schedule() {
    "$MDAT" run -n 300 -s "$2" -j 1 --races=off -o out-dir "$TARGETS/$1" </dev/null >run.out 2>&1
    SCHED=$(ls "$WORK"/out-dir/*.sched 2>/dev/null | head -n 1)
    [ -n "$SCHED" ] || fail "mdat run found no failure in $1: $(cat run.out)"
}

case "$TEST" in
step)
    attach -- "$TARGETS/deadlock_lock_order"
    wait_for "| step 0 | last: - | live"
    wait_for "1-9 step  n step sel  b back"
    expect_screen "(T1 has not started: its next step starts it)"
    keys 1 1 1
    wait_for "| step 3 | last: T1 create thread_two"
    note_tracees
    # Three threads, all able to run, each with its next operation.
    expect_screen "threads (3, 3 can run"
    expect_screen_re 'T1 +▶ running +line 56 main +next: join T2'
    expect_screen_re 'T2 +▶ ready +line 26 thread_one +next: start thread_one'
    expect_screen_re '1> +56 +pthread_join\(t1, NULL\);'
    # The terminal's cursor sits on the selected thread's row (screen readers).
    row=$(screen | grep -n '▸  T1 ' | cut -d: -f1)
    [ "$(tmux -L "$SOCK" display -p -t tui '#{cursor_y}')" = "$((row - 1))" ] ||
        fail "cursor on row $(tmux -L "$SOCK" display -p -t tui '#{cursor_y}'), the selected thread is on $((row - 1))"
    keys Down
    wait_for_re '^.▸  T2 '
    row=$(screen | grep -n '▸  T2 ' | cut -d: -f1)
    [ "$(tmux -L "$SOCK" display -p -t tui '#{cursor_y}')" = "$((row - 1))" ] || fail "the cursor did not follow the selection"
    keys Up
    wait_for_re '^.▸  T1 '
    keys 2 2
    wait_for "| step 5 | last: T2 lock lock_a"
    # T2's line is marked with its number; lock_a is held by T2 and marked changed.
    expect_screen_re '2> +30 +pthread_mutex_lock\(&lock_b\);'
    expect_screen_re '^\* +mutex +lock_a +held by T2'
    expect_screen_re '^\*▸ +T2 +▶ running +line 30 thread_one +next: lock lock_b'
    keys 3
    wait_for "| step 6 | last: T3 start thread_two"
    expect_screen_re '3> +42 +pthread_mutex_lock\(&lock_b\);'
    # Back one step: the earlier picture, with the step ahead still known.
    keys Left
    wait_for "| step 5 of 6 | last: T2 lock lock_a | replaying"
    expect_screen_re 'T3 +▶ ready +line 39 thread_two +next: start thread_two'
    keys b b
    wait_for "| step 3 of 6 |"
    # Forward along the recording, then to its end.
    keys n
    wait_for "| step 4 of 6 | last: T2 start thread_one"
    keys End
    wait_for "| step 6 | last: T3 start thread_two | live"
    keys Home
    wait_for "| step 0 of 6 | last: - | replaying"
    # ? shows every key; any other key goes back.
    keys '?'
    wait_for "help: Up/Down scroll, any other key closes"
    expect_screen_re 'Right n Enter F8 +run one step of the selected thread'
    keys Down Down Down Down Down Down Down Down
    expect_screen_re '^  q F10 +quit \(asks first when the schedule is not saved\)'
    keys Escape
    wait_for "| step 0 of 6 |"
    # A thread that cannot run is refused with the reason.
    keys 5
    wait_for "there is no thread T5"
    keys q
    wait_for "quit anyway?"
    keys y
    finished 0
    ;;
deadlock)
    attach -- "$TARGETS/deadlock_lock_order"
    wait_for "| step 0 |"
    keys "${DEADLOCK_KEYS[@]}"
    wait_for "| step 10 of 10 | last: T1 join T2 | deadlock"
    note_tracees
    expect_screen "3 threads blocked, none can run; wait cycle T2 -> T3 -> T2"
    expect_screen_re 'mutex +lock_a +held by T2 +waiting: T3'
    expect_screen_re 'mutex +lock_b +held by T3 +waiting: T2'
    expect_screen_re 'T2 +■ waiting-lock +line 30 thread_one +waits: mutex lock_b \(held by T3\)'
    expect_screen_re 'T1 +■ waiting-join +line 56 main +waits: join T2'
    # A step of the wait cycle: marked as one of the deadlock's causes.
    expect_screen_re '^► +8 \* T2 +lock lock_b +-> blocks on mutex lock_b \(held by T3\)'
    # Save with the offered name.
    keys s
    wait_for "save schedule to: deadlock_lock_order-deadlock.sched"
    keys Enter
    wait_for "saved deadlock_lock_order-deadlock.sched (10 steps, deadlock)"
    keys q
    finished 0
    # mdat replay reproduces it; attach --replay opens it and walks to the deadlock.
    run_mdat replay deadlock_lock_order-deadlock.sched
    expect_status 1
    expect_out "reproduced FAILURE deadlock after 10 steps"
    expect_out "wait cycle T2 -> T3 -> T2"
    restart
    attach -- --replay deadlock_lock_order-deadlock.sched
    wait_for "| step 0 of 10 | last: - | replaying"
    keys n n n n
    wait_for "| step 4 of 10 | last: T2 start thread_one"
    note_tracees
    keys Left
    wait_for "| step 3 of 10 | last: T1 create thread_two"
    keys End
    wait_for "| step 10 of 10 | last: T1 join T2 | deadlock"
    keys q
    finished 0
    ;;
walk_failure)
    # A failing schedule from mdat run, walked forwards and backwards.
    run_schedule lost_update 2
    attach -- --replay "$SCHED"
    wait_for_re '\| step 0 of [0-9]+ \| last: - \| replaying'
    keys n n n
    wait_for "| step 3 of"
    note_tracees
    keys g
    wait_for "go to step (0-"
    keys 1 Enter
    wait_for "| step 1 of"
    keys End
    wait_for "| assertion"
    expect_screen "assertion \`counter == 2 * N' failed"
    # The thread whose assertion failed says so, not "running".
    expect_screen_re ' T1 +✗ assertion '
    screen | grep -qE ' T1 +▶ running' && fail "T1 is shown running after its assertion failed"
    keys Left
    wait_for_re '\| step [0-9]+ of [0-9]+ .*\| replaying'
    keys q
    finished 0
    ;;
invariant)
    # --invariant judges every step: continuing runs into the first step
    # that breaks it, shown as the execution's failure.
    attach -- --invariant 'counter <= 1' "$TARGETS/lost_update"
    wait_for "| step 0 |"
    note_tracees
    keys c
    wait_for "| invariant"
    expect_screen "invariant counter <= 1 broken: counter = 2"
    keys q
    wait_for "quit anyway?"
    keys y
    finished 0
    # A race schedule from mdat run replays to its race: the schedule says
    # races are judged.
    "$MDAT" run -n 50 -s 1 -j 1 -o race-dir "$TARGETS/race_list_insert" </dev/null >run.out 2>&1
    SCHED=$(ls "$WORK"/race-dir/*.sched 2>/dev/null | head -n 1)
    [ -n "$SCHED" ] || fail "mdat run found no race in race_list_insert: $(cat run.out)"
    restart
    attach -- --replay "$SCHED"
    wait_for_re '\| step 0 of [0-9]+ \| last: - \| replaying'
    keys End
    wait_for "| race"
    expect_screen "race on head"
    keys q
    finished 0
    ;;
waiter)
    # Both workers block in sem_wait; main's first post asks which one wakes.
    attach -- "$TARGETS/wake_choice"
    wait_for "| step 0 |"
    keys 1 1 1 2 2 3 3 1
    wait_for "T1 sem_post ready: which waiter wakes?"
    note_tracees
    expect_screen "[2] worker   [3] worker"
    expect_screen "1-9 wake  Enter wake sel"
    expect_screen "threads (3): choose the waiter to wake"
    keys 3
    wait_for "| step 8 | last: T1 sem_post ready"
    # T3 (worker 2) runs until it exits, the rest with PCT: worker 2 was first.
    keys 3 3 3 3 3 3
    wait_for_re 'T3 +· exited'
    keys c
    wait_for "| exited 0"
    # The program's output went to the output pane only, not over the screen.
    screen | grep -q "woken first: worker 2" && fail "the program's output is on the screen without the output pane"
    keys o
    wait_for "woken first: worker 2"
    expect_screen "program output (22 bytes; o hides)"
    keys q y
    finished 0
    ;;
resize)
    attach -- "$TARGETS/deadlock_lock_order"
    wait_for "| step 0 |"
    keys 1
    wait_for "| step 1 |"
    note_tracees
    tmux -L "$SOCK" resize-window -t tui -x 60 -y 20
    wait_for "terminal too small (need 80x24, have 60x20)"
    # Keys still work while it is too small, and nothing breaks.
    keys 1
    tmux -L "$SOCK" resize-window -t tui -x 100 -y 30
    wait_for "| step 2 |"
    wait_for "1-9 step  n step sel"
    tmux -L "$SOCK" resize-window -t tui -x 80 -y 24
    wait_for_re '^ threads \(2, 2 can run'
    [ "$(screen | wc -l)" -eq 24 ] || fail "not 24 rows at 80x24"
    expect_screen "q quit  ? help"
    keys q
    finished 0
    ;;
no_color)
    # NO_COLOR: attributes only, no colour escapes; the dark theme has them.
    attach NO_COLOR=1 -- "$TARGETS/deadlock_lock_order"
    wait_for "| step 0 |"
    keys 1 1 1
    wait_for "| step 3 |"
    note_tracees
    has_colour && fail "colour escapes under NO_COLOR"
    screen -e | grep -qF $'\e[7m' || screen -e | grep -qE $'\e\\[[0-9;]*7m' || fail "no reverse video in mono"
    keys t
    wait_for "theme: projector"
    keys t
    wait_for "theme: dark"
    keys q y
    finished 0
    # TERM=dumb and an ASCII locale: mono, ASCII symbols.
    restart
    attach LANG=C TERM=dumb -- "$TARGETS/deadlock_lock_order"
    wait_for "| step 0 |"
    keys 1 1 1
    wait_for_re 'T2 +\+ ready'
    expect_screen_re '^.>  T1 +\+ running'
    has_colour && fail "colour escapes with TERM=dumb"
    keys q y
    finished 0
    restart
    attach -- "$TARGETS/deadlock_lock_order"
    wait_for "| step 0 |"
    has_colour || fail "no colour in the dark theme"
    keys q
    finished 0
    ;;
quit_confirm)
    attach -- "$TARGETS/deadlock_lock_order"
    wait_for "| step 0 |"
    keys 1 1 1 2
    wait_for "| step 4 | last: T2 start thread_one | live (unsaved)"
    note_tracees
    keys q
    wait_for "the schedule is not saved: quit anyway? (y quits, s saves first, any other key stays)"
    keys n
    wait_for "1-9 step  n step sel"
    [ -s "$WORK/exit" ] && fail "mdat quit although the answer was no"
    keys 3
    wait_for "| step 5 |"
    keys q
    wait_for "quit anyway?"
    keys y
    finished 0
    ;;
tso)
    # --memory-model tso: the store-buffering litmus test by hand. T2 stores
    # x = 1 (into its buffer, shown under it) and reads y = 0; T3 stores
    # y = 1 and reads x = 0, T2's store still buffered; f flushes T3's
    # store; both threads end, and main finds r0 == r1 == 0.
    attach -- --memory-model tso "$TARGETS/tso_store_buffering"
    wait_for "| step 0 | last: - | live | tso"
    note_tracees
    keys 1 1 1 2 2
    wait_for "| step 5 | last: T2 W x := 1 | live (unsaved) | tso"
    expect_screen_re '^\*▸ +T2 +▶ running +line 22 first +next: R y -> 0'
    expect_screen_re '^    T2 buffer: x := 1 \(line 21\)'
    expect_screen "digit or Enter steps one, f flushes"
    keys 2 3 3 3
    wait_for "| step 9 | last: T3 R x -> 0"
    expect_screen_re 'T2 buffer: x := 1 \(line 21\)'
    expect_screen_re 'T3 buffer: y := 1 \(line 29\)'
    # f: the selected thread's (T3's) oldest store reaches memory, a step of its own.
    keys f
    wait_for "| step 10 | last: T3 flush y := 1"
    expect_screen_re '10 +T3 +flush y := 1 +-> T3.s store at store_buffering.c:29 reaches memory'
    expect_screen_re '^\*▸ +T3 '
    screen | grep -q 'T3 buffer' && fail "T3's buffer is still shown after its flush"
    expect_screen 'T2 buffer: x := 1'
    # A thread with nothing buffered has nothing to flush.
    keys Up Up
    wait_for_re '^.▸  T1 '
    keys f
    wait_for "T1 has no buffered store to flush"
    keys 3 2 1 1 1 1 1 1
    wait_for "| step 18 of 18 | last: T1 R r1 -> 0 | assertion (unsaved) | tso"
    expect_screen "T1: assertion \`r0 == 1 || r1 == 1' failed at store_buffering.c:42"
    # Back before the flush and forward again along the path: n flushes.
    keys g
    wait_for "go to step (0-18)"
    keys 9 Enter
    wait_for "| step 9 of 18 | last: T3 R x -> 0 | replaying"
    expect_screen_re 'T3 buffer: y := 1'
    keys n
    wait_for "| step 10 of 18 | last: T3 flush y := 1 | replaying"
    keys s
    wait_for "save schedule to: tso_store_buffering-step18.sched"
    keys C-u sb.sched Enter
    wait_for "saved sb.sched (18 steps, assertion)"
    keys q
    finished 0
    grep -q '^memory-model tso$' sb.sched || fail "the schedule does not say memory-model tso"
    grep -qE '(^| )9:f3( |$)' sb.sched || fail "the schedule lacks the flush 9:f3"
    run_mdat replay sb.sched
    expect_status 1
    expect_out "reproduced FAILURE assertion after 18 steps"
    run_mdat replay --trace=status sb.sched
    expect_status 1
    expect_out "    buffer  stores, oldest first"
    grep -qE '^  [ *] T2 +x := 1 \(store_buffering.c:21\)$' "$WORK/out" || fail "the status trace shows no buffer of T2"
    expect_out "flush y := 1"
    # --replay opens it under tso and walks to the end; the other model is refused.
    restart
    attach -- --replay sb.sched
    wait_for "| step 0 of 18 | last: - | replaying | tso"
    note_tracees
    keys End
    wait_for "| step 18 of 18 | last: T1 R r1 -> 0 | assertion | tso"
    keys q
    finished 0
    run_mdat attach --memory-model sc --replay sb.sched
    expect_status 2
    expect_err "recorded with --memory-model tso"
    # Under sc nothing is buffered: no buffer rows, and f says why.
    restart
    attach -- "$TARGETS/tso_store_buffering"
    wait_for "| step 0 | last: - | live"
    note_tracees
    keys 1 1 1 2 2
    wait_for "| step 5 | last: T2 W x := 1"
    screen | grep -q 'buffer:' && fail "a store buffer is shown under sc"
    keys f
    wait_for "stores are not buffered under --memory-model sc"
    keys q y
    finished 0
    # The buffers read whole from 80x24 to 200x60.
    for size in 80x24 200x60; do
        restart
        TUI_COLS=${size%x*} TUI_ROWS=${size#*x} attach -- --memory-model tso "$TARGETS/tso_peterson_nofence"
        wait_for "| step 0 |"
        note_tracees
        keys 1 1 1 2 2 2 2 2 2 3 3 3 3 3 3
        wait_for "| step 15 | last: T3 W inside := 1"
        expect_screen_re '   T2 buffer: flag\[0\] := 1( \(line 21\))?, turn := 1( \(line 22\))?, inside := 1'
        expect_screen_re '   T3 buffer: flag\[1\] := 1( \(line 21\))?, turn := 0( \(line 22\))?, inside := 1'
        screen | grep 'buffer:' | grep -qE '…|\.\.\.' && fail "$size: a buffer row is cut"
        keys q y
        finished 0
    done
    ;;
demo)
    run_schedule deadlock_lock_order 1
    attach -- --demo "$SCHED" --delay 0.05
    wait_for "demo finished: 3 threads blocked, none can run" 20
    note_tracees
    expect_screen_re '\| step ([0-9]+) of \1 \| .*\| deadlock \| demo paused'
    keys q
    finished 0
    # Paused, it stays; Right steps; Space plays on to the end.
    restart
    attach -- --demo "$SCHED" --delay 0.3
    wait_for "| step 1 of"
    keys Space
    wait_for "demo paused"
    at=$(screen | grep -oE '\| step [0-9]+ of' | head -n 1)
    sleep 1
    [ "$(screen | grep -oE '\| step [0-9]+ of' | head -n 1)" = "$at" ] || fail "the demo moved while paused"
    n=${at//[^0-9]/}
    keys Right
    wait_for "| step $((n + 1)) of"
    keys Left
    wait_for "| step $n of"
    keys Space
    wait_for "demo finished" 30
    keys q
    finished 0
    ;;
crash)
    # The program crashes: mode crashed. Then mdat itself is killed: the
    # terminal comes back and the traced program dies with it.
    run_schedule order_bug_sleep 5
    attach -- --replay "$SCHED"
    wait_for "replaying"
    keys End
    wait_for "| crashed"
    keys Home
    wait_for "| step 0 of"
    keys n n
    wait_for "| step 2 of"
    note_tracees
    [ -n "$(tracees)" ] || fail "no traced program while stepping"
    kill -SEGV "$MDAT_PID"
    finished 139
    restart
    TRACEES=
    attach -- "$TARGETS/deadlock_lock_order"
    wait_for "| step 0 |"
    keys 1 1
    wait_for "| step 2 |"
    note_tracees
    kill -TERM "$MDAT_PID"
    finished 143
    ;;
spin)
    # A thread that spins without a visible operation is stopped by the
    # watchdog: its clock only runs while the program does, not while a
    # person decides.
    attach -- "$TARGETS/spin_forever"
    wait_for "| step 0 |"
    sleep 11     # longer than the timeout, spent deciding: not the program's time
    keys 1 1 1
    wait_for "| step 3 |"
    note_tracees
    keys 2 2 2
    wait_for_re '\| hang' 25
    expect_screen "does not come back (timeout)"
    keys q
    wait_for "quit anyway?"
    keys y
    finished 0
    ;;
run_break)
    # r runs a thread until it blocks; B sets a breakpoint that r and c stop
    # at; u runs a thread to a line.
    attach -- "$TARGETS/deadlock_lock_order"
    wait_for "| step 0 |"
    keys 1 1 1 3 3
    wait_for "| step 5 | last: T3 lock lock_b"
    note_tracees
    keys Up
    wait_for_re '^.▸  T2 '
    keys r
    wait_for "T2 blocked: mutex lock_b (held by T3)"
    expect_screen "| step 8 | last: T2 lock lock_b"
    keys Home
    wait_for "| step 0 of 8 |"
    keys 1 1 1 2
    wait_for "| step 4 | last: T2 start thread_one"
    keys B
    wait_for "breakpoint on/off at (LINE or FILE:LINE): deadlock_lock_order.c:29"
    keys C-u 3 1 Enter
    wait_for "breakpoint at deadlock_lock_order.c:31 (r and c stop when a thread reaches it)"
    expect_screen_re '2> ●29 +pthread_mutex_lock\(&lock_a\);|^ +●31 +shared = shared \+ 1;'
    keys r
    wait_for "T2 reached breakpoint deadlock_lock_order.c:31"
    expect_screen "| step 6 | last: T2 lock lock_b"
    expect_screen_re '2>●31 +shared = shared \+ 1;'
    # Continue with PCT: it stops when a thread comes to line 31 again.
    keys c
    wait_for_re '\| step (1[0-9]|[7-9]) \|.*T[23] reached breakpoint deadlock_lock_order.c:31|T2 reached breakpoint'
    keys B Enter
    wait_for "breakpoint deadlock_lock_order.c:31 removed"
    keys Home 1 1 1 3
    wait_for "| step 4 |"
    keys u
    wait_for "run T3 until it reaches line (LINE or FILE:LINE):"
    keys 4 5 Enter
    wait_for "T3 reached deadlock_lock_order.c:45"
    expect_screen_re '3> +45 +pthread_mutex_unlock\(&lock_a\);'
    keys q y
    finished 0
    ;;
watch_load)
    # --watch and w add watches, W removes one (each re-executes to the same
    # step); l loads a schedule. Watch values come from the supervisor: the
    # pane shows a value or that there is none yet.
    attach -- --watch shared "$TARGETS/deadlock_lock_order"
    wait_for "| step 0 |"
    wait_for_re 'watch 1 +shared += 0'
    keys 1 1 1 2 2
    wait_for "| step 5 |"
    note_tracees
    keys w
    wait_for "watch (a variable or expression):"
    keys n o s u c h Enter
    wait_for "watching nosuch"
    wait_for "| step 5 |"
    # A watch that names nothing says why, in place of a value.
    wait_for_re "watch 2 +nosuch +no variable named 'nosuch'"
    expect_screen "sync objects (2) and watches (2)"
    keys W
    wait_for "remove watch number (1-2): 2"
    keys BSpace 1 Enter
    wait_for "no longer watching shared"
    wait_for_re 'watch 1 +nosuch'
    expect_screen "| step 5 |"
    # Save here (before the end), then load it back: followed from step 0.
    keys s
    wait_for "save schedule to: deadlock_lock_order-step5.sched"
    keys Enter
    wait_for "saved deadlock_lock_order-step5.sched: 5 steps so far, before the end"
    keys 3 3 2 3 1
    wait_for "| deadlock"
    keys l
    wait_for "load schedule: deadlock_lock_order-step5.sched"
    keys Enter
    wait_for "loaded deadlock_lock_order-step5.sched:"
    wait_for "| step 0 of 5 | last: - | replaying"
    keys End
    wait_for "| step 5 of 5 | last: T2 lock lock_a | live"
    keys l C-u / n o / s u c h Enter
    wait_for "cannot"
    keys q y
    finished 0
    ;;
long_run)
    # A run that takes a while shows progress and stops on Esc; so does the
    # re-execution behind a step back.
    # A correct program longer than the step limit: incomplete, not a failure.
    attach -- --max-steps 40000 "$TARGETS/many_increments" 4 100000
    wait_for "| step 0 |"
    keys c
    wait_for "running with pct: step"
    note_tracees
    wait_for "| incomplete" 60
    keys Left
    wait_for "re-executing to step 39999:" 20
    keys Escape
    wait_for_re 'stopped at step [0-9]+ \(cancelled\)'
    wait_for_re '\| step [0-9]+ of 40000 \| .*\| replaying'
    keys q y
    finished 0
    ;;
sizes)
    # At every size from the smallest up, one layout or the other, each
    # column of the tables reads whole: what a thread waits on or does next
    # is never cut; a column that gives way (the location, the state's long
    # name) is left out or shortened, not cut in the middle.
    for size in 80x24 100x30 120x40 200x60; do
        restart
        TUI_COLS=${size%x*} TUI_ROWS=${size#*x} attach -- "$TARGETS/deadlock_lock_order"
        wait_for "| step 0 |"
        keys 1 1 1 2 2 3 3 2
        wait_for "| step 8 | last: T2 lock lock_b"
        note_tracees
        [ "$(screen | wc -l)" -eq "${size#*x}" ] || fail "$size: not ${size#*x} rows"
        expect_screen_re 'T1 +▶ ready( +line 56( main)?)? +next: join T2( |$)'
        expect_screen_re 'T2 +■ (waiting-)?lock( +line 30( thread_one)?)? +waits: mutex lock_b \(held by T3\)( |$)'
        expect_screen_re 'T3 +▶ ready( +line 43( thread_two)?)? +next: lock lock_a( |$)'
        expect_screen_re 'state +(location +)?waiting on / next( |$)'
        expect_screen_re 'mutex +lock_a +held by T2( |$)'
        expect_screen_re 'mutex +lock_b +held by T3 +waiting: T2( |$)'
        # Where the location is shown it is whole; nothing in the tables is cut.
        screen >screen.txt
        if grep -qE 'location +waiting on' screen.txt; then
            expect_screen_re 'T2 +■ [a-z-]+ +line 30 thread_one +waits'
        fi
        grep -E ' T[123] {2,}[▶■·]|mutex {2,}lock_' screen.txt >rows.txt
        [ "$(wc -l <rows.txt)" -eq 5 ] || fail "$size: not 3 thread and 2 mutex rows: $(cat rows.txt)"
        grep -qE '…|\.\.\.' rows.txt && fail "$size: a table row is cut: $(grep -E '…|\.\.\.' rows.txt)"
        # Wider than 120 columns the threads table has room for every column in full.
        [ "${size%x*}" -ge 200 ] && expect_screen_re 'T2 +■ waiting-lock +line 30 thread_one +waits: mutex lock_b'
        keys q y
        finished 0
    done
    ;;
story)
    # --demo of a lost update, captioned, at every size: the final screen
    # keeps the steps that caused the failure (the two loads and the two
    # stores of counter), marked; the thread that failed says so; captions
    # show once their step has run, and are comments to mdat replay.
    run_schedule lost_update 2
    steps=$(sed -n 's/^steps //p' "$SCHED")
    { cat "$SCHED"; echo "# caption 3: T1 starts the second incrementer"
      echo "# caption $steps: main reads counter and asserts"; } >captioned.sched
    run_mdat replay captioned.sched
    expect_status 1
    expect_out "reproduced FAILURE assertion after $steps steps"
    expect_out "relevant steps (what led to it):"
    # The section: the two loads and the two stores of counter, "..." between steps far apart.
    sed -n '/^  relevant steps/,$p' out | tail -n +2 >relevant.txt
    [ "$(grep -cE '^ +[0-9]+ [ *] T[23] +R counter' relevant.txt)" -eq 2 ] || fail "not both loads: $(cat relevant.txt)"
    [ "$(grep -cE '^ +[0-9]+ [ *] T[23] +W counter' relevant.txt)" -eq 2 ] || fail "not both stores: $(cat relevant.txt)"
    grep -qx '  \.\.\.' relevant.txt || fail "no ... between far-apart steps: $(cat relevant.txt)"
    run_mdat shrink -o shrunk.sched captioned.sched
    expect_status 0
    [ -s shrunk.sched ] || fail "mdat shrink of a captioned schedule wrote nothing: $(cat err)"
    for size in 80x24 120x40 160x48 200x60; do
        restart
        TUI_COLS=${size%x*} TUI_ROWS=${size#*x} attach -- --demo captioned.sched --delay 0.02
        wait_for "demo finished: T1: assertion" 30
        note_tracees
        screen_checks "$size" '\| assertion \| demo paused( \(Space plays\))?$'
        cause=$(grep -cE '^► *[0-9]+ ' "screen-$size.txt")
        [ "$cause" -eq 4 ] || fail "$size: $cause cause steps marked, not 4: $(cat "screen-$size.txt")"
        [ "$(grep -cE '^► *[0-9]+ [ *] T[23] +R counter' "screen-$size.txt")" -eq 2 ] || fail "$size: not both loads marked"
        [ "$(grep -cE '^► *[0-9]+ [ *] T[23] +W counter' "screen-$size.txt")" -eq 2 ] || fail "$size: not both stores marked"
        grep -q "event log: ► marks the steps that led to the assertion" "screen-$size.txt" || fail "$size: no log title"
        grep -qE ' T1 +✗ assertion' "screen-$size.txt" || fail "$size: T1 is not shown as failed"
        grep -qE ' T1 +▶ running' "screen-$size.txt" && fail "$size: T1 is shown running after its assertion"
        [ "$size" = 160x48 ] && half_empty "$size"
        if [ "$size" = 80x24 ] || [ "$size" = 160x48 ]; then
            echo "--- final screen of the demo at $size"
            cat "screen-$size.txt"
        fi
        # One step back: the caption of the step shows (the demo's message
        # is gone), and the log, in order again, still marks the cause
        # steps it shows (80x24 shows none of them one step back).
        keys Left
        wait_for "step 3: T1 starts the second incrementer"
        [ "$size" = 80x24 ] || expect_screen_re '^► +[0-9]+ [ *] T[23] +[RW] counter'
        if [ "$size" = 80x24 ]; then
            # From the start: no caption before step 3, then it shows and stays.
            keys Home
            wait_for_re "\\| (step )?0( of |/)$steps \\|"
            keys Right Right
            wait_for_re "\\| (step )?2( of |/)$steps \\|"
            screen | grep -q "step 3: T1" && fail "the caption of step 3 shows at step 2"
            keys Right
            wait_for "step 3: T1 starts the second incrementer"
            keys Right
            wait_for_re "\\| (step )?4( of |/)$steps \\|"
            expect_screen "step 3: T1 starts the second incrementer"
            # Along the same path to the last cause step: each marked in the log.
            last=$(grep -E '^► ' "screen-$size.txt" | tail -n 1 | awk '{print $2}')
            keys g
            wait_for "go to step"
            keys "$last" Enter
            wait_for_re "\\| (step )?$last( of |/)$steps \\|"
            expect_screen_re "^► +$last "
            [ "$(screen | grep -cE '^► +[0-9]+ ')" = "$(grep -cE '^► ' "screen-$size.txt")" ] ||
                fail "walking back to step $last, not every cause step is marked: $(screen)"
        fi
        keys q
        finished 0
    done
    ;;
layouts)
    # mdat attach at every size, stepped by hand into the deadlock: the
    # status line whole, 6 log lines at 80x24, the acquisitions and blocked
    # attempts of the wait cycle marked at the end, no half-empty screen.
    for size in 80x24 120x40 160x48 200x60; do
        restart
        TUI_COLS=${size%x*} TUI_ROWS=${size#*x} attach -- "$TARGETS/deadlock_lock_order"
        wait_for "| step 0 |"
        keys "${DEADLOCK_KEYS[@]}"
        wait_for_re '\| deadlock \(unsaved\)$'
        note_tracees
        screen_checks "$size" '\| deadlock \(unsaved\)$'
        # T2 took lock_a (5), T3 lock_b (7); T2 blocked on lock_b (8), T3 on lock_a (9); T1's join is no part of it.
        for step in 5 7 8 9; do
            grep -qE "^► +$step [ *] T[23] +lock lock_[ab]" "screen-$size.txt" || fail "$size: step $step not marked"
        done
        [ "$(grep -cE '^► ' "screen-$size.txt")" -eq 4 ] || fail "$size: not 4 steps marked: $(cat "screen-$size.txt")"
        grep -qE ' T[0-9]+ +✗' "screen-$size.txt" && fail "$size: a deadlocked thread is shown as failed"
        [ "$size" = 160x48 ] && half_empty "$size"
        [ "$size" = 80x24 ] && { echo "--- mdat attach at 80x24, deadlocked"; cat "screen-$size.txt"; }
        keys q y
        finished 0
    done
    ;;
usage)
    run_mdat attach
    expect_status 2
    expect_err "mdat attach: no program given"
    run_mdat attach --theme neon "$TARGETS/deadlock_lock_order"
    expect_status 2
    expect_err 'unknown theme "neon"'
    run_mdat attach --delay 2 "$TARGETS/deadlock_lock_order"
    expect_status 2
    expect_err "--delay goes with --demo FILE"
    run_mdat attach --replay a --demo b
    expect_status 2
    run_mdat attach "$TARGETS/not_elf.txt"
    expect_status 3
    expect_err "mdat: "
    run_mdat attach --replay /nonexistent.sched
    expect_status 3
    run_mdat attach "$TARGETS/deadlock_lock_order" </dev/null
    expect_status 3
    expect_err "mdat attach needs a terminal"
    run_mdat attach --help
    expect_status 0
    expect_out "--demo FILE"
    run_mdat --help
    expect_out "attach [options] [--] PROG [ARGS...]"
    ;;
*)
    echo "unknown test $TEST"
    exit 2
    ;;
esac
finish
