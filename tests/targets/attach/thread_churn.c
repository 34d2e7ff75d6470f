/* thread_churn: CORRECT. main makes threads all the time: rounds of four
 * that each add their number into a shared total under a mutex and end,
 * joined by main, until the file STOPFILE exists; then it prints the
 * rounds and the total (10 per round). mdat attach -p must stop the
 * threads made and ended while it attaches, and change nothing.
 * Usage: thread_churn STOPFILE */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *add(void *arg)
{
    pthread_mutex_lock(&lock);
    total += (long)arg;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    long rounds = 0;
    while (access(argv[1], F_OK) != 0) {
        pthread_t t[4];
        for (long i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, add, (void *)(i + 1));
        for (int i = 0; i < 4; i++)
            pthread_join(t[i], NULL);
        rounds++;
    }
    printf("rounds %ld total %ld\n", rounds, total);
    return 0;
}
