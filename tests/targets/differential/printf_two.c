/* printf_two.c - two threads each print one line with printf, and share
 * nothing else: only stdout's FILE lock, inside the C library, orders them.
 *
 * CORRECT; two outcomes: "a\nb\n" and "b\na\n" (which prints first).
 * For the dpor/dfs differential (scripts/dpor-vs-dfs): a search that
 * reorders only the steps the program's own code shows finds one of them.
 */
#include <pthread.h>
#include <stdio.h>

static void *say(void *arg)
{
    printf("%s\n", (const char *)arg);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, say, "a");
    pthread_create(&b, NULL, say, "b");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
