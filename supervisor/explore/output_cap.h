/* output_cap: the captured standard output and error of one execution,
 * bounded (--max-output). */
#ifndef MDAT_EXPLORE_OUTPUT_CAP_H
#define MDAT_EXPLORE_OUTPUT_CAP_H

#include <stdbool.h>
#include <stdint.h>

#define OUTPUT_CAP_DEFAULT (64ull << 20)

struct output_cap {
    int fds[2];         /* the memory files capturing stdout and stderr (-1: not captured) */
    uint64_t limit;     /* bytes kept of each */
    uint64_t written;   /* the most the program wrote to one of them */
    bool cut;
};

/* Starts watching fds while the execution runs (through the engine's wait
 * hook): what the program writes beyond limit is dropped as it comes, so a
 * program printing forever costs no more than limit. */
void output_cap_begin(struct output_cap *cap, int out_fd, int err_fd, uint64_t limit);
/* Stops watching; each file ends at limit. cap->cut says whether the
 * program wrote more. */
void output_cap_end(struct output_cap *cap);

#endif
