/* spin_watch: threads going round loops that make no progress (see the header). */
#include "supervisor/engine/spin_watch.h"
#include "supervisor/engine/exec_core.h"
#include "supervisor/process/hash64.h"
#include "supervisor/process/proc_maps.h"
#include "supervisor/process/tracee.h"

#include <stdlib.h>
#include <string.h>

/* Locations and states one streak of reads keeps; a longer loop is not
 * recognised (it is only not preferred less). */
enum { SPIN_READS = 16, SPIN_STATES = 32 };
/* A thread's stack in use (rsp to the top of its mapping) is part of its
 * state, as far as this much: a deeper stack is never judged spinning. */
enum { STACK_MAX = 256 * 1024 };

struct read_word {
    uint64_t addr;
    uint8_t size;
    uint64_t value;
};

/* One thread's current streak of steps that changed nothing. */
struct streak {
    int n_reads, n_states;
    struct read_word reads[SPIN_READS];
    /* The registers of each state passed, and (once they came back) the
     * stack in use then; 0: not read yet. */
    uint64_t states[SPIN_STATES];
    uint64_t stacks[SPIN_STATES];
    uint64_t stack_top;             /* the end of the thread's stack mapping, 0: not known yet */
    bool spinning;
    uint32_t rounds;                /* times it came back to a state, spinning */
    uint32_t steps;                 /* steps in the streak (the thread's latest ones) */
    /* Before the step under way: the bytes its store replaces. */
    bool have_old;
    uint64_t old;
};

