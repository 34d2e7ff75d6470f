/* grade_model: verdicts, names, shard ranges, replay commands and how the
 * units of a submission combine into its result (the pure part of
 * grading). */
#include "ui/grade/model/grade_model.h"
#include "supervisor/explore/schedule.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const VERDICT_NAMES[VERDICT_COUNT] = {
    [VERDICT_OK] = "ok",
    [VERDICT_DEADLOCK] = "deadlock",
    [VERDICT_ASSERTION] = "assertion",
    [VERDICT_CRASH] = "crash",
    [VERDICT_CHECKER] = "checker",
    [VERDICT_HANG] = "hang",
    [VERDICT_MISUSE] = "misuse",
    [VERDICT_EXIT_STATUS] = "exit-status",
    [VERDICT_RACE] = "race",
    [VERDICT_INVARIANT] = "invariant",
    [VERDICT_SANDBOX] = "sandbox-violation",
    [VERDICT_HEAP] = "heap-error",
    [VERDICT_TAMPERED] = "tampered",
    [VERDICT_BUILD_FAILED] = "build-failed",
    [VERDICT_MDAT_ERROR] = "mdat-error",
    [VERDICT_NOT_GRADED] = "not-graded",
    [VERDICT_LINEARIZABLE] = "linearizable",
    [VERDICT_NOT_LINEARIZABLE] = "not-linearizable",
};

static const char *const VERDICT_TEXTS[VERDICT_COUNT] = {
    [VERDICT_OK] = "no failure found",
    [VERDICT_DEADLOCK] = "deadlock",
    [VERDICT_ASSERTION] = "assertion",
    [VERDICT_CRASH] = "crash",
    [VERDICT_CHECKER] = "checker violation",
    [VERDICT_HANG] = "hang",
    [VERDICT_MISUSE] = "misuse",
    [VERDICT_EXIT_STATUS] = "exit status",
    [VERDICT_RACE] = "data race",
    [VERDICT_INVARIANT] = "invariant broken",
    [VERDICT_SANDBOX] = "sandbox violation",
    [VERDICT_HEAP] = "use after free or double free",
    [VERDICT_TAMPERED] = "grading tampered with",
    [VERDICT_BUILD_FAILED] = "build failed",
    [VERDICT_MDAT_ERROR] = "mdat error",
    [VERDICT_NOT_GRADED] = "not graded",
    [VERDICT_LINEARIZABLE] = "linearizable",
    [VERDICT_NOT_LINEARIZABLE] = "not linearizable",
};

const char *grade_verdict_name(enum grade_verdict v)
{
    return v < VERDICT_COUNT ? VERDICT_NAMES[v] : "?";
}

const char *grade_verdict_text(enum grade_verdict v)
{
    return v < VERDICT_COUNT ? VERDICT_TEXTS[v] : "?";
}

bool grade_verdict_passed(enum grade_verdict v)
{
    return v == VERDICT_OK || v == VERDICT_LINEARIZABLE;
}

enum grade_verdict grade_verdict_of_failure(enum failure_kind kind)
{
    switch (kind) {
    case FAIL_NONE: return VERDICT_OK;
    case FAIL_DEADLOCK: return VERDICT_DEADLOCK;
    case FAIL_ASSERTION: return VERDICT_ASSERTION;
    case FAIL_CRASH: return VERDICT_CRASH;
    case FAIL_EXIT_STATUS: return VERDICT_EXIT_STATUS;
    case FAIL_LIVELOCK:
    case FAIL_HANG: return VERDICT_HANG;
    case FAIL_CHECKER: return VERDICT_CHECKER;
    case FAIL_MISUSE: return VERDICT_MISUSE;
    case FAIL_RACE: return VERDICT_RACE;
    case FAIL_INVARIANT: return VERDICT_INVARIANT;
    case FAIL_SANDBOX: return VERDICT_SANDBOX;
    case FAIL_HEAP: return VERDICT_HEAP;
    case FAIL_KIND_COUNT: break;
    }
    return VERDICT_MDAT_ERROR;
}

static const char *const UNIT_STATUS_NAMES[UNIT_STATUS_COUNT] = {
    [UNIT_GRADED] = "graded",
    [UNIT_BUILD_FAILED] = "build-failed",
    [UNIT_MDAT_ERROR] = "mdat-error",
    [UNIT_WALL_CLOCK] = "wall-clock",
    [UNIT_TAMPERED] = "tampered",
};

const char *grade_unit_status_name(enum unit_status s)
{
    return s < UNIT_STATUS_COUNT ? UNIT_STATUS_NAMES[s] : "?";
}

