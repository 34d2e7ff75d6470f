/* raw_writes.c - two threads each write one line to standard output with
 * write(2) itself, not stdio: no lock of libc's orders them, only the
 * order in which the calls run.
 *
 * CORRECT; two outcomes: "first\nsecond\n" and "second\nfirst\n". dpor
 * once explored one class: a write to fds 0-2 made no stop, so nothing
 * said the two steps did not commute.
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static void *say(void *arg)
{
    const char *line = arg;
    ssize_t written = write(1, line, strlen(line));
    (void)written;
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, say, "first\n");
    pthread_create(&b, NULL, say, "second\n");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
