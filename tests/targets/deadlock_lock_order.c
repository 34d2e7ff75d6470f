/* deadlock_lock_order.c - two threads take two mutexes in opposite orders.
 *
 * BUGGY.  thread_one locks lock_a then lock_b; thread_two locks lock_b then
 * lock_a.  If thread_one holds lock_a and thread_two holds lock_b, each waits
 * for the other forever.
 *
 * Expected mdat verdict: DEADLOCK in some schedules, with the wait-for cycle
 *   thread_one holds lock_a, waits for lock_b  (line marked WAIT-ONE)
 *   thread_two holds lock_b, waits for lock_a  (line marked BUG)
 * and main blocked in pthread_join.  Other schedules exit 0 and print
 * "shared = 4".
 * Natively: almost always exits 0.
 *
 * Also built as static_lock_order (-static).
 */
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 2

pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
int shared = 0;

static void *thread_one(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock_a);
        pthread_mutex_lock(&lock_b); /* WAIT-ONE: holds lock_a, waits for lock_b */
        shared = shared + 1;
        pthread_mutex_unlock(&lock_b);
        pthread_mutex_unlock(&lock_a);
    }
    return NULL;
}

static void *thread_two(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock_b);
        pthread_mutex_lock(&lock_a); /* BUG: opposite lock order (b then a) */
        shared = shared + 1;
        pthread_mutex_unlock(&lock_a);
        pthread_mutex_unlock(&lock_b);
    }
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, thread_one, NULL);
    pthread_create(&t2, NULL, thread_two, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("shared = %d\n", shared);
    return 0;
}
