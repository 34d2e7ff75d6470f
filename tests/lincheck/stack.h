/* A stack of ints; pop of an empty stack gives -1. */
#ifndef LC_STACK_H
#define LC_STACK_H
struct stack;
struct stack *stack_new(void);
void stack_push(struct stack *s, int value);
int stack_pop(struct stack *s);
#endif
