/* syscall_filter: the seccomp policy of every program mdat runs, for every
 * system-call entry point of an x86-64 process: the 64-bit `syscall`, the
 * 32-bit `int $0x80` (i386) and x32 (built with libseccomp, which names
 * each call on each ABI).
 *
 * Owns which calls stop the program and with which mark; what a stop
 * means is the engine's (exec_stops.c models the native calls,
 * exec_refuse.c judges the ones that could reach another process and
 * refuses every marked call of another ABI). A call on no list runs at
 * full speed: the filter answers ALLOW without a stop. */
#ifndef MDAT_SUPERVISOR_SYSCALL_FILTER_H
#define MDAT_SUPERVISOR_SYSCALL_FILTER_H

#include <fcntl.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <stddef.h>
#include <stdint.h>

/* The data of SECCOMP_RET_TRACE (PTRACE_GETEVENTMSG at the stop): which
 * ABI the call came through. */
/* Commands that name a signal's owner (a process to signal), where the
 * system's headers lack them: stopped by the filter, judged by
 * exec_refuse.c. */
#ifndef F_SETOWN_EX
#define F_SETOWN_EX 15
#endif
#ifndef FIOSETOWN
#define FIOSETOWN 0x8901
#endif
#ifndef SIOCSPGRP
#define SIOCSPGRP 0x8902
#endif

enum syscall_abi {
    SYSCALL_ABI_X86_64 = 0,     /* `syscall`: numbers and registers as mdat models them */
    SYSCALL_ABI_I386 = 1,       /* `int $0x80` (or sysenter) from 64-bit code */
    SYSCALL_ABI_X32 = 2,        /* `syscall` with __X32_SYSCALL_BIT */
};

/* Builds the filter once in this process (before a fork: the child then
 * only loads it), in the form asked for: as it is, or with the calls page
 * ownership must see (pages_setup.h). Each form is built when first asked
 * for (libseccomp's building is most of what a short run costs). false
 * with a one-line reason when libseccomp cannot. */
bool syscall_filter_prepare(bool follow_pages, char *err, size_t errlen);

/* In the child, just before exec: no new privileges, then the filter
 * prepared before (with page ownership's calls when follow_pages). 0, or
 * -1 with errno. */
int syscall_filter_install(bool follow_pages);

/* The name of call nr made through abi ("kill"), into buf; "call N" when
 * libseccomp does not know it. */
void syscall_filter_name(enum syscall_abi abi, long nr, char *buf, size_t len);

/* "the 32-bit int $0x80 ABI", "the x32 ABI", "the 64-bit ABI". */
const char *syscall_filter_abi_name(enum syscall_abi abi);

#endif
