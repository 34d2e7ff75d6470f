/* schedule: choices of one execution and the schedule file format.
 *
 * The file is line-oriented text:
 *   mdat-schedule 1
 *   mdat-version 0.1.0
 *   program /abs/path/prog
 *   arg <C-escaped argument>        (one line per argument)
 *   sha256 <hex>
 *   strategy pct
 *   depth 3
 *   seed 1234
 *   execution 17
 *   steps 52
 *   failure deadlock
 *   preemptions 2                   (both only in a shrunk schedule: its
 *   shrunk-from 412 9                preemptions; the original's steps and
 *                                    preemptions)
 *   max-steps 1000000
 *   timeout 10
 *   time-limit 60                   (only when set)
 *   stdin <C-escaped file> <sha256> (only when the program had input; the
 *                                    file relative to the schedule's directory)
 *   fail-on-exit 0
 *   preempt sync                    (only when not all: --preempt)
 *   memory-model tso                (only with --memory-model tso)
 *   races fail                      (fail, warn or off; off when absent: files
 *                                    from before mdat looked for races)
 *   invariant <C-escaped expression> (one line per --invariant)
 *   check <C-escaped command>       (only with --check)
 *   limit-cpu 60                    (limit-cpu, -memory, -procs, -file-size:
 *                                    only those set, by mdat grade)
 *   choices <count>
 *   <step>:t<thread> <step>:w<thread> ...   (any number per line)
 *   end
 * Lines starting with '#' are comments. */
#include "supervisor/explore/schedule.h"

#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void schedule_init(struct schedule *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->mdat_version, sizeof s->mdat_version, "%s", MDAT_VERSION);
    snprintf(s->failure, sizeof s->failure, "none");
}

const char *preempt_mode_name(enum preempt_mode m)
{
    return m == PREEMPT_MODE_SYNC ? "sync" : m == PREEMPT_MODE_RACES ? "races" : "all";
}

bool preempt_mode_from_name(const char *name, enum preempt_mode *m)
{
    for (int i = PREEMPT_MODE_ALL; i <= PREEMPT_MODE_RACES; i++)
        if (strcmp(name, preempt_mode_name((enum preempt_mode)i)) == 0) {
            *m = (enum preempt_mode)i;
            return true;
        }
    return false;
}

void schedule_free(struct schedule *s)
{
    free(s->program);
    for (int i = 0; i < s->n_args; i++)
        free(s->args[i]);
    free(s->args);
    choice_list_free(&s->choices);
    free(s->check_cmd);
    free(s->stdin_file);
    for (int i = 0; i < s->n_invariants; i++)
        free(s->invariants[i]);
    free(s->invariants);
    memset(s, 0, sizeof *s);
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

void schedule_set_program(struct schedule *s, const char *program, char *const *args, int n_args)
{
    free(s->program);
    for (int i = 0; i < s->n_args; i++)
        free(s->args[i]);
    free(s->args);
    s->program = xstrdup(program);
    s->n_args = n_args;
    s->args = calloc((size_t)n_args + 1, sizeof *s->args);
    for (int i = 0; i < n_args; i++)
        s->args[i] = xstrdup(args[i]);
}

static void add_invariant(struct schedule *s, char *expr)
{
    s->invariants = realloc(s->invariants, ((size_t)s->n_invariants + 1) * sizeof *s->invariants);
    if (!s->invariants)
        abort();
    s->invariants[s->n_invariants++] = expr;
}

void schedule_set_invariants(struct schedule *s, const char *const *exprs, int n)
{
    for (int i = 0; i < s->n_invariants; i++)
        free(s->invariants[i]);
    free(s->invariants);
    s->invariants = NULL;
    s->n_invariants = 0;
    for (int i = 0; i < n; i++)
        add_invariant(s, xstrdup(exprs[i]));
}

void schedule_copy(struct schedule *dst, const struct schedule *src)
{
    *dst = *src;
    dst->program = NULL;
    dst->args = NULL;
    dst->n_args = 0;
    schedule_set_program(dst, src->program ? src->program : "", src->args, src->n_args);
    dst->check_cmd = src->check_cmd ? xstrdup(src->check_cmd) : NULL;
    dst->stdin_file = src->stdin_file ? xstrdup(src->stdin_file) : NULL;
    dst->invariants = NULL;
    dst->n_invariants = 0;
    schedule_set_invariants(dst, (const char *const *)src->invariants, src->n_invariants);
    dst->choices = (struct choice_list){0};
    choice_list_copy(&dst->choices, &src->choices);
}

/* Arguments are written C-escaped so that spaces, newlines and non-ASCII
 * bytes survive the line format. */
static void write_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\')
            fputs("\\\\", f);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}

