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
 *   pages own                       (own or all: page ownership, exec_pages.h)
 *   observed 0x55555555b000 ...     (PAGES_OWN: pages observed from the start)
 *   spins judged                    (spinning threads judged at once: spin_watch.h)
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
#include "supervisor/trace/safe_file.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void schedule_init(struct schedule *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->mdat_version, sizeof s->mdat_version, "%s", MDAT_VERSION);
    snprintf(s->failure, sizeof s->failure, "none");
}

/* "observed 0x55555555b000 0x7ffff0000000 ...": page addresses, in hex,
 * eight to a line. */
static void write_pages(FILE *f, const char *key, const struct page_list *pages)
{
    for (size_t i = 0; i < pages->n; i++)
        fprintf(f, "%s%s0x%" PRIx64 "%s", i % 8 == 0 ? key : "", i % 8 == 0 ? " " : "", pages->at[i],
                (i % 8 == 7 || i + 1 == pages->n) ? "\n" : " ");
}

static bool read_pages(struct page_list *pages, const char *key, const char *value, char *why, size_t whylen)
{
    const char *p = value;
    while (*p) {
        char *end;
        errno = 0;
        if (strncmp(p, "0x", 2) != 0 || !isxdigit((unsigned char)p[2])) {
            snprintf(why, whylen, "%s wants page addresses in hex (0x...)", key);
            return false;
        }
        unsigned long long page = strtoull(p, &end, 16);
        if (errno || (page & 4095) || (*end && *end != ' ')) {
            snprintf(why, whylen, "%s wants page addresses in hex, 4096-aligned", key);
            return false;
        }
        page_list_add(pages, page);
        p = *end ? end + 1 : end;
    }
    return true;
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

/* Reads what write_escaped wrote: \\, \n and \xHH (any byte but NUL,
 * which would end the string early); any other backslash is kept as it is
 * (files written by hand). NULL for a \x without two hex digits or \x00. */
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
        } else if (s[0] == '\\' && s[1] == 'x') {
            if (!isxdigit((unsigned char)s[2]) || !isxdigit((unsigned char)s[3])) {
                free(out);
                return NULL;
            }
            char hex[3] = {s[2], s[3], 0};
            unsigned long byte = strtoul(hex, NULL, 16);
            if (byte == 0) {
                free(out);
                return NULL;
            }
            *o++ = (char)byte;
            s += 4;
        } else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    return out;
}

void schedule_replay_command(const char *path, bool checker_verdict, char *out, size_t len)
{
    const char *verb = checker_verdict ? "mdat replay --trust-check " : "mdat replay ";
    bool plain = path[0] != '\0';
    for (const char *c = path; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+:,=@%", *c))
            plain = false;
    if (plain) {
        snprintf(out, len, "%s%s", verb, path);
        return;
    }
    /* Single quotes for the shell, each ' as '\''. */
    size_t k = (size_t)snprintf(out, len, "%s'", verb);
    for (const char *c = path; *c && k + 6 < len; c++) {
        if (*c == '\'') {
            memcpy(out + k, "'\\''", 4);
            k += 4;
        } else {
            out[k++] = *c;
        }
    }
    if (k + 2 <= len) {
        out[k++] = '\'';
        out[k] = '\0';
    }
}

bool schedule_write(const struct schedule *s, const char *path, char *err, size_t errlen)
{
    /* Under a temporary name, renamed when complete and synced: a schedule
     * is never seen cut short, whatever stops mdat (a full disk, a kill). */
    struct safe_file sf;
    FILE *f = safe_file_open(&sf, path, err, errlen);
    if (!f)
        return false;
    fprintf(f, "mdat-schedule 1\n");
    char replay[PATH_MAX + 64];
    schedule_replay_command(path, strcmp(s->failure, "checker") == 0, replay, sizeof replay);
    fprintf(f, "# Re-execute with: %s\n", replay);
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
    if (s->max_output)
        fprintf(f, "max-output %" PRIu64 "\n", s->max_output);
    fprintf(f, "timeout %.17g\n", s->timeout_sec);
    if (s->time_limit_sec > 0)
        fprintf(f, "time-limit %.17g\n", s->time_limit_sec);
    fprintf(f, "fail-on-exit %d\n", s->fail_on_exit ? 1 : 0);
    if (s->preempt != PREEMPT_MODE_ALL)
        fprintf(f, "preempt %s\n", preempt_mode_name(s->preempt));
    if (s->tso)
        fprintf(f, "memory-model tso\n");
    if (s->choices.pages != PAGES_OFF)
        fprintf(f, "pages %s\n", s->choices.pages == PAGES_OWN ? "own" : "all");
    if (s->choices.spins_judged)
        fprintf(f, "spins judged\n");
    write_pages(f, "observed", &s->choices.observed);
    write_pages(f, "read-shared", &s->choices.read_shared);
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
        const struct choice chosen = choice_list_at(&s->choices, i), *c = &chosen;
        bool flush = c->kind == CHOICE_THREAD && c->thread < 0;
        fprintf(f, "%" PRIu64 ":%c%d%c", c->step, flush ? CHOICE_FLUSH : c->kind, flush ? -c->thread : c->thread,
                (i % 12 == 11 || i + 1 == s->choices.n) ? '\n' : ' ');
    }
    fprintf(f, "end\n");
    return safe_file_commit(&sf, err, errlen);
}

