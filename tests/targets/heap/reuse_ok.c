/* reuse_ok.c - correct: heap blocks freed and handed out again in the
 * ways real programs do, across threads. Each worker frees blocks that
 * malloc then hands back to it or to another thread, lets the C library
 * allocate inside itself (strdup, snprintf into asprintf) where mdat does
 * not follow the call (and strdup hand a freed block back holding the
 * very bytes it held), and takes items off a locked queue that another
 * thread allocated and that it frees. Expected mdat verdict: no failure
 * under every strategy (no use after free, no double free). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 6, ITEMS = 4 };

struct item {
    struct item *next;
    int value;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static struct item *queue;
static int produced, consumed_sum;

static void churn(int seed)
{
    for (int i = 0; i < ROUNDS; i++) {
        int *block = malloc(sizeof *block * 4);
        block[0] = seed + i;
        free(block);
        char *copy = strdup("ab");             /* libc may hand the freed block back here */
        copy[0] = (char)('a' + i);
        free(copy);
        char *text;
        if (asprintf(&text, "%d-%d", seed, i) > 0)
            free(text);
        char *name = strdup("job");
        free(name);
        name = strdup("job");                  /* the same block, the same bytes, handed out again */
        if (name[0] != 'j')
            abort();
        free(name);
    }
}

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= ITEMS; i++) {
        struct item *it = malloc(sizeof *it);
        it->value = i;
        pthread_mutex_lock(&lock);
        it->next = queue;
        queue = it;
        produced++;
        pthread_cond_signal(&more);
        pthread_mutex_unlock(&lock);
        churn(i);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int taken = 0; taken < ITEMS; taken++) {
        pthread_mutex_lock(&lock);
        while (!queue)
            pthread_cond_wait(&more, &lock);
        struct item *it = queue;
        queue = it->next;
        consumed_sum += it->value;
        pthread_mutex_unlock(&lock);
        free(it);                              /* the consumer ends what the producer allocated */
        churn(10 * taken);
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
    printf("%d\n", consumed_sum);
    return consumed_sum == ITEMS * (ITEMS + 1) / 2 ? 0 : 1;
}
