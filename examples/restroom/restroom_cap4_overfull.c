/* restroom_cap4_overfull.c - the unisex restroom with a capacity, BUGGY:
 * a fifth person gets in.
 *
 * Problem: men and women share one restroom with CAPACITY (4) places: never
 * a man and a woman inside together, and never more than 4 people inside.
 * MEN (5) men and WOMEN (2) women.  Structure as restroom_cap4.c.
 *
 * The bug: an off-by-one in the entry condition, `inside[g] > CAPACITY`
 * instead of `>=`: with 4 men inside a fifth man does not wait.  The log
 * shows it only when all five men are inside at the same time: four men
 * have entered and none has left yet when the fifth arrives, with no woman
 * in between.  A random scheduler rarely lines that up (the women and the
 * men's own remainder sections keep interrupting); see README.md for what
 * mdat's random and pct strategies need.
 *
 *   ./restroom_cap4_overfull [ROUNDS] | ./check_restroom.sh 4
 *   mdat run --check "./check_restroom.sh 4" ./restroom_cap4_overfull
 *
 * Expected mdat verdict (with the checker): checker failure,
 * "5 people inside, capacity is 4".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MEN 5
#define WOMEN 2
#define CAPACITY 4                 /* at most 4 people in the restroom */

enum gender { MAN, WOMAN };
static const char *const letter[] = {"M", "W"};
static enum gender other(enum gender g) { return g == MAN ? WOMAN : MAN; }

pthread_mutex_t room_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t room_changed = PTHREAD_COND_INITIALIZER;
int inside[2];                     /* how many men / women are in the restroom */
int rounds = 2;

static void enter_restroom(enum gender g)
{
    pthread_mutex_lock(&room_lock);
    while (inside[other(g)] > 0 || inside[g] > CAPACITY)    /* BUG: > instead of >=, lets a 5th in */
        pthread_cond_wait(&room_changed, &room_lock);
    inside[g]++;                   /* checked and counted under the same lock */
    pthread_mutex_unlock(&room_lock);
}

static void leave_restroom(enum gender g)
{
    pthread_mutex_lock(&room_lock);
    inside[g]--;                   /* a place is free, maybe the room is empty: */
    pthread_cond_broadcast(&room_changed);   /* everybody waiting re-checks */
    pthread_mutex_unlock(&room_lock);
}

struct person {
    enum gender g;
    int id;
};

static void *person(void *arg)
{
    struct person *p = arg;
    for (int r = 0; r < rounds; r++) {
        enter_restroom(p->g);                          /* entry section */
        printf("enter %s %d\n", letter[p->g], p->id);  /* critical section */
        usleep(100);
        printf("exit %s %d\n", letter[p->g], p->id);
        leave_restroom(p->g);                          /* exit section */
        usleep(100);                                   /* remainder section */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[MEN + WOMEN];
    struct person p[MEN + WOMEN];

    if (argc > 1)
        rounds = atoi(argv[1]);
    setvbuf(stdout, NULL, _IOLBF, 0);   /* one line at a time, even into a pipe */
    for (int i = 0; i < MEN + WOMEN; i++) {
        p[i].g = i < MEN ? MAN : WOMAN;
        p[i].id = i < MEN ? i + 1 : i - MEN + 1;
        pthread_create(&t[i], NULL, person, &p[i]);
    }
    for (int i = 0; i < MEN + WOMEN; i++)
        pthread_join(t[i], NULL);
    return 0;
}