/* An unsigned decimal, all of text, at most max. */
static bool parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    if (!isdigit((unsigned char)text[0]))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE || *end != '\0' || v > max)
        return false;
    *out = v;
    return true;
}

/* A finite number of seconds, not negative, all of text. */
static bool parse_seconds(const char *text, double *out)
{
    if (!isdigit((unsigned char)text[0]) && text[0] != '.')
        return false;
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (errno == ERANGE || *end != '\0' || !isfinite(v) || v < 0)
        return false;
    *out = v;
    return true;
}

/* One line of choices: "STEP:tT STEP:wT STEP:fT ...", T from 1 to INT_MAX.
 * false with why set when a choice is malformed. */
static bool parse_choices(const char *line, struct schedule *s, char *why, size_t whylen)
{
    const char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        const char *word = p;
        size_t n = strcspn(p, " \t");
        p += n;
        char buf[48];
        if (n >= sizeof buf) {
            snprintf(why, whylen, "malformed choice \"%.20s...\": too long", word);
            return false;
        }
        memcpy(buf, word, n);
        buf[n] = '\0';
        char *colon = strchr(buf, ':');
        uint64_t step, thread;
        if (!colon || (colon[1] != CHOICE_THREAD && colon[1] != CHOICE_WAKE && colon[1] != CHOICE_FLUSH)) {
            snprintf(why, whylen, "malformed choice \"%s\" (STEP:tT, STEP:wT or STEP:fT)", buf);
            return false;
        }
        char kind = colon[1];
        *colon = '\0';
        if (!parse_u64(buf, UINT64_MAX, &step)) {
            snprintf(why, whylen, "malformed choice: step \"%s\" is not an unsigned number", buf);
            return false;
        }
        if (!parse_u64(colon + 2, INT_MAX, &thread) || thread == 0) {
            snprintf(why, whylen, "malformed choice %s:%c%s: the thread must be a number from 1 to %d", buf, kind,
                     colon + 2, INT_MAX);
            return false;
        }
        if (kind == CHOICE_FLUSH)
            choice_list_add(&s->choices, step, CHOICE_THREAD, -(int)thread);
        else
            choice_list_add(&s->choices, step, kind, (int)thread);
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

/* The longest line a schedule may have (choices come twelve to a line;
 * a program's argument or a checker command are the long ones). */
enum { SCHEDULE_MAX_LINE = 1 << 20 };

/* Reads one line (without its "\n" or "\r\n") into *buf. 1: a line, 0: the
 * end of the file, -1: why says what is wrong (a NUL byte: not text; a
 * line beyond SCHEDULE_MAX_LINE; more than SCHEDULE_MAX_FILE bytes in all,
 * counted in *total: a pipe that never ends). */
static int read_line(FILE *f, char **buf, size_t *cap, size_t *total, char *why, size_t whylen)
{
    size_t len = 0;
    int c;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (++*total > SCHEDULE_MAX_FILE) {
            snprintf(why, whylen, "more than %d MiB, more than a schedule file may be", SCHEDULE_MAX_FILE >> 20);
            return -1;
        }
        if (c == '\0') {
            snprintf(why, whylen, "a NUL byte: this is not a text file");
            return -1;
        }
        if (len + 2 > *cap) {
            if (*cap >= SCHEDULE_MAX_LINE) {
                snprintf(why, whylen, "a line longer than %d bytes", SCHEDULE_MAX_LINE);
                return -1;
            }
            *cap = *cap ? *cap * 2 : 256;
            *buf = realloc(*buf, *cap);
            if (!*buf)
                abort();
        }
        (*buf)[len++] = (char)c;
    }
    if (c == EOF && len == 0)
        return 0;
    if (len > 0 && (*buf)[len - 1] == '\r')
        len--;  /* a file that went through an editor using CRLF */
    if (!*buf) {
        *buf = malloc(1);
        if (!*buf)
            abort();
        *cap = 1;
    }
    (*buf)[len] = '\0';
    return 1;
}

