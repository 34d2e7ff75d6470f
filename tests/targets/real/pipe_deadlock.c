/* pipe_deadlock.c - two threads that each wait to hear from the other first.
 *
 * BUGGY (deadlock).  ping reads pipe to_ping before writing to_pong; pong
 * reads to_pong before writing to_ping.  Both reads wait for ever, in every
 * schedule: a deadlock among pipe reads, which mdat must report as a
 * deadlock naming both reads (not a timeout).
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int to_ping[2], to_pong[2];

static void *ping(void *arg)
{
    (void)arg;
    char c;
    if (read(to_ping[0], &c, 1) == 1)            /* BUG: waits for pong, which waits for us */
        (void)!write(to_pong[1], "p", 1);
    return NULL;
}

static void *pong(void *arg)
{
    (void)arg;
    char c;
    if (read(to_pong[0], &c, 1) == 1)            /* WAIT: waits for ping */
        (void)!write(to_ping[1], "q", 1);
    return NULL;
}

int main(void)
{
    if (pipe(to_ping) != 0 || pipe(to_pong) != 0)
        return 2;
    pthread_t a, b;
    pthread_create(&a, NULL, ping, NULL);
    pthread_create(&b, NULL, pong, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    puts("done");
    return 0;
}
