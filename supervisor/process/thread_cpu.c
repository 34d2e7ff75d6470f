/* thread_cpu: a thread's CPU time read from /proc (schedstat in
 * nanoseconds; stat's clock ticks where the kernel keeps no schedstat). */
#include "supervisor/process/thread_cpu.h"
#include "supervisor/process/proc_stat.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
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

bool thread_cpu_ns(pid_t pid, pid_t tid, uint64_t *ns)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
    if (read_small_file(path, buf, sizeof buf) && sscanf(buf, "%" SCNu64, ns) == 1)
        return true;
    /* Without schedstat: utime and stime, in clock ticks. */
    struct proc_stat st;
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0 || !proc_stat_read(pid, tid, &st))
        return false;
    *ns = (st.utime + st.stime) * (1000000000ull / (uint64_t)hz);
    return true;
}
