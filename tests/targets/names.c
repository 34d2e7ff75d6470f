/* names.c - shared data of many shapes, for checking how mdat names it.
 *
 * CORRECT.  Exists so that tests can check the trace's names and values:
 * struct members in arrays (accounts[1].balance), enums (:= BLUE), chars
 * (:= 'B'), doubles (:= 0.5), code inlined from a helper (deposit, inlined
 * into main), a pointer (:= NULL), and another thread's thread-local
 * variable reached through a local pointer (tls_hits (T2)).
 * Expected mdat verdict: exit 0 in every schedule, "hits = 5".
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

enum color { RED, GREEN, BLUE };

struct account {
    int id;
    long balance;
    enum color tag;
};

struct account accounts[3];
char grade = 'A';
double ratio;
__thread int tls_hits;
int *shared_hits;
sem_t published, written;

static inline __attribute__((always_inline)) void deposit(struct account *a, long amount)
{
    a->balance += amount;                       /* DEPOSIT: */
}

static void *worker(void *arg)
{
    (void)arg;
    shared_hits = &tls_hits;
    sem_post(&published);
    sem_wait(&written);
    printf("hits = %d\n", tls_hits);
    return NULL;
}

int main(void)
{
    sem_init(&published, 0, 0);
    sem_init(&written, 0, 0);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    deposit(&accounts[1], 100);
    accounts[2].tag = BLUE;                     /* TAG: */
    grade = 'B';                                /* GRADE: */
    ratio = 0.5;                                /* RATIO: */
    sem_wait(&published);
    int *hits = shared_hits;
    shared_hits = NULL;         /* no pointer variable leads there any more */
    *hits = 5;                                  /* TLS: */
    sem_post(&written);
    pthread_join(t, NULL);
    return 0;
}
