/* cause_steps: the steps a failure's report points at, per kind of
 * failure, from the trace events alone.
 *
 * A variable is named by the start of an event's object ("queue" of
 * "queue.buf[3]"), which is what an expression in the source names too.
 * A lost update is a thread's load and store of a variable with another
 * thread's store between them: that store is lost. */
#include "supervisor/detect/cause_steps.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- picking ---------- */

struct picked {
    size_t *at;
    int n, max;
};

static void pick(struct picked *p, size_t i)
{
    for (int k = 0; k < p->n; k++)
        if (p->at[k] == i)
            return;
    if (p->n < p->max)
        p->at[p->n++] = i;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* ---------- what an event is ---------- */

static bool is_load(const struct cause_event *e)
{
    return strcmp(e->op, "R") == 0;
}

static bool is_store(const struct cause_event *e)
{
    return strcmp(e->op, "W") == 0 || strcmp(e->op, "flush") == 0;
}

static bool is_write(const struct cause_event *e)
{
    return is_store(e) || strcmp(e->op, "RMW") == 0 || strcmp(e->op, "atomic") == 0 || strcmp(e->op, "cas") == 0;
}

/* The variable an object names: "queue" of "queue.buf[3]" or "queue->n". */
static void variable_of(const char *object, char *buf, size_t len)
{
    size_t n = strcspn(object, ".[- (");
    if (n >= len)
        n = len - 1;
    memcpy(buf, object, n);
    buf[n] = '\0';
}

static bool names_variable(const struct cause_event *e, const char *var)
{
    char v[96];
    variable_of(e->object, v, sizeof v);
    return v[0] && strcmp(v, var) == 0;
}

/* The last event before `before` (exclusive) matching thread (0: any
 * thread but `not`) and object; n when none. */
static size_t last_on(const struct cause_event *ev, size_t before, int thread, int not, const char *object,
                      bool (*kind)(const struct cause_event *))
{
    for (size_t i = before; i-- > 0;) {
        const struct cause_event *e = &ev[i];
        if ((thread && e->thread != thread) || (not && e->thread == not))
            continue;
        if (strcmp(e->object, object) == 0 && (!kind || kind(e)))
            return i;
    }
    return (size_t)-1;
}

/* ---------- lost updates ---------- */

/* What one pass over the events keeps per object: each thread's last load,
 * the last write with the load its thread made before it, and the last
 * write by a thread other than that one (with its load). */
enum { LOADERS = 8 };
struct var_state {
    const char *object;
    int loader[LOADERS];
    size_t load[LOADERS];
    int n_loaders;
    int writer, other_writer;           /* 0: none yet */
    size_t write, write_load, other, other_load;
};

/* Objects by name: slots hold 1 + an index into vars (0: free). */
struct var_table {
    uint32_t *slot;
    size_t cap;                         /* a power of two, at least twice the objects */
    struct var_state *vars;
    size_t n, room;
};

static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* NULL when out of memory. */
static struct var_state *var_of(struct var_table *t, const char *object)
{
    size_t i = hash_text(object) & (t->cap - 1);
    for (; t->slot[i]; i = (i + 1) & (t->cap - 1))
        if (strcmp(t->vars[t->slot[i] - 1].object, object) == 0)
            return &t->vars[t->slot[i] - 1];
    if (t->n == t->room) {
        size_t room = t->room ? t->room * 2 : 64;
        struct var_state *vars = realloc(t->vars, room * sizeof *vars);
        if (!vars)
            return NULL;
        t->vars = vars;
        t->room = room;
    }
    struct var_state *v = &t->vars[t->n];
    memset(v, 0, sizeof *v);
    v->object = object;
    t->slot[i] = (uint32_t)++t->n;
    return v;
}

static size_t last_load_of(const struct var_state *v, int thread)
{
    for (int k = 0; k < v->n_loaders; k++)
        if (v->loader[k] == thread)
            return v->load[k];
    return (size_t)-1;
}

static void note_load(struct var_state *v, int thread, size_t at)
{
    for (int k = 0; k < v->n_loaders; k++)
        if (v->loader[k] == thread) {
            v->load[k] = at;
            return;
        }
    int k = v->n_loaders < LOADERS ? v->n_loaders++ : (int)(at % LOADERS);
    v->loader[k] = thread;
    v->load[k] = at;
}

static void note_write(struct var_state *v, int thread, size_t at)
{
    if (v->writer && v->writer != thread) {
        v->other_writer = v->writer;
        v->other = v->write;
        v->other_load = v->write_load;
    }
    v->writer = thread;
    v->write = at;
    v->write_load = last_load_of(v, thread);
}

/* The last lost update on variable var (every variable when var is NULL):
 * thread A loads, thread B stores, A stores over it. Picks B's load before
 * its store too: the two loads and two stores. False when there is none.
 * One pass, the objects in a hash table: a long trace costs no more than
 * its length. */
static bool lost_update(const struct cause_event *ev, size_t n, const char *var, struct picked *p)
{
    struct var_table t = {.cap = 16};
    while (t.cap < 2 * n)
        t.cap *= 2;
    t.slot = calloc(t.cap, sizeof *t.slot);
    if (!t.slot)
        return false;
    size_t best[4];
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        const struct cause_event *e = &ev[i];
        if (!(is_load(e) || is_write(e)) || !e->object[0] || (var && !names_variable(e, var)))
            continue;
        struct var_state *v = var_of(&t, e->object);
        if (!v)
            break;
        if (is_load(e)) {
            note_load(v, e->thread, i);
            continue;
        }
        size_t r = last_load_of(v, e->thread);
        /* The last write by another thread, after this thread's load. */
        size_t other = v->writer && v->writer != e->thread ? v->write : v->other_writer ? v->other : (size_t)-1;
        size_t other_load = v->writer && v->writer != e->thread ? v->write_load : v->other_load;
        if (is_store(e) && r != (size_t)-1 && other != (size_t)-1 && other > r) {
            best[0] = r;
            best[1] = other_load;
            best[2] = other;
            best[3] = i;
            found = true;
        }
        note_write(v, e->thread, i);
    }
    free(t.slot);
    free(t.vars);
    if (!found)
        return false;
    for (int k = 0; k < 4; k++)
        if (best[k] != (size_t)-1)
            pick(p, best[k]);
    return true;
}

