/* lc_spec: parses a lincheck spec file (see lc_spec.h). A line is a
 * keyword and its text; '#' starts a comment outside the C parts. */
#include "ui/lincheck/lc_spec.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* A comment starts at a '#' at the line's start or after a blank: "#include"
 * is no keyword here, and C text after a keyword may hold '#' in strings
 * only rarely; the spec format says comments stand after a blank. */
static void cut_comment(char *line)
{
    for (char *p = line; *p; p++)
        if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
            *p = '\0';
            return;
        }
}

static bool is_ident(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}

/* "struct queue *q = queue_new(8);" into its declaration, constructor
 * and name. */
static bool parse_state(char *text, char **decl_out, char **init_out, char **name_out, const char **why)
{
    size_t n = strlen(text);
    if (n && text[n - 1] == ';')
        text[--n] = '\0';
    char *eq = strchr(text, '=');
    if (!eq) {
        *why = "state needs a declaration and its constructor: state struct queue *q = queue_new(8);";
        return false;
    }
    *eq = '\0';
    char *decl = trim(text), *init = trim(eq + 1);
    size_t dn = strlen(decl);
    size_t start = dn;
    while (start > 0 && (isalnum((unsigned char)decl[start - 1]) || decl[start - 1] == '_'))
        start--;
    if (!*init || start == 0 || !is_ident(decl + start, dn - start)) {
        *why = "state needs a type, a name and a constructor: state struct queue *q = queue_new(8);";
        return false;
    }
    *decl_out = strdup(decl);
    *init_out = strdup(init);
    *name_out = strdup(decl + start);
    return true;
}

/* "push(int 0..3)  queue_push(q, $1)" or "pop() -> int  queue_pop(q)" */
static bool parse_op(char *text, struct lc_op *op, const char **why)
{
    char *open = strchr(text, '('), *close = open ? strchr(open, ')') : NULL;
    *why = "an operation reads: op NAME([TYPE LO..HI]) [-> TYPE] C-EXPRESSION";
    if (!open || !close)
        return false;
    *open = '\0';
    char *name = trim(text);
    if (!is_ident(name, strlen(name)) || strlen(name) >= sizeof op->name)
        return false;
    strcpy(op->name, name);
    *close = '\0';
    char *params = trim(open + 1);
    if (*params) {
        char type[64];
        long lo, hi;
        int used = 0;
        if (sscanf(params, "%63[A-Za-z_ ] %ld..%ld %n", type, &lo, &hi, &used) != 3 || params[used] != '\0') {
            *why = "an argument reads TYPE LO..HI (one argument, an integer range: int 0..3)";
            return false;
        }
        if (lo > hi || hi - lo > 1000000) {
            *why = "an argument range LO..HI needs LO <= HI";
            return false;
        }
        op->has_arg = true;
        snprintf(op->arg_type, sizeof op->arg_type, "%s", trim(type));
        op->lo = lo;
        op->hi = hi;
    }
    char *rest = trim(close + 1);
    if (strncmp(rest, "->", 2) == 0) {
        rest = trim(rest + 2);
        size_t tn = strcspn(rest, " \t");
        /* Two-word types ("unsigned long", "long long"). */
        while (tn < strlen(rest)) {
            char *next = trim(rest + tn);
            size_t wn = strcspn(next, " \t");
            bool type_word = (wn == 4 && strncmp(next, "long", 4) == 0) || (wn == 3 && strncmp(next, "int", 3) == 0) ||
                             (wn == 5 && strncmp(next, "short", 5) == 0) || (wn == 4 && strncmp(next, "char", 4) == 0);
            if (!type_word)
                break;
            tn = (size_t)(next - rest) + wn;
        }
        if (tn == 0 || tn >= sizeof op->result_type) {
            *why = "a result type follows ->: pop() -> int queue_pop(q)";
            return false;
        }
        memcpy(op->result_type, rest, tn);
        op->result_type[tn] = '\0';
        op->has_result = strcmp(op->result_type, "void") != 0;
        rest = trim(rest + tn);
    }
    if (!*rest) {
        *why = "an operation needs the C call it makes: op pop() -> int queue_pop(q)";
        return false;
    }
    if (op->has_arg != (strstr(rest, "$1") != NULL)) {
        *why = op->has_arg ? "the call must use its argument as $1" : "$1 in a call of an operation without argument";
        return false;
    }
    size_t rn = strlen(rest);
    if (rest[rn - 1] == ';')
        rest[rn - 1] = '\0';
    op->call = strdup(rest);
    return op->call != NULL;
}

static bool add_file(char **files, int *n, const char *name, const char *what, const char **why)
{
    if (!*name || *n == LC_MAX_FILES) {
        *why = *name ? "too many source or include lines" : what;
        return false;
    }
    files[(*n)++] = strdup(name);
    return true;
}

/* "seq source FILE", "seq include HEADER", "seq state DECL = INIT;" or
 * "seq NAME CALL": the sequential implementation and, per operation
 * declared above, its call there ($1 the argument, as in the op line). */
