/* schedule_captions: the one-line captions a teacher writes into a
 * schedule file for a class, "# caption 12: T3 takes the last item", each
 * shown by `mdat attach --demo` (and --replay) when its step has run.
 *
 * They are comments to every other reader of the file (schedule.c skips
 * any line starting with '#'), so a captioned schedule replays as before;
 * this file only finds them. */
#ifndef MDAT_EXPLORE_SCHEDULE_CAPTIONS_H
#define MDAT_EXPLORE_SCHEDULE_CAPTIONS_H

#include <stddef.h>
#include <stdint.h>

enum { SCHEDULE_CAPTION_TEXT = 200 };

struct schedule_caption {
    uint64_t step;                      /* shown once this many steps have run */
    char text[SCHEDULE_CAPTION_TEXT];
};

struct schedule_captions {
    struct schedule_caption *at;        /* by step, ascending (the file's order for equal steps) */
    size_t n;
};

/* The captions of the file at path (none when it cannot be read: the
 * schedule's own reader says why). A caption line that does not parse
 * ("# caption twelve: ...") is an ordinary comment. */
void schedule_captions_read(const char *path, struct schedule_captions *out);
void schedule_captions_free(struct schedule_captions *c);
/* The caption in force after `step` steps: the last one at or before it;
 * NULL when there is none yet. */
const struct schedule_caption *schedule_caption_at(const struct schedule_captions *c, uint64_t step);

#endif
