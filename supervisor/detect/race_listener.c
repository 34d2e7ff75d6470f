/* race_listener: feeds race_detector from an execution and reports. */
#include "supervisor/detect/race_listener.h"
#include "supervisor/process/heap_map.h"
#include "supervisor/debuginfo/atomic_lines.h"
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_core.h"
#include "supervisor/model/source_model.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Whether a byte of the executable's data is of an atomic type, by file
 * address: asked once per address per batch (DWARF lookups are not free). */
struct atomic_cache {
    uint64_t *addr;             /* open addressing; 0 empty */
    uint8_t *atomic;            /* the answer: a bool, or an enum atomic_site */
    size_t cap, used;
};

struct race_listener {
    struct race_listener_config cfg;
    struct race_detector *detector;
    struct execution *ex;
    struct atomic_cache atomics;        /* by data address (file addresses) */
    struct atomic_cache atomic_sites;   /* by code address (file addresses): enum atomic_site */
    struct atomic_lines *lines;         /* the source read for it, made on first need */
    /* Stacks and TLS blocks of threads that exited during the step. */
    struct { uint64_t lo, hi; } *dead;
    size_t n_dead, cap_dead;
    bool failed;
    uint64_t failed_steps[2];
    /* RACES_FAIL_AT_END: the first race of the execution, for its end. */
    struct {
        char message[512], location[160], function[96];
        int thread;
    } kept;
    /* Modeled calls library code made during the running step (libstdc++'s
     * join and condition_variable::wait), judged after the step's own
     * operation. */
    struct library_call { int thread; int16_t fn; uint64_t obj, mutex; } *calls;
    size_t n_calls, cap_calls;
    /* pthread_once calls not yet returned: each releases once its thread's
     * stack is back above the call's. */
    struct once_call { int thread; uint64_t once, sp; } *onces;
    size_t n_onces, cap_onces;
};

struct race_listener *race_listener_new(const struct race_listener_config *cfg)
{
    struct race_listener *l = calloc(1, sizeof *l);
    if (!l)
        abort();
    l->cfg = *cfg;
    l->detector = race_detector_new();
    return l;
}

void race_listener_free(struct race_listener *l)
{
    if (!l)
        return;
    race_detector_free(l->detector);
    free(l->atomics.addr);
    free(l->atomics.atomic);
    free(l->atomic_sites.addr);
    free(l->atomic_sites.atomic);
    atomic_lines_free(l->lines);
    free(l->dead);
    free(l->calls);
    free(l->onces);
    free(l);
}

bool race_listener_judge_end(const struct race_listener *l, struct exec_result *res)
{
    if (!l->failed)
        return false;
    if (l->cfg.mode == RACES_FAIL_AT_END && res->kind == FAIL_NONE) {
        res->kind = FAIL_RACE;
        snprintf(res->message, sizeof res->message, "%s", l->kept.message);
        snprintf(res->location, sizeof res->location, "%s", l->kept.location);
        snprintf(res->function, sizeof res->function, "%s", l->kept.function);
        res->thread = l->kept.thread;
    }
    return true;
}

bool race_listener_failed_steps(const struct race_listener *l, uint64_t *earlier, uint64_t *later)
{
    *earlier = l->failed_steps[0];
    *later = l->failed_steps[1];
    return l->failed;
}

/* ---------- atomic objects ---------- */

static size_t cache_slot(uint64_t addr, size_t cap)
{
    return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 24) & (cap - 1);
}

static void cache_grow(struct atomic_cache *c)
{
    struct atomic_cache bigger = {.cap = c->cap ? c->cap * 2 : 256};
    bigger.addr = calloc(bigger.cap, sizeof *bigger.addr);
    bigger.atomic = calloc(bigger.cap, sizeof *bigger.atomic);
    if (!bigger.addr || !bigger.atomic)
        abort();
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->addr[i])
            continue;
        size_t k = cache_slot(c->addr[i], bigger.cap);
        while (bigger.addr[k])
            k = (k + 1) & (bigger.cap - 1);
        bigger.addr[k] = c->addr[i];
        bigger.atomic[k] = c->atomic[i];
    }
    bigger.used = c->used;
    free(c->addr);
    free(c->atomic);
    *c = bigger;
}

