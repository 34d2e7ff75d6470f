/* xml_text: strings of the program (names, values, messages) written into
 * XML, SVG and HTML, as text or attribute values. Whatever bytes they hold,
 * the document stays well-formed UTF-8. */
#ifndef MDAT_UI_XML_TEXT_H
#define MDAT_UI_XML_TEXT_H

#include <stdio.h>

/* Writes s with & < > " ' escaped. Bytes that are not UTF-8 and characters
 * XML 1.0 forbids (controls other than tab, newline and CR; U+FFFE,
 * U+FFFF) become U+FFFD. NULL writes nothing. */
void xml_escaped(FILE *f, const char *s);
/* The same, cut to at most max_chars characters: a longer string keeps
 * max_chars - 1 and ends in "…". */
void xml_escaped_cut(FILE *f, const char *s, int max_chars);
/* How many characters xml_escaped shows for s (each U+FFFD counts one). */
int xml_char_count(const char *s);

#endif