/* An escaped value into *dst (freed first); false when malformed. */
static bool set_escaped(char **dst, const char *value, char *why, size_t whylen)
{
    char *v = unescape(value);
    if (!v) {
        snprintf(why, whylen, "a \\x escape wants two hex digits, not 00");
        return false;
    }
    free(*dst);
    *dst = v;
    return true;
}

static bool is_sha256(const char *text)
{
    if (strlen(text) != 64)
        return false;
    for (const char *p = text; *p; p++)
        if (!isxdigit((unsigned char)*p))
            return false;
    return true;
}

static bool want_number(const char *key, const char *value, uint64_t max, uint64_t *out, char *why, size_t whylen)
{
    if (parse_u64(value, max, out))
        return true;
    if (max == UINT64_MAX)
        snprintf(why, whylen, "%s wants an unsigned number, not \"%.40s\"", key, value);
    else
        snprintf(why, whylen, "%s wants a number from 0 to %" PRIu64 ", not \"%.40s\"", key, max, value);
    return false;
}

/* One "KEY VALUE" line of the header. false with why set. */
static bool parse_key(const char *line, const char *value, struct schedule *s, uint64_t *expected_choices,
                      char *why, size_t whylen)
{
#define KEY(name) (strncmp(line, name " ", sizeof name) == 0)
#define NUMBER(field, max, what)                                     \
    do {                                                             \
        uint64_t v_;                                                 \
        if (!want_number(what, value, (max), &v_, why, whylen))      \
            return false;                                            \
        field = v_;                                                  \
    } while (0)
    if (KEY("mdat-version"))
        snprintf(s->mdat_version, sizeof s->mdat_version, "%s", value);
    else if (KEY("program"))
        return set_escaped(&s->program, value, why, whylen);
    else if (KEY("arg") || strcmp(line, "arg") == 0) {
        char *arg = NULL;
        if (!set_escaped(&arg, value, why, whylen))
            return false;
        s->args = realloc(s->args, ((size_t)s->n_args + 2) * sizeof *s->args);
        if (!s->args)
            abort();
        s->args[s->n_args++] = arg;
        s->args[s->n_args] = NULL;
    } else if (KEY("sha256") || strcmp(line, "sha256") == 0)
        snprintf(s->sha256, sizeof s->sha256, "%s", value);   /* compared, never trusted */
    else if (KEY("strategy"))
        snprintf(s->strategy, sizeof s->strategy, "%s", value);
    else if (KEY("depth"))
        NUMBER(s->depth, INT_MAX, "depth");
    else if (KEY("seed"))
        NUMBER(s->seed, UINT64_MAX, "seed");
    else if (KEY("execution"))
        NUMBER(s->execution, UINT64_MAX, "execution");
    else if (KEY("steps"))
        NUMBER(s->steps, UINT64_MAX, "steps");
    else if (KEY("failure"))
        snprintf(s->failure, sizeof s->failure, "%s", value);
    else if (KEY("preemptions"))
        NUMBER(s->preemptions, UINT64_MAX, "preemptions");
    else if (KEY("shrunk-from")) {
        char steps[32];
        const char *space = strchr(value, ' ');
        size_t n = space ? (size_t)(space - value) : 0;
        if (!space || n >= sizeof steps) {
            snprintf(why, whylen, "shrunk-from wants two unsigned numbers (steps, preemptions), not \"%.40s\"", value);
            return false;
        }
        memcpy(steps, value, n);
        steps[n] = '\0';
        if (!want_number("shrunk-from", steps, UINT64_MAX, &s->shrunk_from_steps, why, whylen) ||
            !want_number("shrunk-from", space + 1, UINT64_MAX, &s->shrunk_from_preemptions, why, whylen))
            return false;
    } else if (KEY("max-steps"))
        NUMBER(s->max_steps, UINT64_MAX, "max-steps");
    else if (KEY("max-output"))
        NUMBER(s->max_output, UINT64_MAX, "max-output");
    else if (KEY("timeout") || KEY("time-limit")) {
        double *field = KEY("timeout") ? &s->timeout_sec : &s->time_limit_sec;
        if (!parse_seconds(value, field)) {
            snprintf(why, whylen, "%s wants a finite number of seconds, not \"%.40s\"",
                     field == &s->timeout_sec ? "timeout" : "time-limit", value);
            return false;
        }
    } else if (KEY("stdin")) {
        char *space = strrchr(value, ' ');
        if (!space || !is_sha256(space + 1)) {
            snprintf(why, whylen, "stdin wants a file and its SHA-256");
            return false;
        }
        snprintf(s->stdin_sha256, sizeof s->stdin_sha256, "%s", space + 1);
        char name[SCHEDULE_MAX_LINE > 4096 ? 4096 : SCHEDULE_MAX_LINE];
        snprintf(name, sizeof name, "%.*s", (int)(space - value), value);
        return set_escaped(&s->stdin_file, name, why, whylen);
    } else if (KEY("fail-on-exit")) {
        if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0) {
            snprintf(why, whylen, "fail-on-exit wants 0 or 1");
            return false;
        }
        s->fail_on_exit = value[0] == '1';
    } else if (KEY("memory-model")) {
        if (strcmp(value, "tso") != 0 && strcmp(value, "sc") != 0) {
            snprintf(why, whylen, "memory-model wants sc or tso");
            return false;
        }
        s->tso = strcmp(value, "tso") == 0;
    } else if (KEY("spins")) {
        if (strcmp(value, "judged") != 0) {
            snprintf(why, whylen, "spins wants judged");
            return false;
        }
        s->choices.spins_judged = true;
    } else if (KEY("pages")) {

        if (strcmp(value, "own") != 0 && strcmp(value, "all") != 0) {
            snprintf(why, whylen, "pages wants own or all");
            return false;
        }
        s->choices.pages = value[0] == 'o' ? PAGES_OWN : PAGES_OBSERVE_ALL;
    } else if (KEY("observed")) {
        return read_pages(&s->choices.observed, "observed", value, why, whylen);
    } else if (KEY("read-shared")) {
        return read_pages(&s->choices.read_shared, "read-shared", value, why, whylen);
    } else if (KEY("preempt")) {

        if (!preempt_mode_from_name(value, &s->preempt)) {
            snprintf(why, whylen, "preempt wants all, sync or races");
            return false;
        }
    } else if (KEY("races")) {
        if (!race_mode_from_name(value, &s->races)) {
            snprintf(why, whylen, "races wants fail, warn or off");
            return false;
        }
    } else if (KEY("invariant")) {
        char *expr = NULL;
        if (!set_escaped(&expr, value, why, whylen))
            return false;
        add_invariant(s, expr);
    } else if (KEY("check"))
        return set_escaped(&s->check_cmd, value, why, whylen);
    else if (KEY("limit-cpu"))
        NUMBER(s->limits.cpu_sec, UINT64_MAX, "limit-cpu");
    else if (KEY("limit-memory"))
        NUMBER(s->limits.address_space, UINT64_MAX, "limit-memory");
    else if (KEY("limit-procs"))
        NUMBER(s->limits.nproc, UINT64_MAX, "limit-procs");
    else if (KEY("limit-file-size"))
        NUMBER(s->limits.file_size, UINT64_MAX, "limit-file-size");
    else if (KEY("choices"))
        NUMBER(*expected_choices, UINT64_MAX, "choices");
    else {
        snprintf(why, whylen, "unknown line \"%.40s\"", line);
        return false;
    }
    return true;
