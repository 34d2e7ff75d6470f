/* counter_o2.c - two threads increment a shared counter with counter++,
 * built with -O2, where the increment is one instruction:
 *     addl $1, counter(%rip)
 *
 * BUGGY (assertion).  Without LOCK that instruction is a load and a store
 * another core can come between (the lost update real hardware shows).
 * mdat must find it: a read-modify-write without LOCK is two steps.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { ROUNDS = 3 };
int counter;

__attribute__((noinline)) static void *bump(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++)
        counter++;                              /* BUG: addl $1, counter(%rip) is not atomic */
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, bump, NULL);
    pthread_create(&b, NULL, bump, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert(counter == 2 * ROUNDS);              /* FAILS: an increment was lost */
    printf("counter %d\n", counter);
    return 0;
}
