/* grade_links: a failure's files beside its schedule, relative to a report
 * (see grade_links.h). */
#include "ui/grade/reports/grade_links.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Splits an absolute path into its components, in place. */
static int components(char *path, char **parts, int max)
{
    int n = 0;
    for (char *save = NULL, *c = strtok_r(path, "/", &save); c && n < max; c = strtok_r(NULL, "/", &save))
        parts[n++] = c;
    return n;
}

bool grade_relative_path(const char *dir, const char *target, char *out, size_t len)
{
    char from[PATH_MAX], to[PATH_MAX], target_dir[PATH_MAX], base[PATH_MAX];
    snprintf(target_dir, sizeof target_dir, "%s", target);
    snprintf(base, sizeof base, "%s", target);
    if (!realpath(dir, from) || !realpath(dirname(target_dir), to))
        return false;
    enum { MAX_DEPTH = 256 };
    char *a[MAX_DEPTH], *b[MAX_DEPTH];
    int na = components(from, a, MAX_DEPTH), nb = components(to, b, MAX_DEPTH);
    int common = 0;
    while (common < na && common < nb && strcmp(a[common], b[common]) == 0)
        common++;
    size_t used = 0;
    out[0] = '\0';
    for (int i = common; i < na + nb - common + 1; i++) {
        const char *part = i < na ? ".." : i - na + common < nb ? b[i - na + common] : basename(base);
        int n = snprintf(out + used, len - used, "%s%s", used ? "/" : "", part);
        if (n < 0 || (size_t)n >= len - used)
            return false;
        used += (size_t)n;
    }
    return true;
}

int grade_failure_links(const char *report_path, const struct grade_failure *ff, struct grade_link *out)
{
    static const struct {
        const char *what, *suffix;
    } files[GRADE_MAX_LINKS] = {
        {"timeline", ".html"}, {"trace", ".trace"}, {"schedule", ".sched"}, {"output", ".stdout"}, {"stderr", ".stderr"},
    };
    size_t n = strlen(ff->schedule_file);
    if (n < 6 || strcmp(ff->schedule_file + n - 6, ".sched") != 0)
        return 0;
    char report_copy[PATH_MAX];
    snprintf(report_copy, sizeof report_copy, "%s", report_path);
    const char *dir = dirname(report_copy);
    int count = 0;
    for (int i = 0; i < GRADE_MAX_LINKS; i++) {
        char path[PATH_MAX + 16];
        snprintf(path, sizeof path, "%.*s%s", (int)(n - 6), ff->schedule_file, files[i].suffix);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        out[count].what = files[i].what;
        if (!grade_relative_path(dir, path, out[count].href, sizeof out[count].href))
            snprintf(out[count].href, sizeof out[count].href, "%s", path);
        count++;
    }
    return count;
}
