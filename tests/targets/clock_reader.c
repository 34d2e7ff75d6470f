/* clock_reader.c - threads that read the clock and seed rand() with it.
 *
 * CORRECT.  What a student program often does: srand(time(NULL)), a random
 * amount of work per thread, timestamps, and sleep(). Natively every run
 * differs. Under mdat time is virtual (it starts at 2026-01-01 00:00:00
 * UTC and moves with the steps and the sleeps), so the same schedule
 * prints the same thing every time, and replays exactly.
 * Expected mdat verdict: exit 0; the output of one schedule never changes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int total;

static void *worker(void *arg)
{
    int rounds = *(int *)arg;
    for (int i = 0; i < rounds; i++) {
        pthread_mutex_lock(&lock);
        total++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    srand((unsigned)time(NULL));
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int rounds[2] = {1 + rand() % 4, 1 + rand() % 4};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, &rounds[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    sleep(2);
    clock_gettime(CLOCK_MONOTONIC, &end);
    struct timeval tv;
    gettimeofday(&tv, NULL);
    char date[32];
    time_t now = tv.tv_sec;
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    double elapsed = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    printf("rounds %d %d total %d on %s, %.0f s later\n", rounds[0], rounds[1], total, date, elapsed);
    return 0;
}
