/* rw.c - readers/writers, CORRECT version (readers-preference, semaphores).
 *
 * Problem: READERS threads read a shared record, WRITERS threads update it.
 * Any number of readers may read at the same time, but a writer must be
 * alone: no reader and no other writer while it writes.
 *
 * Structure: the classic "first readers/writers" solution:
 *   room_empty   semaphore(1): held by the writer inside, or by the readers as a group
 *   count_mutex  semaphore(1): guards read_count
 * The FIRST reader in takes room_empty for all readers, the LAST reader out
 * gives it back.  Each thread runs ROUNDS rounds (argv[1], default 2) of
 * entry / critical section / exit / remainder; in the critical section it
 * prints "enter R 1" ... "exit R 1" (or W), and check_rw reads that log.
 * The record is two fields that a writer keeps equal; a reader prints what
 * it read ("R 1 reads 2 2"), so a torn read shows in the log as well.
 *
 *   ./rw [ROUNDS] | ./check_rw
 *   mdat run --check ./check_rw ./rw
 *
 * Expected: the checker passes in every schedule.
 * (Writers can starve while readers keep coming; with a bounded number of
 * rounds everybody finishes.)
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
    if (read_count == 1)                /* first reader in locks the writers out */
        sem_wait(&room_empty);
    sem_post(&count_mutex);
}

static void reader_exit(void)
{
    sem_wait(&count_mutex);
    read_count--;
    if (read_count == 0)                /* last reader out lets the writers in */
        sem_post(&room_empty);
    sem_post(&count_mutex);
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
