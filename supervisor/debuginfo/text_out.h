/* text_out: appending to a caller's fixed (buf, len) with clean truncation.
 *
 * Owns the rule every formatter of names, types and values follows: the
 * buffer always holds a terminated string, and text that did not fit ends
 * with "..." instead of being cut mid-token without notice. */
#ifndef MDAT_SUPERVISOR_TEXT_OUT_H
#define MDAT_SUPERVISOR_TEXT_OUT_H

#include <stdbool.h>
#include <stddef.h>

struct text_out {
    char *buf;
    size_t len;         /* capacity including the terminating NUL */
    size_t used;        /* characters written, excluding the NUL */
    bool truncated;
};

/* Starts an empty text in buf (len may be 0: everything is then dropped). */
struct text_out text_out_start(char *buf, size_t len);
__attribute__((format(printf, 2, 3))) void text_out_printf(struct text_out *out, const char *fmt, ...);
void text_out_puts(struct text_out *out, const char *s);
void text_out_putc(struct text_out *out, char c);
/* Ends truncated text with "..." (as much of it as fits). */
void text_out_finish(struct text_out *out);

/* Appends to the string already in buf (len: its capacity), cutting what
 * does not fit: for sentences built a clause at a time. */
__attribute__((format(printf, 3, 4))) void text_append(char *buf, size_t len, const char *fmt, ...);


#endif
