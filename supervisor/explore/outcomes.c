/* outcomes: grouping executions by how they ended (see outcomes.h). */
#include "supervisor/explore/outcomes.h"
#include "supervisor/engine/exec_config.h"
#include "supervisor/explore/sha256.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void hash_fd(int fd, char hex[65])
{
    hex[0] = '\0';
    if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0)
        return;
    struct sha256 s;
    sha256_init(&s);
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        sha256_update(&s, buf, (size_t)n);
    uint8_t digest[32];
    sha256_final(&s, digest);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

void outcome_key_of(const struct exec_result *res, int out_fd, struct outcome_key *k)
{
    memset(k, 0, sizeof *k);
    k->kind = res->kind;
    /* Only what the execution's end means: two ends alike are one outcome
     * however they are read back (JSON has no exit status of a failure). */
    k->exited = res->exited;
    k->exit_status = res->exited ? res->exit_status : 0;
    k->term_signal = res->exited ? 0 : res->term_signal;
    k->incomplete = res->kind == FAIL_NONE ? (int32_t)res->incomplete : 0;
    if (res->kind != FAIL_NONE)
        snprintf(k->location, sizeof k->location, "%s", res->location);
    size_t used = 0;
    for (int i = 0; i < res->n_final_watches && used < sizeof k->watches; i++) {
        const struct state_watch *w = &res->final_watches[i];
        int n = snprintf(k->watches + used, sizeof k->watches - used, "%s%s = %s", i ? "\n" : "", w->expr,
                         w->value);
        used += n > 0 ? (size_t)n : 0;
    }
    hash_fd(out_fd, k->stdout_sha256);
}

bool outcome_key_equal(const struct outcome_key *a, const struct outcome_key *b)
{
    return a->kind == b->kind && a->exited == b->exited && a->exit_status == b->exit_status &&
           a->term_signal == b->term_signal && a->incomplete == b->incomplete &&
           strcmp(a->location, b->location) == 0 && strcmp(a->watches, b->watches) == 0 &&
           strcmp(a->stdout_sha256, b->stdout_sha256) == 0;
}

/* A new last slot. */
static struct outcome *grow(struct outcome_table *t)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->at = realloc(t->at, t->cap * sizeof *t->at);
        if (!t->at)
            abort();
    }
    return &t->at[t->n++];
}

void outcome_table_add(struct outcome_table *t, const struct outcome_key *k, uint64_t execution)
{
    for (size_t i = 0; i < t->n; i++) {
        if (outcome_key_equal(&t->at[i].key, k)) {
            t->at[i].count++;
            if (execution < t->at[i].execution)
                t->at[i].execution = execution;
            return;
        }
    }
    *grow(t) = (struct outcome){.key = *k, .count = 1, .execution = execution};
}

void outcome_table_merge(struct outcome_table *t, const struct outcome *o)
{
    for (size_t i = 0; i < t->n; i++) {
        struct outcome *have = &t->at[i];
        if (outcome_key_equal(&have->key, &o->key)) {
            have->count += o->count;
            if (o->execution < have->execution) {
                have->execution = o->execution;
                have->reproduced = o->reproduced;
                memcpy(have->schedule_file, o->schedule_file, sizeof have->schedule_file);
            }
            return;
        }
    }
    *grow(t) = *o;
}

uint64_t outcome_table_total(const struct outcome_table *t)
{
    uint64_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->at[i].count;
    return n;
}

static int by_count_then_index(const void *a, const void *b)
{
    const struct outcome *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->execution < y->execution ? -1 : x->execution > y->execution;
}

void outcome_table_sort(struct outcome_table *t)
{
    if (t->n > 1)
        qsort(t->at, t->n, sizeof *t->at, by_count_then_index);
}

void outcome_table_free(struct outcome_table *t)
{
    free(t->at);
    memset(t, 0, sizeof *t);
}

void outcome_describe(const struct outcome_key *k, char *buf, size_t len)
{
    size_t used = 0;
#define PUT(...)                                                                   \
    do {                                                                           \
        int n_ = snprintf(buf + used, used < len ? len - used : 0, __VA_ARGS__);   \
        used += n_ > 0 ? (size_t)n_ : 0;                                           \
    } while (0)
    if (k->kind != FAIL_NONE)
        PUT("%s%s%s", failure_kind_name((enum failure_kind)k->kind), k->location[0] ? " at " : "", k->location);
    else if (k->incomplete)
        PUT("incomplete (%s)", k->incomplete == INCOMPLETE_TIME ? "time limit" : "step limit");
    else if (k->exited)
        PUT("exit %d", k->exit_status);
    else if (k->term_signal)
        PUT("killed by SIG%s", sigabbrev_np(k->term_signal) ? sigabbrev_np(k->term_signal) : "NAL");
    else
        PUT("ended");
    for (const char *w = k->watches; *w;) {
        size_t n = strcspn(w, "\n");
        PUT(", %.*s", (int)n, w);
        w += n + (w[n] == '\n');
    }
    if (k->stdout_sha256[0])
        PUT(", stdout %.12s", k->stdout_sha256);
#undef PUT
    if (used >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
}
