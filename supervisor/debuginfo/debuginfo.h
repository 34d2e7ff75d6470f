/* debuginfo: what an address of the traced executable means in source terms.
 *
 * Combines elf_image (symbols) and DWARF (line tables, functions, inlined
 * code, CU ranges, variables and their types, read with libdwarf) for one
 * executable file. Loaded once per batch and shared by every execution.
 * Degrades: DWARF -> symbol+offset -> hex address.
 * Code addresses and debuginfo_format_data take file virtual addresses (the
 * caller subtracts the load bias); the data-naming, value and expression
 * functions take runtime addresses and a data_reader that carries the bias. */
#ifndef MDAT_SUPERVISOR_DEBUGINFO_H
#define MDAT_SUPERVISOR_DEBUGINFO_H

#include "supervisor/debuginfo/data_expr.h"
#include "supervisor/debuginfo/dwarf_types.h"
#include "supervisor/debuginfo/elf_image.h"
#include "supervisor/debuginfo/range_index.h"
#include "supervisor/trace/trace.h"
#include "supervisor/debuginfo/value_format.h"

struct src_loc {
    const char *file;       /* as recorded in DWARF (may be absolute), NULL if unknown */
    const char *basename;   /* last path component of file */
    unsigned line, column;  /* 0 if unknown */
    const char *function;   /* DWARF subprogram name, else ELF symbol, else NULL;
                             * in inlined code the inlined callee (innermost) */
    const char *inlined_into; /* in inlined code, the function it sits in, else NULL */
    const char *library_function; /* code inlined from a system header, seen from the
                                   * user's call to it: the library function called
                                   * (file/line/function are then the user's), else NULL */
};


typedef struct debuginfo debuginfo;

/* Opens path with elf_image_open (same error contract) and reads its DWARF if
 * there is any; a missing or unreadable .debug_info is not an error. */
debuginfo *debuginfo_load(const char *path, char *err, size_t errlen);
void debuginfo_free(debuginfo *di);

const elf_image *debuginfo_elf(const debuginfo *di);
bool debuginfo_has_dwarf(const debuginfo *di);
/* Some of its units were built with -gsplit-dwarf: their lines are known,
 * their variables, types and inlined calls (in .dwo files) are not. */
bool debuginfo_split_dwarf(const debuginfo *di);
/* What became of the file's DWARF: read whole, none there, or there but
 * corrupt (libdwarf could not read it: none of it when debuginfo_has_dwarf
 * is false, else a part); *why: the reason, "" when read whole. */
enum debuginfo_dwarf_state { DEBUGINFO_DWARF_WHOLE, DEBUGINFO_DWARF_NONE, DEBUGINFO_DWARF_CORRUPT };
enum debuginfo_dwarf_state debuginfo_dwarf_state(const debuginfo *di, const char **why);

/* Code address ranges of the compilation units that carry DWARF: the user's
 * own code, as opposed to libc pieces linked into a static binary. Sorted,
 * merged. Zero when there is no DWARF. */
size_t debuginfo_cu_ranges(const debuginfo *di, const struct addr_range **out);

/* Source location of a code address. Returns false (out zeroed) when nothing
 * at all is known; otherwise fills what is known. */
bool debuginfo_code_location(const debuginfo *di, uint64_t addr, struct src_loc *out);

/* For code at addr inlined from a system header (a C++ library template),
 * the user's line it was inlined at: file and line of that call site,
 * function the one addr lies in ("cxx.cpp:19 lock_both" for the
 * pthread_mutex_lock call of an inlined std::mutex::lock). False when addr
 * is not such code. */
bool debuginfo_user_call_site(const debuginfo *di, uint64_t addr, struct src_loc *out);

/* The C++ library function (std::, __gnu_cxx::) that starts at addr, a
 * call's target: a template compiled into the program from a system
 * header (at -O0 a function of its own: std::unique_lock<std::mutex>::
 * unique_lock) or a PLT stub into libstdc++ (std::thread::join), named as
 * code inlined from the library is ("std::thread::join"). False for
 * anything else (the user's functions, the C library's). */
bool debuginfo_library_callee(const debuginfo *di, uint64_t addr, char *buf, size_t len);

/* "lost_update.c:14 worker", "file.c:14 helper (inlined into worker)",
 * "prog.cpp:25 main (in std::thread::join)" (library code inlined into the
 * user's: the user's line), "worker+0x1a", or "0x401136". */
void debuginfo_format_code(const debuginfo *di, uint64_t addr, char *buf, size_t len);
/* "file.c:14" or "" when there is no line information. */
void debuginfo_format_line(const debuginfo *di, uint64_t addr, char *buf, size_t len);
/* A name for a data address from the ELF symbols alone: "counter", "queue+8",
 * or "" when no symbol contains it (the caller prints the address). */
void debuginfo_format_data(const debuginfo *di, uint64_t addr, char *buf, size_t len);

/* ---- C++ and OpenMP code (file addresses) ---- */

/* The entry of the C++ function whose demangled name, without return type
 * and parameters, is name ("Adder::operator()", "main::{lambda()#2}::operator()"),
 * from the symbol table; 0 when there is none (inlined everywhere). */
uint64_t debuginfo_cxx_function(const debuginfo *di, const char *name);
/* The first address in [lo, hi) whose line is in the user's code rather
 * than a system header: where a C++ library template that inlined the
 * user's callable reaches it. */
bool debuginfo_first_user_line(const debuginfo *di, uint64_t lo, uint64_t hi, uint64_t *addr);
/* Whether the code at addr is the C++ library's atomics (libstdc++'s
 * atomic_base.h, <atomic>, atomic_wait.h): at -O1 and above an acquire
 * load or a release store there is a plain mov, which only its source
 * line tells from a plain access of the program's own. */