bool grade_unit_status_from_name(const char *name, enum unit_status *out)
{
    /* Shards and journals of 0.3 called tampering a sandbox violation. */
    if (strcmp(name, "sandbox-violation") == 0)
        name = UNIT_STATUS_NAMES[UNIT_TAMPERED];
    for (int i = 0; i < UNIT_STATUS_COUNT; i++)
        if (strcmp(name, UNIT_STATUS_NAMES[i]) == 0) {
            *out = (enum unit_status)i;
            return true;
        }
    return false;
}

/* Appends printf-style text to a fixed buffer, cutting what does not fit. */
static void append(char *buf, size_t len, const char *fmt, const char *arg)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, fmt, arg);
}

/* The details of a failure verdict: its message, what kind of hang, the
 * program's own word on stderr, the other kinds seen. */
static void failure_details(const struct grade_result *r, char *out, size_t len)
{
    const struct grade_failure *f = &r->first_failure;
    out[0] = '\0';
    if (f->kind == FAIL_HANG && f->message[0])
        append(out, len, "%s", "hang: ");
    else if (f->kind == FAIL_LIVELOCK)
        append(out, len, "%s", "livelock: ");
    /* A failure the re-run did not reproduce has no message of its own. */
    append(out, len, "%s", f->message[0] ? f->message : failure_kind_name(f->kind));
    /* A crash or exit status often has its reason on stderr ("out of
     * memory", "fork: Resource temporarily unavailable"); an assertion's
     * stderr only repeats the message. */
    if (f->program_stderr[0] && (f->kind == FAIL_CRASH || f->kind == FAIL_EXIT_STATUS))
        append(out, len, "; the program's stderr: %s", f->program_stderr);
    if (!f->reproduced)
        append(out, len, "%s", " (not reproduced when re-run)");
    /* Races counted wherever found: with --races fail-at-end an execution
     * may race and also fail the checker. */
    uint64_t raced = r->raced > r->failing_by_kind[FAIL_RACE] ? r->raced : r->failing_by_kind[FAIL_RACE];
    bool first_other = true;
    for (int k = FAIL_NONE + 1; k < FAIL_KIND_COUNT; k++) {
        uint64_t count = k == FAIL_RACE ? raced : r->failing_by_kind[k];
        if (k == (int)f->kind || count == 0)
            continue;
        char n[32];
        snprintf(n, sizeof n, " in %llu", (unsigned long long)count);
        append(out, len, first_other ? "; also %s" : ", %s", failure_kind_name((enum failure_kind)k));
        append(out, len, "%s", n);
        first_other = false;
    }

}

uint64_t grade_units_total(const struct grade_settings *s)
{
    return s->lincheck_spec ? s->lincheck_scenarios : s->schedules;
}

/* --lincheck: the units' scenarios as one; the failing scenario's table is
 * the first failure's unit's. */
static void add_lincheck(struct grade_lincheck *out, const struct grade_unit *u, bool takes_failure)
{
    if (!u->lincheck.ran)
        return;
    out->ran = true;
    out->dpor = u->lincheck.dpor;
    out->proved += u->lincheck.proved;
    out->interleavings += u->lincheck.interleavings;
    if (takes_failure) {
        snprintf(out->scenario, sizeof out->scenario, "%s", u->lincheck.scenario);
        snprintf(out->table, sizeof out->table, "%s", u->lincheck.table);
    }
}

/* The verdict of a lincheck grading: a checker failure is a result no
 * serial order gives; any other failure keeps its own verdict. */
static void lincheck_verdict(struct grade_result *out)
{
    if (out->verdict == VERDICT_OK) {
        out->verdict = VERDICT_LINEARIZABLE;
        if (out->lincheck.dpor)
            snprintf(out->details, sizeof out->details,
                     "%llu scenarios checked, none failed; %llu proved by dpor (%llu classes of interleavings)",
                     (unsigned long long)out->schedules_run, (unsigned long long)out->lincheck.proved,
                     (unsigned long long)out->lincheck.interleavings);
        else
            snprintf(out->details, sizeof out->details,
                     "%llu scenarios checked, none failed in %llu executions sampled (no proof)",
                     (unsigned long long)out->schedules_run, (unsigned long long)out->lincheck.interleavings);
    } else if (out->verdict == VERDICT_CHECKER) {
        out->verdict = VERDICT_NOT_LINEARIZABLE;
        char head[160];
        snprintf(head, sizeof head, "scenario %llu (%llu of %llu scenarios failing), at its smallest: ",
                 (unsigned long long)out->first_failure.execution, (unsigned long long)out->failing,
                 (unsigned long long)out->schedules_run);
        char rest[sizeof out->details];
        snprintf(rest, sizeof rest, "%s", out->details);
        snprintf(out->details, sizeof out->details, "%s%s: %s", head, out->lincheck.scenario, rest);
    }
}

static int by_first(const void *a, const void *b)
{
    uint64_t x = (*(const struct grade_unit *const *)a)->first, y = (*(const struct grade_unit *const *)b)->first;
    return x < y ? -1 : x > y;
}

