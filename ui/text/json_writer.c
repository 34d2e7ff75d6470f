/* json_writer: streaming JSON with commas, indentation (or, compact, none:
 * JSON Lines) and string escaping handled in one place. A NULL key means
 * "array element". */
#include "ui/text/json_writer.h"
#include "ui/text/utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

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

void json_string_array(struct json_writer *w, const char *key, const char *const *values, int n)
{
    json_begin_array(w, key);
    for (int i = 0; i < n; i++)
        json_string(w, NULL, values[i]);
    json_end_array(w);
}

void json_string_or_null(struct json_writer *w, const char *key, const char *value)
{
    if (value)
        json_string(w, key, value);
    else
        json_null(w, key);
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

void json_number_text(struct json_writer *w, const char *key, const char *text)
{
    element(w, key);
    fputs(text, w->f);
}
