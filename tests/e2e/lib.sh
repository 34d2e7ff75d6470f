# Shared by the end-to-end test scripts: sourced after `set -uo pipefail` with
# MDAT, TARGETS, SOURCES and TEST set. Makes a scratch directory ($WORK, the
# current directory), and the helpers that run mdat and assert on its output.
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# run_mdat ARGS...: runs mdat, keeps stdout in $WORK/out, stderr in $WORK/err, status in $status.
# In a sanitizer build (MDAT_SANITIZE=ON) any report from mdat itself is a failure.
# Its stdin is /dev/null: mdat would feed its own stdin to the program.
run_mdat() {
    "$MDAT" "$@" </dev/null >"$WORK/out" 2>"$WORK/err"
    status=$?
    if grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$WORK/err"; then
        fail "sanitizer report from mdat $*: $(grep -m1 -E 'runtime error:|Sanitizer' "$WORK/err")"
    fi
}
# run_mdat_in_pid_namespace LAST ARGS...: run_mdat in a PID namespace of its
# own whose counter stands at LAST (mdat is LAST + 1, what it starts after).
run_mdat_in_pid_namespace() {
    local last=$1
    shift
    unshare --pid --fork --mount-proc sh -c 'echo "$0" >/proc/sys/kernel/ns_last_pid && exec "$@"' \
        "$last" "$MDAT" "$@" </dev/null >"$WORK/out" 2>"$WORK/err"
    status=$?
    if grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$WORK/err"; then
        fail "sanitizer report from mdat $*: $(grep -m1 -E 'runtime error:|Sanitizer' "$WORK/err")"
    fi
}
expect_status() { [ "$status" -eq "$1" ] || fail "exit status $status, expected $1 (mdat $*)"; }
expect_out() { grep -qF -- "$1" "$WORK/out" || fail "stdout lacks: $1"; }
expect_err() { grep -qF -- "$1" "$WORK/err" || fail "stderr lacks: $1"; }
expect_json() { grep -qE -- "$1" "$2" || fail "$2 lacks /$1/"; }
# line_of FILE MARKER: line number of the marker comment in a target's source.
line_of() { grep -n -- "$2" "$SOURCES/$1" | head -n 1 | cut -d: -f1; }
show() { echo "--- stdout"; cat "$WORK/out"; echo "--- stderr"; cat "$WORK/err"; }

# The trace lines (step lines) of a replay --trace, without the report after it.
replay_trace() { sed -n '/^mdat: replaying/,/^mdat: reproduced\|^mdat: replayed/p' "$1" | grep -E '^ +[0-9]+ '; }

# expect_replay_identical SCHED [REPLAY OPTIONS...]: replaying reproduces the failure with the saved trace.
expect_replay_identical() {
    local sched=$1
    shift
    "$MDAT" replay --trace "$@" "$sched" </dev/null >"$WORK/replay.out" 2>"$WORK/replay.err"
    local st=$?
    [ "$st" -eq 1 ] || fail "replay exit $st, expected 1: $(cat "$WORK/replay.err")"
    replay_trace "$WORK/replay.out" >"$WORK/replay.trace"
    [ -s "$WORK/replay.trace" ] || fail "replay printed no trace"
    # A long execution's saved trace keeps only its last steps: compare those.
    local saved="${sched%.sched}.trace"
    if grep -q "^  \.\.\. the first [0-9]* steps are not kept" "$saved"; then
        grep -v "^  \.\.\. the first" "$saved" >"$WORK/saved.trace"
        tail -n "$(wc -l <"$WORK/saved.trace")" "$WORK/replay.trace" >"$WORK/replay.tail"
        mv "$WORK/replay.tail" "$WORK/replay.trace"
        saved="$WORK/saved.trace"
    fi
    diff -u "$saved" "$WORK/replay.trace" >"$WORK/trace.diff" ||
        fail "replay trace differs from the recorded one: $(head -20 "$WORK/trace.diff")"
}

# The first failure schedule saved in out-dir (not the original kept beside a shrunk one).
first_sched() { ls "$WORK"/out-dir/*.sched 2>/dev/null | grep -v "\.original\.sched$" | head -n 1; }

# Ends the test: prints what mdat said when an assertion failed.
finish() {
    if [ "$failures" -gt 0 ]; then
        show
        echo "$TEST: $failures assertion(s) failed"
        exit 1
    fi
    echo "$TEST: ok"
}