/* The answer cached for key, or -1 when not asked yet. */
static int cache_get(const struct atomic_cache *c, uint64_t key)
{
    if (c->cap)
        for (size_t k = cache_slot(key, c->cap); c->addr[k]; k = (k + 1) & (c->cap - 1))
            if (c->addr[k] == key)
                return c->atomic[k];
    return -1;
}

static int cache_put(struct atomic_cache *c, uint64_t key, int answer)
{
    if ((c->used + 1) * 4 > c->cap * 3)
        cache_grow(c);
    size_t k = cache_slot(key, c->cap);
    while (c->addr[k])
        k = (k + 1) & (c->cap - 1);
    c->addr[k] = key;
    c->atomic[k] = (uint8_t)answer;
    c->used++;
    return answer;
}

/* An object of the executable whose type is atomic (_Atomic, std::atomic). */
static bool atomic_object(struct race_listener *l, uint64_t addr, uint8_t size)
{
    struct execution *ex = l->ex;
    if (!code_map_in_exe_data(ex->cfg->code, addr, size ? size : 1, false))
        return false;
    uint64_t file_addr = addr - code_map_bias(ex->cfg->code);
    int known = cache_get(&l->atomics, file_addr);
    return known >= 0 ? known : cache_put(&l->atomics, file_addr, debuginfo_is_atomic_object(ex->cfg->exe, file_addr));
}

/* What the code at pc says of its plain accesses. */
enum atomic_site { SITE_PLAIN, SITE_LIBRARY_ATOMICS, SITE_ATOMIC_LINE };

static enum atomic_site judge_site(struct race_listener *l, uint64_t file_addr)
{
    const debuginfo *di = l->ex->cfg->exe;
    /* The C++ library's atomics, inlined into the program (an acquire
     * load or a release store is a plain mov there): whatever object
     * they work on, the stack or the heap, whose type mdat cannot see. */
    if (debuginfo_in_cxx_atomics(di, file_addr))
        return SITE_LIBRARY_ATOMICS;
    struct src_loc loc;
    if (debuginfo_code_location(di, file_addr, &loc) && loc.file && loc.line) {
        if (!l->lines)
            l->lines = atomic_lines_new();
        if (atomic_lines_calls_atomic(l->lines, loc.file, loc.line))
            return SITE_ATOMIC_LINE;
    }
    return SITE_PLAIN;
}

static enum atomic_site atomic_site(struct race_listener *l, uint64_t pc)
{
    struct execution *ex = l->ex;
    if (!pc || !code_map_is_user_code(ex->cfg->code, pc))
        return SITE_PLAIN;
    uint64_t file_addr = pc - code_map_bias(ex->cfg->code);
    int known = cache_get(&l->atomic_sites, file_addr);
    if (known < 0)
        known = cache_put(&l->atomic_sites, file_addr, judge_site(l, file_addr));
    return (enum atomic_site)known;
}

/* ---------- hooks ---------- */

static void on_begin(void *self, struct execution *ex)
{
    struct race_listener *l = self;
    l->ex = ex;
    l->failed = false;
    l->n_dead = 0;
    l->n_calls = 0;
    l->n_onces = 0;
    race_detector_begin(l->detector);
}

static void on_created(void *self, int parent, int child)
{
    struct race_listener *l = self;
    race_detector_thread_created(l->detector, parent, child);
}

static void on_woke(void *self, int waker, int woken, uint64_t addr)
{
    struct race_listener *l = self;
    race_detector_woke(l->detector, waker, woken, addr);
}

static void on_futex_call(void *self, int thread, uint64_t addr, bool wakes)
{
    struct race_listener *l = self;
    race_detector_futex_call(l->detector, thread, addr, wakes);
}

static void on_library_atomic(void *self, int thread, uint64_t addr)
{
    struct race_listener *l = self;
    race_detector_library_atomic(l->detector, thread, addr);
}

static void on_allocated(void *self, int thread, uint64_t addr, uint64_t size)
{
    struct race_listener *l = self;
    (void)thread;
    race_detector_forget(l->detector, addr, size);
}

