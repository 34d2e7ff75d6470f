#!/bin/sh
# check_mutex_log.sh - output checker for mutual-exclusion logs.
#
# Reads a log on stdin made of lines "enter N" and "exit N" (N = thread id;
# other lines are ignored).  Valid when no thread enters while another is
# inside, and every "exit N" matches the thread that is inside.  Exits 0 if
# valid; otherwise prints ONE line on stdout describing the first violation
# and exits 1.  A log that ends with a thread still inside is also accepted
# as a failure.  POSIX sh + awk only.
#
# Usage: ./output_checker | ./check_mutex_log.sh
exec awk '
$1 == "enter" && NF == 2 {
    if (inside != "") {
        printf "mutual exclusion violated at log line %d: thread %s entered while thread %s was inside\n", NR, $2, inside
        bad = 1
        exit 1
    }
    inside = $2
    next
}
$1 == "exit" && NF == 2 {
    if (inside != $2) {
        printf "mutual exclusion violated at log line %d: thread %s exited but %s was inside\n", NR, $2, (inside == "" ? "nobody" : "thread " inside)
        bad = 1
        exit 1
    }
    inside = ""
    next
}
END {
    if (bad)
        exit 1
    if (inside != "") {
        printf "log ended with thread %s still inside the critical section\n", inside
        exit 1
    }
    exit 0
}
'
