/* A sequential bounded FIFO: the specification queue_seq.c implements. */
#ifndef LC_QUEUE_SEQ_H
#define LC_QUEUE_SEQ_H
struct seq_queue;
struct seq_queue *seq_queue_new(int capacity);
int seq_queue_push(struct seq_queue *q, int value);   /* 0, or -1 when full */
int seq_queue_pop(struct seq_queue *q);               /* the value, or -1 when empty */
long seq_queue_size(struct seq_queue *q);
#endif
