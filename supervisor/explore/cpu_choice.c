/* cpu_choice: the allowed CPUs ordered from the least busy (cpu_choice.h). */
#include "supervisor/explore/cpu_choice.h"
#include "supervisor/process/proc_stat.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How many looks at the run queues, and how far apart. One look is a
 * snapshot: a CPU kept busy by a supervisor and its program can show
 * nothing runnable at that instant (both between a ptrace stop and its
 * wait), while a kernel worker shows up for a microsecond on an idle one.
 * Eight looks over ~20 ms tell the two apart; it is paid once per run. */
enum { LOOKS = 8 };
static const struct timespec BETWEEN_LOOKS = {.tv_sec = 0, .tv_nsec = 2500000};

/* The CPU thread `tid` of process `pid` is runnable on, or -1 when it is
 * not runnable (or gone). Fields of /proc/PID/task/TID/stat after the
 * command name, which may hold spaces and parentheses: the state is the
 * first, the CPU it last ran on the 37th. */
static int runnable_on(const char *pid, const char *tid)
{
    struct proc_stat st;
    if (!proc_stat_read((pid_t)atoi(pid), (pid_t)atoi(tid), &st) || st.state != 'R')
        return -1;
    return st.processor;
}

/* Adds the runnable threads per CPU, those of this process aside. */
static void count_runnable(int *runnable)
{
    DIR *procs = opendir("/proc");
    if (!procs)
        return;
    char self[24];
    snprintf(self, sizeof self, "%d", (int)getpid());
    struct dirent *p;
    while ((p = readdir(procs)) != NULL) {
        if (p->d_name[0] < '1' || p->d_name[0] > '9' || strcmp(p->d_name, self) == 0)
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%s/task", p->d_name);
        DIR *tasks = opendir(path);
        if (!tasks)
            continue;
        struct dirent *t;
        while ((t = readdir(tasks)) != NULL) {
            if (t->d_name[0] < '1' || t->d_name[0] > '9')
                continue;
            int cpu = runnable_on(p->d_name, t->d_name);
            if (cpu >= 0 && cpu < CPU_SETSIZE)
                runnable[cpu]++;
        }
        closedir(tasks);
    }
    closedir(procs);
}

bool cpu_choice_make(struct cpu_choice *c)
{
    memset(c, 0, sizeof *c);
    if (sched_getaffinity(0, sizeof c->allowed, &c->allowed) != 0)
        return false;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &c->allowed))
            c->order[c->n++] = cpu;
    if (c->n < 2)
        return c->n > 0;    /* nothing to choose: no need to look at /proc */
    static int runnable[CPU_SETSIZE];
    memset(runnable, 0, sizeof runnable);
    for (int look = 0; look < LOOKS; look++) {
        if (look > 0)
            nanosleep(&BETWEEN_LOOKS, NULL);
        count_runnable(runnable);
    }

    /* Least busy first; among equals, in the order of their numbers (a
     * stable insertion sort: n is the number of CPUs). */
    for (int i = 1; i < c->n; i++) {
        int cpu = c->order[i], j = i;
        for (; j > 0 && runnable[c->order[j - 1]] > runnable[cpu]; j--)
            c->order[j] = c->order[j - 1];
        c->order[j] = cpu;
    }
    return true;
}

void cpu_choice_pin(const struct cpu_choice *c, int nth)
{
    if (c->n <= 0)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(c->order[nth % c->n], &one);
    sched_setaffinity(0, sizeof one, &one);
}

void cpu_choice_unpin(const struct cpu_choice *c)
{
    sched_setaffinity(0, sizeof c->allowed, &c->allowed);
}