static char *unescape(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    if (!out)
        abort();
    while (*s) {
        if (s[0] == '\\' && s[1] == '\\') {
            *o++ = '\\';
            s += 2;
        } else if (s[0] == '\\' && s[1] == 'n') {
            *o++ = '\n';
            s += 2;
        } else if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
            char hex[3] = {s[2], s[3], 0};
            *o++ = (char)strtoul(hex, NULL, 16);
            s += 4;
        } else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    return out;
}

bool schedule_write(const struct schedule *s, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    fprintf(f, "mdat-schedule 1\n");
    fprintf(f, "# Re-execute with: mdat replay %s\n", path);
    fprintf(f, "mdat-version %s\n", s->mdat_version);
    fprintf(f, "program ");
    write_escaped(f, s->program ? s->program : "");
    fputc('\n', f);
    for (int i = 0; i < s->n_args; i++) {
        fprintf(f, "arg ");
        write_escaped(f, s->args[i]);
        fputc('\n', f);
    }
    fprintf(f, "sha256 %s\n", s->sha256);
    fprintf(f, "strategy %s\n", s->strategy);
    fprintf(f, "depth %d\n", s->depth);
    fprintf(f, "seed %" PRIu64 "\n", s->seed);
    fprintf(f, "execution %" PRIu64 "\n", s->execution);
    fprintf(f, "steps %" PRIu64 "\n", s->steps);
    fprintf(f, "failure %s\n", s->failure);
    if (s->shrunk_from_steps > 0) {
        fprintf(f, "preemptions %" PRIu64 "\n", s->preemptions);
        fprintf(f, "shrunk-from %" PRIu64 " %" PRIu64 "\n", s->shrunk_from_steps, s->shrunk_from_preemptions);
    }
    fprintf(f, "max-steps %" PRIu64 "\n", s->max_steps);
    fprintf(f, "timeout %.17g\n", s->timeout_sec);
    if (s->time_limit_sec > 0)
        fprintf(f, "time-limit %.17g\n", s->time_limit_sec);
    fprintf(f, "fail-on-exit %d\n", s->fail_on_exit ? 1 : 0);
    if (s->preempt != PREEMPT_MODE_ALL)
        fprintf(f, "preempt %s\n", preempt_mode_name(s->preempt));
    if (s->tso)
        fprintf(f, "memory-model tso\n");
    fprintf(f, "races %s\n", race_mode_name(s->races));
    for (int i = 0; i < s->n_invariants; i++) {
        fprintf(f, "invariant ");
        write_escaped(f, s->invariants[i]);
        fputc('\n', f);
    }
    if (s->stdin_file) {
        fprintf(f, "stdin ");
        write_escaped(f, s->stdin_file);
        fprintf(f, " %s\n", s->stdin_sha256);
    }
    if (s->check_cmd) {
        fprintf(f, "check ");
        write_escaped(f, s->check_cmd);
        fputc('\n', f);
    }
    const struct spawn_limits *l = &s->limits;
    if (l->cpu_sec)
        fprintf(f, "limit-cpu %" PRIu64 "\n", l->cpu_sec);
    if (l->address_space)
        fprintf(f, "limit-memory %" PRIu64 "\n", l->address_space);
    if (l->nproc)
        fprintf(f, "limit-procs %" PRIu64 "\n", l->nproc);
    if (l->file_size)
        fprintf(f, "limit-file-size %" PRIu64 "\n", l->file_size);
    fprintf(f, "choices %zu\n", s->choices.n);
    for (size_t i = 0; i < s->choices.n; i++) {
        /* Under --memory-model tso, "flush T's oldest store" is 'f' T. */
        const struct choice *c = &s->choices.at[i];
        bool flush = c->kind == CHOICE_THREAD && c->thread < 0;
        fprintf(f, "%" PRIu64 ":%c%d%c", c->step, flush ? CHOICE_FLUSH : c->kind, flush ? -c->thread : c->thread,
                (i % 12 == 11 || i + 1 == s->choices.n) ? '\n' : ' ');
    }
    fprintf(f, "end\n");
    bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok) {
        snprintf(err, errlen, "cannot write %s", path);
        return false;
    }
    return true;
}

