#!/usr/bin/env bash
# Runs one libFuzzer target for a fixed time from its seed corpus (a copy:
# the repository's corpus stays as it is), then replays every crash it saved:
# the test fails on a crash, leak or timeout in mdat's code. A crash whose
# first frame is inside the system's libdwarf (20210528 has double frees on
# malformed .debug_rnglists) is that library's: printed, not failed on.
#   run_fuzzer.sh FUZZER CORPUS_DIR SECONDS
# Exit 77 (skipped) when the fuzzer was not built (no clang).
set -uo pipefail
FUZZER=$1 CORPUS=$2 SECONDS_TO_RUN=$3
if [ ! -x "$FUZZER" ]; then
    echo "skipped: $FUZZER was not built (clang with -fsanitize=fuzzer not found)"
    exit 77
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/corpus" "$WORK/artifacts"
cp "$CORPUS"/* "$WORK/corpus/"
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$FUZZER" -fork=1 -ignore_crashes=1 -ignore_timeouts=0 -max_total_time="$SECONDS_TO_RUN" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$WORK/artifacts/" "$WORK/corpus" >"$WORK/log" 2>&1
rc=$?
grep -E '^#[0-9]+.*(DONE|pulse)|^INFO: fuzzed for' "$WORK/log" | tail -n 2
failures=0
for a in "$WORK"/artifacts/*; do
    [ -e "$a" ] || continue
    "$FUZZER" "$a" >"$WORK/one" 2>&1 && continue
    # The first frame that is not the sanitizer's own.
    frame=$(grep -E '^ +#[0-9]+ ' "$WORK/one" | grep -vE '__interceptor_|__asan|__ubsan|__sanitizer|in (abort|raise|__GI_)' | head -n 1)
    if grep -q 'libdwarf\.so' <<<"$frame"; then
        echo "note: $(basename "$a"): a crash inside libdwarf, not mdat: $frame"
        continue
    fi
    echo "FAIL: $(basename "$a") ($(base64 -w0 <"$a" | head -c 200)):"
    grep -E 'ERROR|SUMMARY|runtime error|^ +#[0-9]+ ' "$WORK/one" | head -n 25
    failures=$((failures + 1))
done
if [ "$failures" -gt 0 ]; then
    echo "$(basename "$FUZZER"): $failures input(s) break mdat"
    exit 1
fi
if [ "$rc" -ne 0 ] && ! ls "$WORK"/artifacts/* >/dev/null 2>&1; then
    echo "$(basename "$FUZZER") exited $rc without an artifact:"
    tail -n 20 "$WORK/log"
    exit 1
fi
echo "$(basename "$FUZZER"): ok"
