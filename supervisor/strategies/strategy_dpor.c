/* strategy_dpor: exhaustive exploration up to Mazurkiewicz equivalence with
 * source-DPOR and sleep sets (Abdulla, Aronis, Jonsson and Sagonas, POPL
 * 2014, "Optimal dynamic partial order reduction", algorithm 1).
 *
 * Two executions that only swap adjacent independent steps are the same
 * class: they end the same way. DPOR runs one execution, finds each pair
 * of steps that race in it (dependent, of different threads, and not
 * ordered by anything else), and for each makes sure a later execution
 * tries them the other way round: at the state before the first of the
 * two, some thread that can begin the reversed order (an *initial* of the
 * steps not after it, followed by the second) is put in the backtrack set.
 * Sleep sets keep a thread that was already explored at a state from being
 * explored again below it until a dependent step wakes it; an execution in
 * which every thread that can run sleeps is cut short and is no class.
 *
 * Dependent: visible_ops_conflict (the same memory, one of them writing;
 * calls on the same sync object), and the process's exit with everything;
 * besides its operation, a step's footprint counts: the words it touched
 * inside libraries (libc's own locks: two printf calls share stdout's FILE
 * lock and nothing else a step shows) and its futex calls, as the engine
 * tells them while the step runs (exec_listener.touched_word, futex_call),
 * the file descriptors it read or wrote (one word for all), and the heap
 * blocks it freed and the buffers its system calls reached
 * (exec_listener.freeing, touched_range), against every use.
 * A sleeping thread's footprint is that of the step it took from the node
 * where it went to sleep (the same state, the same step).
 * Ordered besides: each thread's own steps, a pthread_create before the new
 * thread's first step, a wake before the woken thread's next step, a
 * thread's end before the join that waited for it. The strategy hears of
 * steps, creations, wakes and ends as a listener of the execution.
 * Which of several waiters a wake releases is a choice too: every waiter is
 * tried there.
 *
 * Blocking (issue 26): a thread whose next step is an acquisition that
 * cannot complete now (a mutex someone holds, a semaphore at 0,
 * a join of a live thread: choice_point.blocks) is not enabled; it takes
 * the lock in one step once it is free, and no blocked attempt is ever an
 * event. Only when every candidate is in that case (a deadlock) do they
 * run, so that the execution reaches the deadlock the engine reports.
 * Two calls on one lock stay dependent, but a lock taken (a mutex, a write
 * lock) after another thread's release of it could not have come before
 * that release: its race
 * is with the acquisition the release ended (the source-DPOR treatment of
 * locks, as Nidhugg's), reversed at the state before that acquisition,
 * where the lock was free. So a program whose threads share only locks
 * has as many classes as orders of acquisitions. A semaphore has no
 * owner, so a wait after a post races with the post and, when the poster
 * had taken a unit itself (a semaphore used as a lock), with that taking
 * too (matching_sem_wait).
 * The process's end (its exit, or a failure that kills it) in the last
 * step races with the next step of every thread that could still run
 * there, which the trace does not hold (race_with_end); an acquisition
 * still blocked at the end is put after the trace as an event of its own
 * (races_of_blocked).
 * Spin loops (spin-assume, as GenMC's): a thread seen to spin is not
 * offered while another can run (strategy.prefers_progress), and the
 * rounds it went until then are no-ops (mark_spins): their steps race with
 * earlier steps (read earlier, a round may end the loop) but no later step
 * races with them, since the spinner reads again once it is let out and
 * that read is where the step that let it out is ordered. So where the
 * rounds fall among the other threads' steps makes no class.
 *
 * The search is a stack of nodes, one per step of the current execution
 * (the state before it): the threads that could run and their operations,
 * the backtrack, done and sleep sets, and the waiter choices made during
 * the step. After an execution, the deepest node with a thread left to try
 * (or a waiter left to wake) is where the next execution leaves the last.
 * Finding races costs time quadratic in the steps of an execution: dpor is
 * meant for small programs. Needs --preempt all (every step a choice). */
#include "supervisor/strategies/strategies.h"

#include "supervisor/code/code_map.h"
#include "supervisor/process/heap_map.h"

#include <stdlib.h>
#include <string.h>

struct idset {
    int *at;
    size_t n, cap;
};

enum { MAX_WAITERS = 64 };
/* Steps of an execution that are analysed (the cost of finding races
 * grows with their square); past them the execution runs on unexplored. */
enum { MAX_EVENTS = STRATEGY_DPOR_MAX_STEPS };
/* A thread that has run this many steps in a row while others could run
 * is no longer preferred (a spin loop must let the others in). */
enum { SPIN_LIMIT = 1000 };

/* Words a step touched besides its operation; more than fit: every
 * other step depends on it. And the memory it reached outside its
 * operation ([reached_lo, reached_hi), the hull when more than one range):
 * the heap blocks it freed (the allocator writes into a block it takes
 * back) and the buffers its system calls read or the kernel filled, each
 * ordered against every access inside. */
