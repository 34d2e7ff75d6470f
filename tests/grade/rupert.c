/* rupert.c - sample submission of the second assignment (see oscar.c):
 * CORRECT. Each addition under one mutex; main prints "sum: 8".
 * Expected verdict: ok, every point of the rubric. */
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int sum;

static void *adder(void *arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        sum = sum + 1;
        pthread_mutex_unlock(&lock);
    }
    return arg;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, adder, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("sum: %d\n", sum);
    return 0;
}
