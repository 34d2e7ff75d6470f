/* tui_pane: rows fitted to a width by characters (UTF-8 aware), titles, spans. */
#include "ui/tui/tui_pane.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct tui_glyphs tui_glyphs_utf8 = {true, "\u25b6", "\u25a0", "\u00b7", "\u25b8", "*", "\u25cf", "\u2026",
                                           "\u2717", "\u25ba"};
const struct tui_glyphs tui_glyphs_ascii = {false, "+", "#", "-", ">", "*", "B", "...", "x", "!"};

/* ---------- text ---------- */

/* Length of the UTF-8 sequence starting with byte c (1 for stray bytes). */
static int utf8_len(unsigned char c)
{
    if (c >= 0xf0 && c < 0xf8)
        return 4;
    if (c >= 0xe0)
        return c < 0xf0 ? 3 : 1;
    if (c >= 0xc0)
        return 2;
    return 1;
}

/* A whole, well-formed sequence of n bytes at p. */
static bool utf8_ok(const unsigned char *p, int n)
{
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return false;
    return true;
}

int tui_width(const char *s)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_len(*p);
        if (!utf8_ok(p, n))
            n = 1;
        p += n;
        w++;
    }
    return w;
}

int tui_fit(const char *src, int width, bool utf8, char *dst, size_t len)
{
    size_t o = 0;
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p && w < width;) {
        int n = utf8_len(*p);
        bool ok = n > 1 && utf8_ok(p, n);
        if (*p < 0x80) {
            if (o + 2 > len)
                break;
            dst[o++] = *p < 0x20 || *p == 0x7f ? '?' : (char)*p;
            p++;
        } else if (ok && utf8) {
            if (o + (size_t)n + 1 > len)
                break;
            memcpy(dst + o, p, (size_t)n);
            o += (size_t)n;
            p += n;
        } else {
            if (o + 2 > len)
                break;
            dst[o++] = '?';
            p += ok ? n : 1;
        }
        w++;
    }
    if (len)
        dst[o] = '\0';
    return w;
}

/* ---------- panes ---------- */

struct tui_row *tui_pane_add(struct tui_pane *p, const char *text, int width, const struct tui_glyphs *g,
                             enum tui_style style)
{
    if (p->n_rows == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 32;
        p->rows = realloc(p->rows, (size_t)p->cap * sizeof *p->rows);
        if (!p->rows)
            abort();
    }
    struct tui_row *r = &p->rows[p->n_rows++];
    memset(r, 0, sizeof *r);
    /* A row cut short says so: the reader knows there is more. */
    int ellipsis = tui_width(g->ellipsis);
    if (tui_width(text) > width && width > ellipsis) {
        int kept = tui_fit(text, width - ellipsis, g->utf8, r->text, sizeof r->text);
        size_t used = strlen(r->text);
        snprintf(r->text + used, sizeof r->text - used, "%s", kept ? g->ellipsis : "");
    } else {
        tui_fit(text, width, g->utf8, r->text, sizeof r->text);
    }
    r->style = style;
    return r;
}

void tui_row_span(struct tui_row *r, int start, int len, enum tui_style style)
{
    if (r->n_spans < TUI_ROW_SPANS && len > 0)
        r->span[r->n_spans++] = (struct tui_span){start, len, style};
}

void tui_pane_title(struct tui_pane *p, const struct tui_glyphs *g, const char *fmt, ...)
{
    char buf[TUI_ROW_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tui_fit(buf, TUI_ROW_BYTES / 4, g->utf8, p->title, sizeof p->title);
}

void tui_pane_clear(struct tui_pane *p)
{
    p->n_rows = 0;
    p->title[0] = '\0';
}

