/* cpu_choice: which CPUs an exploration's processes are pinned to.
 *
 * mdat pins itself and its program to one CPU (a ptrace stop costs several
 * times more across CPUs). Which one: the allowed CPUs ordered from the
 * least busy, so that two mdat runs on one machine (graders in parallel, CI
 * beside a build) do not share a CPU while another one idles, and the
 * workers of one run each get their own. */
#ifndef MDAT_EXPLORE_CPU_CHOICE_H
#define MDAT_EXPLORE_CPU_CHOICE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdbool.h>

struct cpu_choice {
    cpu_set_t allowed;      /* as found, restored by cpu_choice_unpin */
    int n;
    int order[CPU_SETSIZE]; /* the allowed CPUs, least busy first */
};

/* Reads the affinity and how busy each allowed CPU is (its runnable
 * threads over a few looks ~20 ms long, mdat's own not counted); false
 * when the affinity is unknown. */

bool cpu_choice_make(struct cpu_choice *c);
/* Pins the calling process to the nth CPU of the order (wrapping around
 * when there are more workers than CPUs). */
void cpu_choice_pin(const struct cpu_choice *c, int nth);
/* Gives the calling process back the CPUs it was allowed. */
void cpu_choice_unpin(const struct cpu_choice *c);

#endif
