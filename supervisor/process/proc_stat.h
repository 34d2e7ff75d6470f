/* proc_stat: a process's or a thread's line of /proc/PID/stat or
 * /proc/PID/task/TID/stat, read once and split into the fields mdat asks
 * for. Every reader goes through here because the line is easy to misread:
 * the command name comes second, between parentheses, and may itself hold
 * spaces and parentheses, so the fields are counted from its last ')'. */
#ifndef MDAT_PROCESS_PROC_STAT_H
#define MDAT_PROCESS_PROC_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_stat {
    char state;             /* R, S, D, T, t, Z, X ... */
    pid_t ppid;
    unsigned long flags;    /* PF_* */
    uint64_t utime, stime;  /* clock ticks */
    int processor;          /* the CPU it last ran on; -1 when not told */
    char comm[64];          /* the command name, as the kernel keeps it */
};

/* tid 0: the process's line. false when it is gone (errno ENOENT or
 * ESRCH) or the line cannot be read (another errno). */
bool proc_stat_read(pid_t pid, pid_t tid, struct proc_stat *out);

#endif
