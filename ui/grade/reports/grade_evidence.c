/* grade_evidence: the output and the steps behind a checker failure (see
 * grade_evidence.h). The steps come from the text trace's lines of data
 * accesses ("  15   T2   R sum -> 4    oscar.c:22 adder"): the names some
 * thread wrote and another thread touched are the shared ones. */
#include "ui/grade/reports/grade_evidence.h"

#include <stdlib.h>
#include <string.h>

/* The file beside the failure's schedule with suffix instead of .sched. */
static FILE *beside(const struct grade_failure *ff, const char *suffix, char *path, size_t len)
{
    size_t n = strlen(ff->schedule_file);
    if (ff->kind != FAIL_CHECKER || n < 6 || strcmp(ff->schedule_file + n - 6, ".sched") != 0)
        return NULL;
    snprintf(path, len, "%.*s%s", (int)(n - 6), ff->schedule_file, suffix);
    return fopen(path, "r");
}

void grade_evidence_output(FILE *out, const char *indent, const struct grade_failure *ff)
{
    char path[PATH_MAX + 16];
    FILE *f = beside(ff, ".stdout", path, sizeof path);
    if (!f)
        return;
    char line[240];
    int lines = 0;
    bool cut = false;
    fprintf(out, "%soutput the checker rejected (%s):\n", indent, path);
    while (fgets(line, sizeof line, f)) {
        if (lines == EVIDENCE_OUTPUT_LINES) {
            cut = true;
            break;
        }
        line[strcspn(line, "\n")] = '\0';
        fprintf(out, "%s  %s\n", indent, line);
        lines++;
    }
    if (lines == 0)
        fprintf(out, "%s  (nothing)\n", indent);
    else if (cut)
        fprintf(out, "%s  ...\n", indent);
    fclose(f);
}

/* One data access of a trace line: its thread, whether it writes, the name. */
static bool access_of(const char *line, int *thread, bool *write, char *name, size_t len)
{
    long step;
    int consumed = 0;
    if (sscanf(line, " %ld %n", &step, &consumed) != 1)
        return false;
    const char *p = line + consumed;
    if (*p == '*')
        p++;
    char op[4], word[160];
    if (sscanf(p, " T%d %3s %159s", thread, op, word) != 3 || (strcmp(op, "R") != 0 && strcmp(op, "W") != 0))
        return false;
    *write = op[0] == 'W';
    snprintf(name, len, "%s", word);
    return true;
}

struct shared_name {
    char name[160];
    int writer, toucher;    /* a thread that wrote it, a thread that touched it (0: none yet) */
    bool shared;
};

static struct shared_name *find(struct shared_name *names, size_t *n, size_t cap, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(names[i].name, name) == 0)
            return &names[i];
    if (*n == cap)
        return NULL;
    struct shared_name *s = &names[(*n)++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    return s;
}

void grade_evidence_steps(FILE *out, const char *indent, const struct grade_failure *ff)
{
    char path[PATH_MAX + 16];
    FILE *f = beside(ff, ".trace", path, sizeof path);
    if (!f)
        return;
    enum { MAX_NAMES = 256 };
    struct shared_name *names = calloc(MAX_NAMES, sizeof *names);
    char **lines = NULL;
    size_t n_names = 0, n_lines = 0, cap_lines = 0;
    char *line = NULL, name[160];
    size_t cap = 0;
    while (names && getline(&line, &cap, f) >= 0) {
        int thread;
        bool write;
        if (!access_of(line, &thread, &write, name, sizeof name))
            continue;
        struct shared_name *s = find(names, &n_names, MAX_NAMES, name);
        if (!s)
            continue;
        if (write && !s->writer)
            s->writer = thread;
        if (s->toucher && s->toucher != thread && s->writer)
            s->shared = true;
        if (s->writer && s->writer != thread)
            s->shared = true;
        if (!s->toucher)
            s->toucher = thread;
        if (n_lines == cap_lines) {
            cap_lines = cap_lines ? 2 * cap_lines : 64;
            char **grown = realloc(lines, cap_lines * sizeof *lines);
            if (!grown)
                break;
            lines = grown;
        }
        lines[n_lines++] = strdup(line);
    }
    free(line);
    fclose(f);
    /* The accesses to shared names, the first and the last half of them
     * when there are too many. */
    size_t *keep = calloc(n_lines ? n_lines : 1, sizeof *keep), n_keep = 0;
    for (size_t i = 0; keep && i < n_lines; i++) {
        int thread;
        bool write;
        if (lines[i] && access_of(lines[i], &thread, &write, name, sizeof name)) {
            struct shared_name *s = find(names, &n_names, n_names, name);
            if (s && s->shared)
                keep[n_keep++] = i;
        }
    }
    if (n_keep > 0) {
        fprintf(out, "%ssteps on data several threads touched (%s):\n", indent, path);
        for (size_t k = 0; k < n_keep; k++) {
            if (n_keep > EVIDENCE_STEPS && k == EVIDENCE_STEPS / 2) {
                fprintf(out, "%s  ... %zu more\n", indent, n_keep - EVIDENCE_STEPS);
                k = n_keep - EVIDENCE_STEPS / 2;
            }
            fprintf(out, "%s%s", indent, lines[keep[k]]);
        }
    }
    for (size_t i = 0; i < n_lines; i++)
        free(lines[i]);
    free(lines);
    free(keep);
    free(names);
}
