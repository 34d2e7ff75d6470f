/* futex_model: mdat's own futex, so that no tracee ever blocks in the kernel.
 *
 * Owns decoding of futex(2) arguments and the table of threads waiting on
 * futex words (FIFO order, with bitsets). The execution decides what a wait or
 * a wake means for scheduling; this file only keeps the books. */
#ifndef MDAT_SUPERVISOR_FUTEX_MODEL_H
#define MDAT_SUPERVISOR_FUTEX_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

enum futex_cmd {
    FUTEX_CMD_WAIT,         /* FUTEX_WAIT, FUTEX_WAIT_BITSET */
    FUTEX_CMD_WAKE,         /* FUTEX_WAKE, FUTEX_WAKE_BITSET */
    FUTEX_CMD_CMP_REQUEUE,  /* FUTEX_REQUEUE, FUTEX_CMP_REQUEUE */
    FUTEX_CMD_UNSUPPORTED,
};

struct futex_call {
    enum futex_cmd cmd;
    int raw_op;             /* op & FUTEX_CMD_MASK */
    uint64_t uaddr, uaddr2, timeout;
    uint32_t val, val3, bitset;
    uint32_t nr_requeue;    /* CMP_REQUEUE: val2, passed in the timeout slot */
    bool check_val3;        /* CMP_REQUEUE compares *uaddr with val3 */
};

/* Decodes the arguments of a futex syscall stopped at its seccomp stop. */
void futex_decode(const struct user_regs_struct *regs, struct futex_call *out);
const char *futex_op_name(int raw_op);

struct futex_waiter {
    int thread;                     /* 0: not waiting */
    uint64_t addr;
    uint32_t bitset;
    bool timed;
};

/* The waiters by thread id, each in the queue of its word (oldest first),
 * and the queues by word: adding, removing, moving and looking up a thread
 * cost the same with one waiter or with hundreds; finding a word's waiters
 * costs what that word has. */
struct futex_table {
    struct futex_waiter *by_thread;
    int *next, *prev;               /* by thread id: the neighbours in its word's queue (0: none) */
    size_t cap_threads;
    struct futex_queue {
        bool used;
        uint64_t addr;
        int head, tail;             /* thread ids; 0: empty */
    } *queues;                      /* open addressing by addr */
    size_t cap_queues, used_queues;
    size_t n;                       /* threads waiting */
};

void futex_table_add(struct futex_table *t, int thread, uint64_t addr, uint32_t bitset, bool timed);
void futex_table_remove(struct futex_table *t, int thread);
/* Threads waiting on addr whose bitset intersects bitset, oldest first.
 * Returns how many there are; writes at most max of them. */
size_t futex_table_find(const struct futex_table *t, uint64_t addr, uint32_t bitset, int *out, size_t max);
/* Moves thread's wait to another word (FUTEX_CMP_REQUEUE). */
void futex_table_move(struct futex_table *t, int thread, uint64_t new_addr);
const struct futex_waiter *futex_table_get(const struct futex_table *t, int thread);
void futex_table_clear(struct futex_table *t);
void futex_table_free(struct futex_table *t);

#endif
