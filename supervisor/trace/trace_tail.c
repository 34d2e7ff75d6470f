/* trace_tail: a cookie stream appending to the current segment; segments
 * in a ring. */
#include "supervisor/trace/trace_tail.h"

#include <stdlib.h>
#include <string.h>

struct segment {
    char *bytes;
    size_t len, cap;
    uint64_t first_step;    /* steps written before it */
};

struct trace_tail {
    FILE *stream;
    struct segment *ring;   /* ring[(head + i) % keep], i < count: oldest first */
    size_t keep, head, count;
    uint64_t dropped_steps;
};

static ssize_t tail_write(void *cookie, const char *buf, size_t size)
{
    struct trace_tail *t = cookie;
    struct segment *s = &t->ring[(t->head + t->count - 1) % t->keep];
    if (s->len + size > s->cap) {
        size_t cap = s->cap ? s->cap : 65536;
        while (cap < s->len + size)
            cap *= 2;
        char *grown = realloc(s->bytes, cap);
        if (!grown)
            return -1;
        s->bytes = grown;
        s->cap = cap;
    }
    memcpy(s->bytes + s->len, buf, size);
    s->len += size;
    return (ssize_t)size;
}

struct trace_tail *trace_tail_open(size_t keep, FILE **stream)
{
    struct trace_tail *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->keep = keep < 2 ? 2 : keep;
    t->ring = calloc(t->keep, sizeof *t->ring);
    cookie_io_functions_t io = {.write = tail_write};
    t->stream = t->ring ? fopencookie(t, "w", io) : NULL;
    if (!t->stream) {
        free(t->ring);
        free(t);
        return NULL;
    }
    t->count = 1;
    *stream = t->stream;
    return t;
}

void trace_tail_cut(struct trace_tail *t, uint64_t steps)
{
    fflush(t->stream);
    /* A closed segment grows no more: its spare room (up to as much as it
     * holds, since room doubles) is given back. */
    struct segment *closed = &t->ring[(t->head + t->count - 1) % t->keep];
    if (closed->len && closed->len < closed->cap) {
        char *fitted = realloc(closed->bytes, closed->len);
        if (fitted) {
            closed->bytes = fitted;
            closed->cap = closed->len;
        }
    }
    if (t->count == t->keep) {
        struct segment *oldest = &t->ring[t->head];
        t->head = (t->head + 1) % t->keep;
        t->count--;
        uint64_t next_first = t->ring[t->head].first_step;
        t->dropped_steps = next_first;
        oldest->len = 0;    /* reused as the new segment below */
    }
    struct segment *s = &t->ring[(t->head + t->count) % t->keep];
    s->len = 0;
    s->first_step = steps;
    t->count++;
}

uint64_t trace_tail_dropped(const struct trace_tail *t)
{
    return t->dropped_steps;
}

void trace_tail_finish(struct trace_tail *t, FILE *out)
{
    fclose(t->stream);
    for (size_t i = 0; i < t->count; i++) {
        const struct segment *s = &t->ring[(t->head + i) % t->keep];
        if (s->len)
            fwrite(s->bytes, 1, s->len, out);
    }
    for (size_t i = 0; i < t->keep; i++)
        free(t->ring[i].bytes);
    free(t->ring);
    free(t);
}
