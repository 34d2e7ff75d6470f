#!/usr/bin/env bash
# End-to-end tests of the machine mdat emulates against the CPU
# (tests/targets/machine/): each program runs natively, then under mdat
# with and without running ahead (MDAT_NO_RUN_AHEAD=1); its output under
# mdat (an output checker, --check) must be the native one in every
# execution, and mdat must find no failure. A program that exits 77
# natively (a CPU without the feature it tests) is a skip.
#   machine.sh MDAT TARGET_DIR SOURCE_DIR TEST_NAME
set -uo pipefail
MDAT=$1 TARGETS=$2/machine SOURCES=$3 TEST=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# same_as_native PROGRAM EXECUTIONS: the native output, then mdat's runs.
same_as_native() {
    local prog=$TARGETS/$1 n=$2
    "$prog" </dev/null >"$WORK/native.out" 2>&1
    local native=$?
    if [ "$native" -eq 77 ]; then
        echo "$TEST: skipped: $(cat "$WORK/native.out")"
        exit 77
    fi
    [ "$native" -eq 0 ] || { fail "natively: exit $native: $(cat "$WORK/native.out")"; finish; }
    # The checker compares the output with the native one, byte for byte.
    cp "$WORK/native.out" "$WORK/expected"
    for ahead in on off; do
        if [ "$ahead" = off ]; then export MDAT_NO_RUN_AHEAD=1; else unset MDAT_NO_RUN_AHEAD; fi
        run_mdat run -n "$n" -s 7 --check "cmp -s - $WORK/expected" -o "$WORK/out-dir" -- "$prog"
        expect_status 0
        grep -q "no failure in $n execution" "$WORK/out" ||
            fail "running ahead $ahead: $(tail -3 "$WORK/out") $(cat "$WORK"/out-dir/*.stdout 2>/dev/null | head -3)"
    done
    unset MDAT_NO_RUN_AHEAD
}

case "$TEST" in
vector_loops) same_as_native vector_loops 3 ;;
memcpy_heavy) same_as_native memcpy_heavy 3 ;;
fp16) same_as_native fp16 3 ;;
newer_isa_in_text) same_as_native newer_isa_in_text 5 ;;
self_modifying) same_as_native self_modifying 5 ;;
jit_page) same_as_native jit_page 5 ;;
reads_itself) same_as_native reads_itself 5 ;;
textrel_pie)
    readelf -d "$TARGETS/textrel_pie" | grep -q TEXTREL || fail "textrel_pie has no DT_TEXTREL: the test tests nothing"
    same_as_native textrel_pie 3
    ;;
*)
    echo "machine.sh: unknown test $TEST"
    exit 2
    ;;
esac
finish
