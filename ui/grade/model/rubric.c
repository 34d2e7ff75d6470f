/* rubric: items of failure kinds and points, from the command line or a
 * file, and their names for students. */
#include "ui/grade/model/rubric.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIT(kind) (1u << (kind))
#define TERMINATES (BIT(FAIL_LIVELOCK) | BIT(FAIL_HANG))
#define LINEARIZABLE (RUBRIC_LINEARIZABLE | BIT(FAIL_CHECKER))

/* The kinds an item's token stands for: a failure kind's name, or
 * "terminates"; 0 for none. */
static uint32_t kinds_of(const char *token)
{
    if (strcmp(token, "terminates") == 0)
        return TERMINATES;
    if (strcmp(token, "linearizable") == 0)
        return LINEARIZABLE;
    enum failure_kind kind = failure_kind_from_name(token);
    if (kind == FAIL_NONE || strcmp(failure_kind_name(kind), token) != 0)
        return 0;
    return BIT(kind);
}

static const char *token_of(uint32_t kinds)
{
    if (kinds == TERMINATES)
        return "terminates";
    if (kinds == LINEARIZABLE)
        return "linearizable";
    for (int k = FAIL_NONE + 1; k < FAIL_KIND_COUNT; k++)
        if (kinds == BIT((enum failure_kind)k))
            return failure_kind_name((enum failure_kind)k);
    return "?";
}

const char *rubric_item_name(const struct rubric_item *item)
{
    static const struct {
        uint32_t kinds;
        const char *name;
    } names[] = {
        {BIT(FAIL_DEADLOCK), "no deadlock"},
        {BIT(FAIL_ASSERTION), "no failed assertion"},
        {BIT(FAIL_CRASH), "no crash"},
        {BIT(FAIL_HEAP), "no use after free or double free"},
        {TERMINATES, "ends in every schedule"},
        {BIT(FAIL_LIVELOCK), "no livelock (threads going round without progress)"},
        {BIT(FAIL_HANG), "no hang (a step that never ends)"},
        {BIT(FAIL_MISUSE), "uses the thread API correctly"},
        {BIT(FAIL_RACE), "no data race"},
        {BIT(FAIL_SANDBOX), "leaves the grader alone"},
        {BIT(FAIL_CHECKER), "output correct in every schedule"},
        {BIT(FAIL_EXIT_STATUS), "exit status 0 in every schedule"},
        {BIT(FAIL_INVARIANT), "invariants hold in every schedule"},
        {LINEARIZABLE, "linearizable in every scenario"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].kinds == item->kinds)
            return names[i].name;
    return token_of(item->kinds);
}

static bool add_item(struct rubric *r, const char *token, const char *points, char *err, size_t errlen)
{
    uint32_t kinds = kinds_of(token);
    if (!kinds) {
        snprintf(err, errlen, "\"%s\" is no rubric item (deadlock, assertion, crash, terminates, livelock, hang, "
                              "exit-status, checker, misuse, race, invariant, sandbox-violation, linearizable)", token);
        return false;
    }
    char *end;
    double v = strtod(points, &end);
    if (end == points || *end || !isfinite(v) || v < 0 || v > 1e6) {
        snprintf(err, errlen, "%s wants a number of points from 0 to 1000000, not \"%s\"", token, points);
        return false;
    }
    for (int i = 0; i < r->n; i++)
        if (r->items[i].kinds & kinds) {
            if (r->items[i].kinds == kinds)
                snprintf(err, errlen, "%s is in the rubric twice", token);
            else
                snprintf(err, errlen, "%s and %s are in the rubric both (terminates is livelock and hang; "
                                      "linearizable is lincheck's checker)", token, token_of(r->items[i].kinds));
            return false;
        }
    if (r->n >= FAIL_KIND_COUNT) {
        snprintf(err, errlen, "too many rubric items");
        return false;
    }
    r->items[r->n++] = (struct rubric_item){kinds, v};
    return true;
}

bool rubric_add_points(struct rubric *r, const char *item, char *err, size_t errlen)
{
    const char *eq = strchr(item, '=');
    if (!eq) {
        snprintf(err, errlen, "--points wants ITEM=N (deadlock=4), not \"%s\"", item);
        return false;
    }
    char token[32];
    snprintf(token, sizeof token, "%.*s", (int)(eq - item) < 31 ? (int)(eq - item) : 31, item);
    return add_item(r, token, eq + 1, err, errlen);
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
        char token[64], points[64], extra[2];
        int n = sscanf(line, "%63s %63s %1s", token, points, extra);
        if (n <= 0)
            continue;
        if (n != 2) {
            snprintf(err, errlen, "%s:%d: a rubric line is ITEM POINTS (deadlock 4)", path, lineno);
            ok = false;
        } else if (!add_item(r, token, points, why, sizeof why)) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            ok = false;
        }
    }
    fclose(f);
    return ok;
}

void rubric_default(struct rubric *r, const struct grade_settings *s)
{
    static const uint32_t always[] = {BIT(FAIL_DEADLOCK), BIT(FAIL_ASSERTION), BIT(FAIL_CRASH),  BIT(FAIL_HEAP),
                                      TERMINATES,         BIT(FAIL_MISUSE),    BIT(FAIL_RACE),   BIT(FAIL_SANDBOX)};
    r->n = 0;
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
        r->items[r->n++] = (struct rubric_item){always[i], 1};
    if (s->check_cmd)
        r->items[r->n++] = (struct rubric_item){BIT(FAIL_CHECKER), 1};
    if (s->fail_on_exit)
        r->items[r->n++] = (struct rubric_item){BIT(FAIL_EXIT_STATUS), 1};
    if (s->detect.n_invariants > 0)
        r->items[r->n++] = (struct rubric_item){BIT(FAIL_INVARIANT), 1};
    if (s->lincheck_spec)
        r->items[r->n++] = (struct rubric_item){LINEARIZABLE, 1};
}

double rubric_total(const struct rubric *r)
{
    double total = 0;
    for (int i = 0; i < r->n; i++)
        total += r->items[i].points;
    return total;
}