/* ---------- per kind ---------- */

/* The C identifiers of an expression that name variables: not a member
 * after . or -> (part of the variable before it), not a keyword, not a
 * name in capitals (a macro such as N). */
static int identifiers(const char *expr, char names[][64], int max)
{
    static const char *const keywords[] = {"sizeof", "true", "false", "int", "long", "unsigned", "char"};
    int n = 0;
    const char *s = expr;
    while (*s && n < max) {
        if (!(isalpha((unsigned char)*s) || *s == '_')) {
            s++;
            continue;
        }
        const char *before = s;
        while (before > expr && before[-1] == ' ')
            before--;
        bool member = before > expr && (before[-1] == '.' || (before[-1] == '>' && before - 1 > expr && before[-2] == '-'));
        size_t len = 0;
        bool capitals = true;
        while (isalnum((unsigned char)s[len]) || s[len] == '_') {
            capitals = capitals && !islower((unsigned char)s[len]);
            len++;
        }
        bool skip = member || capitals || len >= 64;
        for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
            skip = skip || (strlen(keywords[k]) == len && strncmp(keywords[k], s, len) == 0);
        if (!skip) {
            memcpy(names[n], s, len);
            names[n][len] = '\0';
            n++;
        }
        s += len;
    }
    return n;
}

/* The text between `open` and the first `close` after it in message. */
static bool quoted(const char *message, const char *open, char close, char *buf, size_t len)
{
    const char *s = strstr(message, open);
    if (!s)
        return false;
    s += strlen(open);
    const char *e = strchr(s, close);
    if (!e || (size_t)(e - s) >= len)
        return false;
    memcpy(buf, s, (size_t)(e - s));
    buf[e - s] = '\0';
    return true;
}

/* The variables of a failed expression: a lost update on one, else the
 * last write to each by each thread. */
