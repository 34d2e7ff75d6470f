/* Hostile submission: rewrites mdat's record of it. In every execution it
 * overwrites each schedule file it finds in its unit's directory (the
 * parent of its working copy) with a schedule of its own making, then
 * fails its assertion. Its failure's schedule, written before the
 * executions of --outcomes run, is then not the one mdat wrote: as root
 * the submission cannot write it (mdat's files are another user's); without
 * root it can, and mdat grade, which keeps the schedule's hash beyond the
 * submission's reach, says so (sandbox-violation). */
#include <assert.h>
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    DIR *d = opendir("..");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 6, ".sched") != 0)
            continue;
        int dir = dirfd(d);
        int fd = openat(dir, e->d_name, O_WRONLY | O_TRUNC);
        if (fd >= 0) {
            static const char forged[] = "mdat-schedule 1\n# forged by the submission\nend\n";
            if (write(fd, forged, sizeof forged - 1) < 0)
                break;
            close(fd);
        }
    }
    if (d)
        closedir(d);
    assert(!"the bug the rewriter hides");
    return 0;
}
