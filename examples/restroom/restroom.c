/* restroom.c - the unisex restroom, CORRECT version (mutex + condition variable).
 *
 * Problem: men and women share one restroom.  Any number of people of one
 * gender may be inside together, but never a man and a woman at the same time.
 *
 * Structure (MDAT style): MEN + WOMEN threads; each runs ROUNDS rounds of
 *   entry section      enter_restroom(): wait until nobody of the other gender is inside
 *   critical section   in the restroom: prints "enter M 1" ... "exit M 1"
 *   exit section       leave_restroom(): the last one out wakes the waiting threads
 *   remainder section  does something else for a while
 * The log is the test: check_restroom.sh reads it and reports any moment at
 * which men and women are inside together.
 *
 *   ./restroom [ROUNDS] | ./check_restroom.sh
 *   mdat run --check ./check_restroom.sh ./restroom
 *
 * Expected: the checker passes in every schedule.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MEN 2
#define WOMEN 2

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
    while (inside[other(g)] > 0)   /* the other gender is inside: wait for it to leave */
        pthread_cond_wait(&room_changed, &room_lock);
    inside[g]++;                   /* checked and counted under the same lock */
    pthread_mutex_unlock(&room_lock);
}

static void leave_restroom(enum gender g)
{
    pthread_mutex_lock(&room_lock);
    inside[g]--;
    if (inside[g] == 0)            /* last one out: everybody waiting may re-check */
        pthread_cond_broadcast(&room_changed);
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
