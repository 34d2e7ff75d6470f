/* spin_watch: threads going round loops that make no progress (see the header). */
#include "supervisor/engine/spin_watch.h"
#include "supervisor/engine/exec_core.h"
#include "supervisor/engine/tracee.h"

#include <stdlib.h>
#include <string.h>

/* Locations and states one streak of reads keeps; a longer loop is not
 * recognised (it is only not preferred less). */
enum { SPIN_READS = 16, SPIN_STATES = 32 };
/* Bytes of the stack above rsp that count as the thread's state when rbp
 * does not bound a frame (a loop counter kept in a local). */
enum { STACK_TOP = 256, FRAME_MAX = 4096 };

struct read_word {
    uint64_t addr;
    uint8_t size;
    uint64_t value;
};

/* One thread's current streak of steps that changed nothing. */
struct streak {
    int n_reads, n_states;
    struct read_word reads[SPIN_READS];
    uint64_t states[SPIN_STATES];
    bool spinning;
    /* Before the step under way: the bytes its store replaces. */
    bool have_old;
    uint64_t old;
};

struct spin_watch {
    struct streak *by_id;
    size_t cap;
};

struct spin_watch *spin_watch_new(void)
{
    struct spin_watch *w = calloc(1, sizeof *w);
    if (!w)
        abort();
    return w;
}

void spin_watch_free(struct spin_watch *w)
{
    if (!w)
        return;
    free(w->by_id);
    free(w);
}

static struct streak *streak_of(struct spin_watch *w, int id)
{
    if (id <= 0)
        return NULL;
    if ((size_t)id >= w->cap) {
        size_t cap = w->cap ? w->cap : 16;
        while (cap <= (size_t)id)
            cap *= 2;
        w->by_id = realloc(w->by_id, cap * sizeof *w->by_id);
        if (!w->by_id)
            abort();
        memset(w->by_id + w->cap, 0, (cap - w->cap) * sizeof *w->by_id);
        w->cap = cap;
    }
    return &w->by_id[id];
}

static void streak_reset(struct streak *s)
{
    s->n_reads = s->n_states = 0;
    s->spinning = false;
}

static bool read_word(struct execution *ex, uint64_t addr, uint8_t size, uint64_t *value)
{
    *value = 0;
    return size > 0 && size <= 8 && tracee_read_as_program(ex->vm_pid, addr, value, size);
}

static bool is_access(const struct visible_op *op)
{
    return op->kind == VIS_READ || op->kind == VIS_WRITE || op->kind == VIS_UPDATE;
}

void spin_watch_before_step(struct spin_watch *w, struct execution *ex, const struct mthread *t,
                            const struct visible_op *op)
{
    struct streak *s = streak_of(w, t->id);
    s->have_old = (op->kind == VIS_WRITE || op->kind == VIS_UPDATE) && read_word(ex, op->addr, op->size, &s->old);
}

/* A word the streak read: the value must be the one it read before. */
static bool note_read(struct streak *s, uint64_t addr, uint8_t size, uint64_t value)
{
    for (int i = 0; i < s->n_reads; i++)
        if (s->reads[i].addr == addr && s->reads[i].size == size)
            return s->reads[i].value == value;
    if (s->n_reads == SPIN_READS)
        return false;
    s->reads[s->n_reads++] = (struct read_word){addr, size, value};
    return true;
}

/* Everything the thread carries from one step to the next that could
 * make it do otherwise: registers, and the top of its stack. */
static uint64_t state_hash(struct execution *ex, const struct mthread *t)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *r = (const unsigned char *)&t->regs;
    for (size_t i = 0; i < sizeof t->regs; i++)
        h = (h ^ r[i]) * 1099511628211ull;
    uint64_t sp = t->regs.rsp, bp = t->regs.rbp;
    size_t len = bp > sp && bp - sp < FRAME_MAX ? (size_t)(bp - sp) + 16 : STACK_TOP;
    unsigned char buf[FRAME_MAX + 16];
    if (!tracee_read(ex->mem_fd, sp, buf, len))
        return 0;
    for (size_t i = 0; i < len; i++)
        h = (h ^ buf[i]) * 1099511628211ull;
    return h | 1;
}

/* The step changed nothing another thread or the thread itself could see:
 * a load, or a store of the value already there. */
static bool changed_nothing(struct execution *ex, struct streak *s, const struct visible_op *op, uint64_t *value)
{
    if (!is_access(op) || !read_word(ex, op->addr, op->size, value))
        return false;
    if (op->kind == VIS_READ)
        return true;
    return s->have_old && s->old == *value;
}

void spin_watch_after_step(struct spin_watch *w, struct execution *ex, const struct mthread *t,
                           const struct visible_op *op)
{
    struct streak *s = streak_of(w, t->id);
    uint64_t value;
    bool quiet = changed_nothing(ex, s, op, &value);
    s->have_old = false;
    if (!quiet) {
        streak_reset(s);
        return;
    }
    if (!note_read(s, op->addr, op->size, value)) {
        /* What it read changed since the streak began: a new one begins. */
        streak_reset(s);
        note_read(s, op->addr, op->size, value);
    }
    if (t->state != TS_RUNNABLE || t->op != OP_ACCESS) {
        streak_reset(s);
        return;
    }
    uint64_t h = state_hash(ex, t);
    if (!h) {
        streak_reset(s);
        return;
    }
    for (int i = 0; i < s->n_states; i++)
        if (s->states[i] == h) {
            s->spinning = true;
            return;
        }
    if (s->n_states < SPIN_STATES)
        s->states[s->n_states++] = h;
}

bool spin_watch_spinning(struct spin_watch *w, struct execution *ex, const struct mthread *t)
{
    struct streak *s = streak_of(w, t->id);
    if (!s || !s->spinning)
        return false;
    if (t->state != TS_RUNNABLE || t->op != OP_ACCESS) {
        streak_reset(s);
        return false;
    }
    /* Another thread (or code mdat does not see) changed what it reads:
     * the loop may end. */
    for (int i = 0; i < s->n_reads; i++) {
        uint64_t now;
        if (!read_word(ex, s->reads[i].addr, s->reads[i].size, &now) || now != s->reads[i].value) {
            streak_reset(s);
            return false;
        }
    }
    return true;
}

uint64_t spin_watch_location(const struct spin_watch *w, const struct mthread *t)
{
    if (t->id <= 0 || (size_t)t->id >= w->cap || !w->by_id[t->id].spinning || !w->by_id[t->id].n_reads)
        return 0;
    return w->by_id[t->id].reads[0].addr;
}
