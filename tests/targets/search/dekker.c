/* dekker.c [broken] - Dekker's mutual exclusion for two threads with C11
 * seq_cst atomics and busy-waits, each thread entering once.
 *
 * CORRECT as written: at most one thread in the critical section (asserted)
 * in every interleaving; a thread that finds the other's flag raised and
 * the turn not its own lowers its flag and waits for the turn. Its waits
 * only re-read what nothing changes meanwhile, so dpor ends with a few
 * classes. "broken": each thread waits for the other's flag to drop before
 * raising its own (check, then act), and both can enter. Without an
 * argument the variant is -DBROKEN=1 at compile time (GenMC runs main
 * without arguments: scripts/dpor-bench).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#ifndef BROKEN
#define BROKEN 0
#endif

static atomic_int flag[2];
static atomic_int turn;
static int inside;
static int broken;

static void enter(int me, int other)
{
    if (broken) {
        while (atomic_load(&flag[other]))
            ;
        atomic_store(&flag[me], 1);
        return;
    }
    atomic_store(&flag[me], 1);
    while (atomic_load(&flag[other])) {
        if (atomic_load(&turn) != me) {
            atomic_store(&flag[me], 0);
            while (atomic_load(&turn) != me)
                ;
            atomic_store(&flag[me], 1);
        }
    }
}

static void *contender(void *arg)
{
    int me = *(int *)arg, other = 1 - me;
    enter(me, other);
    inside++;
    assert(inside == 1);    /* FAILS when broken */
    inside--;
    atomic_store(&turn, other);
    atomic_store(&flag[me], 0);
    return NULL;
}

int main(int argc, char **argv)
{
    broken = argc > 1 ? strcmp(argv[1], "broken") == 0 : BROKEN;
    static int id[2] = {0, 1};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, contender, &id[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("done\n");
    return 0;
}