static void once_entered(struct race_listener *l, int thread, uint64_t once, uint64_t sp)
{
    race_detector_once_entered(l->detector, thread, once);
    if (l->n_onces == l->cap_onces) {
        l->cap_onces = l->cap_onces ? l->cap_onces * 2 : 4;
        l->onces = realloc(l->onces, l->cap_onces * sizeof *l->onces);
        if (!l->onces)
            abort();
    }
    l->onces[l->n_onces++] = (struct once_call){thread, once, sp};
}

/* After a step of `thread`: its pthread_once calls that have returned. */
static void onces_returned(struct race_listener *l, int thread, uint64_t sp)
{
    for (size_t i = 0; i < l->n_onces;) {
        struct once_call *c = &l->onces[i];
        if (c->thread == thread && sp > c->sp) {
            race_detector_once_returned(l->detector, thread, c->once);
            *c = l->onces[--l->n_onces];
        } else {
            i++;
        }
    }
}

static void on_call_within_step(void *self, int thread, int fn, uint64_t arg0, uint64_t arg1, uint64_t sp)
{
    struct race_listener *l = self;
    if (fn == MF_ONCE) {
        once_entered(l, thread, arg0, sp);
        return;
    }
    if (l->n_calls == l->cap_calls) {
        l->cap_calls = l->cap_calls ? l->cap_calls * 2 : 4;
        l->calls = realloc(l->calls, l->cap_calls * sizeof *l->calls);
        if (!l->calls)
            abort();
    }
    bool cond_wait = fn == MF_COND_WAIT || fn == MF_COND_TIMEDWAIT;
    l->calls[l->n_calls++] = (struct library_call){thread, (int16_t)fn, arg0, cond_wait ? arg1 : 0};
}

/* The library calls of the step just judged, in the order they were made;
 * only the last one can still be waiting. */
static void judge_library_calls(struct race_listener *l, const struct race_step *step)
{
    for (size_t i = 0; i < l->n_calls; i++) {
        const struct library_call *c = &l->calls[i];
        if (c->thread != step->thread || !c->obj)
            continue;
        enum visible_kind kind = c->fn == MF_THREAD_JOIN ? VIS_JOIN : VIS_SYNC;
        struct visible_op op = {.kind = (uint8_t)kind, .fn = c->fn, .addr = c->obj, .pc = step->op->pc};
        struct race_step s = {.step = step->step, .thread = step->thread, .op = &op,
                              .waiting = step->waiting && i + 1 == l->n_calls, .mutex = c->mutex};
        race_detector_step(l->detector, &s, NULL);
    }
    l->n_calls = 0;
}

static void note_dead(struct race_listener *l, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return;
    if (l->n_dead == l->cap_dead) {
        l->cap_dead = l->cap_dead ? l->cap_dead * 2 : 4;
        l->dead = realloc(l->dead, l->cap_dead * sizeof *l->dead);
        if (!l->dead)
            abort();
    }
    l->dead[l->n_dead].lo = lo;
    l->dead[l->n_dead++].hi = hi;
}

/* A dead thread's stack and TLS block will be another thread's: what was
 * done there orders nothing with what the next owner does. */
static void on_exited(void *self, int thread, uint64_t pthread)
{
    struct race_listener *l = self;
    race_detector_thread_exited(l->detector, thread, pthread);
    const struct mthread *t = l->ex ? exec_thread_by_id(l->ex, thread) : NULL;
    if (!t || thread == 1)
        return;
    note_dead(l, t->stack_lo, t->stack_hi);
    uint64_t size, align;
    if (t->tls && debuginfo_tls_block(l->ex->cfg->exe, &size, &align))
        note_dead(l, t->tls - size, t->tls);
}

static void name_place(struct execution *ex, const struct race_access *a, struct race_place *p)
{
    p->thread = a->thread;
    p->write = a->write;
    p->step = a->step;
    p->pc = a->pc;
    exec_format_line(ex, a->pc, p->line, sizeof p->line);
    exec_format_function(ex, a->pc, p->function, sizeof p->function);
}