#undef NUMBER
#undef KEY
}

bool schedule_read_stream(FILE *f, const char *name, struct schedule *s, char *err, size_t errlen)
{
    schedule_init(s);
    s->mdat_version[0] = '\0';
    char *line = NULL, why[200] = "";
    size_t cap = 0, total = 0;
    int lineno = 0, r = 0;
    bool header_seen = false, in_choices = false, ended = false, ok = true;
    uint64_t expected_choices = 0;
    while (ok && !ended && (r = read_line(f, &line, &cap, &total, why, sizeof why)) > 0) {
        lineno++;
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (!header_seen) {
            header_seen = true;
            if (strcmp(line, "mdat-schedule 1") != 0) {
                snprintf(why, sizeof why, "%s", strncmp(line, "mdat-schedule ", 14) == 0
                         ? "not an mdat schedule file this mdat reads (it reads format \"mdat-schedule 1\")"
                         : "not an mdat schedule file (its first line is not \"mdat-schedule 1\")");
                ok = false;
            }
        } else if (in_choices) {
            if (strcmp(line, "end") == 0)
                ended = true;
            else
                ok = parse_choices(line, s, why, sizeof why);
        } else if (strchr(line, ' ') || strcmp(line, "arg") == 0 || strcmp(line, "sha256") == 0) {
            const char *value = strchr(line, ' ');
            value = value ? value + 1 : line + strlen(line);
            ok = parse_key(line, value, s, &expected_choices, why, sizeof why);
            in_choices = ok && strncmp(line, "choices ", 8) == 0;
        } else {
            snprintf(why, sizeof why, "unknown line \"%.40s\"", line);
            ok = false;
        }
    }
    free(line);
    if (r < 0 || !ok)
        snprintf(err, errlen, "%s:%d: %s", name, r < 0 ? lineno + 1 : lineno, why);
    else if (!header_seen)
        snprintf(err, errlen, "%s is empty, not an mdat schedule file", name);
    else if (!s->program)
        snprintf(err, errlen, "%s has no \"program\" line: it does not say what to run", name);
    else if (!in_choices)
        snprintf(err, errlen, "%s has no \"choices\" line (a truncated file?)", name);
    else if (!ended)
        snprintf(err, errlen, "%s is truncated (no \"end\" line after its choices)", name);
    else if (expected_choices != s->choices.n)
        snprintf(err, errlen, "%s: says %" PRIu64 " choices but lists %zu", name, expected_choices, s->choices.n);
    else if (!s->program[0])
        snprintf(err, errlen, "%s: its \"program\" line is empty", name);
    else
        return true;
    schedule_free(s);
    return false;
}

bool schedule_read(const char *path, struct schedule *s, char *err, size_t errlen)
{
    schedule_init(s);
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return false;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is a directory: give one of the .sched files in it", path);
        fclose(f);
        return false;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > SCHEDULE_MAX_FILE) {
        snprintf(err, errlen, "%s is %lld bytes, more than a schedule file may be (%d MiB)", path,
                 (long long)st.st_size, SCHEDULE_MAX_FILE >> 20);
        fclose(f);
        return false;
    }
    bool ok = schedule_read_stream(f, path, s, err, errlen);
    fclose(f);
    if (ok && s->program[0] != '/')
        resolve_beside(&s->program, path);
    if (ok && s->stdin_file && s->stdin_file[0] != '/')
        resolve_beside(&s->stdin_file, path);
    return ok;
}

bool schedule_binary_matches(const struct schedule *s, const char *sha256)
{
    return strcmp(s->sha256, SCHEDULE_ANY_BINARY) == 0 || strcmp(s->sha256, sha256) == 0;
}
