/* vector_clock: logical clocks for happens-before (one counter per thread)
 * and FastTrack epochs (one thread's counter alone, Flanagan and Freund
 * 2009), the representation that makes most accesses O(1).
 *
 * Owns the arithmetic only (join, compare, tick); what an edge means
 * (a lock, a wake, a join) is race_detector's business. Thread ids are
 * mdat's (1, 2, ...); index 0 is unused. */
#ifndef MDAT_SHARING_VECTOR_CLOCK_H
#define MDAT_SHARING_VECTOR_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vector_clock {
    uint32_t *at;       /* at[t]: what is known of thread t's clock; missing entries are 0 */
    size_t n;           /* entries allocated */
};

/* thread@clock: one access or event of one thread. thread 0: none. */
struct epoch {
    uint32_t thread;
    uint32_t clock;
};

void vc_init(struct vector_clock *vc);
void vc_free(struct vector_clock *vc);
void vc_clear(struct vector_clock *vc);
uint32_t vc_get(const struct vector_clock *vc, uint32_t thread);
void vc_set(struct vector_clock *vc, uint32_t thread, uint32_t clock);
/* vc[thread] += 1 */
void vc_tick(struct vector_clock *vc, uint32_t thread);
/* What a join found: some entry of src above dst's (dst changed), some
 * entry of dst above src's (dst is not src now). */
enum { VC_SRC_AHEAD = 1, VC_DST_AHEAD = 2 };
/* dst := dst joined with src (the pointwise maximum); returns what it found. */
unsigned vc_join(struct vector_clock *dst, const struct vector_clock *src);
void vc_copy(struct vector_clock *dst, const struct vector_clock *src);
/* Every entry of a is at most b's: what a knows happened before b. */
bool vc_leq(const struct vector_clock *a, const struct vector_clock *b);
/* The event e happened before anything that knows vc. */
static inline bool epoch_leq(struct epoch e, const struct vector_clock *vc)
{
    return e.thread == 0 || e.clock <= vc_get(vc, e.thread);
}
static inline struct epoch vc_epoch(const struct vector_clock *vc, uint32_t thread)
{
    return (struct epoch){thread, vc_get(vc, thread)};
}

#endif
