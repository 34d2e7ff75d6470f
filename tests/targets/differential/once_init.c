/* once_init.c - two threads initialise a table through pthread_once and
 * read it.
 *
 * CORRECT; one outcome, "init 1 sum 14". For the dpor/dfs differential
 * (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int inits, table[2], sum[2];

static void init(void)
{
    inits++;
    table[0] = 3;
    table[1] = 4;
}

static void *use(void *arg)
{
    int me = (int)(long)arg;
    pthread_once(&once, init);
    sum[me] = table[0] + table[1];
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, use, (void *)0L);
    pthread_create(&b, NULL, use, (void *)1L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("init %d sum %d\n", inits, sum[0] + sum[1]);
    return 0;
}
