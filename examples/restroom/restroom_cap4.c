/* restroom_cap4.c - the unisex restroom with a capacity, CORRECT version.
 *
 * Problem: men and women share one restroom with CAPACITY (4) places: never
 * a man and a woman inside together, and never more than 4 people inside.
 * MEN (5) men and WOMEN (2) women, so the men can overfill the room.
 *
 * Structure: as restroom.c (MDAT entry / critical / exit / remainder
 * sections, ROUNDS rounds, a log checked by check_restroom.sh), with the
 * capacity added to the entry condition; leaving now always broadcasts,
 * because a free place matters to people of the same gender too.
 *
 *   ./restroom_cap4 [ROUNDS] | ./check_restroom.sh 4
 *   mdat run --check "./check_restroom.sh 4" ./restroom_cap4
 *
 * Expected: the checker passes in every schedule.
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
    while (inside[other(g)] > 0 || inside[g] >= CAPACITY)   /* other gender inside, or full */
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
