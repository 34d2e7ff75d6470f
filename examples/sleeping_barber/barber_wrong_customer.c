/* barber_wrong_customer.c - the sleeping barber, BUGGY: "haircut done"
 * reaches the wrong customer.
 *
 * Problem and structure: as barber.c, but without the left_chair semaphore:
 * the barber posts haircut_done and at once calls the next customer.  (This
 * was the first version of barber.c; mdat found the bug in it.)
 *
 * The bug: a semaphore post is not addressed to anybody.  After the barber
 * posts haircut_done for customer A, A may not have run yet; the barber
 * calls B, B sits down and does sem_wait(&haircut_done) - and takes A's post.
 *   barber: cuts A, served[A] = 1, posts haircut_done (A has not woken up yet)
 *   barber: sem_wait(&customers), posts barber_ready for B
 *   B:      sits down, sem_wait(&haircut_done) succeeds at once
 *   B:      asserts served[B]                 <- fails: B's haircut has not started
 *
 *   ./barber_wrong_customer
 *   mdat run ./barber_wrong_customer
 *
 * Expected mdat verdict: assertion failure `served[id]' in customer() (line
 * marked FAILS).  It takes a particular interleaving: see README.md for how
 * many schedules mdat needs.
 * Fix: the barber waits until the customer has left the chair (left_chair
 * in barber.c) before calling the next one.
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

#define CHAIRS 2
#define CUSTOMERS 4

sem_t mutex, customers, barber_ready, seated, haircut_done;
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
        sem_post(&haircut_done);        /* BUG: may be taken by the NEXT customer, who is already seated */
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
    sem_post(&seated);
    sem_wait(&haircut_done);            /* stay in the chair until he is finished */
    assert(served[id]);                 /* FAILS: woken by the post meant for the previous customer */
    printf("customer %d leaves with a haircut\n", id);
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
