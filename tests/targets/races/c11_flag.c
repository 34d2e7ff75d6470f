/* c11_flag.c - a message handed over through a C11 atomic flag.
 *
 * RACE-FREE.  The writer fills `message` and then sets `ready` with a
 * release store; the reader spins on an acquire load of `ready` before
 * reading `message`.  On x86 both are plain movs: mdat knows `ready` is
 * atomic from its _Atomic type in the debug information.
 * Expected mdat verdict: no failure, no race, "message = 7".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static int message;
static atomic_int ready;

static void *writer(void *arg)
{
    (void)arg;
    message = 7;
    atomic_store_explicit(&ready, 1, memory_order_release);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, writer, NULL);
    while (!atomic_load_explicit(&ready, memory_order_acquire))
        ;
    printf("message = %d\n", message);
    pthread_join(t, NULL);
    return 0;
}
