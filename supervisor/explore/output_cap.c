/* output_cap: bounding what an execution's captured output holds.
 *
 * The program writes its stdout and stderr straight into mdat's memory files
 * (writes on descriptors 0-2 are not traced, for speed), so the bound is
 * kept from mdat's side: every TRACEE_HOOK_PERIOD_NS while mdat waits,
 * what lies beyond the limit is punched out (the program's writes still
 * succeed and its file offset goes on, so it runs as it would: the output
 * is cut, never the program's behaviour), and at the end each file is
 * truncated to the limit. */
#include "supervisor/explore/output_cap.h"
#include "supervisor/process/tracee.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static void drop_beyond(struct output_cap *cap, bool truncate)
{
    for (int i = 0; i < 2; i++) {
        struct stat st;
        int fd = cap->fds[i];
        if (fd < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size <= cap->limit)
            continue;
        cap->cut = true;
        if ((uint64_t)st.st_size > cap->written)
            cap->written = (uint64_t)st.st_size;
        if (truncate) {
            if (ftruncate(fd, (off_t)cap->limit) != 0) {
                /* a file we cannot truncate keeps its bytes: no harm but memory */
            }
        } else if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)cap->limit,
                             st.st_size - (off_t)cap->limit) != 0) {
            /* the same */
        }
    }
}

static void on_wait(void *ctx)
{
    drop_beyond(ctx, false);
}

void output_cap_begin(struct output_cap *cap, int out_fd, int err_fd, uint64_t limit)
{
    *cap = (struct output_cap){{out_fd, err_fd}, limit ? limit : OUTPUT_CAP_DEFAULT, 0, false};
    if (out_fd >= 0 || err_fd >= 0)
        tracee_set_wait_hook(on_wait, cap);
}

void output_cap_end(struct output_cap *cap)
{
    tracee_set_wait_hook(NULL, NULL);
    drop_beyond(cap, true);
}
