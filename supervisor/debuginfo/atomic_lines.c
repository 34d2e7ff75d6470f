/* atomic_lines: which source lines call an atomic operation (atomic_lines.h). */
#include "supervisor/debuginfo/atomic_lines.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Files kept: accesses come from a handful of files at a time, and each
 * line is asked about once per site (the caller keeps the answers). */
enum { KEPT_FILES = 4 };

struct source_file {
    char *path;
    char *text;         /* the whole file, lines cut at '\n' into '\0' */
    char **lines;       /* line n is lines[n - 1] */
    unsigned n_lines;
};

struct atomic_lines {
    struct source_file files[KEPT_FILES];
    int next;           /* the slot replaced next */
};

struct atomic_lines *atomic_lines_new(void)
{
    return calloc(1, sizeof(struct atomic_lines));
}

static void drop(struct source_file *f)
{
    free(f->path);
    free(f->text);
    free(f->lines);
    memset(f, 0, sizeof *f);
}

void atomic_lines_free(struct atomic_lines *al)
{
    if (!al)
        return;
    for (int i = 0; i < KEPT_FILES; i++)
        drop(&al->files[i]);
    free(al);
}

/* Reads path whole into f; a file that cannot be read is kept with no
 * lines, so that it costs one attempt. */
static void load(struct source_file *f, const char *path)
{
    f->path = strdup(path);
    FILE *in = fopen(path, "re");
    if (!in || !f->path)
        goto done;
    size_t cap = 4096, len = 0;
    f->text = malloc(cap);
    for (size_t got; f->text && (got = fread(f->text + len, 1, cap - len - 1, in)) > 0;) {
        len += got;
        if (cap - len - 1 == 0) {
            char *bigger = realloc(f->text, cap * 2);
            if (!bigger)
                break;
            f->text = bigger;
            cap *= 2;
        }
    }
    if (!f->text)
        goto done;
    f->text[len] = '\0';
    unsigned n = 1;
    for (size_t i = 0; i < len; i++)
        n += f->text[i] == '\n';
    f->lines = malloc(n * sizeof *f->lines);
    if (!f->lines)
        goto done;
    char *p = f->text;
    for (f->n_lines = 0; f->n_lines < n; f->n_lines++) {
        f->lines[f->n_lines] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    if (f->n_lines < n)
        f->n_lines++;
done:
    if (in)
        fclose(in);
}

static const struct source_file *file_of(struct atomic_lines *al, const char *path)
{
    for (int i = 0; i < KEPT_FILES; i++)
        if (al->files[i].path && strcmp(al->files[i].path, path) == 0)
            return &al->files[i];
    struct source_file *f = &al->files[al->next];
    al->next = (al->next + 1) % KEPT_FILES;
    drop(f);
    load(f, path);
    return f;
}

bool atomic_lines_calls_atomic(struct atomic_lines *al, const char *path, unsigned line)
{
    if (!al || !path || line == 0)
        return false;
    const struct source_file *f = file_of(al, path);
    return line <= f->n_lines && atomic_lines_text_calls_atomic(f->lines[line - 1]);
}

/* The prefixes of the names that make atomic accesses: C11's generic
 * functions (<stdatomic.h>, which also name atomic_flag_*), GCC's and
 * clang's builtins. */
static bool atomic_name(const char *name, size_t len)
{
    static const char *const prefixes[] = {"atomic_", "__atomic_", "__sync_", "__c11_atomic_"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        if (len > n && strncmp(name, prefixes[i], n) == 0)
            return true;
    }
    return false;
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

bool atomic_lines_text_calls_atomic(const char *text)
{
    for (const char *p = text; *p;) {
        if (p[0] == '/' && p[1] == '/')
            return false;
        if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            if (!end)
                return false;
            p = end + 2;
            continue;
        }
        if (*p == '"' || *p == '\'') {
            char quote = *p++;
            while (*p && *p != quote)
                p += p[0] == '\\' && p[1] ? 2 : 1;
            if (*p)
                p++;
            continue;
        }
        if (!ident_char(*p) || isdigit((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *start = p;
        while (ident_char(*p))
            p++;
        const char *after = p;
        while (*after == ' ' || *after == '\t')
            after++;
        if (*after == '(' && atomic_name(start, (size_t)(p - start)))
            return true;
    }
    return false;
}
