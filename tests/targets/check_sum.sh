#!/bin/sh
# check_sum.sh - output checker for lost_update_sum.
#
# Reads the program's output on stdin: "rounds=R" then "sum=S". Two
# threads each add 1..R, so S must be R * (R + 1). Exits 0 when it is;
# otherwise prints what it expected and what it got, one line on stdout,
# and exits 1. POSIX sh + awk only.
exec awk -F= '
$1 == "rounds" { rounds = $2 }
$1 == "sum" { sum = $2; seen = 1 }
END {
    if (!seen) {
        print "no sum= line in the output"
        exit 1
    }
    expected = rounds * (rounds + 1)
    if (sum != expected) {
        printf "expected sum=%d, got sum=%d (%d lost)\n", expected, sum, expected - sum
        exit 1
    }
    exit 0
}
'
