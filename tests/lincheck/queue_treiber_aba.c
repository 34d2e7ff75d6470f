/* A "queue" (queue_mutex.h's interface) built as a lock-free Treiber stack
 * whose popped nodes go to a free list that push reuses: the ABA problem.
 * A pop that read top = A and A->next = B can be overtaken by another
 * thread's pop of A and push of a new value into the same node A; its
 * compare-and-swap still sees A on top and succeeds, returning A's old
 * value a second time and dropping the new one. It hands items back in
 * LIFO order: judged against its own serial runs (no seq lines), only the
 * concurrency bug counts. size() counts the nodes from one reading of top
 * (right while nodes are not reused). A submission of the graded class in
 * tests/e2e/e2e_grade.sh (lincheck): not linearizable. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include "queue_mutex.h"

struct node {
    int value;
    struct node *next;
};

struct queue {
    struct node *top;
    pthread_mutex_t free_lock;  /* the free list is safe; reusing its nodes is not */
    struct node *free_list;
};

struct queue *queue_new(int capacity)
{
    (void)capacity;
    struct queue *q = calloc(1, sizeof *q);
    pthread_mutex_init(&q->free_lock, NULL);
    return q;
}

static struct node *node_get(struct queue *q)
{
    pthread_mutex_lock(&q->free_lock);
    struct node *n = q->free_list;
    if (n)
        q->free_list = __atomic_load_n(&n->next, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&q->free_lock);
    return n ? n : malloc(sizeof *n);
}

static void node_put(struct queue *q, struct node *n)
{
    pthread_mutex_lock(&q->free_lock);
    __atomic_store_n(&n->next, q->free_list, __ATOMIC_SEQ_CST);
    q->free_list = n;
    pthread_mutex_unlock(&q->free_lock);
}

int queue_push(struct queue *q, int value)
{
    struct node *n = node_get(q);
    __atomic_store_n(&n->value, value, __ATOMIC_SEQ_CST);
    struct node *top = __atomic_load_n(&q->top, __ATOMIC_SEQ_CST);
    do
        __atomic_store_n(&n->next, top, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(&q->top, &top, n, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    return 0;
}

int queue_pop(struct queue *q)
{
    struct node *top = __atomic_load_n(&q->top, __ATOMIC_SEQ_CST);
    for (;;) {
        if (!top)
            return -1;
        int value = __atomic_load_n(&top->value, __ATOMIC_SEQ_CST);
        struct node *next = __atomic_load_n(&top->next, __ATOMIC_SEQ_CST);
        if (__atomic_compare_exchange_n(&q->top, &top, next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            node_put(q, top);
            return value;
        }
    }
}

long queue_size(struct queue *q)
{
    long n = 0;
    for (struct node *p = __atomic_load_n(&q->top, __ATOMIC_SEQ_CST); p; p = __atomic_load_n(&p->next, __ATOMIC_SEQ_CST))
        n++;
    return n;
}
