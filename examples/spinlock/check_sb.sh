#!/bin/sh
# check_sb.sh - output checker for store_buffering: the outcome r0 = 0, r1 = 0
# (both loads before both stores reached memory) is impossible on a
# sequentially consistent machine.  Reads the program's output on stdin;
# exits 1 with one line naming the log line when it shows that outcome,
# else 0.
#
#   ./store_buffering | ./check_sb.sh
exec awk '
/^r0 = 0, r1 = 0$/ { printf "log line %d (%s): each load ran before the other thread'"'"'s store reached memory\n", NR, $0; bad = 1; exit 1 }
END { exit bad }
'