bool debuginfo_in_cxx_atomics(const debuginfo *di, uint64_t addr);

/* The type of the parameter of the OpenMP outlined function at entry
 * (main._omp_fn.0): a pointer or reference to the struct whose members
 * are the region's shared variables (pointers to them, or copies). NULL
 * when entry is not such a function. */
const struct dwarf_type *debuginfo_omp_data_type(const debuginfo *di, uint64_t entry);
/* The name of the part of an object of type t called base at offset
 * ("sum", "acc.total", "hist[3]"); returns the part's type when the name
 * denotes all of it (NULL for "x+2"). */
const struct dwarf_type *debuginfo_name_part(const char *base, const struct dwarf_type *t, uint64_t offset,
                                             char *buf, size_t len);

/* ---- data in the student's terms (runtime addresses) ---- */

/* Names a runtime data address as a C expression: a variable, walked down
 * to the innermost member or element that contains addr ("queue.buf[3]",
 * "table[1][2].count", "counter+2" inside a scalar, "pair+1" in padding);
 * else, through a pointer variable whose pointee contains addr ("q->head",
 * "*counter_ptr", read through rd; rd NULL skips this); else an ELF symbol
 * ("sym+8"). Returns false (buf "") when nothing names it. *type (may be
 * NULL) gets the type of exactly the named object when the name denotes a
 * whole object, NULL for partial names such as "x+3". */
bool debuginfo_name_data(const debuginfo *di, uint64_t addr, const struct data_reader *rd, char *buf,
                         size_t len, const struct dwarf_type **type);

/* The executable's static TLS block (PT_TLS): size rounded to its alignment,
 * which is also the block's distance below the thread pointer (x86-64
 * variant II: a thread's block starts at fs_base - size). False when there is
 * no PT_TLS. */
bool debuginfo_tls_block(const debuginfo *di, uint64_t *size, uint64_t *align);
/* Names the object at this offset from the start of the TLS block, like
 * debuginfo_name_data ("tls_pair.b"). */
bool debuginfo_name_tls(const debuginfo *di, uint64_t offset, char *buf, size_t len,
                        const struct dwarf_type **type);

/* Reads and formats the object of type t at runtime address addr: 3, -1,
 * 'a', true, 3.5, 0x4052a0, NULL, 0x402010 "hello" (char *), RED,
 * {1, 2, 3}, {head = 1, tail = 2}, "mdat" (char arrays). Truncates cleanly
 * at len ("..." at the end). dwarf_format_bytes (value_format.h) does the
 * same for bytes in hand. */
void debuginfo_format_value(const debuginfo *di, const struct dwarf_type *t, uint64_t addr,
                            const struct data_reader *rd, char *buf, size_t len);

/* Evaluates a C lvalue over the program's variables: "countFemale",
 * "queue.buf[3]", "q->head", "*p", "table[1][2].count", "worker::calls"
 * (a function's static). Constant indices only; pointers are read through
 * rd. Fills the runtime address and type, or err with a one-line reason
 * ("no variable named 'x'", "'count' is not a struct", "index 7 out of
 * bounds for 'queue.buf' (size 4)"). A thread-local variable is an error
 * here: use debuginfo_eval_thread. */
bool debuginfo_eval(const debuginfo *di, const char *expr, const struct data_reader *rd, uint64_t *addr,
                    const struct dwarf_type **type, char *err, size_t errlen);
/* Whether expr can denote an object of the program, before it runs (a
 * --watch): err says why not ("no variable named 'x'", "index 5 out of
 * bounds for 'acct' (size 5)"). Pointers in it are followed only at run
 * time. */
bool debuginfo_check_object(const debuginfo *di, const char *expr, char *err, size_t errlen);
/* The same in one thread, whose TLS block starts at runtime address
 * tls_block (fs_base - the size from debuginfo_tls_block). */
bool debuginfo_eval_thread(const debuginfo *di, const char *expr, const struct data_reader *rd,
                           uint64_t tls_block, uint64_t *addr, const struct dwarf_type **type, char *err,
                           size_t errlen);

/* The byte at file address addr belongs to an atomic object: a global or
 * static variable (or a member or element of one) of C11 _Atomic type or
 * of a C++ std::atomic class. On x86 an atomic load or a release store is
 * a plain mov: the instruction alone does not say it is atomic. */
bool debuginfo_is_atomic_object(const debuginfo *di, uint64_t file_addr);

/* Evaluates an integer C expression over the program's globals ("men_inside
 * + women_inside <= 4"): its value and the values of the objects it read
 * (data_expr.h). rd NULL only checks it: syntax, names, types. */
bool debuginfo_eval_value(const debuginfo *di, const char *expr, const struct data_reader *rd,
                          struct data_expr_result *out, char *err, size_t errlen);

struct sync_global;  /* sync_globals.h */
/* Every global and static of a sync type (pthread_mutex_t, sem_t,
 * pthread_cond_t, pthread_barrier_t, pthread_rwlock_t, pthread_spinlock_t,
 * C11 mtx_t/cnd_t, C++ std::mutex...), including array elements and struct
 * members, by address, at most 4096. */
size_t debuginfo_sync_globals(const debuginfo *di, const struct sync_global **out);

/* The function the PLT stub at file address addr calls ("GOMP_barrier"),
 * NULL when addr is not a stub; and every stub (elf_plt.h). */
const char *debuginfo_plt_name(const debuginfo *di, uint64_t addr);
size_t debuginfo_plt_stubs(const debuginfo *di, const struct elf_symbol **out);
bool debuginfo_imports_unstubbed(const debuginfo *di, const char *name);
bool debuginfo_imports(const debuginfo *di, const char *name);

#endif
