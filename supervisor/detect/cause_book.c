/* cause_book: a running execution's last events, for its cause steps.
 *
 * A ring of the last CAUSE_BOOK_EVENTS events, each packed on its own
 * (its strings as long as they are, not as their fields allow: a step's
 * 650 bytes are about a hundred), so that a long execution keeps a few
 * megabytes. The choice reads lean copies made once the verdict is known;
 * the chosen steps are unpacked whole. */
#include "supervisor/detect/cause_book.h"
#include "supervisor/detect/cause_steps.h"

#include <stdlib.h>
#include <string.h>

struct cause_book {
    uint8_t **ring;         /* packed events; ring[i % CAUSE_BOOK_EVENTS] */
    size_t cap, n;          /* n: events seen; the last min(n, cap) are kept */
    uint64_t last_step;
};

/* A packed event: the fixed fields, then each string's length and bytes. */
struct packed_head {
    uint64_t step, addr, pc;
    int thread;
    unsigned line, column;
    bool switched;
};

#define EVENT_STRINGS(e) {(e)->op, (e)->object, (e)->value, (e)->where, (e)->outcome, (e)->file, (e)->function}
#define EVENT_SIZES(e) {sizeof (e)->op, sizeof (e)->object, sizeof (e)->value, sizeof (e)->where, \
                        sizeof (e)->outcome, sizeof (e)->file, sizeof (e)->function}
enum { N_STRINGS = 7 };

static uint8_t *pack(const struct trace_event *ev)
{
    const char *str[N_STRINGS] = EVENT_STRINGS(ev);
    const size_t cap[N_STRINGS] = EVENT_SIZES(ev);
    uint8_t len[N_STRINGS];
    size_t size = sizeof(struct packed_head) + N_STRINGS;
    for (int i = 0; i < N_STRINGS; i++) {
        len[i] = (uint8_t)strnlen(str[i], cap[i] - 1 < 255 ? cap[i] - 1 : 255);
        size += len[i];
    }
    uint8_t *p = malloc(size);
    if (!p)
        return NULL;
    struct packed_head h = {ev->step, ev->addr, ev->pc, ev->thread, ev->line, ev->column, ev->switched};
    memcpy(p, &h, sizeof h);
    uint8_t *at = p + sizeof h;
    for (int i = 0; i < N_STRINGS; i++) {
        *at++ = len[i];
        memcpy(at, str[i], len[i]);
        at += len[i];
    }
    return p;
}

static void unpack(const uint8_t *p, struct trace_event *ev)
{
    struct packed_head h;
    memcpy(&h, p, sizeof h);
    memset(ev, 0, sizeof *ev);
    ev->step = h.step;
    ev->addr = h.addr;
    ev->pc = h.pc;
    ev->thread = h.thread;
    ev->line = h.line;
    ev->column = h.column;
    ev->switched = h.switched;
    char *str[N_STRINGS] = EVENT_STRINGS(ev);
    const uint8_t *at = p + sizeof h;
    for (int i = 0; i < N_STRINGS; i++) {
        uint8_t len = *at++;
        memcpy(str[i], at, len);
        at += len;
    }
}

struct cause_book *cause_book_new(void)
{
    return calloc(1, sizeof(struct cause_book));
}

static void forget_all(struct cause_book *b)
{
    for (size_t i = 0; i < b->cap; i++) {
        free(b->ring[i]);
        b->ring[i] = NULL;
    }
    b->n = 0;
}

void cause_book_free(struct cause_book *b)
{
    if (!b)
        return;
    forget_all(b);
    free(b->ring);
    free(b);
}

void cause_book_event(void *book, const struct trace_event *ev, const struct exec_state *state)
{
    (void)state;
    struct cause_book *b = book;
    if (b->n && ev->step <= b->last_step)
        forget_all(b);      /* numbered from 1 again: the execution ran again */
    size_t at = b->n % CAUSE_BOOK_EVENTS;
    if (at >= b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        if (cap > CAUSE_BOOK_EVENTS)
            cap = CAUSE_BOOK_EVENTS;
        uint8_t **ring = realloc(b->ring, cap * sizeof *ring);
        if (!ring)
            return;
        memset(ring + b->cap, 0, (cap - b->cap) * sizeof *ring);
        b->ring = ring;
        b->cap = cap;
    }
    uint8_t *packed = pack(ev);
    if (!packed)
        return;
    free(b->ring[at]);
    b->ring[at] = packed;
    b->last_step = ev->step;
    b->n++;
}

void cause_book_fill(struct cause_book *b, struct exec_result *res)
{
    res->n_cause = 0;
    if (res->kind == FAIL_NONE || !b || b->n == 0)
        return;
    size_t kept = b->n < CAUSE_BOOK_EVENTS ? b->n : CAUSE_BOOK_EVENTS;
    size_t oldest = b->n - kept;
    struct cause_event *lean = malloc(kept * sizeof *lean);
    if (!lean)
        return;
    struct trace_event ev;
    for (size_t i = 0; i < kept; i++) {
        unpack(b->ring[(oldest + i) % CAUSE_BOOK_EVENTS], &ev);
        cause_event_of(&ev, &lean[i]);
    }
    size_t at[EXEC_CAUSE_STEPS];
    int k = cause_steps_pick(res, lean, kept, at, EXEC_CAUSE_STEPS);
    free(lean);
    for (int i = 0; i < k; i++)
        unpack(b->ring[(oldest + at[i]) % CAUSE_BOOK_EVENTS], &res->cause[i]);
    res->n_cause = k;
}
