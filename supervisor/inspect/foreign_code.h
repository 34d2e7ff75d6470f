/* foreign_code: the code and data of a process mdat did not start, in
 * source terms.
 *
 * Owns the process's modules (the executable and every mapped ELF file,
 * each with its debuginfo and load bias, read from /proc/PID/maps), which
 * code is the user's (code/site_table.c decides, as for a run: DWARF's
 * compilation units, else the symbols, else .text), naming code and data
 * addresses, and finding a stopped thread's user frames from its stack:
 * there is no CFI unwinder in mdat, so, as engine/code_names.c does, the
 * stack is searched for return addresses into user code that follow a
 * call instruction. What a thread waits on is foreign_waits.c's. */
#ifndef MDAT_INSPECT_FOREIGN_CODE_H
#define MDAT_INSPECT_FOREIGN_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "supervisor/code/site_table.h"
#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/debuginfo/sync_globals.h"
#include "supervisor/process/proc_maps.h"

struct foreign_module {
    char path[256];
    const char *base;       /* the file name, for "libc.so.6+0x91a2c" */
    uint64_t lo, hi;        /* all of its mappings */
    uint64_t bias;          /* runtime = file vaddr + bias */
    debuginfo *di;          /* NULL when its file could not be read */
    bool is_main;
    struct site_table *user;    /* the user's code in it, NULL for a system library */
};

struct foreign_code {
    pid_t pid;
    int mem_fd;
    struct proc_maps maps;
    struct foreign_module *modules;
    size_t n_modules;
};

/* Reads the maps and loads every module. False (err) only when the maps
 * cannot be read; a module whose file cannot be read is kept without
 * debuginfo (addresses, then). */
bool foreign_code_load(pid_t pid, int mem_fd, const char *exe, struct foreign_code *out, char *err, size_t errlen);
void foreign_code_free(struct foreign_code *fc);
/* Once the process is held: reads through mem_fd from now on, and loads
 * the modules again if its maps changed since foreign_code_load (a
 * library loaded meanwhile). Loading before the attach keeps the process
 * held only while it is read, not while a large program's DWARF is. */
bool foreign_code_refresh(struct foreign_code *fc, pid_t pid, int mem_fd, const char *exe, char *err, size_t errlen);

const struct foreign_module *foreign_module_at(const struct foreign_code *fc, uint64_t addr);
const struct foreign_module *foreign_main_module(const struct foreign_code *fc);
bool foreign_is_user_code(const struct foreign_code *fc, uint64_t pc);

/* "file.c:14 function", "function+0x1a", "libc.so.6+0x91a2c", "0x7f..". */
void foreign_format_code(const struct foreign_code *fc, uint64_t pc, char *buf, size_t len);
/* file, line and function of pc; false when nothing is known. */
bool foreign_code_location(const struct foreign_code *fc, uint64_t pc, struct src_loc *loc);
/* The function containing pc ("transfer", "pthread_mutex_lock"); "" when unknown. */
void foreign_function_name(const struct foreign_code *fc, uint64_t pc, char *buf, size_t len);

/* A data address as a C expression ("acct[1].lock", "q->lock",
 * "counter+8"), "" when nothing names it. */
void foreign_name_data(const struct foreign_code *fc, uint64_t addr, char *buf, size_t len);

/* The statically declared sync objects of every module with DWARF, at
 * runtime addresses. Returns the count; *out malloc'd. */
size_t foreign_sync_globals(const struct foreign_code *fc, struct sync_global **out);

/* Where a stopped thread is in the user's code, from its registers and stack. */
struct foreign_frames {
    uint64_t user_pc;       /* the innermost user frame: rip, or the call that led out of user code; 0 if none */
    uint64_t start_pc;      /* a pc in the outermost user frame found (its function is where the thread began) */
    char called[64];        /* the library function the user's code called and the thread is inside
                             * ("pthread_mutex_lock"), "" when unknown or in user code */
};
void foreign_find_frames(const struct foreign_code *fc, const struct user_regs_struct *regs, struct foreign_frames *out);

#endif
