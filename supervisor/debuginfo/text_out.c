/* text_out: bounded appends and the "..." rule. */
#include "supervisor/debuginfo/text_out.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct text_out text_out_start(char *buf, size_t len)
{
    if (len > 0)
        buf[0] = '\0';
    return (struct text_out){ .buf = buf, .len = len };
}

static void append(struct text_out *out, const char *s, size_t n)
{
    if (out->len == 0) {
        out->truncated |= n > 0;
        return;
    }
    size_t room = out->len - 1 - out->used;
    if (n > room) {
        n = room;
        out->truncated = true;
    }
    memcpy(out->buf + out->used, s, n);
    out->used += n;
    out->buf[out->used] = '\0';
}

void text_out_printf(struct text_out *out, const char *fmt, ...)
{
    char piece[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof piece) {
        out->truncated = true;
        n = sizeof piece - 1;
    }
    append(out, piece, (size_t)n);
}

void text_out_puts(struct text_out *out, const char *s) { append(out, s, strlen(s)); }

void text_out_putc(struct text_out *out, char c) { append(out, &c, 1); }

void text_out_finish(struct text_out *out)
{
    if (!out->truncated || out->len < 2)
        return;
    size_t dots = out->len - 1 < 3 ? out->len - 1 : 3;
    size_t at = out->used > out->len - 1 - dots ? out->len - 1 - dots : out->used;
    memset(out->buf + at, '.', dots);
    out->used = at + dots;
    out->buf[out->used] = '\0';
}

void text_append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}
