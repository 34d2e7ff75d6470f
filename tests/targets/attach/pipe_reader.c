/* pipe_reader: BUGGY. A reader thread reads a pipe whose write end only
 * the program holds and nobody writes: it waits for good, and main joins
 * it. mdat attach -p must name the read on the pipe and the join, and say
 * the program hangs. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];

static void *reader(void *arg)
{
    (void)arg;
    char c;
    if (read(fds[0], &c, 1) == 1) /* BUG: nobody writes the pipe */
        putchar(c);
    return NULL;
}

int main(void)
{
    pthread_t t;
    if (pipe(fds) != 0)
        return 2;
    pthread_create(&t, NULL, reader, NULL);
    pthread_join(t, NULL); /* WAIT: main */
    return 0;
}
