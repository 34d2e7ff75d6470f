/* A Treiber stack with the ABA problem: popped nodes go to a free list and
 * push reuses them. A pop that read top = A and A->next = B can be
 * overtaken by another thread's pop of A and push of a new value into the
 * same node A; its compare-and-swap then still sees A on top and succeeds,
 * returning A's old value a second time and dropping the new one.
 * lincheck must find it (tests/e2e/lincheck.sh). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include "stack.h"

struct node {
    int value;
    struct node *next;
};

struct stack {
    struct node *top;
    pthread_mutex_t free_lock;  /* the free list is safe; reusing its nodes is not */
    struct node *free_list;
};

struct stack *stack_new(void)
{
    struct stack *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->free_lock, NULL);
    return s;
}

static struct node *node_get(struct stack *s)
{
    pthread_mutex_lock(&s->free_lock);
    struct node *n = s->free_list;
    if (n)
        s->free_list = __atomic_load_n(&n->next, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&s->free_lock);
    return n ? n : malloc(sizeof *n);
}

static void node_put(struct stack *s, struct node *n)
{
    pthread_mutex_lock(&s->free_lock);
    __atomic_store_n(&n->next, s->free_list, __ATOMIC_SEQ_CST);
    s->free_list = n;
    pthread_mutex_unlock(&s->free_lock);
}

void stack_push(struct stack *s, int value)
{
    struct node *n = node_get(s);
    __atomic_store_n(&n->value, value, __ATOMIC_SEQ_CST);
    struct node *top = __atomic_load_n(&s->top, __ATOMIC_SEQ_CST);
    do
        __atomic_store_n(&n->next, top, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(&s->top, &top, n, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
}

int stack_pop(struct stack *s)
{
    struct node *top = __atomic_load_n(&s->top, __ATOMIC_SEQ_CST);
    for (;;) {
        if (!top)
            return -1;
        int value = __atomic_load_n(&top->value, __ATOMIC_SEQ_CST);
        struct node *next = __atomic_load_n(&top->next, __ATOMIC_SEQ_CST);
        if (__atomic_compare_exchange_n(&s->top, &top, next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            node_put(s, top);
            return value;
        }
    }
}
