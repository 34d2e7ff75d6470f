/* pipe_pipeline.c - three threads connected by pipes: a producer writes the
 * numbers 1..N into pipe A, a doubler reads A and writes 2x into pipe B, a
 * consumer reads B and sums.
 *
 * CORRECT.  Reads on an empty pipe block until the previous stage writes;
 * the sum is always 2 * N(N+1)/2 (asserted).  Under mdat a read that would
 * block must wait in mdat's model while the other threads run; a verdict of
 * timeout or hang here is wrong.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { N = 40 };

static int pipe_a[2], pipe_b[2];
static long sum;

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= N; i++)
        if (write(pipe_a[1], &i, sizeof i) != sizeof i)
            return NULL;
    close(pipe_a[1]);
    return NULL;
}

static void *doubler(void *arg)
{
    (void)arg;
    int v;
    while (read(pipe_a[0], &v, sizeof v) == sizeof v) {
        v *= 2;
        if (write(pipe_b[1], &v, sizeof v) != sizeof v)
            break;
    }
    close(pipe_b[1]);
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    int v;
    while (read(pipe_b[0], &v, sizeof v) == sizeof v)
        sum += v;
    return NULL;
}

int main(void)
{
    if (pipe(pipe_a) != 0 || pipe(pipe_b) != 0)
        return 2;
    pthread_t t[3];
    pthread_create(&t[0], NULL, producer, NULL);
    pthread_create(&t[1], NULL, doubler, NULL);
    pthread_create(&t[2], NULL, consumer, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    assert(sum == (long)N * (N + 1));
    printf("sum %ld\n", sum);
    return 0;
}
