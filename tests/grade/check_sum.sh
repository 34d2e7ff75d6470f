#!/bin/sh
# check_sum.sh - output checker of the second sample assignment (oscar.c,
# peggy.c): the output is one line "sum: 8". Exits 0 when it is; else says
# what it got on one line and exits 1.
out=$(cat)
[ "$out" = "sum: 8" ] && exit 0
echo "expected \"sum: 8\", got \"$(printf '%s' "$out" | head -n 1)\""
exit 1
