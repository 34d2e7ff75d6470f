/* Hostile submission: a real deadlock, and before it prlimit on its
 * parent and its tracer (mdat's explorer): no descriptor, no process,
 * no memory left for mdat, so that the deadlock turns into an error of
 * mdat's. The grading must report the deadlock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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

static void starve(pid_t pid)
{
    struct rlimit none = {0, 0}, few = {3, 3};
    if (pid <= 0)
        return;
    prlimit(pid, RLIMIT_NOFILE, &few, NULL);
    prlimit(pid, RLIMIT_NPROC, &none, NULL);
    prlimit(pid, RLIMIT_AS, &few, NULL);
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
    starve(getppid());
    starve(tracer());
    pthread_t th;
    pthread_mutex_lock(&lock);
    pthread_create(&th, NULL, needs_the_lock, NULL);
    pthread_join(th, NULL);     /* the deadlock: the thread waits for the lock main holds */
    pthread_mutex_unlock(&lock);
    return 0;
}