struct spin_watch {
    struct streak *by_id;
    size_t cap;
    size_t n_spinning;      /* streaks judged spinning: with none, no candidate needs a look */
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

static void streak_reset(struct spin_watch *w, struct streak *s)
{
    s->n_reads = s->n_states = 0;
    w->n_spinning -= s->spinning;
    s->spinning = false;
    s->rounds = 0;
    s->steps = 0;
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

/* A hash of len bytes (a stack is hashed at every new state of a streak,
 * so this is on the path of every quiet step). Four lanes, each word mixed
 * into its own: a word that differs changes its lane's value (each mix is
 * a bijection), and the lanes do not wait for each other. */
static uint64_t words_hash(const void *p, size_t len)
{
    uint64_t lane[4] = {0x9e3779b97f4a7c15ull ^ len, 0x7f4a7c159e3779b9ull, 0x94d049bb133111ebull,
                        0xbf58476d1ce4e5b9ull};
    const unsigned char *b = p;
    size_t i = 0;
    for (; i + 32 <= len; i += 32) {
        uint64_t w[4];
        memcpy(w, b + i, sizeof w);
        for (int k = 0; k < 4; k++)
            lane[k] = hash64_mix(lane[k] ^ w[k]);
    }
    for (int k = 0; i < len; i += 8, k++) {
        uint64_t w = 0;
        memcpy(&w, b + i, len - i < 8 ? len - i : 8);
        lane[k] = hash64_mix(lane[k] ^ w);
    }
    uint64_t h = lane[0];
    for (int k = 1; k < 4; k++)
        h = hash64_mix(h ^ lane[k]);
    return h | 1;
}

/* The thread's registers: what it carries in them from step to step. */
static uint64_t regs_hash(const struct mthread *t)
{
    return words_hash(&t->regs, sizeof t->regs);
}

/* The end of the mapping that holds t's stack pointer (cached). */
static uint64_t stack_top(struct execution *ex, const struct mthread *t, struct streak *s)
{
    if (t->stack_hi > t->regs.rsp && t->stack_lo <= t->regs.rsp)
        return t->stack_hi;
    if (s->stack_top > t->regs.rsp)
        return s->stack_top;
    struct proc_maps maps = {0};
    if (proc_maps_read(ex->pid, &maps)) {
        const struct proc_mapping *m = proc_maps_find(&maps, t->regs.rsp);
        s->stack_top = m ? m->end : 0;
    }
    proc_maps_free(&maps);
    return s->stack_top > t->regs.rsp ? s->stack_top : 0;
}

/* The stack in use, from rsp up: every local of every frame (a loop
 * counter in one). 0 when it cannot be read or is too deep. */
static uint64_t stack_hash(struct execution *ex, const struct mthread *t, struct streak *s)
{
    uint64_t top = stack_top(ex, t, s), sp = t->regs.rsp;
    if (!top || top - sp > STACK_MAX)
        return 0;
    static unsigned char buf[STACK_MAX];
    return tracee_read(ex->mem_fd, sp, buf, (size_t)(top - sp)) ? words_hash(buf, (size_t)(top - sp)) : 0;
}

/* t's state again: a state is its registers and the stack in use, both
 * hashed when the streak first passes it; coming back to one, the same,
 * is a whole round that changed nothing: it spins (one round suffices, as
 * GenMC's spin-assume needs one iteration). Registers are compared first:
 * the stack is read again only when they came back. */
static void passed_state(struct spin_watch *w, struct execution *ex, const struct mthread *t, struct streak *s)
{
    uint64_t h = regs_hash(t);
    for (int i = 0; i < s->n_states; i++) {
        if (s->states[i] != h)
            continue;
        uint64_t sh = stack_hash(ex, t, s);
        if (sh && sh == s->stacks[i]) {
            w->n_spinning += !s->spinning;
            s->spinning = true;
            s->rounds++;
        }
        s->stacks[i] = sh;
        return;
    }
    if (s->n_states < SPIN_STATES) {
        s->stacks[s->n_states] = stack_hash(ex, t, s);
        s->states[s->n_states++] = h;
    }
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
        /* A streak begins here: where the thread stands now (before the
         * first read of a loop) is its first state, so coming back to it
         * after one round is spinning. */
        streak_reset(w, s);
        if (t->state == TS_RUNNABLE && t->op == OP_ACCESS)
            passed_state(w, ex, t, s);
        return;
    }
    if (!note_read(s, op->addr, op->size, value)) {
        /* What it read changed since the streak began: a new one begins. */
        streak_reset(w, s);
        note_read(s, op->addr, op->size, value);
    }
    if (t->state != TS_RUNNABLE || t->op != OP_ACCESS) {
        streak_reset(w, s);
        return;
    }
    s->steps++;
    /* The load of a read-modify-write made two steps leaves the thread
     * in the middle of that instruction: its registers are the ones it
     * had before the load, yet it has gone nowhere round a loop. Its
     * state is the one after the store. */
    if (!t->rmw_loaded)
        passed_state(w, ex, t, s);
}

bool spin_watch_any(const struct spin_watch *w)
{
    return w->n_spinning > 0;
}

bool spin_watch_spinning(struct spin_watch *w, struct execution *ex, const struct mthread *t)
{
    struct streak *s = streak_of(w, t->id);
    if (!s || !s->spinning)
        return false;
    if (t->state != TS_RUNNABLE || t->op != OP_ACCESS) {
        streak_reset(w, s);
        return false;
    }
    /* Another thread (or code mdat does not see) changed what it reads:
     * the loop may end. */
    for (int i = 0; i < s->n_reads; i++) {
        uint64_t now;
        if (!read_word(ex, s->reads[i].addr, s->reads[i].size, &now) || now != s->reads[i].value) {
            streak_reset(w, s);
            return false;
        }
    }
    return true;
}

bool spin_watch_stuck(struct spin_watch *w, struct execution *ex, const struct mthread *t)
{
    return spin_watch_spinning(w, ex, t) && w->by_id[t->id].rounds >= SPIN_STUCK_ROUNDS;
}

uint32_t spin_watch_streak_steps(const struct spin_watch *w, const struct mthread *t)
{
    if (t->id <= 0 || (size_t)t->id >= w->cap || !w->by_id[t->id].spinning)
        return 0;
    return w->by_id[t->id].steps;
}

uint64_t spin_watch_location(const struct spin_watch *w, const struct mthread *t)
{
    if (t->id <= 0 || (size_t)t->id >= w->cap || !w->by_id[t->id].spinning || !w->by_id[t->id].n_reads)
        return 0;
    return w->by_id[t->id].reads[0].addr;
}
