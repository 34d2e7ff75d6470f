/* error_text: writing a one-line reason into a caller's (err, errlen) buffer,
 * the way every loader in supervisor/ reports what went wrong. */
#ifndef MDAT_SUPERVISOR_ERROR_TEXT_H
#define MDAT_SUPERVISOR_ERROR_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

__attribute__((format(printf, 3, 4))) static inline void error_text(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

#endif
