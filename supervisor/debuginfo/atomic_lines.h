/* atomic_lines: which source lines of the program call an atomic operation.
 *
 * An acquire load or a release store is a plain mov on x86-64, at -O0 as at
 * -O2: the instruction cannot tell `atomic_load_explicit(&b->ready, ...)` on
 * a heap object from a plain read, and the object's type is not known where
 * it lives (the heap, a stack). The source line can: one that calls a C11
 * atomic generic function (atomic_load, atomic_fetch_add_explicit, ...) or
 * a GNU builtin (__atomic_*, __sync_*, __c11_atomic_*) makes atomic
 * accesses. Owns reading the source files (a few kept at a time) and
 * finding such calls on a line, comments and string literals left out. */
#ifndef MDAT_DEBUGINFO_ATOMIC_LINES_H
#define MDAT_DEBUGINFO_ATOMIC_LINES_H

#include <stdbool.h>

struct atomic_lines;

struct atomic_lines *atomic_lines_new(void);
void atomic_lines_free(struct atomic_lines *al);
/* Whether line (from 1) of the source file at path calls an atomic
 * operation; false when the file cannot be read. */
bool atomic_lines_calls_atomic(struct atomic_lines *al, const char *path, unsigned line);
/* The same for one line of text in hand (for tests, and the files' lines). */
bool atomic_lines_text_calls_atomic(const char *text);

#endif
