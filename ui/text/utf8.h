/* utf8: recognising well-formed UTF-8, for writers whose output must be
 * valid UTF-8 whatever bytes the program's names hold (JSON, XML). */
#ifndef MDAT_UI_UTF8_H
#define MDAT_UI_UTF8_H

/* Length of the well-formed UTF-8 sequence at p, 0 if it is not one
 * (stray continuation byte, overlong form, surrogate, beyond U+10FFFF).
 * p must be NUL-terminated: a sequence cut by the NUL is not one. */
int utf8_sequence_length(const unsigned char *p);

#endif