void grade_unit_free(struct grade_unit *u)
{
    outcome_table_free(&u->outcomes);
}

void grade_result_free(struct grade_result *r)
{
    outcome_table_free(&r->outcomes);
}

void grade_aggregate(const struct grade_unit *units, size_t n, struct grade_result *out)
{
    memset(out, 0, sizeof *out);
    const struct grade_unit **sorted = calloc(n ? n : 1, sizeof *sorted);
    if (!sorted)
        abort();
    for (size_t i = 0; i < n; i++)
        sorted[i] = &units[i];
    qsort(sorted, n, sizeof *sorted, by_first);
    /* The first unit (in range order) of each status that overrides the
     * exploration's findings: a failed build, then tampering with the
     * grading, then mdat's own error, then the wall clock. */
    const struct grade_unit *build = NULL, *tampered = NULL, *error = NULL, *wall = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct grade_unit *u = sorted[i];
        out->seconds += u->seconds;
        if (u->status == UNIT_BUILD_FAILED && !build)
            build = u;
        if (u->status == UNIT_TAMPERED && !tampered)
            tampered = u;
        if (u->status == UNIT_MDAT_ERROR && !error)
            error = u;
        if (u->status == UNIT_WALL_CLOCK && !wall)
            wall = u;
        if (u->status != UNIT_GRADED && u->status != UNIT_WALL_CLOCK)
            continue;
        out->schedules_run += u->schedules_run;
        out->failing += u->failing;
        for (int k = 0; k < FAIL_KIND_COUNT; k++)
            out->failing_by_kind[k] += u->failing_by_kind[k];
        out->raced += u->raced;
        out->output_accepted += u->output_accepted;
        add_lincheck(&out->lincheck, u, u->has_failure && !out->has_failure);
        if (u->has_failure && !out->has_failure) {
            out->has_failure = true;
            out->first_failure = u->first_failure;
        }
        for (size_t o = 0; o < u->outcomes.n; o++)
            outcome_table_merge(&out->outcomes, &u->outcomes.at[o]);
        out->outcomes_left_out += u->outcomes_left_out;
    }
    outcome_table_sort(&out->outcomes);
    const struct grade_unit *stopped = build ? build : tampered ? tampered : error ? error : wall;
    if (stopped) {
        out->verdict = build       ? VERDICT_BUILD_FAILED
                       : tampered  ? VERDICT_TAMPERED
                       : error     ? VERDICT_MDAT_ERROR
                                   : VERDICT_HANG;
        snprintf(out->details, sizeof out->details, "%s", stopped->message);
        if (build) {
            /* Nothing ran: the counts of other units would only confuse. */
            out->schedules_run = out->failing = out->raced = out->output_accepted = 0;
            memset(out->failing_by_kind, 0, sizeof out->failing_by_kind);
            out->has_failure = false;
            memset(&out->first_failure, 0, sizeof out->first_failure);
        }
    } else if (out->has_failure) {
        out->verdict = grade_verdict_of_failure(out->first_failure.kind);
        failure_details(out, out->details, sizeof out->details);
    } else {
        out->verdict = VERDICT_OK;
    }
    if (out->lincheck.ran && !stopped)
        lincheck_verdict(out);
    for (size_t i = 0; i < n; i++)
        if (sorted[i]->build_output[0]) {
            snprintf(out->build_output, sizeof out->build_output, "%s", sorted[i]->build_output);
            break;
        }
    free(sorted);
}

void grade_submission_name(const char *given, int index, int n, char *out, size_t len)
{
    /* The last path component, without trailing slashes. */
    size_t end = strlen(given);
    while (end > 1 && given[end - 1] == '/')
        end--;
    size_t start = end;
    while (start > 0 && given[start - 1] != '/')
        start--;
    char base[200];
    size_t k = 0;
    for (size_t i = start; i < end && k + 1 < sizeof base; i++) {
        unsigned char c = (unsigned char)given[i];
        base[k++] = (char)(isalnum(c) || c == '.' || c == '_' || c == '-' ? c : '_');
    }
    base[k] = '\0';
    if (k == 0 || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        snprintf(base, sizeof base, "submission");
    int width = 2;
    for (int m = n; m >= 100; m /= 10)
        width++;
    snprintf(out, len, "%0*d-%s", width, index + 1, base);
}

void grade_shard_range(uint64_t schedules, int k, int n, uint64_t *first, uint64_t *end)
{
    *first = (uint64_t)((unsigned __int128)schedules * (unsigned)(k - 1) / (unsigned)n);
    *end = (uint64_t)((unsigned __int128)schedules * (unsigned)k / (unsigned)n);
}

void grade_replay_command(const struct grade_failure *f, char *out, size_t len)
{
    schedule_replay_command(f->schedule_file, f->kind == FAIL_CHECKER, out, len);
}
