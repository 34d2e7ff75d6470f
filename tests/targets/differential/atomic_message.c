/* atomic_message.c - message passing with C11 atomics: the writer stores
 * the data relaxed and the flag with release, the reader loads the flag
 * with acquire and, when set, the data relaxed.
 *
 * CORRECT; two outcomes: "flag 0" and "data 42". mdat runs one step at a
 * time, so it models sequential consistency: "data 0" after the flag is
 * never an outcome of either search (acquire/release forbids it anyway).
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int data, flag;
static int result = -1;

static void *writer(void *arg)
{
    (void)arg;
    atomic_store_explicit(&data, 42, memory_order_relaxed);
    atomic_store_explicit(&flag, 1, memory_order_release);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    if (atomic_load_explicit(&flag, memory_order_acquire))
        result = atomic_load_explicit(&data, memory_order_relaxed);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, writer, NULL);
    pthread_create(&b, NULL, reader, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    if (result < 0)
        puts("flag 0");
    else
        printf("data %d\n", result);
    return 0;
}
