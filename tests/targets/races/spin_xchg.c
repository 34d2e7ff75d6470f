/* spin_xchg.c - a test-and-set spinlock written by hand.
 *
 * RACE-FREE.  The lock word is taken with __sync_lock_test_and_set (an
 * xchg) and given back with __sync_lock_release (a plain store of 0, a
 * release on x86); `total` is only touched while the lock is held.
 * Expected mdat verdict: no failure, no race, "total = 6".
 */
#include <pthread.h>
#include <stdio.h>

static int lock_word;
static int total;

static void *adder(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++) {
        while (__sync_lock_test_and_set(&lock_word, 1))
            while (lock_word)
                ;
        total = total + 1;
        __sync_lock_release(&lock_word);
    }
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, adder, NULL);
    pthread_create(&b, NULL, adder, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("total = %d\n", total);
    return 0;
}
