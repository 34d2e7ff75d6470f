/* Benchmark (scripts/bench): a pipeline of 3 stages (a producer, a
 * transformer, a consumer) passing 4 KB buffers through two locked
 * queues; each stage works on the buffer it holds alone. Correct;
 * "racy": the consumer counts buffers in a variable the producer also
 * updates, unlocked (RACY). Prints a checksum. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFFERS 400
#define SIZE 4096
#define SLOTS 8

struct queue {
    unsigned char *slot[SLOTS];
    int head, tail, count;
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
};

static struct queue q1 = {.lock = PTHREAD_MUTEX_INITIALIZER, .not_empty = PTHREAD_COND_INITIALIZER,
                          .not_full = PTHREAD_COND_INITIALIZER};
static struct queue q2 = {.lock = PTHREAD_MUTEX_INITIALIZER, .not_empty = PTHREAD_COND_INITIALIZER,
                          .not_full = PTHREAD_COND_INITIALIZER};
static int racy;
static long handled;
static long checksum;

static void put(struct queue *q, unsigned char *buf)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == SLOTS)
        pthread_cond_wait(&q->not_full, &q->lock);
    q->slot[q->tail] = buf;
    q->tail = (q->tail + 1) % SLOTS;
    q->count++;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
}

static unsigned char *get(struct queue *q)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == 0)
        pthread_cond_wait(&q->not_empty, &q->lock);
    unsigned char *buf = q->slot[q->head];
    q->head = (q->head + 1) % SLOTS;
    q->count--;
    pthread_cond_signal(&q->not_full);
    pthread_mutex_unlock(&q->lock);
    return buf;
}

static void *producer(void *arg)
{
    for (int n = 0; n < BUFFERS; n++) {
        unsigned char *buf = malloc(SIZE);
        for (int i = 0; i < SIZE; i++)
            buf[i] = (unsigned char)(i * 7 + n);
        if (racy)
            handled++;  /* RACY: */
        put(&q1, buf);
    }
    put(&q1, NULL);
    return NULL;
}

static void *transformer(void *arg)
{
    for (;;) {
        unsigned char *buf = get(&q1);
        if (!buf)
            break;
        for (int i = 0; i < SIZE; i++)
            buf[i] ^= 0x5a;
        put(&q2, buf);
    }
    put(&q2, NULL);
    return NULL;
}

static void *consumer(void *arg)
{
    long sum = 0;
    for (;;) {
        unsigned char *buf = get(&q2);
        if (!buf)
            break;
        for (int i = 0; i < SIZE; i += 16)
            sum += buf[i];
        free(buf);
        if (racy)
            handled--;  /* RACY: */
    }
    checksum = sum;
    return NULL;
}

int main(int argc, char **argv)
{
    racy = argc > 1 && strcmp(argv[1], "racy") == 0;
    pthread_t p, t, c;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&t, NULL, transformer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(t, NULL);
    pthread_join(c, NULL);
    printf("checksum %ld\n", checksum);
    return 0;
}
