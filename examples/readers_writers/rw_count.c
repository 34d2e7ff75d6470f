/* rw_count.c - readers/writers, BUGGY: the reader count is updated under
 * its mutex but tested outside it.
 *
 * Problem and structure: as rw.c (READERS readers and WRITERS writers,
 * semaphores room_empty and count_mutex, the first reader in locks the
 * writers out, the last reader out lets them in; a log checked by check_rw).
 *
 * The bug: the student releases count_mutex right after read_count++ ("never
 * block while holding a lock") and only then asks "am I the first reader?".
 * By then another reader may have incremented too, and NEITHER sees 1:
 *   R1: read_count++ (1), releases count_mutex
 *   R2: read_count++ (2), releases count_mutex
 *   R1: read_count == 1? no (2): enters without taking room_empty
 *   R2: read_count == 1? no:     enters
 *   W1: sem_wait(room_empty) succeeds: a writer among two readers
 * The same race on the way out can post room_empty twice (letting a writer
 * in next to a reader later) or not at all (then a later "first" reader and
 * the writers wait forever: in some schedules mdat reports a deadlock).
 *
 *   ./rw_count [ROUNDS] | ./check_rw
 *   mdat run --check ./check_rw ./rw_count
 *
 * Expected mdat verdict (with the checker): checker failure, "writer 1
 * enters while 2 reader(s) and 0 writer(s) are inside" (or a reader entering
 * while the writer is inside), or, in other schedules, a deadlock.
 * Fix: test read_count while still holding count_mutex (rw.c).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define READERS 3
#define WRITERS 1

sem_t room_empty;                       /* 1: nobody inside */
sem_t count_mutex;                      /* guards read_count */
int read_count = 0;                     /* readers inside */
int record_a = 0, record_b = 0;         /* the shared record: a writer keeps a == b */
int rounds = 2;

static void reader_enter(void)
{
    sem_wait(&count_mutex);
    read_count++;
    sem_post(&count_mutex);             /* "the count is protected; don't block while holding a lock" */
    if (read_count == 1)                /* BUG: read_count may have changed since the increment */
        sem_wait(&room_empty);
}

static void reader_exit(void)
{
    sem_wait(&count_mutex);
    read_count--;
    sem_post(&count_mutex);
    if (read_count == 0)                /* same mistake on the way out */
        sem_post(&room_empty);
}

static void *reader(void *arg)
{
    int id = *(int *)arg;
    for (int r = 0; r < rounds; r++) {
        reader_enter();
        printf("enter R %d\n", id);
        int a = record_a;
        usleep(100);
        int b = record_b;
        printf("R %d reads %d %d\n", id, a, b);
        printf("exit R %d\n", id);
        reader_exit();
        usleep(100);
    }
    return NULL;
}

static void *writer(void *arg)
{
    int id = *(int *)arg;
    for (int r = 0; r < rounds; r++) {
        sem_wait(&room_empty);
        printf("enter W %d\n", id);
        record_a = record_a + 1;
        usleep(100);
        record_b = record_b + 1;
        printf("exit W %d\n", id);
        sem_post(&room_empty);
        usleep(100);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[READERS + WRITERS];
    int id[READERS + WRITERS];

    if (argc > 1)
        rounds = atoi(argv[1]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    sem_init(&room_empty, 0, 1);
    sem_init(&count_mutex, 0, 1);
    for (int i = 0; i < READERS + WRITERS; i++) {
        id[i] = i < READERS ? i + 1 : i - READERS + 1;
        pthread_create(&t[i], NULL, i < READERS ? reader : writer, &id[i]);
    }
    for (int i = 0; i < READERS + WRITERS; i++)
        pthread_join(t[i], NULL);
    return 0;
}