enum { FOOTPRINT_WORDS = 6 };
struct footprint {
    uint8_t n;
    bool overflow;
    uint64_t word[FOOTPRINT_WORDS];
    uint64_t reached_lo, reached_hi;
};

/* A thread's step from a node, with its footprint. */
struct taken_step {
    int thread;
    struct footprint fp;
};

struct wait_choice {
    int n;
    int ids[MAX_WAITERS];
    int chosen;                 /* index */
    uint64_t done;              /* indexes tried */
};

struct dpor_node {
    bool asked;                 /* more than one thread could run */
    struct idset enabled;       /* the threads that could run ... */
    struct visible_op *ops;     /* ... and their next operations */
    int chosen;
    struct idset backtrack, done, sleep;
    struct visible_op *sleep_ops;
    struct footprint *sleep_fps;
    struct taken_step *taken;   /* the footprint of each done thread's step from here */
    size_t n_taken;
    struct wait_choice *wait;
    int n_wait;
};

struct dpor_event {
    int thread;
    struct visible_op op;
    struct footprint fp;
    int pred[2];                /* ordered after these events besides program order (-1: none) */
    uint32_t local;             /* 1-based index among its thread's events */
    bool no_op;                 /* a round of a spin (mark_spins) */
};

struct thread_info {
    int pending[2];             /* events the thread's next step comes after */
    int last;                   /* its last event (-1) */
    uint32_t count;
    uint64_t pthread;
    int exited_at;              /* events before its end (-1: not ended) */
};

struct dpor_state {
    struct dpor_node *nodes;
    size_t n_nodes, cap_nodes;
    size_t prefix;              /* nodes followed as they are (the last one changed) */
    size_t changed;             /* first event that may differ from the last execution */
    int wpos;                   /* waiter choices made during the current step */
    /* This execution. */
    struct dpor_event *ev;
    size_t n_ev, cap_ev;
    struct thread_info *th;
    size_t cap_th;
    bool blocked;               /* cut short: every thread that could run sleeps */
    struct footprint step_fp;   /* of the step under way */
    int run_thread;             /* the thread of the current streak, and its length */
    uint64_t run_length;
    uint64_t classes;
    /* Some execution ran past MAX_EVENTS: its later steps were not
     * analysed, so the end of the search proves nothing. */
    bool too_long;
    /* The latest thread choice's candidates that would have blocked, and
     * their operations: at the end of the execution, the acquisitions
     * they never made (races_of_blocked). */
    int *end_threads;
    struct visible_op *end_ops;
    size_t n_end, cap_end;
};

static bool idset_has(const struct idset *s, int id)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->at[i] == id)
            return true;
    return false;
}

static void idset_add(struct idset *s, int id)
{
    if (idset_has(s, id))
        return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4;
        s->at = realloc(s->at, s->cap * sizeof *s->at);
        if (!s->at)
            abort();
    }
    s->at[s->n++] = id;
}

static void footprint_add(struct footprint *fp, uint64_t word)
{
    for (int i = 0; i < fp->n; i++)
        if (fp->word[i] == word)
            return;
    if (fp->n == FOOTPRINT_WORDS)
        fp->overflow = true;
    else
        fp->word[fp->n++] = word;
}

static void footprint_add_reached(struct footprint *fp, uint64_t lo, uint64_t hi)
{
    if (fp->reached_hi == 0) {
        fp->reached_lo = lo;
        fp->reached_hi = hi;
        return;
    }
    if (lo < fp->reached_lo)
        fp->reached_lo = lo;
    if (hi > fp->reached_hi)
        fp->reached_hi = hi;
}

static bool in_reached(const struct footprint *fp, uint64_t lo, uint64_t hi)
{
    return fp->reached_hi && lo < fp->reached_hi && fp->reached_lo < hi;
}

/* Memory reached outside the step's operation (a freed block, a call's
 * buffer) against an operation: any access or object inside it. */
static bool reached_conflicts(const struct footprint *fp, const struct visible_op *op)
{
    bool touches = op->kind == VIS_READ || op->kind == VIS_WRITE || op->kind == VIS_UPDATE || op->kind == VIS_SYNC ||
                   op->kind == VIS_RESUME;
    return touches && op->addr && in_reached(fp, op->addr, op->addr + (op->size ? op->size : 8));
}

/* A word of a footprint against an operation: as an atomic update of it. */
static bool word_conflicts(uint64_t word, const struct visible_op *op)
{
    struct visible_op w = {.kind = VIS_UPDATE, .atomic = true, .size = 4, .fn = -1, .addr = word};
    return visible_ops_conflict(&w, op);
}

