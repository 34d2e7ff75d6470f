/* thread_cpu: a thread's CPU time read from /proc (schedstat in
 * nanoseconds; stat's clock ticks where the kernel keeps no schedstat). */
#include "supervisor/process/thread_cpu.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool read_small_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    return true;
}

/* utime and stime, fields 14 and 15, counted after the command name's
 * closing parenthesis (the name itself may hold spaces and parentheses). */
static bool from_stat(const char *buf, uint64_t *ns)
{
    const char *p = strrchr(buf, ')');
    if (!p)
        return false;
    unsigned long long utime, stime;
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
        return false;
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0)
        return false;
    *ns = (uint64_t)(utime + stime) * (1000000000ull / (uint64_t)hz);
    return true;
}

bool thread_cpu_ns(pid_t pid, pid_t tid, uint64_t *ns)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
    if (read_small_file(path, buf, sizeof buf) && sscanf(buf, "%" SCNu64, ns) == 1)
        return true;
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    return read_small_file(path, buf, sizeof buf) && from_stat(buf, ns);
}