/* A race found: the failure of this execution, or a warning. */
static bool report(struct race_listener *l, const struct race *r, struct exec_result *res)
{
    struct execution *ex = l->ex;
    if (l->cfg.raced)
        l->cfg.raced(l->cfg.raced_ctx, r->earlier.pc, r->later.pc);
    struct race_place earlier, later;
    name_place(ex, &r->earlier, &earlier);
    name_place(ex, &r->later, &later);
    char object[160], message[512];
    model_name_data(ex, r->addr, object, sizeof object);
    race_report_message(object, &earlier, &later, message, sizeof message);
    if (l->cfg.mode == RACES_FAIL_AT_END) {
        if (!l->failed) {
            snprintf(l->kept.message, sizeof l->kept.message, "%s", message);
            snprintf(l->kept.location, sizeof l->kept.location, "%s", later.line);
            snprintf(l->kept.function, sizeof l->kept.function, "%s", later.function);
            l->kept.thread = later.thread;
            l->failed = true;
            l->failed_steps[0] = earlier.step;
            l->failed_steps[1] = later.step;
        }
        return true;
    }
    if (l->cfg.mode == RACES_FAIL) {
        res->kind = FAIL_RACE;
        snprintf(res->message, sizeof res->message, "%s", message);
        snprintf(res->location, sizeof res->location, "%s", later.line);
        snprintf(res->function, sizeof res->function, "%s", later.function);
        res->thread = later.thread;
        l->failed = true;
        l->failed_steps[0] = earlier.step;
        l->failed_steps[1] = later.step;
        return false;
    }
    char a[200], b[200];
    race_place_key(&earlier, a, sizeof a);
    race_place_key(&later, b, sizeof b);
    if (l->cfg.seen && !race_seen_first(l->cfg.seen, a, b))
        return true;
    FILE *out = l->cfg.warnings ? l->cfg.warnings : stderr;
    if (l->cfg.execution)
        fprintf(out, "mdat: warning: %s (execution %" PRIu64 ")\n", message, *l->cfg.execution);
    else
        fprintf(out, "mdat: warning: %s\n", message);
    fflush(out);
    return true;
}

static bool on_step(void *self, struct execution *ex, uint64_t step, int thread, const struct visible_op *op,
                    struct exec_result *res)
{
    struct race_listener *l = self;
    l->ex = ex;
    const struct mthread *t = exec_thread_by_id(ex, thread);
    struct race_step s = {.step = step, .thread = thread, .op = op, .waiting = t && t->state == TS_BLOCKED};
    if (t && op->kind == VIS_SYNC && (op->fn == MF_COND_WAIT || op->fn == MF_COND_TIMEDWAIT) &&
        t->call_fn == (enum model_fn)op->fn)
        s.mutex = t->call_arg[1];
    if ((op->kind == VIS_READ || op->kind == VIS_WRITE) && !op->atomic) {
        enum atomic_site site = atomic_site(l, op->pc);
        s.atomic_object = site == SITE_LIBRARY_ATOMICS || atomic_object(l, op->addr, op->size);
        s.atomic_line = site == SITE_ATOMIC_LINE;
    }
    struct race r;
    bool raced = race_detector_step(l->detector, &s, &r);
    if (l->n_calls)
        judge_library_calls(l, &s);
    if (l->n_onces && t)
        onces_returned(l, thread, t->regs.rsp);
    for (size_t i = 0; i < l->n_dead; i++)
        race_detector_forget(l->detector, l->dead[i].lo, l->dead[i].hi - l->dead[i].lo);
    l->n_dead = 0;
    return !raced || report(l, &r, res);
}

/* A block the user's code freed is the allocator's: what was done to it
 * is over (a use after it is heap_errors.c's), and the allocator may hand
 * it out again through a call mdat does not follow (strdup), to another
 * thread, as new data. Forgotten after its step's own access is judged:
 * that access came before the free. */
static void on_freed(void *self, struct execution *ex, int thread, const struct heap_block *b, uint64_t call_pc)
{
    (void)ex, (void)thread, (void)call_pc;
    if (b->addr)
        note_dead(self, b->addr, b->addr + (b->size ? b->size : 1));
}

static const struct exec_listener_ops race_listener_ops = {
    .begin = on_begin,
    .after_step = on_step,
    .thread_created = on_created,
    .woke = on_woke,
    .futex_call = on_futex_call,
    .library_atomic = on_library_atomic,
    .call_within_step = on_call_within_step,
    .allocated = on_allocated,
    .freed = on_freed,
    .thread_exited = on_exited,
};

struct exec_listener race_listener_hooks(struct race_listener *l)
{
    return (struct exec_listener){&race_listener_ops, l};
}