static bool footprint_conflicts(const struct footprint *a, const struct visible_op *b_op, const struct footprint *b)
{
    if (reached_conflicts(a, b_op) || (b && a->reached_hi && in_reached(b, a->reached_lo, a->reached_hi)))
        return true;
    for (int k = 0; b && a->reached_hi && k < b->n; k++)
        if (in_reached(a, b->word[k], b->word[k] + 8))
            return true;
    for (int k = 0; b && b->reached_hi && k < a->n; k++)
        if (in_reached(b, a->word[k], a->word[k] + 8))
            return true;
    for (int i = 0; i < a->n; i++) {
        if (word_conflicts(a->word[i], b_op))
            return true;
        for (int k = 0; b && k < b->n; k++)
            if (a->word[i] == b->word[k])
                return true;
    }
    return false;
}

/* Two steps, each an operation and a footprint (NULL: none known). */
static bool dependent(const struct visible_op *a, const struct footprint *fa, const struct visible_op *b,
                      const struct footprint *fb)
{
    if (a->kind == VIS_EXIT || b->kind == VIS_EXIT || visible_ops_conflict(a, b))
        return true;
    if ((fa && fa->overflow) || (fb && fb->overflow))
        return true;
    return (fa && footprint_conflicts(fa, b, fb)) || (fb && footprint_conflicts(fb, a, NULL));
}

static struct thread_info *thread_info(struct dpor_state *d, int id)
{
    if (id < 0)
        abort();    /* dpor is refused under tso: no flush candidates */
    if ((size_t)id >= d->cap_th) {
        size_t cap = d->cap_th ? d->cap_th : 16;
        while (cap <= (size_t)id)
            cap *= 2;
        d->th = realloc(d->th, cap * sizeof *d->th);
        if (!d->th)
            abort();
        for (size_t i = d->cap_th; i < cap; i++)
            d->th[i] = (struct thread_info){{-1, -1}, -1, 0, 0, -1};
        d->cap_th = cap;
    }
    return &d->th[id];
}

static void node_free(struct dpor_node *n)
{
    free(n->enabled.at);
    free(n->ops);
    free(n->backtrack.at);
    free(n->done.at);
    free(n->sleep.at);
    free(n->sleep_ops);
    free(n->sleep_fps);
    free(n->taken);
    free(n->wait);
    memset(n, 0, sizeof *n);
}

static void truncate_nodes(struct dpor_state *d, size_t n)
{
    while (d->n_nodes > n)
        node_free(&d->nodes[--d->n_nodes]);
}

/* The op thread q would perform at node n (it could run there or slept). */
static const struct visible_op *op_at(const struct dpor_node *n, int q)
{
    for (size_t i = 0; i < n->enabled.n; i++)
        if (n->enabled.at[i] == q)
            return &n->ops[i];
    for (size_t i = 0; i < n->sleep.n; i++)
        if (n->sleep.at[i] == q)
            return &n->sleep_ops[i];
    return NULL;
}

/* The footprint of q's step from node n (q is done there), NULL if unknown. */
static const struct footprint *taken_fp(const struct dpor_node *n, int q)
{
    for (size_t i = 0; i < n->n_taken; i++)
        if (n->taken[i].thread == q)
            return &n->taken[i].fp;
    return NULL;
}

static void set_taken(struct dpor_node *n, int q, const struct footprint *fp)
{
    for (size_t i = 0; i < n->n_taken; i++)
        if (n->taken[i].thread == q) {
            n->taken[i].fp = *fp;
            return;
        }
    n->taken = realloc(n->taken, (n->n_taken + 1) * sizeof *n->taken);
    if (!n->taken)
        abort();
    n->taken[n->n_taken++] = (struct taken_step){q, *fp};
}

static void sleep_add(struct dpor_node *n, int q, const struct visible_op *op, const struct footprint *fp)
{
    if (idset_has(&n->sleep, q))
        return;
    idset_add(&n->sleep, q);
    n->sleep_ops = realloc(n->sleep_ops, n->sleep.cap * sizeof *n->sleep_ops);
    n->sleep_fps = realloc(n->sleep_fps, n->sleep.cap * sizeof *n->sleep_fps);
    if (!n->sleep_ops || !n->sleep_fps)
        abort();
    n->sleep_ops[n->sleep.n - 1] = *op;
    /* Unknown: as if it touched everything (it wakes on any step). */
    n->sleep_fps[n->sleep.n - 1] = fp ? *fp : (struct footprint){.overflow = true};
}

/* Node k (k == n_nodes) for the state after event k-1: its sleep set is the
 * parent's sleepers and already-explored threads that the step did not
 * wake (it was independent of their next operation). */
