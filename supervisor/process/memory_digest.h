/* memory_digest: one hash of all the memory a traced process could have
 * changed (every writable mapping's pages that are present or swapped),
 * for telling whether the process's memory is the same at two moments.
 * Pages never touched are skipped through /proc/PID/pagemap, so a thread's
 * 8 MB stack costs what it uses. The process must be stopped. */
#ifndef MDAT_PROCESS_MEMORY_DIGEST_H
#define MDAT_PROCESS_MEMORY_DIGEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* false when the memory could not be read (the digest then says nothing). */
bool memory_digest(pid_t pid, pid_t vm_pid, uint64_t *digest);

#endif
