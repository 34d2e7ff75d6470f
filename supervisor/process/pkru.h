/* pkru: the x86 protection-key rights register (PKRU) of traced threads.
 *
 * Each page of a process carries one of 16 protection keys; each thread's
 * PKRU says, per key, whether the thread may read and write pages of that
 * key. The kernel keeps PKRU in the thread's extended state, which ptrace
 * reads and writes (NT_X86_XSTATE). Owns only the register: which key
 * means what is exec_pages.c's, and which page carries which key,
 * page_owners.c's. */
#ifndef MDAT_ENGINE_PKRU_H
#define MDAT_ENGINE_PKRU_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* This CPU and kernel have protection keys, and ptrace can reach PKRU. */
bool pkru_supported(void);
bool pkru_get(pid_t tid, uint32_t *value);
bool pkru_set(pid_t tid, uint32_t value);

/* Rights that let a thread read and write key 0 (everything mdat does not
 * follow) and own_key (0: none), read read_only_key, and touch no other. */
uint32_t pkru_rights(int own_key, int read_only_key);
/* Every key open: what mdat's own code in the program and a forked child
 * run with. */
enum { PKRU_ALL_OPEN = 0 };

#endif
