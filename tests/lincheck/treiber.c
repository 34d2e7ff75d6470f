/* A correct lock-free Treiber stack: nodes are never freed, so a node seen
 * at the top cannot come back as another: no ABA. lincheck must find
 * nothing here (tests/e2e/lincheck.sh). */
#include <stdbool.h>
#include <stdlib.h>
#include "stack.h"

struct node {
    int value;
    struct node *next;
};

struct stack {
    struct node *top;
};

struct stack *stack_new(void)
{
    return calloc(1, sizeof(struct stack));
}

void stack_push(struct stack *s, int value)
{
    struct node *n = malloc(sizeof *n);
    n->value = value;
    n->next = __atomic_load_n(&s->top, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(&s->top, &n->next, n, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        ;
}

int stack_pop(struct stack *s)
{
    struct node *top = __atomic_load_n(&s->top, __ATOMIC_SEQ_CST);
    while (top && !__atomic_compare_exchange_n(&s->top, &top, top->next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        ;
    return top ? top->value : -1;   /* the node stays allocated: a later pop may still read it */
}
