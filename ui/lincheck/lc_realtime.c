/* lc_realtime: results and stamps of an observed output, and the judge
 * (see lc_realtime.h). */
#include "ui/lincheck/lc_realtime.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool lc_history_parse(const char *observed, struct lc_history *h)
{
    memset(h, 0, sizeof *h);
    size_t total = strlen(observed);
    h->results = malloc(total + 1);
    if (!h->results)
        return false;
    size_t out = 0;
    for (const char *p = observed; *p;) {
        size_t len = strcspn(p, "\n");
        size_t with_newline = len + (p[len] == '\n');
        int k;
        long long begin, end;
        if (p[0] == '@') {
            if (sscanf(p, "@rt %d %lld %lld", &k, &begin, &end) == 3 && k >= 0 && k < LC_RT_MAX_CALLS) {
                h->stamped[k] = true;
                h->begin[k] = begin;
                h->end[k] = end;
                if (k + 1 > h->ncalls)
                    h->ncalls = k + 1;
            }
        } else {
            memcpy(h->results + out, p, with_newline);
            out += with_newline;
        }
        p += with_newline;
    }
    h->results[out] = '\0';
    return true;
}

void lc_history_free(struct lc_history *h)
{
    free(h->results);
    h->results = NULL;
}

static int parse_order(const char *order, int *calls, int max)
{
    int n = 0;
    for (const char *p = order; *p && n < max;) {
        char *end;
        long k = strtol(p, &end, 10);
        if (end == p)
            break;
        calls[n++] = (int)k;
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

bool lc_order_keeps_real_time(const char *order, const struct lc_history *h, int *late, int *early)
{
    int calls[LC_RT_MAX_CALLS];
    int n = parse_order(order, calls, LC_RT_MAX_CALLS);
    for (int i = 0; i < n; i++) {
        int a = calls[i];
        for (int j = i + 1; j < n; j++) {
            int b = calls[j];
            if (a < 0 || b < 0 || a >= LC_RT_MAX_CALLS || b >= LC_RT_MAX_CALLS || !h->stamped[a] || !h->stamped[b])
                continue;
            if (h->end[b] < h->begin[a]) {
                *late = a;
                *early = b;
                return false;
            }
        }
    }
    return true;
}

/* The result line of parallel call k: the lines of the init part come
 * first, then the parallel calls in their serial-order numbering. */
static void call_label(const struct lc_history *h, int k, char *buf, size_t len)
{
    int init = 0;
    for (const char *p = h->results; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
        init += strncmp(p, "init ", 5) == 0;
    const char *p = h->results;
    for (int i = 0; i < init + k && p; i++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p || !*p) {
        snprintf(buf, len, "call %d", k);
        return;
    }
    size_t n = strcspn(p, "\n");
    snprintf(buf, len, "%.*s", (int)(n < len - 1 ? n : len - 1), p);
}

static int64_t first_stamp(const struct lc_history *h)
{
    int64_t first = INT64_MAX;
    for (int k = 0; k < h->ncalls; k++)
        if (h->stamped[k] && h->begin[k] < first)
            first = h->begin[k];
    return first == INT64_MAX ? 0 : first;
}

/* mdat's virtual clock moves 1 ms per step and per reading. */
static long long as_ms(const struct lc_history *h, int64_t ns)
{
    return (long long)((ns - first_stamp(h)) / 1000000);
}

/* Whether every order in the ';'-list puts call a before call b. */
static bool always_before(const char *orders, int a, int b)
{
    char one[512];
    for (const char *o = orders; *o;) {
        size_t n = strcspn(o, ";");
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one - 1 ? n : sizeof one - 1), o);
        int calls[LC_RT_MAX_CALLS];
        int len = parse_order(one, calls, LC_RT_MAX_CALLS);
        for (int i = 0; i < len; i++) {
            if (calls[i] == b)
                return false;
            if (calls[i] == a)
                break;
        }
        o += n + (o[n] == ';');
    }
    return true;
}

/* Names the pair of calls real time orders against the results: one that
 * every order giving them puts the wrong way round when there is one,
 * else the first order's. */
static void explain(const struct lc_history *h, const char *orders, int late, int early, char *why, size_t whylen)
{
    bool every = false;
    for (int a = 0; a < h->ncalls && !every; a++)
        for (int b = 0; b < h->ncalls && !every; b++)
            if (a != b && h->stamped[a] && h->stamped[b] && h->end[b] < h->begin[a] && always_before(orders, a, b)) {
                late = a;
                early = b;
                every = true;
            }
    char late_text[160], early_text[160];
    call_label(h, late, late_text, sizeof late_text);
    call_label(h, early, early_text, sizeof early_text);
    snprintf(why, whylen, "%s ended (t=%lld) before %s began (t=%lld), but %s puts %s first", early_text,
             as_ms(h, h->end[early]), late_text, as_ms(h, h->begin[late]),
             every ? "every serial order giving these results" : "the first serial order giving these results",
             late_text);
    if (!every) {
        size_t used = strlen(why);
        snprintf(why + used, whylen - used, " (and each of the others breaks real time for some pair)");
    }
}

enum lc_judgement lc_judge(const struct lc_outcomes *allowed, const char *observed, bool real_time, char *why,
                           size_t whylen)
{
    if (why && whylen)
        why[0] = '\0';
    struct lc_history h;
    if (!lc_history_parse(observed, &h))
        return LC_JUDGED_NO_ORDER;
    long at = lc_outcomes_find(allowed, h.results);
    enum lc_judgement verdict = LC_JUDGED_OK;
    if (at < 0) {
        verdict = LC_JUDGED_NO_ORDER;
    } else if (real_time && allowed->orders[at]) {
        verdict = LC_JUDGED_REAL_TIME;
        int first_late = -1, first_early = -1;
        char one[512];
        for (const char *o = allowed->orders[at]; *o && verdict != LC_JUDGED_OK;) {
            size_t n = strcspn(o, ";");
            snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one - 1 ? n : sizeof one - 1), o);
            int late, early;
            if (lc_order_keeps_real_time(one, &h, &late, &early))
                verdict = LC_JUDGED_OK;
            else if (first_late < 0)
                first_late = late, first_early = early;
            o += n + (o[n] == ';');
        }
        if (verdict == LC_JUDGED_REAL_TIME && why && first_late >= 0)
            explain(&h, allowed->orders[at], first_late, first_early, why, whylen);
    }
    lc_history_free(&h);
    return verdict;
}