static struct dpor_node *new_node(struct dpor_state *d)
{
    if (d->n_nodes == d->cap_nodes) {
        d->cap_nodes = d->cap_nodes ? 2 * d->cap_nodes : 256;
        d->nodes = realloc(d->nodes, d->cap_nodes * sizeof *d->nodes);
        if (!d->nodes)
            abort();
    }
    size_t k = d->n_nodes++;
    struct dpor_node *n = &d->nodes[k];
    memset(n, 0, sizeof *n);
    if (k == 0 || k > d->n_ev)
        return n;
    const struct dpor_node *parent = &d->nodes[k - 1];
    const struct dpor_event *e = &d->ev[k - 1];
    for (size_t i = 0; i < parent->sleep.n; i++)
        if (parent->sleep.at[i] != e->thread &&
            !dependent(&parent->sleep_ops[i], &parent->sleep_fps[i], &e->op, &e->fp))
            sleep_add(n, parent->sleep.at[i], &parent->sleep_ops[i], &parent->sleep_fps[i]);
    for (size_t i = 0; i < parent->done.n; i++) {
        int q = parent->done.at[i];
        const struct visible_op *op = op_at(parent, q);
        const struct footprint *fp = taken_fp(parent, q);
        struct footprint unknown = {.overflow = true};
        if (q != e->thread && op && !dependent(op, fp ? fp : &unknown, &e->op, &e->fp))
            sleep_add(n, q, op, fp);
    }
    return n;
}

/* ---------- choosing ---------- */

static void dpor_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    struct dpor_state *d = s->state;
    d->n_ev = 0;
    d->wpos = 0;
    d->blocked = false;
    d->run_thread = 0;
    d->run_length = 0;
    d->n_end = 0;
    d->step_fp = (struct footprint){0};
    for (size_t i = 0; i < d->cap_th; i++)
        d->th[i] = (struct thread_info){{-1, -1}, -1, 0, 0, -1};
    s->stop = false;
}

/* Candidate i's step would only block (a lock someone holds, a join of a
 * live thread): it is no event, and the thread is not enabled, unless
 * every candidate is in that case (a deadlock: then they all are, and
 * the execution goes on to it). */
static bool waits_to_acquire(const struct choice_point *cp, size_t i)
{
    if (!cp->blocks || !cp->blocks[i])
        return false;
    for (size_t k = 0; k < cp->n; k++)
        if (!cp->blocks[k])
            return true;
    return false;
}

static size_t index_of(const struct choice_point *cp, int id)
{
    for (size_t i = 0; i < cp->n; i++)
        if (cp->threads[i] == id)
            return i;
    return cp->n;
}

/* The choice where any will do: the thread that ran last when it may (fewer
 * switches), unless it has been spinning; then the next one by id after
 * it, round robin. Threads in `asleep` are skipped; cp->n when all are. */
static size_t fair_default(const struct dpor_state *d, const struct choice_point *cp, const struct idset *asleep)
{
    bool spinning = d->run_thread == cp->previous && d->run_length >= SPIN_LIMIT;
    size_t best = cp->n, spinner = cp->n;
    for (size_t i = 0; i < cp->n; i++) {
        int t = cp->threads[i];
        if ((asleep && idset_has(asleep, t)) || waits_to_acquire(cp, i))
            continue;
        if (t == cp->previous) {
            if (!spinning)
                return i;
            spinner = i;
            continue;
        }
        /* Round robin from the previous thread: ids after it first. */
        bool after = t > cp->previous, best_after = best < cp->n && cp->threads[best] > cp->previous;
        if (best == cp->n || (after && !best_after) || (after == best_after && t < cp->threads[best]))
            best = i;
    }
    return best < cp->n ? best : spinner;
}

/* The spinners a choice left out (engine/spin_watch.h): each one's streak
 * of steps that changed nothing, its latest steps, is a no-op that only
 * repeats until another thread changes what it read (spin-assume, as
 * GenMC's). Its steps are marked no-ops: a later step of another thread
 * does not race with them (the spinner reads again once it is let out,
 * and that read races with the step that let it out), so no class is
 * made of where the rounds fall among the others' steps. Their races with
 * earlier steps stay: read before an earlier write, a no-op round may end
 * the loop. */
static void mark_spins(struct dpor_state *d, const struct choice_point *cp)
{
    /* Past MAX_EVENTS the latest steps were not kept: the ones found
     * walking back would be others. */
    if (d->n_ev >= MAX_EVENTS)
        return;
    for (size_t i = 0; i < cp->n_spinners; i++) {
        int spinner = cp->spinners[i];
        uint32_t left = cp->spin_steps ? cp->spin_steps[i] : 0;
        for (size_t k = d->n_ev; k-- > 0 && left > 0;)
            if (d->ev[k].thread == spinner) {
                d->ev[k].no_op = true;
                left--;
            }
    }
}

static void note_blocked(struct dpor_state *d, const struct choice_point *cp)
{
    d->n_end = 0;
    for (size_t i = 0; i < cp->n; i++) {
        if (!waits_to_acquire(cp, i))
            continue;
        if (d->n_end == d->cap_end) {
            d->cap_end = d->cap_end ? 2 * d->cap_end : 16;
            d->end_threads = realloc(d->end_threads, d->cap_end * sizeof *d->end_threads);
            d->end_ops = realloc(d->end_ops, d->cap_end * sizeof *d->end_ops);
            if (!d->end_threads || !d->end_ops)
                abort();
        }
        d->end_threads[d->n_end] = cp->threads[i];
        d->end_ops[d->n_end++] = cp->ops[i];
    }
}