static bool parse_seq_line(char *text, struct lc_spec *spec, const char **why)
{
    size_t kn = strcspn(text, " \t");
    char *rest = trim(text + kn);
    text[kn] = '\0';
    spec->has_seq = true;
    if (strcmp(text, "source") == 0 || strcmp(text, "object") == 0 || strcmp(text, "library") == 0)
        return add_file(spec->sources, &spec->nsources, rest, "seq source needs a file", why);
    if (strcmp(text, "include") == 0)
        return add_file(spec->includes, &spec->nincludes, rest, "seq include needs a header", why);
    if (strcmp(text, "state") == 0) {
        if (spec->seq_state_decl) {
            *why = "a second seq state line";
            return false;
        }
        return parse_state(rest, &spec->seq_state_decl, &spec->seq_state_init, &spec->seq_state_name, why);
    }
    int at = lc_spec_find_op(spec, text);
    if (at < 0) {
        *why = "seq NAME CALL names an operation declared above (or seq source, include, state)";
        return false;
    }
    struct lc_op *op = &spec->ops[at];
    size_t rn = strlen(rest);
    if (rn && rest[rn - 1] == ';')
        rest[--rn] = '\0';
    if (!*rest || op->seq_call) {
        *why = *rest ? "a second seq line for this operation" : "seq NAME needs the call: seq pop seq_pop(s)";
        return false;
    }
    if (op->has_arg != (strstr(rest, "$1") != NULL)) {
        *why = op->has_arg ? "the call must use its argument as $1" : "$1 in a call of an operation without argument";
        return false;
    }
    op->seq_call = strdup(rest);
    return true;
}

/* With seq lines, each operation needs its sequential call and there
 * must be a seq state; NULL when the spec is whole. */
static const char *seq_incomplete(const struct lc_spec *spec, char *buf, size_t len)
{
    if (!spec->has_seq)
        return NULL;
    if (!spec->seq_state_decl)
        return "seq lines but no seq state line: seq state struct seq_queue *s = seq_queue_new(8);";
    for (int i = 0; i < spec->nops; i++)
        if (!spec->ops[i].seq_call) {
            snprintf(buf, len, "operation %s (line %d) has no seq line: with a sequential implementation every "
                     "operation needs one", spec->ops[i].name, spec->ops[i].line);
            return buf;
        }
    return NULL;
}

static bool parse_line(char *line, struct lc_spec *spec, int lineno, const char **why)
{
    cut_comment(line);
    char *text = trim(line);
    if (!*text)
        return true;
    size_t kn = strcspn(text, " \t");
    char *rest = trim(text + kn);
    text[kn] = '\0';
    if (strcmp(text, "source") == 0 || strcmp(text, "object") == 0 || strcmp(text, "library") == 0) {
        if (!*rest || spec->nsources == LC_MAX_FILES) {
            *why = *rest ? "too many source lines" : "source needs a file";
            return false;
        }
        spec->sources[spec->nsources++] = strdup(rest);
        return true;
    }
    if (strcmp(text, "include") == 0) {
        if (!*rest || spec->nincludes == LC_MAX_FILES) {
            *why = *rest ? "too many include lines" : "include needs a header";
            return false;
        }
        spec->includes[spec->nincludes++] = strdup(rest);
        return true;
    }
    if (strcmp(text, "cflags") == 0) {
        free(spec->cflags);
        spec->cflags = strdup(rest);
        return true;
    }
    if (strcmp(text, "state") == 0) {
        if (spec->state_decl) {
            *why = "a second state line (one shared object per spec)";
            return false;
        }
        return parse_state(rest, &spec->state_decl, &spec->state_init, &spec->state_name, why);
    }
    if (strcmp(text, "seq") == 0)
        return parse_seq_line(rest, spec, why);
    if (strcmp(text, "op") == 0) {
        if (spec->nops == LC_MAX_SPEC_OPS) {
            *why = "too many operations (at most 16)";
            return false;
        }
        struct lc_op *op = &spec->ops[spec->nops];
        memset(op, 0, sizeof *op);
        op->line = lineno;
        if (!parse_op(rest, op, why))
            return false;
        if (lc_spec_find_op(spec, op->name) >= 0) {
            *why = "a second operation of that name";
            return false;
        }
        spec->nops++;
        return true;
    }
    *why = "unknown keyword (source, object, library, include, cflags, state, op, seq)";
    return false;
}

bool lc_spec_load(const char *path, struct lc_spec *spec, char *err, size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return false;
    }
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(spec->dir, sizeof spec->dir, "%s", dirname(copy));
    char line[4096];
    int lineno = 0;
    const char *why = NULL;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!parse_line(line, spec, lineno, &why)) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            fclose(f);
            return false;
        }
    }
    fclose(f);
    char incomplete[256];
    why = !spec->nsources ? "no source, object or library line: nothing to test"
          : !spec->state_decl ? "no state line: state struct queue *q = queue_new(8);"
          : !spec->nops       ? "no op line: nothing to call"
                              : seq_incomplete(spec, incomplete, sizeof incomplete);
    if (why) {
        snprintf(err, errlen, "%s: %s", path, why);
        return false;
    }
    return true;
}

void lc_spec_free(struct lc_spec *spec)
{
    for (int i = 0; i < spec->nsources; i++)
        free(spec->sources[i]);
    for (int i = 0; i < spec->nincludes; i++)
        free(spec->includes[i]);
    for (int i = 0; i < spec->nops; i++) {
        free(spec->ops[i].call);
        free(spec->ops[i].seq_call);
    }
    free(spec->seq_state_decl);
    free(spec->seq_state_init);
    free(spec->seq_state_name);
    free(spec->state_decl);
    free(spec->state_init);
    free(spec->state_name);
    free(spec->cflags);
}

int lc_spec_find_op(const struct lc_spec *spec, const char *name)
{
    for (int i = 0; i < spec->nops; i++)
        if (strcmp(spec->ops[i].name, name) == 0)
            return i;
    return -1;
}
