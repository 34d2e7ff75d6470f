/* futex_model: futex argument decoding and the waiter table (by thread,
 * with a queue per word). */
#include "supervisor/engine/futex_model.h"

#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>

void futex_decode(const struct user_regs_struct *regs, struct futex_call *out)
{
    memset(out, 0, sizeof *out);
    out->uaddr = regs->rdi;
    out->raw_op = (int)(regs->rsi & FUTEX_CMD_MASK);
    out->val = (uint32_t)regs->rdx;
    out->timeout = regs->r10;
    out->uaddr2 = regs->r8;
    out->val3 = (uint32_t)regs->r9;
    out->bitset = FUTEX_BITSET_MATCH_ANY;
    switch (out->raw_op) {
    case FUTEX_WAIT:
        out->cmd = FUTEX_CMD_WAIT;
        break;
    case FUTEX_WAIT_BITSET:
        out->cmd = FUTEX_CMD_WAIT;
        out->bitset = out->val3;
        break;
    case FUTEX_WAKE:
        out->cmd = FUTEX_CMD_WAKE;
        break;
    case FUTEX_WAKE_BITSET:
        out->cmd = FUTEX_CMD_WAKE;
        out->bitset = out->val3;
        break;
    case FUTEX_REQUEUE:
        out->cmd = FUTEX_CMD_CMP_REQUEUE;
        out->nr_requeue = (uint32_t)regs->r10;
        break;
    case FUTEX_CMP_REQUEUE:
        out->cmd = FUTEX_CMD_CMP_REQUEUE;
        out->nr_requeue = (uint32_t)regs->r10;
        out->check_val3 = true;
        break;
    default:
        out->cmd = FUTEX_CMD_UNSUPPORTED;
        break;
    }
}

const char *futex_op_name(int raw_op)
{
    static const char *const names[] = {
        [FUTEX_WAIT] = "FUTEX_WAIT", [FUTEX_WAKE] = "FUTEX_WAKE", [FUTEX_FD] = "FUTEX_FD",
        [FUTEX_REQUEUE] = "FUTEX_REQUEUE", [FUTEX_CMP_REQUEUE] = "FUTEX_CMP_REQUEUE",
        [FUTEX_WAKE_OP] = "FUTEX_WAKE_OP", [FUTEX_LOCK_PI] = "FUTEX_LOCK_PI",
        [FUTEX_UNLOCK_PI] = "FUTEX_UNLOCK_PI", [FUTEX_TRYLOCK_PI] = "FUTEX_TRYLOCK_PI",
        [FUTEX_WAIT_BITSET] = "FUTEX_WAIT_BITSET", [FUTEX_WAKE_BITSET] = "FUTEX_WAKE_BITSET",
        [FUTEX_WAIT_REQUEUE_PI] = "FUTEX_WAIT_REQUEUE_PI", [FUTEX_CMP_REQUEUE_PI] = "FUTEX_CMP_REQUEUE_PI",
        [13] = "FUTEX_LOCK_PI2",
    };
    if (raw_op >= 0 && raw_op < (int)(sizeof names / sizeof names[0]) && names[raw_op])
        return names[raw_op];
    return "an unknown futex operation";
}

static void *grown(void *array, size_t old, size_t cap, size_t elem)
{
    array = realloc(array, cap * elem);
    if (!array)
        abort();
    memset((char *)array + old * elem, 0, (cap - old) * elem);
    return array;
}

static void room_for_thread(struct futex_table *t, int thread)
{
    if ((size_t)thread < t->cap_threads)
        return;
    size_t cap = t->cap_threads ? t->cap_threads : 16;
    while (cap <= (size_t)thread)
        cap *= 2;
    t->by_thread = grown(t->by_thread, t->cap_threads, cap, sizeof *t->by_thread);
    t->next = grown(t->next, t->cap_threads, cap, sizeof *t->next);
    t->prev = grown(t->prev, t->cap_threads, cap, sizeof *t->prev);
    t->cap_threads = cap;
}