static size_t dpor_pick_thread(struct strategy *s, const struct choice_point *cp)
{
    struct dpor_state *d = s->state;
    size_t k = d->n_ev;
    d->wpos = 0;
    note_blocked(d, cp);
    mark_spins(d, cp);
    if (k >= MAX_EVENTS) {
        d->too_long = true;
        return fair_default(d, cp, NULL);
    }
    if (k < d->prefix) {
        size_t i = index_of(cp, d->nodes[k].chosen);
        return i < cp->n ? i : 0;
    }
    truncate_nodes(d, k);
    struct dpor_node *n = new_node(d);
    n->asked = true;
    n->ops = malloc(cp->n * sizeof *n->ops);
    if (!n->ops)
        abort();
    for (size_t i = 0; i < cp->n; i++) {
        if (waits_to_acquire(cp, i))
            continue;
        n->ops[n->enabled.n] = cp->ops[i];
        idset_add(&n->enabled, cp->threads[i]);
    }
    size_t pick = fair_default(d, cp, &n->sleep);
    if (pick == cp->n) {
        d->blocked = true;
        s->stop = true;
        return 0;
    }
    n->chosen = cp->threads[pick];
    idset_add(&n->backtrack, n->chosen);
    idset_add(&n->done, n->chosen);
    return pick;
}

/* The streak of the thread that ran event k (for the spin limit). */
static void count_streak(struct dpor_state *d, int thread)
{
    if (thread == d->run_thread)
        d->run_length++;
    else {
        d->run_thread = thread;
        d->run_length = 1;
    }
}

static size_t dpor_pick_waiter(struct strategy *s, const struct choice_point *cp)
{
    struct dpor_state *d = s->state;
    size_t k = d->n_ev;
    if (k >= MAX_EVENTS) {
        d->too_long = true;
        return 0;
    }
    if (k >= d->n_nodes) {
        /* A step nobody chose (one thread could run) that wakes. */
        struct dpor_node *n = new_node(d);
        n->chosen = cp->waker;
        idset_add(&n->enabled, cp->waker);
        n->ops = calloc(1, sizeof *n->ops);
        idset_add(&n->backtrack, cp->waker);
        idset_add(&n->done, cp->waker);
    }
    struct dpor_node *n = &d->nodes[k];
    int w = d->wpos++;
    if (w < n->n_wait && k < d->prefix) {
        size_t i = index_of(cp, n->wait[w].ids[n->wait[w].chosen]);
        return i < cp->n ? i : 0;
    }
    n->n_wait = w + 1;
    n->wait = realloc(n->wait, (size_t)n->n_wait * sizeof *n->wait);
    if (!n->wait)
        abort();
    struct wait_choice *c = &n->wait[w];
    c->n = cp->n < MAX_WAITERS ? (int)cp->n : MAX_WAITERS;
    for (int i = 0; i < c->n; i++)
        c->ids[i] = cp->threads[i];
    c->chosen = 0;
    c->done = 1;
    return 0;
}

/* ---------- what happened (listener) ---------- */

static bool on_step(void *self, struct execution *ex, uint64_t step, int thread, const struct visible_op *op,
                    struct exec_result *res)
{
    struct dpor_state *d = self;
    count_streak(d, thread);
    struct footprint fp = d->step_fp;
    d->step_fp = (struct footprint){0};
    if (d->n_ev >= MAX_EVENTS) {
        d->too_long = true;
        return true;
    }
    if (d->n_ev == d->cap_ev) {
        d->cap_ev = d->cap_ev ? 2 * d->cap_ev : 1024;
        d->ev = realloc(d->ev, d->cap_ev * sizeof *d->ev);
        if (!d->ev)
            abort();
    }
    struct thread_info *t = thread_info(d, thread);
    size_t k = d->n_ev;
    if (k >= d->n_nodes) {
        struct dpor_node *n = new_node(d);
        n->chosen = thread;
        idset_add(&n->enabled, thread);
        n->ops = malloc(sizeof *n->ops);
        n->ops[0] = *op;
        idset_add(&n->backtrack, thread);
        idset_add(&n->done, thread);
    }
    set_taken(&d->nodes[k], thread, &fp);
    d->ev[d->n_ev++] = (struct dpor_event){thread, *op, fp, {t->pending[0], t->pending[1]}, ++t->count, false};
    t->pending[0] = t->pending[1] = -1;
    t->last = (int)k;
    d->wpos = 0;
    return true;
}

static void add_pending(struct dpor_state *d, int thread, int event)
{
    struct thread_info *t = thread_info(d, thread);
    if (t->pending[0] < 0)
        t->pending[0] = event;
    else
        t->pending[1] = event;
}

static void on_created(void *self, int parent, int child)
{
    struct dpor_state *d = self;
    add_pending(d, child, (int)d->n_ev);
}

static void on_woke(void *self, int waker, int woken, uint64_t addr)
{
    struct dpor_state *d = self;
    add_pending(d, woken, (int)d->n_ev);
}

