/* puts_stderr.c - one thread prints to stdout, the other to stderr and
 * then to stdout: stdout's FILE lock orders two of the three calls.
 *
 * CORRECT; two outcomes on stdout: "a\nc\n" and "c\na\n". For the
 * dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>

static void *first(void *arg)
{
    (void)arg;
    fputs("a\n", stdout);
    return NULL;
}

static void *second(void *arg)
{
    (void)arg;
    fputs("b\n", stderr);
    fputs("c\n", stdout);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, first, NULL);
    pthread_create(&b, NULL, second, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
