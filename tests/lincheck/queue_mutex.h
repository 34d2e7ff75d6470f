/* A bounded FIFO queue of ints; the lincheck tests' structures share this
 * interface (queue_pop and queue_size of an empty queue give -1 and 0). */
#ifndef LC_QUEUE_H
#define LC_QUEUE_H
struct queue;
struct queue *queue_new(int capacity);
int queue_push(struct queue *q, int value);   /* 0, or -1 when full */
int queue_pop(struct queue *q);               /* the value, or -1 when empty */
long queue_size(struct queue *q);
#endif
