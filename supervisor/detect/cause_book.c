/* cause_book: a running execution's last events, for its cause steps.
 *
 * A ring of the last CAUSE_BOOK_EVENTS events, grown as they come (most
 * executions are short), put in order in place when the verdict is known. */
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

static void swap_events(struct trace_event *a, struct trace_event *b)
{
    struct trace_event t = *a;
    *a = *b;
    *b = t;
}

static void reverse_events(struct trace_event *ev, size_t n)
{
    for (size_t i = 0; i < n / 2; i++)
        swap_events(&ev[i], &ev[n - 1 - i]);
}

/* Puts the kept events in order at the ring's start, in place: a full
 * ring is 13 MB, and a copy of it would double what a long failing
 * execution holds while it is recorded. */
static void put_in_order(struct cause_book *b)
{
    size_t kept = b->n < CAUSE_BOOK_EVENTS ? b->n : CAUSE_BOOK_EVENTS;
    size_t oldest = (b->n - kept) % CAUSE_BOOK_EVENTS;
    if (oldest) {
        reverse_events(b->ring, oldest);
        reverse_events(b->ring + oldest, kept - oldest);
        reverse_events(b->ring, kept);
    }
    b->n = kept;    /* the same events, now from index 0 */
}

void cause_book_fill(struct cause_book *b, struct exec_result *res)
{
    res->n_cause = 0;
    if (res->kind == FAIL_NONE || !b || b->n == 0)
        return;
    put_in_order(b);
    size_t at[EXEC_CAUSE_STEPS];
    int k = cause_steps_find(res, b->ring, b->n, at, EXEC_CAUSE_STEPS);
    for (int i = 0; i < k; i++)
        res->cause[i] = b->ring[at[i]];
    res->n_cause = k;
}
