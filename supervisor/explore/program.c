/* program: the program under test, loaded once per run (debug information,
 * breakpoint plan, SHA-256 of the binary). */
#include "supervisor/explore/explore.h"
#include "supervisor/explore/sha256.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool program_load(struct program *p, const char *path, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    char why[256];
    p->debug = debuginfo_load(path, why, sizeof why);
    if (!p->debug) {
        snprintf(err, errlen, "%s: %s", path, why);
        return false;
    }
    if (access(path, X_OK) != 0) {
        snprintf(err, errlen, "%s: not executable (%s)", path, strerror(errno));
        debuginfo_free(p->debug);
        return false;
    }
    if (!realpath(path, p->path))
        snprintf(p->path, sizeof p->path, "%s", path);
    if (!sha256_file(p->path, p->sha256)) {
        snprintf(err, errlen, "%s: cannot read it", path);
        debuginfo_free(p->debug);
        return false;
    }
    p->code = code_map_build(p->debug);
    if (!p->code) {
        snprintf(err, errlen, "out of memory analysing %s", path);
        debuginfo_free(p->debug);
        return false;
    }
    return true;
}

void program_free(struct program *p)
{
    code_map_free(p->code);
    debuginfo_free(p->debug);
    memset(p, 0, sizeof *p);
}
