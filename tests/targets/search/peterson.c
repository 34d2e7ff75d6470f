/* peterson.c [broken|noflag] - Peterson's mutual exclusion for two threads with C11
 * seq_cst atomics and a busy-wait, each thread entering once.
 *
 * CORRECT as written: at most one thread in the critical section (asserted)
 * in every interleaving. The busy-wait only re-reads flag[other] and turn
 * while nothing changes them, so dpor, which does not schedule a thread
 * that spins (engine/spin_watch.h) while another can run, ends with a few
 * classes. "broken": each thread gives the turn away before raising its
 * flag, and both can enter (an assertion failure). "noflag": the second
 * thread never raises its flag, so the first one never waits for it, and
 * both can enter. Without an argument the variant is -DBROKEN=1 or
 * -DNOFLAG=1 at compile time (GenMC runs main without arguments:
 * scripts/dpor-bench).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#ifndef BROKEN
#define BROKEN 0
#endif
#ifndef NOFLAG
#define NOFLAG 0
#endif

static atomic_int flag[2];
static atomic_int turn;
static int inside;
static int broken, noflag;

static void *contender(void *arg)
{
    int me = *(int *)arg, other = 1 - me;
    if (broken) {
        atomic_store(&turn, other);
        atomic_store(&flag[me], 1);
    } else {
        if (!(noflag && me == 1))
            atomic_store(&flag[me], 1);
        atomic_store(&turn, other);
    }
    while (atomic_load(&flag[other]) && atomic_load(&turn) == other)
        ;
    inside++;
    assert(inside == 1);    /* FAILS when broken */
    inside--;
    atomic_store(&flag[me], 0);
    return NULL;
}

int main(int argc, char **argv)
{
    broken = argc > 1 ? strcmp(argv[1], "broken") == 0 : BROKEN;
    noflag = argc > 1 ? strcmp(argv[1], "noflag") == 0 : NOFLAG;
    static int id[2] = {0, 1};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, contender, &id[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("done\n");
    return 0;
}
