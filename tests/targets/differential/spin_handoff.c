/* spin_handoff.c [ack] - values handed from a writer to threads that wait
 * for them in busy-waits on C11 seq_cst atomics, for the dpor/dfs
 * differential (scripts/dpor-vs-dfs) on spin loops.
 *
 * The writer stores x = 1, raises ready, then stores x = 2. Two readers
 * spin until ready is raised and read x: "a=1 b=1", "a=1 b=2", "a=2 b=1"
 * and "a=2 b=2" (each reader read x after the flag, so never 0). "ack":
 * one reader; the writer, after x = 2, spins until the reader acknowledges
 * (ack) and then stores x = 3, and the reader reads x again after its
 * acknowledgement: a is 1 or 2, b is a, 2 or 3 ("a=1 b=1", "a=1 b=2",
 * "a=1 b=3", "a=2 b=2", "a=2 b=3").
 *
 * CORRECT; every outcome needs the readers' spins to end in some order
 * relative to the writer's stores, which is what dpor's spin-assume must
 * keep (strategy_dpor.c mark_spins).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int x, ready, ack;
static int with_ack;
static int a = -1, b = -1;

static void *writer(void *arg)
{
    (void)arg;
    atomic_store(&x, 1);
    atomic_store(&ready, 1);
    atomic_store(&x, 2);
    if (with_ack) {
        while (!atomic_load(&ack))
            ;
        atomic_store(&x, 3);
    }
    return NULL;
}

static void *reader(void *arg)
{
    int *into = arg;
    while (!atomic_load(&ready))
        ;
    *into = atomic_load(&x);
    if (with_ack) {
        atomic_store(&ack, 1);
        b = atomic_load(&x);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    with_ack = argc > 1 && strcmp(argv[1], "ack") == 0;
    pthread_t w, r1, r2;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r1, NULL, reader, &a);
    if (!with_ack)
        pthread_create(&r2, NULL, reader, &b);
    pthread_join(w, NULL);
    pthread_join(r1, NULL);
    if (!with_ack)
        pthread_join(r2, NULL);
    printf("a=%d b=%d\n", a, b);
    return 0;
}
