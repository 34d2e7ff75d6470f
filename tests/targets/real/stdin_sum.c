/* stdin_sum.c - numbers read from standard input, summed by four threads.
 *
 * CORRECT.  main reads every integer on stdin into an array, then four
 * workers each add up a quarter under a mutex; main prints "total N".
 * Under mdat every execution must read the same input: `mdat run --check
 * 'grep -qx "total 55"' ./stdin_sum < numbers.txt` passes in every schedule.
 * With no input it prints "total 0".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { WORKERS = 4, MAX_NUMBERS = 4096 };

static long numbers[MAX_NUMBERS];
static int count;
static long total;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;

static void *add_quarter(void *arg)
{
    long part = (long)arg, sum = 0;
    for (int i = (int)part; i < count; i += WORKERS)
        sum += numbers[i];
    pthread_mutex_lock(&total_lock);
    total += sum;
    pthread_mutex_unlock(&total_lock);
    return NULL;
}

int main(void)
{
    while (count < MAX_NUMBERS && scanf("%ld", &numbers[count]) == 1)
        count++;
    pthread_t workers[WORKERS];
    for (long i = 0; i < WORKERS; i++)
        pthread_create(&workers[i], NULL, add_quarter, (void *)i);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(workers[i], NULL);
    printf("total %ld\n", total);
    return 0;
}
