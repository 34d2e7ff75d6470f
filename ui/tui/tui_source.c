/* tui_source: reading source files into display lines, with a small cache. */
#include "ui/tui/tui_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAB = 8, MAX_FILE_LINES = 200000 };

static void add_line(struct tui_source *s, const char *text, size_t len, int *cap)
{
    if (s->n_lines == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        s->lines = realloc(s->lines, (size_t)*cap * sizeof *s->lines);
        if (!s->lines)
            abort();
    }
    /* Worst case every byte is a tab. */
    char *out = malloc(len * TAB + 1);
    if (!out)
        abort();
    size_t o = 0, column = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\t') {
            do
                out[o++] = ' ';
            while (++column % TAB);
            continue;
        }
        if (c == '\r')
            continue;
        out[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
        if ((c & 0xc0) != 0x80)
            column++;       /* a continuation byte is no new column */
    }
    out[o] = '\0';
    s->lines[s->n_lines++] = out;
}

static struct tui_source *load(const char *path)
{
    struct tui_source *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    snprintf(s->path, sizeof s->path, "%s", path);
    const char *slash = strrchr(s->path, '/');
    s->name = slash ? slash + 1 : s->path;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(s->error, sizeof s->error, "cannot open %s: %s", path, strerror(errno));
        return s;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lines_cap = 0;
    while (s->n_lines < MAX_FILE_LINES && (n = getline(&line, &cap, f)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            n--;
        add_line(s, line, (size_t)n, &lines_cap);
    }
    free(line);
    fclose(f);
    s->ok = true;
    return s;
}

static void source_free(struct tui_source *s)
{
    for (int i = 0; i < s->n_lines; i++)
        free(s->lines[i]);
    free(s->lines);
    free(s);
}

const struct tui_source *tui_source_get(struct tui_source_cache *c, const char *path)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->files[i]->path, path) == 0)
            return c->files[i];
    struct tui_source *s = load(path);
    if (c->n < TUI_SOURCE_CACHE) {
        c->files[c->n++] = s;
    } else {
        source_free(c->files[c->next_evict]);
        c->files[c->next_evict] = s;
        c->next_evict = (c->next_evict + 1) % TUI_SOURCE_CACHE;
    }
    return s;
}

void tui_source_cache_free(struct tui_source_cache *c)
{
    for (int i = 0; i < c->n; i++)
        source_free(c->files[i]);
    c->n = 0;
}
