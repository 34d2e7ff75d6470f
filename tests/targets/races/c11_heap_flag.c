/* Race-free: a message handed over through a heap-allocated box whose
 * `ready` flag is a C11 atomic used with explicit release and acquire
 * orders. On x86-64 both are plain movs (at -O0 as at -O2), and the box
 * lives on the heap, where no declared type tells mdat it is atomic. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct mailbox {
    long message;
    atomic_int ready;
};

static void *sender(void *arg)
{
    struct mailbox *box = arg;
    box->message = 1234;
    atomic_store_explicit(&box->ready, 1, memory_order_release);
    return NULL;
}

static void *receiver(void *arg)
{
    struct mailbox *box = arg;
    while (atomic_load_explicit(&box->ready, memory_order_acquire) == 0)
        sched_yield();
    printf("got %ld\n", box->message);
    return NULL;
}

int main(void)
{
    struct mailbox *box = calloc(1, sizeof *box);
    pthread_t s, r;
    pthread_create(&r, NULL, receiver, box);
    pthread_create(&s, NULL, sender, box);
    pthread_join(s, NULL);
    pthread_join(r, NULL);
    free(box);
    return 0;
}
