/* guided_switches: an execution's switches from one thread to another,
 * each anchored on the progress of the thread switched away from (its own
 * steps so far) rather than on the choice's number. Shrinking drops a
 * preemption from such a list and the others stay where they were in each
 * thread's own code, where in a choice list every later choice would shift.
 * strategy_guided records and follows them; this file only keeps the list. */
#ifndef MDAT_STRATEGIES_GUIDED_SWITCHES_H
#define MDAT_STRATEGIES_GUIDED_SWITCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct guided_switch {
    int from;               /* the thread that ran the last step (0: none yet) */
    uint64_t at;            /* its steps so far, as strategy_guided counts them */
    int to;                 /* the thread (or waiter) chosen */
    char kind;              /* CHOICE_THREAD or CHOICE_WAKE */
    bool preempted;         /* from could have gone on */
    uint64_t pc;            /* a preemption's: from's next operation's instruction (0: not known) */
};

struct guided_switches {
    struct guided_switch *at;
    size_t n, cap;
};

void guided_switches_add(struct guided_switches *l, struct guided_switch s);
/* dst (zeroed, or a list) gets src without its entry `skip` (src->n: none). */
void guided_switches_copy_without(struct guided_switches *dst, const struct guided_switches *src, size_t skip);
/* dst gets src's switches but its preemptions, and of these only those
 * numbered (from 0, in order) in keep[0 .. n_keep), ascending. */
void guided_switches_copy_keeping(struct guided_switches *dst, const struct guided_switches *src, const size_t *keep,
                                  size_t n_keep);
size_t guided_switches_preemptions(const struct guided_switches *l);
void guided_switches_free(struct guided_switches *l);

#endif