static void on_exited(void *self, int thread, uint64_t pthread)
{
    struct dpor_state *d = self;
    struct thread_info *t = thread_info(d, thread);
    t->pthread = pthread;
    t->exited_at = (int)d->n_ev;
    /* A join that was waiting: the joiner's next step comes after the end. */
    for (size_t q = 0; q < d->cap_th; q++) {
        struct thread_info *j = &d->th[q];
        if (j->last >= 0 && d->ev[j->last].op.kind == VIS_JOIN && d->ev[j->last].op.addr == pthread && pthread &&
            t->last >= 0)
            add_pending(d, (int)q, t->last);
    }
}

static void on_touched_word(void *self, int thread, uint64_t addr)
{
    struct dpor_state *d = self;
    footprint_add(&d->step_fp, addr);
}

static bool on_freeing(void *self, struct execution *ex, int thread, uint64_t addr, const struct heap_block *b,
                       uint64_t call_pc, struct exec_result *res)
{
    struct dpor_state *d = self;
    if (b)
        footprint_add_reached(&d->step_fp, b->addr, b->addr + (b->size ? b->size : 1));
    else
        footprint_add(&d->step_fp, addr);   /* a block mdat did not see handed out: its first word at least */
    return true;
}

static void on_touched_range(void *self, int thread, uint64_t lo, uint64_t hi)
{
    struct dpor_state *d = self;
    (void)thread;
    footprint_add_reached(&d->step_fp, lo, hi > lo ? hi : lo + 1);
}

static void on_futex_call(void *self, int thread, uint64_t addr, bool wakes)
{
    struct dpor_state *d = self;
    footprint_add(&d->step_fp, addr);
}

static const struct exec_listener_ops dpor_listener_ops = {
    .after_step = on_step,
    .touched_word = on_touched_word,
    .futex_call = on_futex_call,
    .freeing = on_freeing,
    .touched_range = on_touched_range,
    .thread_created = on_created,
    .woke = on_woke,
    .thread_exited = on_exited,
};

/* ---------- after an execution ---------- */

void dpor_find_races(struct dpor_state *d);

/* The deepest node with something left to try; false when none is left. */
static bool next_branch(struct dpor_state *d)
{
    for (size_t k = d->n_nodes; k-- > 0;) {
        struct dpor_node *n = &d->nodes[k];
        for (int w = n->n_wait; w-- > 0;) {
            struct wait_choice *c = &n->wait[w];
            for (int i = 0; i < c->n; i++)
                if (!(c->done >> i & 1)) {
                    c->done |= 1ull << i;
                    c->chosen = i;
                    n->n_wait = w + 1;
                    truncate_nodes(d, k + 1);
                    d->prefix = k + 1;
                    d->changed = k;
                    return true;
                }
        }
        for (size_t i = 0; i < n->backtrack.n; i++) {
            int p = n->backtrack.at[i];
            if (idset_has(&n->done, p) || idset_has(&n->sleep, p) || !idset_has(&n->enabled, p))
                continue;
            idset_add(&n->done, p);
            n->chosen = p;
            n->n_wait = 0;
            truncate_nodes(d, k + 1);
            d->prefix = k + 1;
            d->changed = k;
            return true;
        }
    }
    return false;
}

/* The execution ended in its last step (the process's exit, or a failure
 * that killed it: a failed assertion, a crash) while other threads could
 * still have run there. What each would have done next is lost with the
 * process, so the end races with every one of their next steps, which are
 * no events of the trace (a thread that never ran at all has none): each is
 * tried before it. Without this a worker that had not started when main
 * failed (or returned) would never run before that end. */
static void race_with_end(struct dpor_state *d)
{
    if (d->blocked || d->n_nodes == 0)
        return;
    struct dpor_node *n = &d->nodes[d->n_nodes - 1];
    for (size_t i = 0; i < n->enabled.n; i++)
        if (n->enabled.at[i] != n->chosen)
            idset_add(&n->backtrack, n->enabled.at[i]);
}

static bool dpor_advance(struct strategy *s)
{
    struct dpor_state *d = s->state;
    if (!d->blocked)
        d->classes++;
    dpor_find_races(d);
    race_with_end(d);
    s->stop = false;
    return next_branch(d);
}

static bool dpor_search_state(const struct strategy *s, uint64_t *classes, int *bound)
{
    const struct dpor_state *d = s->state;
    *classes = d->classes;
    *bound = -1;
    return !d->too_long;
}

static void dpor_thread_created(struct strategy *s, int thread)
{
}

static void dpor_destroy(struct strategy *s)
{
    struct dpor_state *d = s->state;
    truncate_nodes(d, 0);
    free(d->nodes);
    free(d->ev);
    free(d->th);
    free(d->end_threads);
    free(d->end_ops);
    free(d);
}

