/* The sequential specification of the lincheck tests' queues, written as
 * plain single-threaded C: a bounded FIFO (queue_mutex.h's contract under
 * other names, so it links beside the code under test). The specs naming
 * it in seq lines have their serial orders run here. */
#include <stdlib.h>
#include "queue_seq.h"

struct seq_queue {
    int items[64];
    int capacity, head, count;
};

struct seq_queue *seq_queue_new(int capacity)
{
    struct seq_queue *q = calloc(1, sizeof *q);
    q->capacity = capacity < 64 ? capacity : 64;
    return q;
}

int seq_queue_push(struct seq_queue *q, int value)
{
    if (q->count == q->capacity)
        return -1;
    q->items[(q->head + q->count++) % q->capacity] = value;
    return 0;
}

int seq_queue_pop(struct seq_queue *q)
{
    if (q->count == 0)
        return -1;
    int value = q->items[q->head];
    q->head = (q->head + 1) % q->capacity;
    q->count--;
    return value;
}

long seq_queue_size(struct seq_queue *q)
{
    return q->count;
}
