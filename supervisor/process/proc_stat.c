/* proc_stat: reading and splitting /proc stat lines (see proc_stat.h). */
#include "supervisor/process/proc_stat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The fields after the name, from the state (field 3 of proc(5)) on. */
static bool split(char *line, struct proc_stat *out)
{
    char *open = strchr(line, '('), *close = strrchr(line, ')');
    if (!open || !close || close < open || close[1] != ' ')
        return false;
    snprintf(out->comm, sizeof out->comm, "%.*s", (int)(close - open - 1), open + 1);
    int ppid;
    unsigned long long utime, stime;
    if (sscanf(close + 2, "%c %d %*d %*d %*d %*d %lu %*u %*u %*u %*u %llu %llu", &out->state, &ppid, &out->flags,
               &utime, &stime) != 5)
        return false;
    out->ppid = ppid;
    out->utime = utime;
    out->stime = stime;
    /* processor is field 39: the 37th after the name. */
    out->processor = -1;
    const char *p = close + 2;
    for (int field = 0; field < 36 && p; field++) {
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    if (p)
        sscanf(p, "%d", &out->processor);
    return true;
}

bool proc_stat_read(pid_t pid, pid_t tid, struct proc_stat *out)
{
    char path[96], line[1024];
    if (tid)
        snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    else
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0) {
        errno = n == 0 ? ESRCH : errno;   /* an empty read: the task went away */
        return false;
    }
    line[n] = '\0';
    if (!split(line, out)) {
        errno = EINVAL;
        return false;
    }
    return true;
}