static void expression_steps(const char *expr, const struct cause_event *ev, size_t n, struct picked *p)
{
    char names[8][64];
    int k = identifiers(expr, names, 8);
    for (int v = 0; v < k; v++) {
        if (lost_update(ev, n, names[v], p))
            continue;
        int threads[16], n_threads = 0;
        for (size_t i = n; i-- > 0 && n_threads < 16;) {
            if (!is_write(&ev[i]) || !names_variable(&ev[i], names[v]))
                continue;
            bool seen = false;
            for (int t = 0; t < n_threads; t++)
                seen = seen || threads[t] == ev[i].thread;
            if (!seen) {
                threads[n_threads++] = ev[i].thread;
                pick(p, i);
            }
        }
    }
}

/* The name of the object in "mutex lock_b (held by T3)". */
static void waited_object(const char *waiting_on, char *buf, size_t len)
{
    const char *s = strchr(waiting_on, ' ');
    s = s ? s + 1 : waiting_on;
    size_t l = strcspn(s, " ");
    if (l >= len)
        l = len - 1;
    memcpy(buf, s, l);
    buf[l] = '\0';
}

/* id is one of the threads of "wait cycle T2 -> T3 -> T2: T2 waits on
 * ...", read up to the colon (what each waits on may name others). */
static bool in_cycle(const char *cycle, int id)
{
    const char *end = strchr(cycle, ':');
    for (const char *s = strchr(cycle, 'T'); s && (!end || s < end); s = strchr(s + 1, 'T'))
        if (atoi(s + 1) == id)
            return true;
    return false;
}

static bool not_blocked(const struct cause_event *e)
{
    return !e->blocked;
}

/* Each waiting thread's attempt that blocked, and the step by which the
 * thread it waits for took what it waits on. */
static void deadlock_steps(const struct exec_result *res, const struct cause_event *ev, size_t n, struct picked *p)
{
    /* "... wait cycle T2 -> T3 -> T2": only its threads, when there is one. */
    const char *cycle = strstr(res->message, "wait cycle ");
    for (int t = 0; t < res->n_threads; t++) {
        const struct failure_thread *th = &res->threads[t];
        if (!th->waiting_on[0] || (cycle && !in_cycle(cycle, th->id)))
            continue;
        char object[96];
        waited_object(th->waiting_on, object, sizeof object);
        size_t attempt = last_on(ev, n, th->id, 0, object, NULL);
        if (attempt == (size_t)-1)
            continue;
        const char *held = strstr(th->waiting_on, "held by T");
        int holder = held ? atoi(held + 9) : 0;
        size_t took = last_on(ev, attempt, holder, holder ? 0 : th->id, object, not_blocked);
        if (took != (size_t)-1)
            pick(p, took);
        pick(p, attempt);
    }
}

/* The steps a race names: "... (step 12), ... (step 15)". */
static void race_steps(const char *message, const struct cause_event *ev, size_t n, struct picked *p)
{
    for (const char *s = strstr(message, "(step "); s; s = strstr(s + 1, "(step ")) {
        uint64_t step = strtoull(s + 6, NULL, 10);
        for (size_t i = 0; i < n; i++)
            if (ev[i].step == step)
                pick(p, i);
    }
}

/* A heap error: the step of the free it names ("freed it at step 9") and
 * the failing thread's steps, as for a crash. */
static void heap_steps(const struct exec_result *res, const struct cause_event *ev, size_t n, struct picked *p)
{
    const char *at = strstr(res->message, " at step ");
    uint64_t step = at ? strtoull(at + 9, NULL, 10) : 0;
    for (size_t i = 0; step && i < n; i++)
        if (ev[i].step == step)
            pick(p, i);
}

/* The crash is an access to the step's own object, an address with no
 * name ("SIGSEGV accessing 0x0" at a step reading 0x0). */
