/* lc_check: the loop over a lincheck run's scenarios and the shrinking of
 * the first failing one (see lc_check.h). */
#include "ui/lincheck/lc_check.h"

#include "ui/lincheck/lc_report.h"

#include <limits.h>
#include <string.h>

/* Cuts the failing scenario down: drops one call at a time, keeping each
 * drop after which the scenario still fails the same way. */
static void shrink_scenario(const struct lc_spec *spec, const struct lc_settings *set, const char *out_dir,
                            uint64_t seed, struct lc_scenario *s, struct lc_result *r)
{
    int attempt = 0;
    for (bool progress = true; progress;) {
        progress = false;
        for (int i = 0; i < lc_scenario_size(s) && lc_scenario_size(s) > 1; i++) {
            struct lc_scenario smaller = *s;
            lc_scenario_drop_call(&smaller, i);
            if (smaller.nthreads < 2)
                continue;       /* one thread is a serial run: nothing concurrent left */
            char dir[4200];
            snprintf(dir, sizeof dir, "%s/shrink-%d", out_dir, ++attempt);
            struct lc_result candidate;
            lc_run_scenario(spec, set, &smaller, seed, dir, &candidate);
            if (candidate.verdict == LC_FAILED && strcmp(candidate.kind, r->kind) == 0) {
                *s = smaller;
                lc_result_free(r);
                *r = candidate;
                progress = true;
                break;
            }
            lc_result_free(&candidate);
        }
    }
}

/* The first failure of the range: shrunk, reported, kept in res. */
static void keep_failure(const struct lc_check_plan *p, FILE *out, bool report, int k, const char *dir,
                         struct lc_scenario *s, struct lc_result *r, struct lc_check_outcome *res)
{
    res->original_calls = lc_scenario_size(s);
    uint64_t seed = p->seed + (uint64_t)k;
    if (p->shrink) {
        shrink_scenario(p->spec, p->set, dir, seed, s, r);
        if (lc_scenario_size(s) < res->original_calls)
            fprintf(out, "  shrunk from %d calls to %d\n", res->original_calls, lc_scenario_size(s));
    }
    res->failing = *s;
    res->failure = *r;
    res->failing_index = k;
    if (report)
        lc_report_failure(out, p->spec, s, r, k, p->set->quiescent, p->set->real_time);
}

static void count_kind(struct lc_check_outcome *res, const char *kind)
{
    int i = 0;
    while (i < res->n_failed_kinds && strcmp(res->failed_kinds[i].kind, kind) != 0)
        i++;
    if (i == res->n_failed_kinds) {
        if (i == (int)(sizeof res->failed_kinds / sizeof res->failed_kinds[0]))
            return;
        snprintf(res->failed_kinds[i].kind, sizeof res->failed_kinds[i].kind, "%s", kind);
        res->n_failed_kinds++;
    }
    res->failed_kinds[i].count++;
}

void lc_check_scenarios(const struct lc_check_plan *p, FILE *out, bool report_failure,
                        struct lc_check_outcome *res)
{
    memset(res, 0, sizeof *res);
    bool dpor = strcmp(p->set->strategy, "dpor") == 0;
    for (int k = p->first; k < p->end; k++) {
        struct lc_scenario s;
        uint64_t scenario_seed = p->seed + (uint64_t)k;
        lc_scenario_generate(p->spec, scenario_seed, p->init, p->threads, p->ops, p->post, &s);
        char dir[PATH_MAX + 32], text[1024];
        snprintf(dir, sizeof dir, "%s/scenario-%d", p->out_dir, k);
        lc_scenario_text(p->spec, &s, text, sizeof text);
        struct lc_result r;
        lc_run_scenario(p->spec, p->set, &s, scenario_seed, dir, &r);
        res->scenarios_run++;
        res->executions += r.executions;
        if (r.verdict == LC_ERROR) {
            res->error_index = k;
            snprintf(res->error, sizeof res->error, "scenario %d (%s): %s", k, text, r.error);
            lc_result_free(&r);
            return;
        }
        if (r.verdict == LC_PASSED) {
            /* dpor runs one interleaving per class, and a class holds
             * interleavings whose calls overlap differently in real time:
             * going through every class proves the results, not real time. */
            bool proved = r.proved && !p->set->real_time;
            res->proved += proved;
            res->all_classes += r.proved;
            fprintf(out, "  scenario %2d  %-10s %6llu %s  %s\n", k,
                    proved ? "proved" : r.proved ? "SC-proved" : "passed", (unsigned long long)r.executions,
                    dpor ? "classes   " : "executions", text);
            lc_result_free(&r);
            continue;
        }
        fprintf(out, "  scenario %2d  %-10s %6llu %s  %s\n", k, "FAILED", (unsigned long long)r.executions,
                dpor ? "classes   " : "executions", text);
        res->failed++;
        count_kind(res, r.kind);
        if (res->failing_index == 0)
            keep_failure(p, out, report_failure, k, dir, &s, &r, res);
        else
            lc_result_free(&r);
        if (p->stop_at_failure)
            return;
    }
}
