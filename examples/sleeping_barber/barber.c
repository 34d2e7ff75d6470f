/* barber.c - the sleeping barber, CORRECT version (POSIX semaphores).
 *
 * Problem: a barber shop has one barber, one barber chair and CHAIRS chairs
 * in the waiting room.  With no customers the barber sleeps.  A customer
 * who finds the waiting room full leaves; otherwise they sit down, wake the
 * barber if he sleeps, and wait their turn.  Every customer who sat down
 * leaves with a finished haircut; the waiting room never holds more than
 * CHAIRS people.
 *
 * Structure: CUSTOMERS customer threads and one barber thread.
 *   mutex          semaphore(1), guards `waiting`
 *   customers      counts customers waiting: the barber sleeps on it
 *   barber_ready   the barber calls the next customer to the chair
 *   seated         the customer is in the chair (tells the barber who it is)
 *   haircut_done   the barber is finished with the customer in the chair
 *   left_chair     the customer has got up: the barber may call the next one
 * The last one matters: without it, the barber can finish customer A, call
 * customer B, and B's sem_wait(&haircut_done) takes the post meant for A -
 * B leaves before its haircut is done (barber_wrong_customer.c).  A customer asserts, as they leave, that their haircut is finished.  When
 * all customers are gone, main sets `closing` and wakes the barber one last
 * time so he can go home.
 *
 *   ./barber
 *   mdat run ./barber
 *
 * Expected: exits 0 in every schedule.
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
    sem_post(&seated);
    sem_wait(&haircut_done);            /* stay in the chair until he is finished */
    assert(served[id]);
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
