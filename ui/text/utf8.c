/* utf8: well-formed UTF-8 sequences (RFC 3629, Unicode table 3-7). */
#include "ui/text/utf8.h"

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
