/* safe_file: write to a temporary name, rename when complete (see
 * safe_file.h). The temporary file is in the destination's directory, so
 * the rename never crosses file systems and is atomic. */
#include "supervisor/trace/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The permissions a plain fopen("w") would give: 0666 less the umask. */
static mode_t default_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

FILE *safe_file_open(struct safe_file *sf, const char *path, char *err, size_t errlen)
{
    memset(sf, 0, sizeof *sf);
    if (snprintf(sf->path, sizeof sf->path, "%s", path) >= (int)sizeof sf->path ||
        snprintf(sf->tmp, sizeof sf->tmp, "%s.tmp-XXXXXX", path) >= (int)sizeof sf->tmp) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
        return NULL;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(EISDIR));
        return NULL;
    }
    int fd = mkostemp(sf->tmp, O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return NULL;
    }
    fchmod(fd, default_mode());
    sf->f = fdopen(fd, "w");
    if (!sf->f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        unlink(sf->tmp);
    }
    return sf->f;
}

bool safe_file_commit(struct safe_file *sf, char *err, size_t errlen)
{
    if (!sf->f)
        return false;
    bool ok = fflush(sf->f) == 0 && !ferror(sf->f);
    int saved = errno;
    if (ok)
        fdatasync(fileno(sf->f));
    if (fclose(sf->f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    sf->f = NULL;
    if (ok && rename(sf->tmp, sf->path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        snprintf(err, errlen, "cannot write %s: %s", sf->path, strerror(saved ? saved : EIO));
        unlink(sf->tmp);
    }
    return ok;
}

void safe_file_abort(struct safe_file *sf)
{
    if (sf->f) {
        fclose(sf->f);
        sf->f = NULL;
        unlink(sf->tmp);
    }
}

/* The directory part of path ("." when it has none). */
static void directory_of(const char *path, char *out, size_t len)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(out, len, "%s", dirname(copy));
}

bool safe_file_writable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "cannot write %s: it is a directory", path);
            return false;
        }
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    char dir[PATH_MAX];
    directory_of(path, dir, sizeof dir);
    if (stat(dir, &st) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(ENOTDIR));
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    return true;
}

bool safe_dir_writable(const char *path, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    for (;;) {
        struct stat st;
        if (stat(dir, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                snprintf(err, errlen, "cannot write in %s: %s is not a directory", path, dir);
                return false;
            }
            if (access(dir, W_OK | X_OK) != 0) {
                snprintf(err, errlen, "cannot write in %s: %s", path, strerror(errno));
                return false;
            }
            return true;
        }
        if (errno != ENOENT) {
            snprintf(err, errlen, "cannot write in %s: %s", path, strerror(errno));
            return false;
        }
        char parent[PATH_MAX];
        directory_of(dir, parent, sizeof parent);
        if (strcmp(parent, dir) == 0)
            return true;
        snprintf(dir, sizeof dir, "%s", parent);
    }
}
