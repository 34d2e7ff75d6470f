/* correct_prodcons.c - bounded buffer with a mutex and two condition variables.
 *
 * CORRECT.  One producer puts items 1..4 into a 2-slot circular buffer, one
 * consumer takes them out.  Both wait in while loops (so spurious wake-ups
 * and stolen signals are harmless) and signal the other side's condvar
 * while holding the lock.  The consumer checks FIFO order; main asserts the
 * sum is 1+2+3+4 = 10.
 *
 * Expected mdat verdict: exit 0 ("sum = 10") in EVERY schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define ITEMS 4
#define SLOTS 2

pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
int buffer[SLOTS];
int count = 0, in_pos = 0, out_pos = 0;
int sum = 0;

static void *producer(void *arg)
{
    (void)arg;
    for (int item = 1; item <= ITEMS; item++) {
        pthread_mutex_lock(&buf_lock);
        while (count == SLOTS)
            pthread_cond_wait(&not_full, &buf_lock);
        buffer[in_pos] = item;
        in_pos = (in_pos + 1) % SLOTS;
        count = count + 1;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&buf_lock);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int expected = 1; expected <= ITEMS; expected++) {
        pthread_mutex_lock(&buf_lock);
        while (count == 0)
            pthread_cond_wait(&not_empty, &buf_lock);
        int item = buffer[out_pos];
        out_pos = (out_pos + 1) % SLOTS;
        count = count - 1;
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&buf_lock);
        assert(item == expected);
        sum = sum + item;            /* only the consumer touches sum until main joins */
    }
    return NULL;
}

int main(void)
{
    pthread_t p, c;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    printf("sum = %d\n", sum);
    assert(sum == ITEMS * (ITEMS + 1) / 2);
    assert(count == 0);
    return 0;
}