static const struct strategy_ops dpor_ops = {
    .name = "dpor",
    .begin = dpor_begin,
    .pick_thread = dpor_pick_thread,
    .pick_waiter = dpor_pick_waiter,
    .thread_created = dpor_thread_created,
    .destroy = dpor_destroy,
    .advance = dpor_advance,
    .search_state = dpor_search_state,
};

struct strategy *strategy_dpor_new(void)
{
    struct strategy *s = calloc(1, sizeof *s);
    struct dpor_state *d = calloc(1, sizeof *d);
    s->ops = &dpor_ops;
    s->prefers_progress = true;
    s->sees_spinners = true;
    s->state = d;
    s->wants_ops = true;
    s->listener = (struct exec_listener){&dpor_listener_ops, d};
    return s;
}

/* ---------- races (source-DPOR's backtrack points) ---------- */

/* i happens before (or is) event k, by k's clock. */
static bool before(const struct dpor_event *ev, const uint32_t *vc_k, int i)
{
    return vc_k[ev[i].thread] >= ev[i].local;
}

/* Race (i, j): the threads that can start v = (the events after i not
 * ordered after it), then j, and adds one to i's backtrack set unless one
 * is there; when none of them could run at i, every thread that could. */
static void reverse_race(struct dpor_state *d, const uint32_t *vc, size_t width, size_t i, size_t j)
{
    const struct dpor_event *ev = d->ev;
    struct dpor_node *n = &d->nodes[i];
    uint32_t first[width];
    memset(first, 0, sizeof first);
    int initial = -1;
    bool covered = false;
    for (size_t k = i + 1; k <= j && !covered; k++) {
        const uint32_t *vk = vc + k * width;
        if (k < j && before(ev, vk, (int)i))
            continue;
        int t = ev[k].thread;
        if (first[t])
            continue;
        bool is_initial = true;
        for (size_t u = 0; u < width && is_initial; u++)
            if (first[u] && vk[u] >= first[u])
                is_initial = false;
        first[t] = ev[k].local;
        if (!is_initial)
            continue;
        if (idset_has(&n->backtrack, t))
            covered = true;
        else if (initial < 0 && idset_has(&n->enabled, t))
            initial = t;
    }
    if (covered)
        return;
    if (initial >= 0) {
        idset_add(&n->backtrack, initial);
        return;
    }
    for (size_t u = 0; u < n->enabled.n; u++)
        idset_add(&n->backtrack, n->enabled.at[u]);
}

/* A call that takes a lock for itself alone, made only when nobody holds
 * it (a thread whose call would block is not enabled: waits_to_acquire):
 * a mutex lock. Not rwlocks: their attempts stay events of their own
 * (model/waits.c), so their races are the ordinary ones. */
static bool is_lock_acquisition(const struct visible_op *op)
{
    return op->kind == VIS_SYNC && op->fn == MF_MUTEX_LOCK;
}

/* The event with which the thread of event i (a release of the lock at
 * addr: an unlock, a condition wait) took that lock, -1 if none is known:
 * its latest earlier call on the lock or resume inside such a call. */
static int matching_acquisition(const struct dpor_event *ev, size_t i, uint64_t addr)
{
    for (size_t k = i; k-- > 0;) {
        if (ev[k].thread != ev[i].thread || ev[k].op.addr != addr)
            continue;
        if (ev[k].op.kind == VIS_RESUME)
            return (int)k;
        if (ev[k].op.kind != VIS_SYNC)
            continue;
        switch (ev[k].op.fn) {
        case MF_MUTEX_LOCK: case MF_MUTEX_TRYLOCK: case MF_MUTEX_TIMEDLOCK:
        case MF_RWLOCK_RDLOCK: case MF_RWLOCK_WRLOCK: case MF_RWLOCK_TRYRDLOCK: case MF_RWLOCK_TRYWRLOCK:
            return (int)k;
        case MF_MUTEX_UNLOCK: case MF_RWLOCK_UNLOCK:
            return -1;  /* it did not hold it when i came */
        default:
            continue;
        }
    }
    return -1;
}

static bool is_sem_call(const struct visible_op *op, bool post)
{
    if (op->kind != VIS_SYNC)
        return false;
    if (post)
        return op->fn == MF_SEM_POST;
    return op->fn == MF_SEM_WAIT || op->fn == MF_SEM_TRYWAIT || op->fn == MF_SEM_TIMEDWAIT;
}

/* The event with which the thread of event i (a sem_post) last took a
 * unit of the same semaphore (its wait, or the resume inside one), -1 if
 * none: a semaphore used as a lock. */
static int matching_sem_wait(const struct dpor_event *ev, size_t i)
{
    for (size_t k = i; k-- > 0;)
        if (ev[k].thread == ev[i].thread && ev[k].op.addr == ev[i].op.addr &&
            (ev[k].op.kind == VIS_RESUME || is_sem_call(&ev[k].op, false)))
            return (int)k;
    return -1;
}

static void join_clock(uint32_t *into, const uint32_t *from, size_t width)
{
    for (size_t u = 0; u < width; u++)
        if (from[u] > into[u])
            into[u] = from[u];
}

