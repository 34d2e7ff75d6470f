/* A bounded FIFO queue of ints, safe to share between threads.
 * (queue_pop of an empty queue gives -1, queue_size of it 0). */
#ifndef QUEUE_H
#define QUEUE_H
struct queue;
struct queue *queue_new(int capacity);
int queue_push(struct queue *q, int value);   /* 0, or -1 when full */
int queue_pop(struct queue *q);               /* the value, or -1 when empty */
long queue_size(struct queue *q);
#endif