static bool parse_choices(const char *line, struct schedule *s)
{
    const char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '\n')
            break;
        char *end;
        uint64_t step = strtoull(p, &end, 10);
        if (end == p || *end != ':' || (end[1] != CHOICE_THREAD && end[1] != CHOICE_WAKE && end[1] != CHOICE_FLUSH))
            return false;
        char kind = end[1];
        p = end + 2;
        long thread = strtol(p, &end, 10);
        if (end == p || thread <= 0)
            return false;
        if (kind == CHOICE_FLUSH)
            choice_list_add(&s->choices, step, CHOICE_THREAD, -(int)thread);
        else
            choice_list_add(&s->choices, step, kind, (int)thread);
        p = end;
    }
    return true;
}

/* A relative path in a schedule (the program, its input) names a file
 * beside the schedule: course material ships a schedule next to the
 * program it plays, a failure's input is saved beside its schedule. */
static void resolve_beside(char **file, const char *schedule_path)
{
    const char *slash = strrchr(schedule_path, '/');
    int dir_len = slash ? (int)(slash - schedule_path) : 1;
    const char *dir = slash ? schedule_path : ".";
    size_t len = (size_t)dir_len + strlen(*file) + 2;
    char *joined = malloc(len);
    if (!joined)
        abort();
    snprintf(joined, len, "%.*s/%s", dir_len, dir, *file);
    char resolved[PATH_MAX];
    free(*file);
    if (realpath(joined, resolved)) {
        *file = strdup(resolved);
        free(joined);
    } else {
        *file = joined;
    }
    if (!*file)
        abort();
}

