/* restroom_deadlock.c - the unisex restroom, BUGGY: lock-order deadlock.
 *
 * Problem: men and women share one restroom; never a man and a woman inside
 * at the same time (see restroom.c).
 *
 * This student gave each gender its own lock "so that men do not wait on
 * the women's lock": maleMutex guards men_inside, femaleMutex guards
 * women_inside.  To enter, a person must look at the other gender's count and
 * count themselves in atomically, so they hold BOTH locks for a moment; if
 * the other gender is inside they let go and try again later (sched_yield).
 * Leaving takes only one's own lock.
 *
 * The bug: men take maleMutex then femaleMutex, women take femaleMutex then
 * maleMutex.  Two threads that each get their first lock wait for each other
 * forever:
 *   M1: lock(maleMutex)                    W1: lock(femaleMutex)
 *   M1: lock(femaleMutex) -> blocks        W1: lock(maleMutex) -> blocks
 *
 *   ./restroom_deadlock [ROUNDS] | ./check_restroom.sh
 *   mdat run --check ./check_restroom.sh ./restroom_deadlock
 *
 * Expected mdat verdict: deadlock, wait cycle between a man (waiting on
 * femaleMutex, at the line marked WAIT) and a woman (waiting on maleMutex,
 * at the line marked BUG).  Natively it rarely hangs.
 * Fix: every thread takes the two locks in the same order (maleMutex first).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MEN 2
#define WOMEN 2

pthread_mutex_t maleMutex = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t femaleMutex = PTHREAD_MUTEX_INITIALIZER;
int men_inside = 0;                /* guarded by maleMutex */
int women_inside = 0;              /* guarded by femaleMutex */
int rounds = 2;

static void man_enter(void)
{
    for (;;) {
        pthread_mutex_lock(&maleMutex);
        pthread_mutex_lock(&femaleMutex);        /* WAIT: a man blocks here holding maleMutex */
        int may_enter = (women_inside == 0);
        if (may_enter)
            men_inside++;
        pthread_mutex_unlock(&femaleMutex);
        pthread_mutex_unlock(&maleMutex);
        if (may_enter)
            return;
        sched_yield();                           /* women inside: try again later */
    }
}

static void woman_enter(void)
{
    for (;;) {
        pthread_mutex_lock(&femaleMutex);
        pthread_mutex_lock(&maleMutex);          /* BUG: the opposite order from man_enter */
        int may_enter = (men_inside == 0);
        if (may_enter)
            women_inside++;
        pthread_mutex_unlock(&maleMutex);
        pthread_mutex_unlock(&femaleMutex);
        if (may_enter)
            return;
        sched_yield();                           /* men inside: try again later */
    }
}

static void man_exit(void)
{
    pthread_mutex_lock(&maleMutex);
    men_inside--;
    pthread_mutex_unlock(&maleMutex);
}

static void woman_exit(void)
{
    pthread_mutex_lock(&femaleMutex);
    women_inside--;
    pthread_mutex_unlock(&femaleMutex);
}

static void *man(void *arg)
{
    int id = *(int *)arg;
    for (int r = 0; r < rounds; r++) {
        man_enter();                             /* entry section */
        printf("enter M %d\n", id);              /* critical section */
        usleep(100);
        printf("exit M %d\n", id);
        man_exit();                              /* exit section */
        usleep(100);                             /* remainder section */
    }
    return NULL;
}

static void *woman(void *arg)
{
    int id = *(int *)arg;
    for (int r = 0; r < rounds; r++) {
        woman_enter();
        printf("enter W %d\n", id);
        usleep(100);
        printf("exit W %d\n", id);
        woman_exit();
        usleep(100);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[MEN + WOMEN];
    int id[MEN + WOMEN];

    if (argc > 1)
        rounds = atoi(argv[1]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 0; i < MEN + WOMEN; i++) {
        id[i] = i < MEN ? i + 1 : i - MEN + 1;
        pthread_create(&t[i], NULL, i < MEN ? man : woman, &id[i]);
    }
    for (int i = 0; i < MEN + WOMEN; i++)
        pthread_join(t[i], NULL);
    return 0;
}
