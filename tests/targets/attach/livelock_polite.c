/* livelock_polite: BUGGY (never ends; a livelock). Two threads must meet
 * in a hall (the mutex): each comes in when the hall is free (trylock,
 * else it yields and tries again), raises its hand, looks whether the
 * other's hand is up, and, polite, lowers its own before leaving. Neither
 * ever sees the other's hand up, in any schedule: they come and go for
 * ever, never blocked. main waits to join them. No system call but
 * sched_yield in the loop. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static pthread_mutex_t hall = PTHREAD_MUTEX_INITIALIZER;
static volatile int hand[2];

static void *guest(void *arg)
{
    int me = (int)(long)arg, other = 1 - me;
    for (;;) {
        if (pthread_mutex_trylock(&hall) == 0) {
            hand[me] = 1;
            int met = hand[other];      /* BUG: the other lowered its hand before it left */
            hand[me] = 0;
            pthread_mutex_unlock(&hall);
            if (met)
                break;
        }
        sched_yield();
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, guest, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    puts("met");
    return 0;
}
