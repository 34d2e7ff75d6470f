/* barber_leaves_early.c - the sleeping barber, BUGGY: the customer does not
 * wait for the haircut to be finished.
 *
 * Problem and structure: as barber.c (one barber, CHAIRS waiting chairs,
 * CUSTOMERS customers, semaphores mutex / customers / barber_ready / seated
 * / haircut_done / left_chair).  A customer asserts, as they leave, that
 * their haircut is finished.
 *
 * The bug: the customer sits down (posts `seated`) and walks out: the
 * rendezvous at the END of the haircut, sem_wait(&haircut_done), is missing.
 * The barber still posts haircut_done, nobody waits for it, and nothing
 * looks wrong until the customer leaves before the barber has finished:
 *   C1: sem_wait(&barber_ready) ... sits down: chair = 1, posts seated
 *   C1: leaves: served[1] is still 0          <- assertion fails
 *   barber: (would now cut customer 1)
 *
 *   ./barber_leaves_early
 *   mdat run ./barber_leaves_early
 *
 * Expected mdat verdict: assertion failure `served[id]' in customer() (line
 * marked FAILS).
 * Fix: sem_wait(&haircut_done) before leaving (barber.c): every hand-off
 * between two threads that must stay in step needs its own semaphore.
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

#define CHAIRS 2
#define CUSTOMERS 4

sem_t mutex, customers, barber_ready, seated, haircut_done, left_chair;
int waiting = 0;                        /* customers in the waiting room */
int chair = 0;                          /* who sits in the barber chair */
int served[CUSTOMERS + 1];              /* served[id]: id's haircut is finished */
int closing = 0;

static void *barber(void *arg)
{
    for (;;) {
        sem_wait(&customers);           /* sleep until a customer (or closing time) */
        sem_wait(&mutex);
        if (waiting == 0 && closing) {
            sem_post(&mutex);
            break;
        }
        waiting--;                      /* call the next customer to the chair */
        sem_post(&barber_ready);
        sem_post(&mutex);
        sem_wait(&seated);
        int id = chair;
        printf("barber cuts customer %d\n", id);
        usleep(100);
        served[id] = 1;
        sem_post(&haircut_done);        /* the customer may go ... */
        sem_wait(&left_chair);          /* ... and has gone: call the next one */
    }
    return NULL;
}

static void *customer(void *arg)
{
    int id = *(int *)arg;
    sem_wait(&mutex);
    if (waiting == CHAIRS) {            /* waiting room full: come back another day */
        sem_post(&mutex);
        printf("customer %d leaves: no free chair\n", id);
        return NULL;
    }
    waiting++;
    assert(waiting <= CHAIRS);
    sem_post(&customers);               /* wake the barber if he sleeps */
    sem_post(&mutex);

    sem_wait(&barber_ready);            /* my turn */
    chair = id;
    sem_post(&seated);                  /* BUG: no sem_wait(&haircut_done): leaves while the barber still cuts */
    assert(served[id]);                 /* FAILS: the haircut is not finished */
    printf("customer %d leaves with a haircut\n", id);
    sem_post(&left_chair);
    return NULL;
}

int main(void)
{
    pthread_t b, c[CUSTOMERS];
    int id[CUSTOMERS];

    setvbuf(stdout, NULL, _IOLBF, 0);
    sem_init(&mutex, 0, 1);
    sem_init(&customers, 0, 0);
    sem_init(&barber_ready, 0, 0);
    sem_init(&seated, 0, 0);
    sem_init(&haircut_done, 0, 0);
    sem_init(&left_chair, 0, 0);
    pthread_create(&b, NULL, barber, NULL);
    for (int i = 0; i < CUSTOMERS; i++) {
        id[i] = i + 1;
        pthread_create(&c[i], NULL, customer, &id[i]);
    }
    for (int i = 0; i < CUSTOMERS; i++)
        pthread_join(c[i], NULL);
    sem_wait(&mutex);                   /* closing time: wake the barber to go home */
    closing = 1;
    sem_post(&mutex);
    sem_post(&customers);
    pthread_join(b, NULL);
    return 0;
}
