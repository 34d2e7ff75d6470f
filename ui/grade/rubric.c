/* rubric: items of failure kinds and points, from the command line or a file. */
#include "ui/grade/rubric.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool add_item(struct rubric *r, const char *kind_name, const char *points, char *err, size_t errlen)
{
    enum failure_kind kind = failure_kind_from_name(kind_name);
    if (kind == FAIL_NONE || strcmp(failure_kind_name(kind), kind_name) != 0) {
        snprintf(err, errlen, "\"%s\" is no failure kind (deadlock, assertion, crash, exit-status, livelock, hang, "
                              "checker, misuse, race, invariant)", kind_name);
        return false;
    }
    char *end;
    double v = strtod(points, &end);
    if (end == points || *end || !isfinite(v) || v < 0 || v > 1e6) {
        snprintf(err, errlen, "%s wants a number of points from 0 to 1000000, not \"%s\"", kind_name, points);
        return false;
    }
    for (int i = 0; i < r->n; i++)
        if (r->items[i].kind == kind) {
            snprintf(err, errlen, "%s is in the rubric twice", kind_name);
            return false;
        }
    r->items[r->n++] = (struct rubric_item){kind, v};
    return true;
}

bool rubric_add_points(struct rubric *r, const char *item, char *err, size_t errlen)
{
    const char *eq = strchr(item, '=');
    if (!eq) {
        snprintf(err, errlen, "--points wants KIND=N (deadlock=4), not \"%s\"", item);
        return false;
    }
    char kind[32];
    snprintf(kind, sizeof kind, "%.*s", (int)(eq - item) < 31 ? (int)(eq - item) : 31, item);
    return add_item(r, kind, eq + 1, err, errlen);
}

bool rubric_read_file(struct rubric *r, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read the rubric %s: %s", path, strerror(errno));
        return false;
    }
    char line[256], why[200];
    bool ok = true;
    for (int lineno = 1; ok && fgets(line, sizeof line, f); lineno++) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char kind[64], points[64], extra[2];
        int n = sscanf(line, "%63s %63s %1s", kind, points, extra);
        if (n <= 0)
            continue;
        if (n != 2) {
            snprintf(err, errlen, "%s:%d: a rubric line is KIND POINTS (deadlock 4)", path, lineno);
            ok = false;
        } else if (!add_item(r, kind, points, why, sizeof why)) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            ok = false;
        }
    }
    fclose(f);
    return ok;
}

void rubric_default(struct rubric *r, const struct grade_settings *s)
{
    static const enum failure_kind always[] = {FAIL_DEADLOCK, FAIL_ASSERTION, FAIL_CRASH, FAIL_LIVELOCK,
                                               FAIL_HANG,     FAIL_MISUSE,    FAIL_RACE, FAIL_SANDBOX};
    r->n = 0;
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
        r->items[r->n++] = (struct rubric_item){always[i], 1};
    if (s->check_cmd)
        r->items[r->n++] = (struct rubric_item){FAIL_CHECKER, 1};
    if (s->fail_on_exit)
        r->items[r->n++] = (struct rubric_item){FAIL_EXIT_STATUS, 1};
}

double rubric_total(const struct rubric *r)
{
    double total = 0;
    for (int i = 0; i < r->n; i++)
        total += r->items[i].points;
    return total;
}
