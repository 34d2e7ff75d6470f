/* program_input: one memfd per batch; each execution opens it afresh
 * through /proc/self/fd, which gives a new file description. */
#include "supervisor/explore/program_input.h"
#include "supervisor/trace/safe_file.h"
#include "supervisor/explore/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void program_input_none(struct program_input *in)
{
    memset(in, 0, sizeof *in);
    in->fd = -1;
}

static bool write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        buf += w;
        n -= (size_t)w;
    }
    return true;
}

bool program_input_from_fd(struct program_input *in, int fd, const char *origin, char *err, size_t errlen)
{
    program_input_none(in);
    snprintf(in->origin, sizeof in->origin, "%s", origin);
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "the program's input %s is a directory", strcmp(origin, "-") ? origin : "(standard input)");
        return false;
    }
    in->fd = memfd_create("mdat-input", MFD_CLOEXEC);
    if (in->fd < 0) {
        snprintf(err, errlen, "memfd_create: %s", strerror(errno));
        return false;
    }
    struct sha256 h;
    sha256_init(&h);
    char buf[65536];
    /* A pipe that stays open without data (mdat started from a script that
     * keeps its stdin) would wait here silently: say what mdat waits for. */
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    if (strcmp(origin, "-") == 0 && poll(&pfd, 1, 2000) == 0)
        fprintf(stderr, "mdat: reading the program's input from standard input until it ends "
                        "(give --stdin FILE, or </dev/null for none)\n");
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(err, errlen, "cannot read the program's input %s: %s",
                     strcmp(origin, "-") ? origin : "(standard input)", strerror(errno));
            program_input_free(in);
            return false;
        }
        if (n == 0)
            break;
        if (!write_all(in->fd, buf, (size_t)n)) {
            snprintf(err, errlen, "cannot keep the program's input: %s", strerror(errno));
            program_input_free(in);
            return false;
        }
        sha256_update(&h, buf, (size_t)n);
        in->size += (uint64_t)n;
    }
    uint8_t digest[32];
    sha256_final(&h, digest);
    for (int i = 0; i < 32; i++)
        snprintf(in->sha256 + 2 * i, 3, "%02x", digest[i]);
    return true;
}

bool program_input_from_file(struct program_input *in, const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        program_input_none(in);
        snprintf(err, errlen, "cannot open the program's input %s: %s", path, strerror(errno));
        return false;
    }
    bool ok = program_input_from_fd(in, fd, path, err, errlen);
    close(fd);
    return ok;
}

int program_input_open(const struct program_input *in)
{
    if (in->fd < 0)
        return open("/dev/null", O_RDONLY | O_CLOEXEC);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", in->fd);
    return open(path, O_RDONLY | O_CLOEXEC);
}

bool program_input_save(const struct program_input *in, const char *path, char *err, size_t errlen)
{
    /* Whole or not at all: a schedule names it, and replays only with it. */
    struct safe_file sf;
    FILE *dst = safe_file_open(&sf, path, err, errlen);
    if (!dst)
        return false;
    int src = program_input_open(in);
    bool ok = src >= 0;
    char buf[65536];
    ssize_t n;
    while (ok && (n = read(src, buf, sizeof buf)) > 0)
        ok = fwrite(buf, 1, (size_t)n, dst) == (size_t)n;
    if (src >= 0)
        close(src);
    if (!ok) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        safe_file_abort(&sf);
        return false;
    }
    return safe_file_commit(&sf, err, errlen);
}

void program_input_free(struct program_input *in)
{
    if (in->fd >= 0)
        close(in->fd);
    in->fd = -1;
}
