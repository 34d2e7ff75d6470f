/* lc_scenario: generating, encoding and cutting down scenarios (see
 * lc_scenario.h). */
#include "ui/lincheck/lc_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: a small generator whose sequence is the same everywhere, so a
 * recorded seed names its scenario for good. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static struct lc_call random_call(const struct lc_spec *spec, uint64_t *state)
{
    struct lc_call c = {.op = (int)(next_random(state) % (uint64_t)spec->nops)};
    const struct lc_op *op = &spec->ops[c.op];
    if (op->has_arg)
        c.arg = op->lo + (long)(next_random(state) % (uint64_t)(op->hi - op->lo + 1));
    return c;
}

void lc_scenario_generate(const struct lc_spec *spec, uint64_t seed, int ninit, int nthreads, int nops, int npost,
                          struct lc_scenario *out)
{
    memset(out, 0, sizeof *out);
    uint64_t state = seed;
    out->ninit = ninit;
    for (int i = 0; i < ninit; i++)
        out->init[i] = random_call(spec, &state);
    out->nthreads = nthreads;
    for (int t = 0; t < nthreads; t++) {
        out->nops[t] = nops;
        for (int i = 0; i < nops; i++)
            out->calls[t][i] = random_call(spec, &state);
    }
    out->npost = npost;
    for (int i = 0; i < npost; i++)
        out->post[i] = random_call(spec, &state);
}

static char *call_token(const struct lc_spec *spec, const struct lc_call *c)
{
    char buf[128];
    const struct lc_op *op = &spec->ops[c->op];
    if (op->has_arg)
        snprintf(buf, sizeof buf, "%s=%ld", op->name, c->arg);
    else
        snprintf(buf, sizeof buf, "%s", op->name);
    return strdup(buf);
}

int lc_scenario_argv(const struct lc_spec *spec, const struct lc_scenario *s, char **argv, int max)
{
    int n = 0;
    if (s->ninit > 0 && n < max) {
        argv[n++] = strdup("init");
        for (int i = 0; i < s->ninit && n < max; i++)
            argv[n++] = call_token(spec, &s->init[i]);
    }
    for (int t = 0; t < s->nthreads; t++) {
        if (s->nops[t] == 0 || n >= max)
            continue;
        argv[n++] = strdup("thread");
        for (int i = 0; i < s->nops[t] && n < max; i++)
            argv[n++] = call_token(spec, &s->calls[t][i]);
    }
    if (s->npost > 0 && n < max) {
        argv[n++] = strdup("post");
        for (int i = 0; i < s->npost && n < max; i++)
            argv[n++] = call_token(spec, &s->post[i]);
    }
    return n;
}

void lc_call_text(const struct lc_spec *spec, const struct lc_call *c, char *buf, size_t len)
{
    const struct lc_op *op = &spec->ops[c->op];
    if (op->has_arg)
        snprintf(buf, len, "%s(%ld)", op->name, c->arg);
    else
        snprintf(buf, len, "%s()", op->name);
}

static void append_call(const struct lc_spec *spec, const struct lc_call *c, char *buf, size_t len)
{
    size_t used = strlen(buf);
    if (used + 1 < len) {
        buf[used++] = ' ';
        lc_call_text(spec, c, buf + used, len - used);
    }
}

void lc_scenario_text(const struct lc_spec *spec, const struct lc_scenario *s, char *buf, size_t len)
{
    buf[0] = '\0';
    if (s->ninit > 0) {
        snprintf(buf, len, "init");
        for (int i = 0; i < s->ninit; i++)
            append_call(spec, &s->init[i], buf, len);
    }
    for (int t = 0; t < s->nthreads; t++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%sT%d", used ? " | " : "", t + 2);
        for (int i = 0; i < s->nops[t]; i++)
            append_call(spec, &s->calls[t][i], buf, len);
    }
    if (s->npost > 0) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " | post");
        for (int i = 0; i < s->npost; i++)
            append_call(spec, &s->post[i], buf, len);
    }
}

int lc_scenario_size(const struct lc_scenario *s)
{
    int n = s->ninit + s->npost;
    for (int t = 0; t < s->nthreads; t++)
        n += s->nops[t];
    return n;
}

static void drop_thread(struct lc_scenario *s, int t)
{
    for (int u = t; u + 1 < s->nthreads; u++) {
        s->nops[u] = s->nops[u + 1];
        memcpy(s->calls[u], s->calls[u + 1], sizeof s->calls[u]);
    }
    s->nthreads--;
}

void lc_scenario_drop_call(struct lc_scenario *s, int index)
{
    if (index < s->ninit) {
        memmove(&s->init[index], &s->init[index + 1], (size_t)(s->ninit - index - 1) * sizeof s->init[0]);
        s->ninit--;
        return;
    }
    index -= s->ninit;
    for (int t = 0; t < s->nthreads; t++) {
        if (index < s->nops[t]) {
            memmove(&s->calls[t][index], &s->calls[t][index + 1],
                    (size_t)(s->nops[t] - index - 1) * sizeof s->calls[t][0]);
            if (--s->nops[t] == 0)
                drop_thread(s, t);
            return;
        }
        index -= s->nops[t];
    }
    if (index < s->npost) {
        memmove(&s->post[index], &s->post[index + 1], (size_t)(s->npost - index - 1) * sizeof s->post[0]);
        s->npost--;
    }
}
