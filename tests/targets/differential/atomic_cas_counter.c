/* atomic_cas_counter.c - two threads add to a counter with a
 * compare-and-swap loop (acq_rel on success, acquire on failure) and count
 * their attempts.
 *
 * CORRECT; two outcomes: "counter 2 attempts 2" (no CAS failed) and
 * "counter 2 attempts 3" (one thread loaded, the other swapped, the first
 * failed once and retried). For the dpor/dfs differential
 * (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int counter, attempts;

static void *add(void *arg)
{
    (void)arg;
    int old = atomic_load_explicit(&counter, memory_order_relaxed);
    do
        atomic_fetch_add_explicit(&attempts, 1, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&counter, &old, old + 1, memory_order_acq_rel,
                                                  memory_order_acquire));
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, add, NULL);
    pthread_create(&b, NULL, add, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("counter %d attempts %d\n", atomic_load(&counter), atomic_load(&attempts));
    return 0;
}
