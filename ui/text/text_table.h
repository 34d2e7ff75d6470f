/* text_table: rows of text cells laid out as aligned columns.
 *
 * Column widths come from the contents, each within an optional limit; a
 * cell wider than its column's limit is cut and ends in "...". Widths are
 * counted in characters (UTF-8 code points), control characters are shown
 * as '?', and no line ends in blanks. Used by the status trace; meant for
 * any view that shows tables (the TUI lays out rows with text_table_line). */
#ifndef MDAT_UI_TEXT_TABLE_H
#define MDAT_UI_TEXT_TABLE_H

#include <stddef.h>
#include <stdio.h>

struct text_table;

struct text_table *text_table_new(int n_columns);
void text_table_free(struct text_table *t);

/* Column widths stay within [min_width, max_width]; max_width 0: no limit. */
void text_table_set_width(struct text_table *t, int column, int min_width, int max_width);
/* Blanks between columns (default 2). */
void text_table_set_gap(struct text_table *t, int gap);

/* Appends a row of n_columns cells (copied; NULL is an empty cell). */
void text_table_add_row(struct text_table *t, const char *const *cells);
int text_table_rows(const struct text_table *t);

/* Row `row` laid out, without newline; returns the length it needed
 * (like snprintf: the line is cut when len is too small). */
size_t text_table_line(const struct text_table *t, int row, char *buf, size_t len);
/* Every row, each line preceded by indent. */
void text_table_print(const struct text_table *t, FILE *out, const char *indent);

#endif
