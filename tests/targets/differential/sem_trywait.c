/* sem_trywait.c - one thread posts a semaphore after writing a value, the
 * other tries to take it once without waiting.
 *
 * CORRECT; two outcomes: "got 7" (the post came first) and "none".
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static sem_t s;
static int value;

static void *poster(void *arg)
{
    (void)arg;
    value = 7;
    sem_post(&s);
    return NULL;
}

static void *taker(void *arg)
{
    (void)arg;
    if (sem_trywait(&s) == 0)
        printf("got %d\n", value);
    else
        puts("none");
    return NULL;
}

int main(void)
{
    sem_init(&s, 0, 0);
    pthread_t a, b;
    pthread_create(&a, NULL, poster, NULL);
    pthread_create(&b, NULL, taker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