static size_t home_of(uint64_t addr, size_t cap)
{
    return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* Where addr's queue is, or the free slot where it would go. */
static size_t slot_of(const struct futex_table *t, uint64_t addr)
{
    size_t k = home_of(addr, t->cap_queues);
    while (t->queues[k].used && t->queues[k].addr != addr)
        k = (k + 1) & (t->cap_queues - 1);
    return k;
}

static const struct futex_queue *find_queue(const struct futex_table *t, uint64_t addr)
{
    if (!t->cap_queues)
        return NULL;
    const struct futex_queue *q = &t->queues[slot_of(t, addr)];
    return q->used ? q : NULL;
}

/* Words nobody waits on any more are dropped as the table grows. */
static void rebuild_queues(struct futex_table *t)
{
    struct futex_queue *old = t->queues;
    size_t old_cap = t->cap_queues, live = 0;
    for (size_t k = 0; k < old_cap; k++)
        live += old[k].used && old[k].head;
    size_t cap = 16;
    while ((live + 1) * 4 > cap)
        cap *= 2;
    t->queues = grown(NULL, 0, cap, sizeof *t->queues);
    t->cap_queues = cap;
    t->used_queues = 0;
    for (size_t k = 0; k < old_cap; k++) {
        if (old[k].used && old[k].head) {
            t->queues[slot_of(t, old[k].addr)] = old[k];
            t->used_queues++;
        }
    }
    free(old);
}

static struct futex_queue *queue_for(struct futex_table *t, uint64_t addr)
{
    if (!t->cap_queues || (t->used_queues + 1) * 2 > t->cap_queues)
        rebuild_queues(t);
    struct futex_queue *q = &t->queues[slot_of(t, addr)];
    if (!q->used) {
        *q = (struct futex_queue){true, addr, 0, 0};
        t->used_queues++;
    }
    return q;
}

static void enqueue(struct futex_table *t, int thread, uint64_t addr)
{
    struct futex_queue *q = queue_for(t, addr);
    t->prev[thread] = q->tail;
    t->next[thread] = 0;
    if (q->tail)
        t->next[q->tail] = thread;
    else
        q->head = thread;
    q->tail = thread;
    t->by_thread[thread].addr = addr;
}

static void dequeue(struct futex_table *t, int thread)
{
    struct futex_queue *q = &t->queues[slot_of(t, t->by_thread[thread].addr)];
    int prev = t->prev[thread], next = t->next[thread];
    if (prev)
        t->next[prev] = next;
    else
        q->head = next;
    if (next)
        t->prev[next] = prev;
    else
        q->tail = prev;
}

static bool waiting(const struct futex_table *t, int thread)
{
    return thread > 0 && (size_t)thread < t->cap_threads && t->by_thread[thread].thread == thread;
}

void futex_table_add(struct futex_table *t, int thread, uint64_t addr, uint32_t bitset, bool timed)
{
    if (thread <= 0)
        return;
    futex_table_remove(t, thread);
    room_for_thread(t, thread);
    t->by_thread[thread] = (struct futex_waiter){thread, addr, bitset, timed};
    enqueue(t, thread, addr);
    t->n++;
}

void futex_table_remove(struct futex_table *t, int thread)
{
    if (!waiting(t, thread))
        return;
    dequeue(t, thread);
    t->by_thread[thread].thread = 0;
    t->n--;
}

size_t futex_table_find(const struct futex_table *t, uint64_t addr, uint32_t bitset, int *out, size_t max)
{
    const struct futex_queue *q = find_queue(t, addr);
    size_t found = 0;
    for (int w = q ? q->head : 0; w; w = t->next[w]) {
        if (t->by_thread[w].bitset & bitset) {
            if (found < max)
                out[found] = w;
            found++;
        }
    }
    return found;
}

void futex_table_move(struct futex_table *t, int thread, uint64_t new_addr)
{
    if (!waiting(t, thread))
        return;
    /* A requeued waiter queues behind those already on the new word. */
    dequeue(t, thread);
    enqueue(t, thread, new_addr);
}

const struct futex_waiter *futex_table_get(const struct futex_table *t, int thread)
{
    return waiting(t, thread) ? &t->by_thread[thread] : NULL;
}

void futex_table_clear(struct futex_table *t)
{
    if (t->by_thread)
        memset(t->by_thread, 0, t->cap_threads * sizeof *t->by_thread);
    if (t->queues)
        memset(t->queues, 0, t->cap_queues * sizeof *t->queues);
    t->used_queues = 0;
    t->n = 0;
}

void futex_table_free(struct futex_table *t)
{
    free(t->by_thread);
    free(t->next);
    free(t->prev);
    free(t->queues);
    memset(t, 0, sizeof *t);
}
