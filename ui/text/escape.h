/* escape: CSV fields made safe for spreadsheets. JSON strings are escaped
 * by json_writer, XML and HTML text by xml_text. */
#ifndef MDAT_UI_ESCAPE_H
#define MDAT_UI_ESCAPE_H

#include <stdio.h>

/* One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF,
 * quotes doubled. A field that starts with = + - @ (or a tab or CR) gets a
 * leading ' so that a spreadsheet shows it instead of running it as a
 * formula. Bytes that are not UTF-8 and control characters other than tab,
 * CR and LF become U+FFFD. NULL is an empty field. */
void csv_write_field(FILE *f, const char *s);

#endif
