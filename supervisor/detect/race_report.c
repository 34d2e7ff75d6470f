/* race_report: the pairs already told are 64-bit hashes of the two place
 * keys (in sorted order) in a fixed open-addressing table, inserted with
 * compare-and-swap so that workers sharing it never tell a pair twice. A
 * full table tells every new pair (repeating is better than hiding). */
#include "supervisor/detect/race_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { SEEN_SLOTS = 8192 };

struct race_seen {
    bool shared;
    uint64_t slots[SEEN_SLOTS];     /* 0: empty */
};

const char *race_mode_name(enum race_mode mode)
{
    switch (mode) {
    case RACES_OFF: return "off";
    case RACES_WARN: return "warn";
    case RACES_FAIL: return "fail";
    case RACES_FAIL_AT_END: return "fail-at-end";
    }
    return "?";
}

bool race_mode_from_name(const char *name, enum race_mode *mode)
{
    for (int m = RACES_OFF; m <= RACES_FAIL_AT_END; m++)
        if (strcmp(name, race_mode_name((enum race_mode)m)) == 0) {
            *mode = (enum race_mode)m;
            return true;
        }
    return false;
}

/* "at counter.c:9 in worker", "in worker", "at 0x401136". */
static void where(const struct race_place *p, char *buf, size_t len)
{
    if (p->line[0] && p->function[0])
        snprintf(buf, len, "at %s in %s", p->line, p->function);
    else if (p->line[0])
        snprintf(buf, len, "at %s", p->line);
    else if (p->function[0])
        snprintf(buf, len, "in %s", p->function);
    else
        snprintf(buf, len, "at 0x%" PRIx64, p->pc);
}

void race_report_message(const char *object, const struct race_place *earlier, const struct race_place *later,
                         char *buf, size_t len)
{
    char first[220], second[220];
    where(later, second, sizeof second);
    where(earlier, first, sizeof first);
    snprintf(buf, len,
             "race on %s: T%d %s %s (step %" PRIu64 "), T%d %s %s (step %" PRIu64
             "), with no synchronization between them",
             object, later->thread, later->write ? "writes" : "reads", second, later->step, earlier->thread,
             earlier->write ? "wrote" : "read", first, earlier->step);
}

void race_place_key(const struct race_place *p, char *buf, size_t len)
{
    if (p->line[0] || p->function[0])
        snprintf(buf, len, "%s %s", p->line, p->function);
    else
        snprintf(buf, len, "0x%" PRIx64, p->pc);
}

struct race_seen *race_seen_new(bool shared)
{
    struct race_seen *s;
    if (shared) {
        s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (s == MAP_FAILED)
            return race_seen_new(false);
        memset(s, 0, sizeof *s);
    } else {
        s = calloc(1, sizeof *s);
        if (!s)
            abort();
    }
    s->shared = shared;
    return s;
}

void race_seen_free(struct race_seen *s)
{
    if (!s)
        return;
    if (s->shared)
        munmap(s, sizeof *s);
    else
        free(s);
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (h ^ 0xff) * 0x100000001b3ull;    /* the end of one string */
}

bool race_seen_first(struct race_seen *s, const char *a, const char *b)
{
    if (strcmp(a, b) > 0) {
        const char *t = a;
        a = b;
        b = t;
    }
    uint64_t h = fnv1a(fnv1a(0xcbf29ce484222325ull, a), b) | 1;
    for (size_t i = 0, k = (size_t)(h >> 17) % SEEN_SLOTS; i < SEEN_SLOTS; i++, k = (k + 1) % SEEN_SLOTS) {
        uint64_t cur = __atomic_load_n(&s->slots[k], __ATOMIC_ACQUIRE);
        if (cur == h)
            return false;
        if (cur == 0) {
            if (__atomic_compare_exchange_n(&s->slots[k], &cur, h, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return true;
            if (cur == h)
                return false;
        }
    }
    return true;
}
