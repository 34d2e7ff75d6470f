/* guided_points: what each choice point of a guided execution offered, in
 * the order of its choice list, for shrinking (shrink.c) to edit.
 *
 * An execution can make millions of choices, so this is packed: two bits
 * a point (the choice preempted a thread that could have gone on; it let
 * the thread that ran last go on), and the candidate threads stored once
 * for each run of points that offered the same ones. */
#ifndef MDAT_STRATEGIES_GUIDED_POINTS_H
#define MDAT_STRATEGIES_GUIDED_POINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct guided_offer {
    size_t from_point;      /* this and the next points, up to the next offer's */
    size_t first, n;        /* threads[first .. first + n) */
};

struct guided_points {
    size_t n;
    uint64_t *bits;
    size_t cap_words;
    struct guided_offer *offers;
    size_t n_offers, cap_offers;
    int *threads;
    size_t n_threads, cap_threads;
};

void guided_points_add(struct guided_points *p, bool preempted, bool continued, const int *threads, size_t n);
/* Forgets the points, keeping the memory for the next execution's. */
void guided_points_clear(struct guided_points *p);
bool guided_points_preempted(const struct guided_points *p, size_t i);
bool guided_points_continued(const struct guided_points *p, size_t i);
/* The threads point i offered (*n of them), valid until p changes. */
const int *guided_points_offered(const struct guided_points *p, size_t i, size_t *n);
/* dst (zeroed, or a list) gets a copy of src. */
void guided_points_copy(struct guided_points *dst, const struct guided_points *src);
void guided_points_free(struct guided_points *p);

#endif
