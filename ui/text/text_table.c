/* text_table: aligned columns of text, measured and cut by characters. */
#include "ui/text/text_table.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct text_column {
    int min_width, max_width;   /* max_width 0: unlimited */
    int width;                  /* from the rows so far, within the limits */
};

struct text_table {
    int n_columns;
    int gap;
    struct text_column *columns;
    char **cells;               /* n_rows * n_columns, row-major */
    int n_rows, cap_rows;
};

static const char ELLIPSIS[] = "...";
enum { ELLIPSIS_WIDTH = sizeof ELLIPSIS - 1 };

static void *checked(void *p)
{
    if (!p)
        abort();
    return p;
}

static bool is_continuation_byte(unsigned char c)
{
    return (c & 0xc0) == 0x80;
}

/* Characters in s: every byte but UTF-8 continuation bytes starts one. */
static int text_width(const char *s)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        w += !is_continuation_byte(*p);
    return w;
}

/* Byte length of the first `chars` characters of s. */
static size_t prefix_bytes(const char *s, int chars)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0;
    while (p[n]) {
        if (!is_continuation_byte(p[n]) && chars-- == 0)
            break;
        n++;
    }
    return n;
}

/* A copy in which control characters cannot break the layout. */
static char *printable_copy(const char *s)
{
    char *copy = checked(strdup(s ? s : ""));
    for (unsigned char *p = (unsigned char *)copy; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
    return copy;
}

struct text_table *text_table_new(int n_columns)
{
    struct text_table *t = checked(calloc(1, sizeof *t));
    t->n_columns = n_columns;
    t->gap = 2;
    t->columns = checked(calloc((size_t)n_columns, sizeof *t->columns));
    return t;
}

void text_table_free(struct text_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n_rows * t->n_columns; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->columns);
    free(t);
}

static int clamp_width(const struct text_column *c, int width)
{
    if (width < c->min_width)
        width = c->min_width;
    if (c->max_width > 0 && width > c->max_width)
        width = c->max_width;
    return width;
}

void text_table_set_width(struct text_table *t, int column, int min_width, int max_width)
{
    struct text_column *c = &t->columns[column];
    c->min_width = min_width;
    c->max_width = max_width;
    c->width = clamp_width(c, c->width);
}

void text_table_set_gap(struct text_table *t, int gap)
{
    t->gap = gap;
}

void text_table_add_row(struct text_table *t, const char *const *cells)
{
    if (t->n_rows == t->cap_rows) {
        t->cap_rows = t->cap_rows ? 2 * t->cap_rows : 8;
        t->cells = checked(realloc(t->cells, (size_t)t->cap_rows * (size_t)t->n_columns * sizeof *t->cells));
    }
    char **row = &t->cells[t->n_rows * t->n_columns];
    for (int i = 0; i < t->n_columns; i++) {
        row[i] = printable_copy(cells[i]);
        struct text_column *c = &t->columns[i];
        int w = clamp_width(c, text_width(row[i]));
        if (w > c->width)
            c->width = w;
    }
    t->n_rows++;
}

int text_table_rows(const struct text_table *t)
{
    return t->n_rows;
}

/* Appends to buf like a bounded strcat that counts what it could not write. */
struct line_buf {
    char *buf;
    size_t cap, len;
};

static void put_bytes(struct line_buf *b, const char *s, size_t n)
{
    if (b->len < b->cap) {
        size_t room = b->cap - b->len - 1;
        memcpy(b->buf + b->len, s, n < room ? n : room);
        b->buf[b->len + (n < room ? n : room)] = '\0';
    }
    b->len += n;
}

static void put_blanks(struct line_buf *b, int n)
{
    for (int i = 0; i < n; i++)
        put_bytes(b, " ", 1);
}

size_t text_table_line(const struct text_table *t, int row, char *buf, size_t len)
{
    char empty[1];
    struct line_buf b = {len ? buf : empty, len ? len : 1, 0};
    b.buf[0] = '\0';
    const char *const *cells = (const char *const *)&t->cells[row * t->n_columns];
    int pending_blanks = 0;     /* written only before something visible: no trailing blanks */
    for (int i = 0; i < t->n_columns; i++) {
        const struct text_column *c = &t->columns[i];
        const char *cell = cells[i];
        int w = text_width(cell);
        if (w > 0) {
            put_blanks(&b, pending_blanks);
            pending_blanks = 0;
        }
        if (w > c->width) {
            int keep = c->width > ELLIPSIS_WIDTH ? c->width - ELLIPSIS_WIDTH : c->width;
            put_bytes(&b, cell, prefix_bytes(cell, keep));
            if (keep < c->width)
                put_bytes(&b, ELLIPSIS, ELLIPSIS_WIDTH);
            w = c->width;
        } else {
            put_bytes(&b, cell, strlen(cell));
        }
        pending_blanks += c->width - w + t->gap;
    }
    return b.len;
}

void text_table_print(const struct text_table *t, FILE *out, const char *indent)
{
    size_t cap = 256;
    char *line = checked(malloc(cap));
    for (int r = 0; r < t->n_rows; r++) {
        size_t need = text_table_line(t, r, line, cap);
        if (need >= cap) {
            cap = need + 1;
            line = checked(realloc(line, cap));
            text_table_line(t, r, line, cap);
        }
        fprintf(out, "%s%s\n", indent, line);
    }
    free(line);
}
