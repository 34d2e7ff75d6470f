/* json_writer: streaming JSON with commas, indentation (or, compact, none:
 * JSON Lines) and string escaping handled in one place. A NULL key means
 * "array element". */
#include "ui/json_writer.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

/* Length of the well-formed UTF-8 sequence at p, 0 if it is not one
 * (stray continuation byte, overlong form, surrogate, beyond U+10FFFF). */
static int utf8_sequence_length(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    int len;
    unsigned lowest_second = 0x80, highest_second = 0xbf;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        len = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        len = 3;
        if (p[0] == 0xe0)
            lowest_second = 0xa0;       /* overlong */
        else if (p[0] == 0xed)
            highest_second = 0x9f;      /* UTF-16 surrogates */
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        len = 4;
        if (p[0] == 0xf0)
            lowest_second = 0x90;       /* overlong */
        else if (p[0] == 0xf4)
            highest_second = 0x8f;      /* beyond U+10FFFF */
    } else
        return 0;
    if (p[1] < lowest_second || p[1] > highest_second)
        return 0;
    for (int i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return len;
}

static void write_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        int len = 1;
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else if ((len = utf8_sequence_length(p)) > 0)
                fwrite(p, 1, (size_t)len, f);
            else {
                fputs("\\ufffd", f);
                len = 1;
            }
        }
        p += len;
    }
    fputc('"', f);
}

/* Top-level values are never separated by commas: in JSON Lines each one
 * is a document of its own. */
static void element(struct json_writer *w, const char *key)
{
    if (w->depth > 0 && w->need_comma[w->depth])
        fputc(',', w->f);
    if (w->depth > 0 && !w->compact) {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->f);
    }
    w->need_comma[w->depth] = true;
    if (key) {
        write_escaped(w->f, key);
        fputs(w->compact ? ":" : ": ", w->f);
    }
}

static void open_scope(struct json_writer *w, const char *key, char bracket)
{
    element(w, key);
    fputc(bracket, w->f);
    if (w->depth + 1 >= JSON_MAX_DEPTH)
        abort();    /* mdat's own documents are shallow: deeper is a bug here */
    w->depth++;
    w->need_comma[w->depth] = false;
}

static void close_scope(struct json_writer *w, char bracket)
{
    bool had_items = w->need_comma[w->depth];
    w->depth--;
    if (had_items && !w->compact) {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->f);
    }
    fputc(bracket, w->f);
    if (w->depth == 0)
        fputc('\n', w->f);
}

void json_begin_object(struct json_writer *w, const char *key) { open_scope(w, key, '{'); }
void json_end_object(struct json_writer *w) { close_scope(w, '}'); }
void json_begin_array(struct json_writer *w, const char *key) { open_scope(w, key, '['); }
void json_end_array(struct json_writer *w) { close_scope(w, ']'); }

void json_string(struct json_writer *w, const char *key, const char *value)
{
    element(w, key);
    write_escaped(w->f, value);
}

void json_uint(struct json_writer *w, const char *key, uint64_t value)
{
    element(w, key);
    fprintf(w->f, "%" PRIu64, value);
}

void json_int(struct json_writer *w, const char *key, int64_t value)
{
    element(w, key);
    fprintf(w->f, "%" PRId64, value);
}

void json_double(struct json_writer *w, const char *key, double value)
{
    element(w, key);
    if (isfinite(value))
        fprintf(w->f, "%.3f", value);
    else
        fputs("null", w->f);    /* JSON has no NaN or infinity */
}

void json_bool(struct json_writer *w, const char *key, bool value)
{
    element(w, key);
    fputs(value ? "true" : "false", w->f);
}

void json_null(struct json_writer *w, const char *key)
{
    element(w, key);
    fputs("null", w->f);
}
