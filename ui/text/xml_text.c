/* xml_text: escaping for XML text and attributes, one character at a time. */
#include "ui/text/xml_text.h"
#include "ui/text/utf8.h"

#include <limits.h>
#include <stdbool.h>

static const char replacement[] = "\xef\xbf\xbd";   /* U+FFFD */

/* The character at p: how many bytes it takes, and whether it is written
 * as U+FFFD instead (not UTF-8: one byte; no XML character). */
static int xml_char(const unsigned char *p, bool *replace)
{
    *replace = false;
    if (*p < 0x20) {
        *replace = !(*p == '\t' || *p == '\n' || *p == '\r');
        return 1;
    }
    int len = utf8_sequence_length(p);
    if (len == 0) {
        *replace = true;
        return 1;
    }
    if (len == 3 && p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))
        *replace = true;    /* U+FFFE and U+FFFF are no XML characters */
    return len;
}

static void write_char(FILE *f, const unsigned char *p, int len, bool replace)
{
    if (replace) {
        fputs(replacement, f);
        return;
    }
    switch (*p) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default: fwrite(p, 1, (size_t)len, f);
    }
}

void xml_escaped_cut(FILE *f, const char *s, int max_chars)
{
    if (!s)
        return;
    bool cut = max_chars > 0 && xml_char_count(s) > max_chars;
    int keep = cut ? max_chars - 1 : INT_MAX;
    const unsigned char *p = (const unsigned char *)s;
    for (int n = 0; *p && n < keep; n++) {
        bool replace;
        int len = xml_char(p, &replace);
        write_char(f, p, len, replace);
        p += len;
    }
    if (cut)
        fputs("\xe2\x80\xa6", f);   /* … */
}

void xml_escaped(FILE *f, const char *s)
{
    xml_escaped_cut(f, s, 0);
}

int xml_char_count(const char *s)
{
    int n = 0;
    bool replace;
    for (const unsigned char *p = (const unsigned char *)s; p && *p; n++)
        p += xml_char(p, &replace);
    return n;
}
