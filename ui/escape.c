/* escape: UTF-8 validation shared by the writers, CSV fields and HTML text. */
#include "ui/escape.h"

#include <stdbool.h>
#include <string.h>

int utf8_sequence_length(const unsigned char *p)
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

static const char REPLACEMENT[] = "\xef\xbf\xbd";   /* U+FFFD */

/* Writes s with each character passed through `special` first: it returns
 * the text to write instead, or NULL to write the character as it is.
 * Invalid UTF-8 and control characters (but those in keep) become U+FFFD. */
static void write_filtered(FILE *f, const char *s, const char *keep, const char *(*special)(unsigned char c))
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int len = utf8_sequence_length(p);
        const char *instead = len == 1 ? special(*p) : NULL;
        if (instead)
            fputs(instead, f);
        else if (len == 0 || (*p < 0x20 && !strchr(keep, *p)) || *p == 0x7f)
            fputs(REPLACEMENT, f);
        else
            fwrite(p, 1, (size_t)len, f);
        p += len ? len : 1;
    }
}

static const char *csv_special(unsigned char c)
{
    return c == '"' ? "\"\"" : NULL;
}

void csv_write_field(FILE *f, const char *s)
{
    if (!s || !*s)
        return;
    bool formula = strchr("=+-@\t\r", s[0]) != NULL;
    bool quote = formula || strpbrk(s, ",\"\r\n") != NULL;
    if (quote)
        fputc('"', f);
    if (formula)
        fputc('\'', f);
    write_filtered(f, s, "\t\r\n", csv_special);
    if (quote)
        fputc('"', f);
}

static const char *html_special(unsigned char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    default: return NULL;
    }
}

void html_write_escaped(FILE *f, const char *s)
{
    if (s)
        write_filtered(f, s, "\t\n", html_special);
}
