/* timeline_model: lanes, kept steps, hold and blocked intervals and
 * wake-ups of one execution, gathered from its events and states. */
#include "ui/render/timeline_model.h"
#include "ui/render/trace_log.h"

#include <stdlib.h>
#include <string.h>

/* A lock held now: its hold interval is not finished. */
struct open_hold {
    int object;
    int holder;
    uint64_t from;
    bool seen;                      /* still in the state being read */
};

/* What a lane is doing now, beside what it shows. */
struct lane_track {
    bool waiting;
    enum thread_status status;
    uint64_t from;
    char what[200];
    bool wake_pending;              /* woken by another thread, not yet run since */
    struct timeline_wake wake;
};

struct timeline_tracking {
    struct lane_track *lanes;       /* parallel to timeline.lanes */
    int *lane_of_id;                /* thread id -> lane index + 1 (0: none) */
    int ids_cap;
    struct open_hold *holds;
    int n_holds, holds_cap;
    bool ended;
};

static void *grow(void *array, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return array;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(array, n * size);
    if (!p)
        abort();
    *cap = n;
    return p;
}

static void copy_text(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

enum timeline_kind timeline_kind_of(const char *op)
{
    static const struct {
        const char *op;
        enum timeline_kind kind;
    } exact[] = {
        {"R", TL_READ}, {"W", TL_WRITE}, {"RMW", TL_ATOMIC}, {"atomic", TL_ATOMIC},
        {"start", TL_THREAD}, {"create", TL_THREAD}, {"join", TL_THREAD}, {"thread_exit", TL_THREAD},
        {"exit", TL_THREAD}, {"yield", TL_YIELD}, {"sleep", TL_YIELD}, {"wakes", TL_SYNC}, {"timeout", TL_SYNC},
        {"lock", TL_SYNC}, {"trylock", TL_SYNC}, {"timedlock", TL_SYNC}, {"unlock", TL_SYNC},
        {"rdlock", TL_SYNC}, {"wrlock", TL_SYNC}, {"tryrdlock", TL_SYNC}, {"trywrlock", TL_SYNC},
        {"rwunlock", TL_SYNC},
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(op, exact[i].op) == 0)
            return exact[i].kind;
    static const char *const sync_prefixes[] = {"cond_", "sem_", "barrier_", "rwlock_", "spin_", "mutex_", "futex"};
    for (size_t i = 0; i < sizeof sync_prefixes / sizeof sync_prefixes[0]; i++)
        if (strncmp(op, sync_prefixes[i], strlen(sync_prefixes[i])) == 0)
            return TL_SYNC;
    return TL_OTHER;
}

const char *timeline_kind_name(enum timeline_kind k)
{
    static const char *const names[TL_KIND_COUNT] = {"read", "write", "atomic", "sync", "thread", "yield", "other"};
    return (unsigned)k < TL_KIND_COUNT ? names[k] : "other";
}

struct timeline *timeline_new(void)
{
    struct timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        abort();
    tl->ring = calloc(TIMELINE_MAX_STEPS, sizeof *tl->ring);
    tl->tracking = calloc(1, sizeof *tl->tracking);
    if (!tl->ring || !tl->tracking)
        abort();
    return tl;
}

void timeline_free(struct timeline *tl)
{
    if (!tl)
        return;
    if (tl->tracking) {
        free(tl->tracking->lanes);
        free(tl->tracking->lane_of_id);
        free(tl->tracking->holds);
        free(tl->tracking);
    }
    free(tl->ring);
    free(tl->lanes);
    free(tl->holds);
    free(tl->blocked);
    free(tl->objects);
    free(tl->wakes);
    free(tl);
}

uint64_t timeline_total_steps(const struct timeline *tl)
{
    return tl->last_step > tl->n_events ? tl->last_step : tl->n_events;
}

size_t timeline_n_steps(const struct timeline *tl)
{
    return tl->n_events < TIMELINE_MAX_STEPS ? (size_t)tl->n_events : TIMELINE_MAX_STEPS;
}

const struct trace_event *timeline_step(const struct timeline *tl, size_t i)
{
    uint64_t oldest = tl->n_events - timeline_n_steps(tl);
    return &tl->ring[(oldest + i) % TIMELINE_MAX_STEPS];
}

uint64_t timeline_first_step(const struct timeline *tl)
{
    return timeline_n_steps(tl) ? timeline_step(tl, 0)->step : 0;
}

int timeline_lane_index(const struct timeline *tl, int id)
{
    const struct timeline_tracking *t = tl->tracking;
    if (id > 0 && id < t->ids_cap && t->lane_of_id[id])
        return t->lane_of_id[id] - 1;
    for (int i = 0; i < tl->n_lanes; i++)     /* ids beyond the map (0, negative) */
        if (tl->lanes[i].id == id)
            return i;
    return -1;
}

const struct timeline_lane *timeline_lane(const struct timeline *tl, int id)
{
    int i = timeline_lane_index(tl, id);
    return i < 0 ? NULL : &tl->lanes[i];
}

static void map_lane(struct timeline_tracking *t, int id, int index)
{
    if (id <= 0)
        return;
    if (id >= t->ids_cap) {
        int n = t->ids_cap ? t->ids_cap : 64;
        while (n <= id)
            n *= 2;
        int *map = realloc(t->lane_of_id, (size_t)n * sizeof *map);
        if (!map)
            abort();
        memset(map + t->ids_cap, 0, (size_t)(n - t->ids_cap) * sizeof *map);
        t->lane_of_id = map;
        t->ids_cap = n;
    }
    t->lane_of_id[id] = index + 1;
}

static int lane_for(struct timeline *tl, int id)
{
    int i = timeline_lane_index(tl, id);
    if (i >= 0)
        return i;
    size_t cap = (size_t)tl->lanes_cap, track_cap = (size_t)tl->lanes_cap;
    tl->lanes = grow(tl->lanes, &cap, (size_t)tl->n_lanes + 1, sizeof *tl->lanes);
    tl->tracking->lanes = grow(tl->tracking->lanes, &track_cap, (size_t)tl->n_lanes + 1, sizeof *tl->tracking->lanes);
    tl->lanes_cap = (int)cap;
    i = tl->n_lanes++;
    tl->lanes[i] = (struct timeline_lane){.id = id};
    tl->tracking->lanes[i] = (struct lane_track){0};
    map_lane(tl->tracking, id, i);
    return i;
}

/* Whether an interval or wake-up ending at step `to` (0: at the end) still
 * shows among the kept steps. */
static bool still_shown(const struct timeline *tl, uint64_t to)
{
    return to == 0 || timeline_n_steps(tl) < TIMELINE_MAX_STEPS || to >= timeline_first_step(tl);
}

static size_t prune_intervals(const struct timeline *tl, struct timeline_interval *v, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (still_shown(tl, v[i].to))
            v[kept++] = v[i];
    return kept;
}

static void push_interval(struct timeline *tl, struct timeline_interval **v, size_t *n, size_t *cap,
                          const struct timeline_interval *in)
{
    if (*n == *cap)
        *n = prune_intervals(tl, *v, *n);
    *v = grow(*v, cap, *n + 1, sizeof **v);
    (*v)[(*n)++] = *in;
}

static void push_wake(struct timeline *tl, const struct timeline_wake *w)
{
    if (tl->n_wakes == tl->wakes_cap) {
        size_t kept = 0;
        for (size_t i = 0; i < tl->n_wakes; i++)
            if (still_shown(tl, tl->wakes[i].from_step))
                tl->wakes[kept++] = tl->wakes[i];
        tl->n_wakes = kept;
    }
    tl->wakes = grow(tl->wakes, &tl->wakes_cap, tl->n_wakes + 1, sizeof *tl->wakes);
    tl->wakes[tl->n_wakes++] = *w;
}

static bool is_waiting(enum thread_status s)
{
    return s >= THREAD_WAITING_LOCK && s <= THREAD_WAITING_IO;
}

static void close_wait(struct timeline *tl, int lane, uint64_t to)
{
    struct lane_track *lt = &tl->tracking->lanes[lane];
    struct timeline_interval in = {.thread = tl->lanes[lane].id, .from = lt->from, .to = to, .object = -1,
                                   .status = lt->status};
    copy_text(in.what, sizeof in.what, lt->what);
    push_interval(tl, &tl->blocked, &tl->n_blocked, &tl->blocked_cap, &in);
    lt->waiting = false;
}

/* The threads of the state after ev: names, statuses, waits, wake-ups. */
static void read_threads(struct timeline *tl, const struct trace_event *ev, const struct exec_state *s,
                         uint64_t opened_at)
{
    for (int i = 0; i < s->n_threads; i++) {
        const struct state_thread *t = &s->threads[i];
        int lane = lane_for(tl, t->id);
        struct timeline_lane *l = &tl->lanes[lane];
        struct lane_track *lt = &tl->tracking->lanes[lane];
        copy_text(l->start, sizeof l->start, t->start);
        l->has_status = true;
        l->status = t->status;
        copy_text(l->waiting_on, sizeof l->waiting_on, t->waiting_on);
        l->waits_for = t->waits_for;
        bool waiting = is_waiting(t->status);
        if (lt->waiting && (!waiting || lt->status != t->status)) {
            if (!waiting && ev->thread != t->id) {
                lt->wake_pending = true;
                lt->wake = (struct timeline_wake){.from_step = ev->step, .from_thread = ev->thread, .to_thread = t->id};
                trace_log_operation(ev, lt->wake.by, sizeof lt->wake.by);
                copy_text(lt->wake.what, sizeof lt->wake.what, lt->what);
            }
            close_wait(tl, lane, ev->step);
        }
        if (waiting && !lt->waiting) {
            lt->waiting = true;
            lt->status = t->status;
            lt->from = opened_at;
            copy_text(lt->what, sizeof lt->what, t->waiting_on);
        }
    }
}

static bool is_lock(enum sync_kind k)
{
    return k == SYNC_MUTEX || k == SYNC_SPINLOCK || k == SYNC_RWLOCK;
}

/* Objects are known by kind and address; one without an address by its name. */
static int find_object(const struct timeline *tl, const struct state_object *o)
{
    for (int i = 0; i < tl->n_objects; i++) {
        const struct timeline_object *x = &tl->objects[i];
        if (x->kind == o->kind && x->addr == o->addr && (o->addr != 0 || strcmp(x->name, o->name) == 0))
            return i;
    }
    return -1;
}

static int add_object(struct timeline *tl, const struct state_object *o)
{
    size_t cap = (size_t)tl->objects_cap;
    tl->objects = grow(tl->objects, &cap, (size_t)tl->n_objects + 1, sizeof *tl->objects);
    tl->objects_cap = (int)cap;
    struct timeline_object *x = &tl->objects[tl->n_objects];
    *x = (struct timeline_object){.kind = o->kind, .addr = o->addr};
    copy_text(x->name, sizeof x->name, o->name);
    return tl->n_objects++;
}

static struct open_hold *open_hold_of(struct timeline_tracking *t, int object)
{
    for (int i = 0; i < t->n_holds; i++)
        if (t->holds[i].object == object)
            return &t->holds[i];
    return NULL;
}

static void close_hold(struct timeline *tl, struct open_hold *h, uint64_t to)
{
    struct timeline_interval in = {.thread = h->holder, .from = h->from, .to = to, .object = h->object};
    push_interval(tl, &tl->holds, &tl->n_holds, &tl->holds_cap, &in);
}

/* The locks of the state after step: holds that began and ended with it. */
static void read_holds(struct timeline *tl, uint64_t step, const struct exec_state *s, uint64_t opened_at)
{
    struct timeline_tracking *t = tl->tracking;
    for (int i = 0; i < t->n_holds; i++)
        t->holds[i].seen = false;
    for (int i = 0; i < s->n_objects; i++) {
        const struct state_object *o = &s->objects[i];
        if (!is_lock(o->kind))
            continue;
        int holder = o->holder > 0 ? o->holder : 0;
        int object = find_object(tl, o);
        struct open_hold *h = object >= 0 ? open_hold_of(t, object) : NULL;
        if (h && h->holder == holder) {
            h->seen = true;
            continue;
        }
        /* h, if any, is left unseen: closed below. */
        if (holder == 0)
            continue;
        if (object < 0)
            object = add_object(tl, o);
        size_t cap = (size_t)t->holds_cap;
        t->holds = grow(t->holds, &cap, (size_t)t->n_holds + 1, sizeof *t->holds);
        t->holds_cap = (int)cap;
        t->holds[t->n_holds++] = (struct open_hold){.object = object, .holder = holder, .from = opened_at, .seen = true};
    }
    int kept = 0;
    for (int i = 0; i < t->n_holds; i++) {
        if (t->holds[i].seen)
            t->holds[kept++] = t->holds[i];
        else
            close_hold(tl, &t->holds[i], step);
    }
    t->n_holds = kept;
}

/* Without states: a "wakes X" step was caused by the last step of another
 * thread on X among the kept ones. */
static void guess_wake(struct timeline *tl, const struct trace_event *ev)
{
    for (size_t i = timeline_n_steps(tl); i-- > 0;) {
        const struct trace_event *e = timeline_step(tl, i);
        if (e->thread != ev->thread && strcmp(e->object, ev->object) == 0) {
            struct timeline_wake w = {.from_step = e->step, .from_thread = e->thread, .to_step = ev->step,
                                      .to_thread = ev->thread};
            trace_log_operation(e, w.by, sizeof w.by);
            copy_text(w.what, sizeof w.what, ev->object);
            push_wake(tl, &w);
            return;
        }
    }
}

void timeline_add(struct timeline *tl, const struct trace_event *ev, const struct exec_state *state)
{
    if (tl->tracking->ended)
        return;
    int lane = lane_for(tl, ev->thread);
    struct lane_track *lt = &tl->tracking->lanes[lane];
    if (lt->wake_pending) {
        lt->wake.to_step = ev->step;
        push_wake(tl, &lt->wake);
        lt->wake_pending = false;
    }
    if (state) {
        tl->have_states = true;
        /* A wait or hold already there at the first step told began
         * earlier, when the execution's first steps were not told (from
         * 0: "before" it). */
        uint64_t opened_at = tl->n_events == 0 && ev->step > 1 ? 0 : ev->step;
        read_threads(tl, ev, state, opened_at);
        read_holds(tl, ev->step, state, opened_at);
    } else if (!tl->have_states && strcmp(ev->op, "wakes") == 0) {
        guess_wake(tl, ev);
    }
    if (tl->n_events == 0)
        tl->first_told = ev->step;
    tl->ring[tl->n_events % TIMELINE_MAX_STEPS] = *ev;
    tl->n_events++;
    tl->last_step = ev->step;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void timeline_set_summary(struct timeline *tl, const struct trace_summary *s)
{
    struct timeline_summary *m = &tl->summary;
    *m = (struct timeline_summary){.known = true, .seed = s->seed, .execution = s->execution, .steps = s->steps,
                                   .thread = s->thread};
    copy_text(m->program, sizeof m->program, base_name(s->program ? s->program : ""));
    size_t used = 0;
    for (int i = 0; i < s->n_args && used < sizeof m->args; i++) {
        int n = snprintf(m->args + used, sizeof m->args - used, "%s%s", i ? " " : "", s->args[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    copy_text(m->strategy, sizeof m->strategy, s->strategy);
    copy_text(m->failure, sizeof m->failure, s->failure && s->failure[0] ? s->failure : "none");
    copy_text(m->message, sizeof m->message, s->message);
    copy_text(m->location, sizeof m->location, s->location);
    m->n_marked = s->n_marked < 0 ? 0 : s->n_marked > 2 ? 2 : s->n_marked;
    for (int i = 0; i < m->n_marked; i++)
        m->marked[i] = s->marked_steps[i];
}

bool timeline_step_marked(const struct timeline *tl, uint64_t step)
{
    for (int i = 0; i < tl->summary.n_marked; i++)
        if (tl->summary.marked[i] == step)
            return true;
    return false;
}

uint64_t timeline_failing_step(const struct timeline *tl)
{
    size_t n = timeline_n_steps(tl);
    if (!tl->summary.known || strcmp(tl->summary.failure, "none") == 0 || n == 0)
        return 0;
    if (tl->summary.thread > 0)
        for (size_t i = n; i-- > 0;)
            if (timeline_step(tl, i)->thread == tl->summary.thread)
                return timeline_step(tl, i)->step;
    return timeline_step(tl, n - 1)->step;
}

int timeline_waits_for_at_end(const struct timeline *tl, const struct timeline_lane *lane)
{
    if (!lane->has_status || !is_waiting(lane->status) || lane->waits_for <= 0)
        return 0;
    return timeline_lane(tl, lane->waits_for) ? lane->waits_for : 0;
}

bool timeline_in_wait_cycle(const struct timeline *tl, const struct timeline_lane *lane)
{
    /* A path longer than the lanes has met a cycle that may not include
     * this lane; one that comes back to it within that many has. */
    const struct timeline_lane *at = lane;
    for (int hops = 0; hops < tl->n_lanes; hops++) {
        int next = timeline_waits_for_at_end(tl, at);
        if (next == 0)
            return false;
        if (next == lane->id)
            return true;
        at = timeline_lane(tl, next);
    }
    return false;
}

static int by_id(const void *a, const void *b)
{
    const struct timeline_lane *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

void timeline_end(struct timeline *tl)
{
    struct timeline_tracking *t = tl->tracking;
    if (t->ended)
        return;
    t->ended = true;
    for (int i = 0; i < t->n_holds; i++)
        close_hold(tl, &t->holds[i], 0);
    t->n_holds = 0;
    for (int i = 0; i < tl->n_lanes; i++)
        if (t->lanes[i].waiting)
            close_wait(tl, i, 0);
    tl->n_holds = prune_intervals(tl, tl->holds, tl->n_holds);
    tl->n_blocked = prune_intervals(tl, tl->blocked, tl->n_blocked);
    /* Lanes by thread id; the tracking beside them is done with. */
    qsort(tl->lanes, (size_t)tl->n_lanes, sizeof *tl->lanes, by_id);
    for (int i = 0; i < tl->n_lanes; i++)
        map_lane(t, tl->lanes[i].id, i);
}