/* Event j's clock (its thread's last event, what it came after, the
 * thread a join waited for) and its races with the events before it,
 * each reversed. */
static void races_of(struct dpor_state *d, uint32_t *vc, size_t width, const int *last, size_t j)
{
    const struct dpor_event *ev = d->ev;
    uint32_t *vj = vc + j * width;
    int t = ev[j].thread;
    if (last[t] >= 0)
        join_clock(vj, vc + (size_t)last[t] * width, width);
    for (int p = 0; p < 2; p++)
        if (ev[j].pred[p] >= 0 && (size_t)ev[j].pred[p] < j)
            join_clock(vj, vc + (size_t)ev[j].pred[p] * width, width);
    if (ev[j].op.kind == VIS_JOIN) {
        for (size_t u = 0; u < d->cap_th && u < width; u++)
            if (d->th[u].pthread == ev[j].op.addr && ev[j].op.addr && d->th[u].exited_at >= 0 &&
                (size_t)d->th[u].exited_at <= j && last[u] >= 0)
                join_clock(vj, vc + (size_t)last[u] * width, width);
    }
    /* The latest dependent events first: one already ordered before a
     * later one's clock is no race with j. */
    bool acquires = is_lock_acquisition(&ev[j].op);
    for (size_t i = j; i-- > 0;) {
        if (ev[i].thread == t || ev[i].no_op || !dependent(&ev[i].op, &ev[i].fp, &ev[j].op, &ev[j].fp))
            continue;
        if (!before(ev, vj, (int)i) && j >= d->changed) {
            /* An acquisition after a release of its lock could not
             * have come before it: the race is with the acquisition
             * the release ended. */
            int a = acquires && !is_lock_acquisition(&ev[i].op) ? matching_acquisition(ev, i, ev[j].op.addr) : -1;
            if (a < 0)
                reverse_race(d, vc, width, i, j);
            else if (!before(ev, vj, a))
                reverse_race(d, vc, width, (size_t)a, j);
            /* A wait on a semaphore after a post could not have come
             * before it when it would have blocked there; when the
             * poster had taken a unit itself (a semaphore used as a
             * lock), the wait races with that taking too, which is
             * no race of the trace once the post orders them. */
            a = is_sem_call(&ev[j].op, false) && is_sem_call(&ev[i].op, true) ? matching_sem_wait(ev, i) : -1;
            if (a >= 0 && !before(ev, vj, a))
                reverse_race(d, vc, width, (size_t)a, j);
        }
        join_clock(vj, vc + i * width, width);
    }
    vj[t] = ev[j].local;
}

/* The acquisitions the execution's last choice found blocked (a lock
 * held to the end, a semaphore at 0) were never made, so they are no
 * events: each is put after the trace as the next step of its thread and
 * its races are reversed like any other's (a main that returned holding a
 * lock another thread wanted: that thread taking it first is a class). */
static void races_of_blocked(struct dpor_state *d, uint32_t *vc, size_t width, const int *last, size_t n)
{
    for (size_t b = 0; b < d->n_end; b++) {
        int q = d->end_threads[b];
        if (q < 0 || (size_t)q >= width || (size_t)q >= d->cap_th)
            continue;
        if (n == d->cap_ev) {
            d->cap_ev = d->cap_ev ? 2 * d->cap_ev : 1024;
            d->ev = realloc(d->ev, d->cap_ev * sizeof *d->ev);
            if (!d->ev)
                abort();
        }
        const struct thread_info *t = &d->th[q];
        d->ev[n] = (struct dpor_event){q, d->end_ops[b], {0}, {t->pending[0], t->pending[1]}, t->count + 1, false};
        memset(vc + n * width, 0, width * sizeof *vc);
        races_of(d, vc, width, last, n);
    }
}

void dpor_find_races(struct dpor_state *d)
{
    size_t n = d->n_ev < d->n_nodes ? d->n_ev : d->n_nodes;
    if (n == 0)
        return;
    bool blocked_too = !d->blocked && !d->too_long && n == d->n_ev && d->n_end > 0;
    size_t width = 1;
    for (size_t k = 0; k < n; k++)
        if ((size_t)d->ev[k].thread + 1 > width)
            width = (size_t)d->ev[k].thread + 1;
    for (size_t b = 0; blocked_too && b < d->n_end; b++)
        if ((size_t)d->end_threads[b] + 1 > width)
            width = (size_t)d->end_threads[b] + 1;
    uint32_t *vc = calloc((n + 1) * width, sizeof *vc);
    int *last = malloc(width * sizeof *last);
    if (!vc || !last)
        abort();
    for (size_t u = 0; u < width; u++)
        last[u] = -1;
    for (size_t j = 0; j < n; j++) {
        races_of(d, vc, width, last, j);
        last[d->ev[j].thread] = (int)j;
    }
    if (blocked_too)
        races_of_blocked(d, vc, width, last, n);
    free(vc);
    free(last);
}
