#!/bin/sh
# check_restroom.sh [CAPACITY] - output checker for the restroom programs.
#
# Reads the log on stdin: lines "enter G N" and "exit G N" (G = M or W, N =
# the person's number); other lines are ignored.  The log is valid when men
# and women are never inside together, at most CAPACITY people are inside at
# once (no limit when CAPACITY is not given), and everybody who leaves had
# entered.  Exits 0 when valid; otherwise prints ONE line naming the log line
# of the first violation and exits 1.
#
#   ./restroom | ./check_restroom.sh
#   mdat run --check "./check_restroom.sh 4" ./restroom_cap4
exec awk -v cap="${1:-0}" '
function fail(msg) { printf "log line %d (%s): %s\n", NR, $0, msg; bad = 1; exit 1 }
$1 == "enter" && NF == 3 {
    o = ($2 == "M") ? "W" : "M"
    if (in_room[$2 " " $3]) fail("enters twice")
    if (count[o] > 0) fail(sprintf("%s %s enters while %d of %s are inside", $2, $3, count[o], o))
    count[$2]++
    in_room[$2 " " $3] = 1
    if (cap > 0 && count[$2] > cap) fail(sprintf("%d people inside, capacity is %d", count[$2], cap))
    next
}
$1 == "exit" && NF == 3 {
    if (!in_room[$2 " " $3]) fail(sprintf("%s %s leaves but is not inside", $2, $3))
    count[$2]--
    in_room[$2 " " $3] = 0
    next
}
END {
    if (bad) exit 1
    if (count["M"] + count["W"] > 0) {
        printf "log ended with %d men and %d women still inside\n", count["M"], count["W"]
        exit 1
    }
}
'
