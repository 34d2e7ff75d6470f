/* cause_book: a running execution's last events, for its cause steps.
 *
 * A ring of the last CAUSE_BOOK_EVENTS events, grown as they come (most
 * executions are short), copied out in order when the verdict is known. */
#include "supervisor/detect/cause_book.h"
#include "supervisor/detect/cause_steps.h"

#include <stdlib.h>

struct cause_book {
    struct trace_event *ring;
    size_t cap, n;          /* n: events seen; the last min(n, cap) are kept */
};

struct cause_book *cause_book_new(void)
{
    return calloc(1, sizeof(struct cause_book));
}

void cause_book_free(struct cause_book *b)
{
    if (!b)
        return;
    free(b->ring);
    free(b);
}

void cause_book_event(void *book, const struct trace_event *ev, const struct exec_state *state)
{
    (void)state;
    struct cause_book *b = book;
    if (b->n && ev->step <= b->ring[(b->n - 1) % CAUSE_BOOK_EVENTS].step)
        b->n = 0;
    size_t at = b->n % CAUSE_BOOK_EVENTS;
    if (at >= b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        if (cap > CAUSE_BOOK_EVENTS)
            cap = CAUSE_BOOK_EVENTS;
        struct trace_event *ring = realloc(b->ring, cap * sizeof *ring);
        if (!ring)
            return;
        b->ring = ring;
        b->cap = cap;
    }
    b->ring[at] = *ev;
    b->n++;
}

void cause_book_fill(const struct cause_book *b, struct exec_result *res)
{
    res->n_cause = 0;
    if (res->kind == FAIL_NONE || !b || b->n == 0)
        return;
    size_t kept = b->n < CAUSE_BOOK_EVENTS ? b->n : CAUSE_BOOK_EVENTS;
    struct trace_event *ev = malloc(kept * sizeof *ev);
    if (!ev)
        return;
    for (size_t i = 0; i < kept; i++)
        ev[i] = b->ring[(b->n - kept + i) % CAUSE_BOOK_EVENTS];
    size_t at[EXEC_CAUSE_STEPS];
    int k = cause_steps_find(res, ev, kept, at, EXEC_CAUSE_STEPS);
    for (int i = 0; i < k; i++)
        res->cause[i] = ev[at[i]];
    res->n_cause = k;
    free(ev);
}
