/* busy_pool: CORRECT. A pool of four threads takes numbered tasks from a
 * shared counter under a mutex, sums the task's 1000 numbers (with a short
 * sleep, so the threads block and wake often), and adds that into a shared
 * total, until the file STOPFILE exists. Then main joins them and prints
 * how many tasks were done, the total (the sum of 0 .. tasks*1000-1,
 * whatever the interleaving) and how many SIGRTMIN signals it received.
 * Attaching and detaching any number of times must change none of it: no
 * task lost, no signal lost. Usage: busy_pool STOPFILE */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { WORKERS = 4, PER_TASK = 1000 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long next_task, tasks_done;
static unsigned long long total;
static const char *stop_file;
static volatile sig_atomic_t signals;

static void count_signal(int sig)
{
    (void)sig;
    signals++;
}

static void *worker(void *arg)
{
    (void)arg;
    while (access(stop_file, F_OK) != 0) {
        pthread_mutex_lock(&lock);
        long task = next_task++;
        pthread_mutex_unlock(&lock);
        unsigned long long sum = 0;
        for (long i = task * PER_TASK; i < (task + 1) * PER_TASK; i++)
            sum += (unsigned long long)i;
        struct timespec pause = {0, 200000};
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&lock);
        total += sum;
        tasks_done++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: busy_pool STOPFILE\n");
        return 2;
    }
    stop_file = argv[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGRTMIN, &sa, NULL);
    pthread_t t[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    printf("tasks %ld total %llu signals %d\n", tasks_done, total, (int)signals);
    return 0;
}
