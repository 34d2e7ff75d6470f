/* trylock_pair.c - two threads each try two mutexes, in opposite orders,
 * without waiting, and keep what they got until both have tried.
 *
 * CORRECT (trylock never blocks); its outcomes are who got which lock:
 * "T1 ab T2 -" (T1 first), "T1 - T2 ba" (T2 first), and with the two
 * interleaved "T1 a T2 b". For the dpor/dfs differential
 * (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t tried;

struct taker {
    pthread_mutex_t *first, *second;
    char first_name, second_name;
    char got[3];
};

static void *take(void *arg)
{
    struct taker *t = arg;
    int n = 0;
    if (pthread_mutex_trylock(t->first) == 0)
        t->got[n++] = t->first_name;
    if (pthread_mutex_trylock(t->second) == 0)
        t->got[n++] = t->second_name;
    t->got[n] = '\0';
    pthread_barrier_wait(&tried);   /* hold what was got until both tried */
    for (int i = 0; i < n; i++)
        pthread_mutex_unlock(t->got[i] == 'a' ? &a : &b);
    return NULL;
}

int main(void)
{
    struct taker t1 = {&a, &b, 'a', 'b', ""}, t2 = {&b, &a, 'b', 'a', ""};
    pthread_t p1, p2;
    pthread_barrier_init(&tried, NULL, 2);
    pthread_create(&p1, NULL, take, &t1);
    pthread_create(&p2, NULL, take, &t2);
    pthread_join(p1, NULL);
    pthread_join(p2, NULL);
    printf("T1 %s T2 %s\n", t1.got[0] ? t1.got : "-", t2.got[0] ? t2.got : "-");
    return 0;
}
