/* escape: CSV fields. */
#include "ui/text/escape.h"
#include "ui/text/utf8.h"

#include <stdbool.h>
#include <string.h>

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
