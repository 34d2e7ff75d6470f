/* escape: text made safe for the formats mdat writes (UTF-8 checking, CSV
 * fields, HTML text). JSON strings are escaped by json_writer. */
#ifndef MDAT_UI_ESCAPE_H
#define MDAT_UI_ESCAPE_H

#include <stdio.h>

/* Length of the well-formed UTF-8 sequence at p, 0 if it is not one
 * (stray continuation byte, overlong form, surrogate, beyond U+10FFFF). */
int utf8_sequence_length(const unsigned char *p);

/* One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF,
 * quotes doubled. A field that starts with = + - @ (or a tab or CR) gets a
 * leading ' so that a spreadsheet shows it instead of running it as a
 * formula. Bytes that are not UTF-8 and control characters other than tab,
 * CR and LF become U+FFFD. NULL is an empty field. */
void csv_write_field(FILE *f, const char *s);

/* Text for an HTML element or attribute value: & < > " ' as entities,
 * bytes that are not UTF-8 and control characters other than tab and LF as
 * U+FFFD. NULL writes nothing. */
void html_write_escaped(FILE *f, const char *s);

#endif