static bool faulted_itself(const struct exec_result *res, const struct cause_event *e)
{
    if (res->kind != FAIL_CRASH || strncmp(e->object, "0x", 2) != 0)
        return false;
    char needle[sizeof e->object + 16];
    snprintf(needle, sizeof needle, "accessing %s", e->object);
    const char *at = strstr(res->message, needle);
    if (!at)
        return false;
    char after = at[strlen(needle)];
    return after == '\0' || after == ' ' || after == ',' || after == ')';
}

/* The failing thread's last step (the access that crashed, or the call
 * that was misused), the load before it and the last write to what it
 * loaded (a pointer, often) by another thread; for a misuse, the other
 * threads' last steps on its object. */
static void thread_steps(const struct exec_result *res, const struct cause_event *ev, size_t n, struct picked *p)
{
    size_t last = (size_t)-1;
    for (size_t i = n; i-- > 0;)
        if (ev[i].thread == res->thread) {
            last = i;
            break;
        }
    if (last == (size_t)-1)
        return;
    if (res->kind == FAIL_MISUSE) {
        size_t other = last_on(ev, last, 0, res->thread, ev[last].object, NULL);
        if (other != (size_t)-1 && ev[last].object[0])
            pick(p, other);
        pick(p, last);
        return;
    }
    /* The load of the pointer: the crashing step itself when it loads
     * (a step carries out its instruction's whole access), unless its own
     * access is what faulted (every access observed: the dereference is a
     * step of its own, and the pointer came from a load before it). */
    size_t load = is_load(&ev[last]) && !faulted_itself(res, &ev[last]) ? last : (size_t)-1;
    for (size_t i = last; load == (size_t)-1 && i-- > 0;)
        if (ev[i].thread == res->thread && is_load(&ev[i]))
            load = i;
    if (load != (size_t)-1) {
        size_t wrote = last_on(ev, load, 0, 0, ev[load].object, is_write);
        if (wrote != (size_t)-1)
            pick(p, wrote);
        pick(p, load);
    }
    pick(p, last);
}

int cause_steps_pick(const struct exec_result *res, const struct cause_event *events, size_t n, size_t *out,
                     int max)
{
    struct picked p = {out, 0, max};
    char expr[512];
    switch (res->kind) {
    case FAIL_DEADLOCK:
        deadlock_steps(res, events, n, &p);
        break;
    case FAIL_ASSERTION:
        if (quoted(res->message, "assertion `", '\'', expr, sizeof expr))
            expression_steps(expr, events, n, &p);
        break;
    case FAIL_INVARIANT:
        /* "invariant counter <= 1 broken: counter = 2" */
        if (strncmp(res->message, "invariant ", 10) == 0) {
            snprintf(expr, sizeof expr, "%s", res->message + 10);
            char *broken = strstr(expr, " broken");
            if (broken)
                *broken = '\0';
            expression_steps(expr, events, n, &p);
        }
        break;
    case FAIL_CHECKER:
    case FAIL_EXIT_STATUS:
        lost_update(events, n, NULL, &p);
        break;
    case FAIL_RACE:
        race_steps(res->message, events, n, &p);
        break;
    case FAIL_HEAP:
        heap_steps(res, events, n, &p);
        thread_steps(res, events, n, &p);
        break;
    case FAIL_CRASH:
    case FAIL_MISUSE:
        thread_steps(res, events, n, &p);
        break;
    default:
        break;
    }
    qsort(out, (size_t)p.n, sizeof *out, cmp_size);
    return p.n;
}

void cause_event_of(const struct trace_event *e, struct cause_event *out)
{
    out->step = e->step;
    out->thread = e->thread;
    out->blocked = strncmp(e->outcome, "blocks", 6) == 0;
    memcpy(out->op, e->op, sizeof out->op);
    memcpy(out->object, e->object, sizeof out->object);
}

int cause_steps_find(const struct exec_result *res, const struct trace_event *events, size_t n, size_t *out,
                     int max)
{
    struct cause_event *lean = malloc((n ? n : 1) * sizeof *lean);
    if (!lean)
        return 0;
    for (size_t i = 0; i < n; i++)
        cause_event_of(&events[i], &lean[i]);
    int k = cause_steps_pick(res, lean, n, out, max);
    free(lean);
    return k;
}
