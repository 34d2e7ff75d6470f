/* heap_errors: use after free and double free, judged as an engine
 * listener in every execution.
 *
 * Owns the blocks user code freed (through calls mdat follows,
 * exec_heap.c) and the judgement of the steps that touch one and the
 * frees that end one again: `heap-error`, naming the block, who freed it,
 * at which step and line, and who used it after.
 *
 * A verdict must be true, and mdat does not see every allocation: libc
 * and libstdc++ allocate inside themselves (strdup, fopen, std::string)
 * and may hand out a freed block again without a call mdat follows. So a
 * freed block is judged only while its first bytes and its chunk header
 * are still exactly as the free left them (glibc writes its list links
 * there, and takes them back out when it hands the block out again): any
 * allocation since, seen or not, changed them. A use or free it cannot
 * judge that way is let go (a miss, never a false report). */
#ifndef MDAT_DETECT_HEAP_ERRORS_H
#define MDAT_DETECT_HEAP_ERRORS_H

#include "supervisor/engine/exec_listener.h"

struct heap_errors;

struct heap_errors *heap_errors_new(void);
void heap_errors_free(struct heap_errors *h);
struct exec_listener heap_errors_hooks(struct heap_errors *h);

#endif
