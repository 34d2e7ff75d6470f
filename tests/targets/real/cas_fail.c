/* cas_fail.c - a lock-free stack push with compare-and-swap, and a thread
 * whose CAS fails and retries.
 *
 * CORRECT.  Two threads push with __atomic_compare_exchange_n (lock
 * cmpxchg); when the other thread pushed in between, the CAS fails and
 * the loop retries. The trace shows each CAS's outcome:
 *   cas top  expected 0x..., found 0x... -> failed
 *   cas top  expected 0x... -> stored 0x...
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

struct node {
    struct node *next;
    int value;
};

static struct node nodes[4];
static struct node *top;

static void push(struct node *n)
{
    struct node *old = __atomic_load_n(&top, __ATOMIC_ACQUIRE);
    do
        n->next = old;
    while (!__atomic_compare_exchange_n(&top, &old, n, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
}

static void *pusher(void *arg)
{
    int base = (int)(long)arg;
    for (int i = 0; i < 2; i++) {
        nodes[base + i].value = base + i;
        push(&nodes[base + i]);
    }
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, pusher, (void *)0L);
    pthread_create(&b, NULL, pusher, (void *)2L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    int count = 0;
    for (struct node *n = top; n; n = n->next)
        count++;
    assert(count == 4);
    printf("stack of %d\n", count);
    return 0;
}
