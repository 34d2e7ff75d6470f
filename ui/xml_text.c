/* xml_text: escaping for XML text and attributes, one character at a time. */
#include "ui/xml_text.h"
#include "ui/utf8.h"

#include <limits.h>
#include <stdbool.h>

static const char replacement[] = "\xef\xbf\xbd";   /* U+FFFD */

/* Length of the character at p as written (its bytes, or 0 for one that
 * must be replaced by U+FFFD: it still consumes one byte). */
static int xml_char_length(const unsigned char *p)
{
    if (*p < 0x20)
        return (*p == '\t' || *p == '\n' || *p == '\r') ? 1 : 0;
    int len = utf8_sequence_length(p);
    if (len == 3 && p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))
        return 0;       /* U+FFFE and U+FFFF are no XML characters */
    return len;
}

static void write_char(FILE *f, const unsigned char *p, int len)
{
    if (len == 0) {
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
        int len = xml_char_length(p);
        write_char(f, p, len);
        p += len ? len : 1;
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
    for (const unsigned char *p = (const unsigned char *)s; p && *p; n++) {
        int len = xml_char_length(p);
        p += len ? len : 1;
    }
    return n;
}