bool schedule_read(const char *path, struct schedule *s, char *err, size_t errlen)
{
    schedule_init(s);
    s->mdat_version[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return false;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0;
    bool header_seen = false, in_choices = false, ended = false, ok = true;
    size_t expected_choices = 0;
    while (ok && !ended && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (!header_seen) {
            if (strcmp(line, "mdat-schedule 1") != 0) {
                snprintf(err, errlen, "%s is not an mdat schedule file", path);
                ok = false;
            }
            header_seen = true;
            continue;
        }
        if (in_choices) {
            if (strcmp(line, "end") == 0)
                ended = true;
            else if (!parse_choices(line, s)) {
                snprintf(err, errlen, "%s:%d: malformed choice list", path, lineno);
                ok = false;
            }
            continue;
        }
        char *value = strchr(line, ' ');
        value = value ? value + 1 : line + len;
        if (strncmp(line, "mdat-version ", 13) == 0)
            snprintf(s->mdat_version, sizeof s->mdat_version, "%s", value);
        else if (strncmp(line, "program ", 8) == 0) {
            free(s->program);
            s->program = unescape(value);
        } else if (strncmp(line, "arg ", 4) == 0 || strcmp(line, "arg") == 0) {
            s->args = realloc(s->args, ((size_t)s->n_args + 2) * sizeof *s->args);
            s->args[s->n_args++] = unescape(value);
            s->args[s->n_args] = NULL;
        } else if (strncmp(line, "sha256 ", 7) == 0)
            snprintf(s->sha256, sizeof s->sha256, "%s", value);
        else if (strncmp(line, "strategy ", 9) == 0)
            snprintf(s->strategy, sizeof s->strategy, "%s", value);
        else if (strncmp(line, "depth ", 6) == 0)
            s->depth = atoi(value);
        else if (strncmp(line, "seed ", 5) == 0)
            s->seed = strtoull(value, NULL, 10);
        else if (strncmp(line, "execution ", 10) == 0)
            s->execution = strtoull(value, NULL, 10);
        else if (strncmp(line, "steps ", 6) == 0)
            s->steps = strtoull(value, NULL, 10);
        else if (strncmp(line, "failure ", 8) == 0)
            snprintf(s->failure, sizeof s->failure, "%s", value);
        else if (strncmp(line, "preemptions ", 12) == 0)
            s->preemptions = strtoull(value, NULL, 10);
        else if (strncmp(line, "shrunk-from ", 12) == 0) {
            char *rest;
            s->shrunk_from_steps = strtoull(value, &rest, 10);
            s->shrunk_from_preemptions = strtoull(rest, NULL, 10);
        } else if (strncmp(line, "max-steps ", 10) == 0)
            s->max_steps = strtoull(value, NULL, 10);
        else if (strncmp(line, "timeout ", 8) == 0)
            s->timeout_sec = strtod(value, NULL);
        else if (strncmp(line, "time-limit ", 11) == 0)
            s->time_limit_sec = strtod(value, NULL);
        else if (strncmp(line, "stdin ", 6) == 0) {
            char *space = strrchr(value, ' ');
            if (!space || strlen(space + 1) != 64) {
                snprintf(err, errlen, "%s:%d: stdin wants a file and its SHA-256", path, lineno);
                ok = false;
                continue;
            }
            *space = '\0';
            snprintf(s->stdin_sha256, sizeof s->stdin_sha256, "%s", space + 1);
            free(s->stdin_file);
            s->stdin_file = unescape(value);
        } else if (strncmp(line, "fail-on-exit ", 13) == 0)
            s->fail_on_exit = atoi(value) != 0;
        else if (strncmp(line, "memory-model ", 13) == 0) {
            if (strcmp(value, "tso") != 0 && strcmp(value, "sc") != 0) {
                snprintf(err, errlen, "%s:%d: memory-model wants sc or tso", path, lineno);
                ok = false;
            }
            s->tso = strcmp(value, "tso") == 0;
        } else if (strncmp(line, "preempt ", 8) == 0) {
            if (!preempt_mode_from_name(value, &s->preempt)) {
                snprintf(err, errlen, "%s:%d: preempt wants all, sync or races", path, lineno);
                ok = false;
            }
        } else if (strncmp(line, "races ", 6) == 0) {
            if (!race_mode_from_name(value, &s->races)) {
                snprintf(err, errlen, "%s:%d: races wants fail, warn or off", path, lineno);
                ok = false;
            }
        } else if (strncmp(line, "invariant ", 10) == 0)
            add_invariant(s, unescape(value));
        else if (strncmp(line, "check ", 6) == 0) {
            free(s->check_cmd);
            s->check_cmd = unescape(value);
        } else if (strncmp(line, "limit-cpu ", 10) == 0)
            s->limits.cpu_sec = strtoull(value, NULL, 10);
        else if (strncmp(line, "limit-memory ", 13) == 0)
            s->limits.address_space = strtoull(value, NULL, 10);
        else if (strncmp(line, "limit-procs ", 12) == 0)
            s->limits.nproc = strtoull(value, NULL, 10);
        else if (strncmp(line, "limit-file-size ", 16) == 0)
            s->limits.file_size = strtoull(value, NULL, 10);
        else if (strncmp(line, "choices ", 8) == 0) {
            expected_choices = strtoull(value, NULL, 10);
            in_choices = true;
        } else {
            snprintf(err, errlen, "%s:%d: unknown line \"%.40s\"", path, lineno, line);
            ok = false;
        }
    }
    free(line);
    fclose(f);
    if (ok && !header_seen) {
        snprintf(err, errlen, "%s is empty, not an mdat schedule file", path);
        ok = false;
    }
    if (ok && (!ended || !s->program)) {
        snprintf(err, errlen, "%s is truncated (no \"end\" line)", path);
        ok = false;
    }
    if (ok && expected_choices != s->choices.n) {
        snprintf(err, errlen, "%s: says %zu choices but lists %zu", path, expected_choices, s->choices.n);
        ok = false;
    }
    if (ok && s->program[0] != '/')
        resolve_beside(&s->program, path);
    if (ok && s->stdin_file && s->stdin_file[0] != '/')
        resolve_beside(&s->stdin_file, path);
    if (!ok)
        schedule_free(s);
    return ok;
}

bool schedule_binary_matches(const struct schedule *s, const char *sha256)
{
    return strcmp(s->sha256, SCHEDULE_ANY_BINARY) == 0 || strcmp(s->sha256, sha256) == 0;
}
