/* lc_orders: serial orders of a scenario's calls and the set of outcomes
 * they give (see lc_orders.h). */
#include "ui/lincheck/lc_orders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LC_ORDER_MAX = 64 };

struct walk {
    const int *nops;
    int nthreads;
    int first[LC_ORDER_MAX];    /* index of each thread's first call */
    int next[LC_ORDER_MAX];     /* per thread: calls already placed */
    bool used[LC_ORDER_MAX];    /* quiescent: calls already placed */
    int order[LC_ORDER_MAX];
    int total;
    bool quiescent;
    lc_order_fn fn;
    void *ctx;
    size_t visited;
    bool stop;
};

static void place(struct walk *w, int depth)
{
    if (w->stop)
        return;
    if (depth == w->total) {
        w->visited++;
        if (!w->fn(w->order, w->total, w->ctx))
            w->stop = true;
        return;
    }
    if (w->quiescent) {
        for (int c = 0; c < w->total && !w->stop; c++) {
            if (w->used[c])
                continue;
            w->used[c] = true;
            w->order[depth] = c;
            place(w, depth + 1);
            w->used[c] = false;
        }
        return;
    }
    for (int t = 0; t < w->nthreads && !w->stop; t++) {
        if (w->next[t] == w->nops[t])
            continue;
        w->order[depth] = w->first[t] + w->next[t];
        w->next[t]++;
        place(w, depth + 1);
        w->next[t]--;
    }
}

size_t lc_orders_each(const int *nops, int nthreads, bool quiescent, lc_order_fn fn, void *ctx)
{
    struct walk w = {.nops = nops, .nthreads = nthreads, .quiescent = quiescent, .fn = fn, .ctx = ctx};
    for (int t = 0; t < nthreads; t++) {
        w.first[t] = w.total;
        w.total += nops[t];
        if (w.total > LC_ORDER_MAX || nthreads > LC_ORDER_MAX)
            return 0;
    }
    place(&w, 0);
    return w.visited;
}

long lc_outcomes_find(const struct lc_outcomes *set, const char *text)
{
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->text[i], text) == 0)
            return (long)i;
    return -1;
}

bool lc_outcomes_contains(const struct lc_outcomes *set, const char *text)
{
    return lc_outcomes_find(set, text) >= 0;
}

static bool append_order(char **orders, const char *order)
{
    size_t old = *orders ? strlen(*orders) : 0;
    char *grown = realloc(*orders, old + strlen(order) + 2);
    if (!grown)
        return false;
    if (old)
        grown[old++] = ';';
    strcpy(grown + old, order);
    *orders = grown;
    return true;
}

bool lc_outcomes_add_order(struct lc_outcomes *set, const char *text, const char *order)
{
    long at = lc_outcomes_find(set, text);
    if (at < 0) {
        if (set->n == set->cap) {
            size_t cap = set->cap ? 2 * set->cap : 16;
            char **grown = realloc(set->text, cap * sizeof *grown);
            if (!grown)
                return false;
            set->text = grown;
            grown = realloc(set->orders, cap * sizeof *grown);
            if (!grown)
                return false;
            set->orders = grown;
            set->cap = cap;
        }
        set->text[set->n] = strdup(text);
        set->orders[set->n] = NULL;
        if (!set->text[set->n])
            return false;
        at = (long)set->n++;
    }
    return !order || !*order || append_order(&set->orders[at], order);
}

bool lc_outcomes_add(struct lc_outcomes *set, const char *text)
{
    return lc_outcomes_add_order(set, text, NULL);
}

void lc_outcomes_free(struct lc_outcomes *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->text[i]);
        free(set->orders[i]);
    }
    free(set->text);
    free(set->orders);
    *set = (struct lc_outcomes){0};
}

bool lc_outcomes_write(const struct lc_outcomes *set, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    for (size_t i = 0; i < set->n; i++) {
        for (const char *o = set->orders[i]; o && *o;) {
            size_t len = strcspn(o, ";");
            fprintf(f, "@order %.*s\n", (int)len, o);
            o += len + (o[len] == ';');
        }
        fprintf(f, "%s--\n", set->text[i]);
    }
    return fclose(f) == 0;
}

bool lc_outcomes_read(struct lc_outcomes *set, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[4096];
    char *acc = NULL, *orders = NULL;
    size_t len = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        if (strcmp(line, "--\n") == 0) {
            ok = lc_outcomes_add(set, acc ? acc : "");
            for (const char *o = orders; ok && o && *o;) {
                size_t n = strcspn(o, ";");
                char one[512];
                snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one - 1 ? n : sizeof one - 1), o);
                ok = lc_outcomes_add_order(set, acc ? acc : "", one);
                o += n + (o[n] == ';');
            }
            free(orders);
            orders = NULL;
            len = 0;
            if (acc)
                acc[0] = '\0';
            continue;
        }
        if (strncmp(line, "@order ", 7) == 0) {
            line[strcspn(line, "\n")] = '\0';
            ok = append_order(&orders, line + 7);
            continue;
        }
        size_t n = strlen(line);
        char *grown = realloc(acc, len + n + 1);
        if (!grown) {
            ok = false;
            break;
        }
        acc = grown;
        memcpy(acc + len, line, n + 1);
        len += n;
    }
    free(acc);
    free(orders);
    fclose(f);
    return ok;
}

/* Copies line `line` of text into buf; false when text has fewer lines. */
static bool nth_line(const char *text, int line, char *buf, size_t len)
{
    for (int i = 0; i < line; i++) {
        text = strchr(text, '\n');
        if (!text)
            return false;
        text++;
    }
    if (!*text)
        return false;
    size_t n = strcspn(text, "\n");
    if (n >= len)
        n = len - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return true;
}

bool lc_line_possible(const struct lc_outcomes *set, const char *observed, int line)
{
    char want[512], have[512];
    if (!nth_line(observed, line, want, sizeof want))
        return false;
    for (size_t i = 0; i < set->n; i++)
        if (nth_line(set->text[i], line, have, sizeof have) && strcmp(want, have) == 0)
            return true;
    return false;
}
