/* code_map: where mdat puts breakpoints, and what each one means.
 *
 * Owns the static analysis of the main executable (which instructions may be
 * visible operations, decoded once per batch), the list of modeled library
 * entry points (pthread_*, sem_*, __assert_fail) and, per execution, planting
 * them into a fresh address space and answering "what is the breakpoint at this
 * address", and which loaded library an address belongs to. */
#ifndef MDAT_SUPERVISOR_CODE_MAP_H
#define MDAT_SUPERVISOR_CODE_MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/x86_insn.h"
#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/code/site_table.h"

enum model_fn {
    MF_MUTEX_LOCK, MF_MUTEX_TRYLOCK, MF_MUTEX_TIMEDLOCK, MF_MUTEX_UNLOCK,
    MF_COND_WAIT, MF_COND_TIMEDWAIT, MF_COND_SIGNAL, MF_COND_BROADCAST,
    MF_SEM_WAIT, MF_SEM_TRYWAIT, MF_SEM_TIMEDWAIT, MF_SEM_POST,
    MF_THREAD_CREATE, MF_THREAD_JOIN, MF_THREAD_EXIT, MF_THREAD_CANCEL,
    MF_BARRIER_WAIT,
    MF_RWLOCK_RDLOCK, MF_RWLOCK_WRLOCK, MF_RWLOCK_TRYRDLOCK, MF_RWLOCK_TRYWRLOCK, MF_RWLOCK_UNLOCK,
    MF_SPIN_LOCK, MF_SPIN_UNLOCK,
    /* Observed, never scheduling points: they name and check objects
     * (pthread_once excepted: a step, see model_fn_is_scheduling_point). */
    MF_MUTEX_INIT, MF_MUTEX_DESTROY, MF_COND_INIT, MF_COND_DESTROY,
    MF_SEM_INIT, MF_SEM_DESTROY, MF_BARRIER_INIT, MF_RWLOCK_INIT, MF_SPIN_INIT,
    MF_ONCE,
    /* OpenMP: a parallel region starts (its outlined function and data). */
    MF_OMP_PARALLEL, MF_OMP_PARALLEL_LOOP_DYNAMIC, MF_OMP_PARALLEL_LOOP_GUIDED, MF_OMP_PARALLEL_LOOP_RUNTIME,
    MF_OMP_PARALLEL_SECTIONS,
    MF_ASSERT_FAIL,
    /* exit(): observed, never a step: whose code called it (after main
     * returned, libc's) bounds the frames its handlers run in. */
    MF_EXIT,
    /* Heap allocation, observed only when events are described (heap names). */
    MF_MALLOC, MF_CALLOC, MF_REALLOC, MF_FREE,
    /* C's aligned allocators: posix_memalign hands its block out through
     * its first argument, the others return it. */
    MF_POSIX_MEMALIGN, MF_ALIGNED_ALLOC, MF_MEMALIGN, MF_VALLOC, MF_PVALLOC,
    MF_NEW, MF_NEW_ARRAY, MF_DELETE, MF_DELETE_SIZED, MF_DELETE_ARRAY, MF_DELETE_ARRAY_SIZED,
    /* The same for over-aligned types (alignas(64) and std::barrier's
     * arrival tree): C++17's operator new and delete with std::align_val_t. */
    MF_NEW_ALIGNED, MF_NEW_ARRAY_ALIGNED, MF_DELETE_ALIGNED, MF_DELETE_SIZED_ALIGNED, MF_DELETE_ARRAY_ALIGNED,
    MF_DELETE_ARRAY_SIZED_ALIGNED,
    /* The vDSO's clocks: answered by mdat's virtual clock (determinism). */
    MF_CLOCK_GETTIME, MF_GETTIMEOFDAY, MF_TIME,
    MF_COUNT
};

const char *model_fn_name(enum model_fn fn);
/* The short verb a trace uses: "lock", "unlock", "wait", "signal", "post"... */
const char *model_fn_verb(enum model_fn fn);
/* A call from user code to fn is a step of its own, where the strategy may
 * switch threads (lock, wait, post, create...); false for the observed ones. */
bool model_fn_is_scheduling_point(enum model_fn fn);
bool model_fn_is_heap(enum model_fn fn);
bool model_fn_is_clock(enum model_fn fn);


/* BP_LIB_ATOMIC: an atomic instruction of a runtime library (libgomp):
 * observed for the order it imposes, never a step. */
enum breakpoint_kind { BP_NONE, BP_SITE, BP_MODEL, BP_ENTRY, BP_LIB_ATOMIC };

struct breakpoint_hit {
    enum breakpoint_kind kind;
    const struct code_site *site;   /* BP_SITE, BP_LIB_ATOMIC */
    enum model_fn fn;               /* BP_MODEL */
    uint8_t orig;                   /* the byte the int3 replaced */
    const struct x86_insn *insn;    /* the instruction under it, when decoded (for emulation) */
    bool runtime_sync;              /* BP_LIB_ATOMIC: of a runtime that synchronises threads by it (libgomp) */
};

typedef struct code_map code_map;

/* Analyses the executable once. Fails only on allocation errors. */
code_map *code_map_build(const debuginfo *exe);
void code_map_free(code_map *cm);
size_t code_map_site_count(const code_map *cm);

/* For the whole batch, before its first execution: the atomic
 * instructions of the C and C++ runtimes (libc, libstdc++, libgcc_s) get
 * breakpoints too (BP_LIB_ATOMIC, not runtime_sync), so that the words a
 * step touches inside them (their own locks) are known: what a partial-
 * order search needs to order two printf calls, whose FILE lock is all
 * they visibly share. In a static executable, those of its code that is
 * not the user's (the runtimes linked in). */
void code_map_observe_library_atomics(code_map *cm);
/* Observing them was asked for, but a static executable's runtimes could
 * not be told apart from the rest of its code (stripped, and no unwind
 * index): the words its steps touch there are unknown. */
bool code_map_library_atomics_unseen(const code_map *cm);

/* Per execution: called at the exec stop. Computes the load bias, plants the
 * site breakpoints and those modeled entries that live in the executable
 * (static binaries), and a one-shot breakpoint at the entry point when shared
 * libraries still have to be loaded. The heap functions get breakpoints
 * always (heap errors are judged in every execution), the atomics of
 * runtime libraries only with follow_memory (what naming data and judging
 * races need; for this execution and its code_map_plant_libs). */
bool code_map_plant_exe(code_map *cm, pid_t pid, int mem_fd, bool follow_memory, char *err, size_t errlen);
/* Called at the entry breakpoint: plants the modeled entries of every loaded
 * shared object and removes the entry breakpoint. */
bool code_map_plant_libs(code_map *cm, pid_t pid, int mem_fd, char *err, size_t errlen);
/* Writes the original bytes back into another address space (a forked
 * child) so that it runs without our breakpoints. */
void code_map_unplant(const code_map *cm, int mem_fd);

/* The program has not reached its entry point yet (the dynamic loader is
 * still at work): a program that ends now never started. */
bool code_map_before_entry(const code_map *cm);
/* The runtime address of the executable's entry point (after planting). */
uint64_t code_map_entry_point(const code_map *cm);
uint64_t code_map_bias(const code_map *cm);
const debuginfo *code_map_exe(const code_map *cm);

bool code_map_in_exe(const code_map *cm, uint64_t addr);
/* In the executable or one of the program's own libraries (code, data,
 * .bss): the modules whose data is the user's. */
bool code_map_in_own_module(const code_map *cm, uint64_t addr);

/* In the part of the executable that is the user's code (where sites are):
 * library calls made from anywhere else are not scheduling points. */
bool code_map_is_user_code(const code_map *cm, uint64_t addr);
/* In the C library or the dynamic loader (or, in a static executable,
 * in libc's part of it): code whose calls to the modeled functions are
 * the threading implementation's own (engine/exec_stops.c). */
bool code_map_is_threading_runtime(const code_map *cm, uint64_t addr);
/* The shared object that runtime address addr lies in (as mapped when
 * code_map_plant_libs ran): its debug info, load bias and file name. */
bool code_map_library_at(const code_map *cm, uint64_t addr, const debuginfo **debug, uint64_t *bias,
                         const char **name);
/* The runtime address of a symbol defined by the executable or a library
 * mapped in this execution (the first found); false when none defines it. */
bool code_map_symbol_address(const code_map *cm, const char *name, uint64_t *addr);
/* [addr, addr + size) lies in the executable's own data: for a write, .data
 * or .bss (writable all run long); for a read, any loaded non-code section. */
bool code_map_in_exe_data(const code_map *cm, uint64_t addr, uint64_t size, bool write);
/* [addr, addr + size) lies in memory of the executable or a library that
 * never changes while the program runs (read-only sections, RELRO: a
 * vtable, a string literal): reading it is not shared state. */
bool code_map_is_constant(const code_map *cm, uint64_t addr, uint64_t size);
/* Places in the user's code (the executable and the program's own
 * libraries loaded so far) whose memory accesses mdat cannot see: bytes
 * inside a function that do not decode as an instruction mdat knows (the
 * CPU runs them; no breakpoint is planted in or after them up to the next
 * known instruction start) and gathers and scatters, whose addresses are
 * the lanes of a vector register. 0: every access of the user's code is
 * seen. *first (may be NULL): the runtime address of one of them. An
 * execution that runs such code may have shared accesses no step shows:
 * claims of exhaustiveness lose their grounds. */
size_t code_map_unseen_code(const code_map *cm, uint64_t *first);
/* buf holds [addr, addr + n) as read from the program: the code map's
 * int3s there become the bytes they replaced. For the reads mdat carries
 * out for the program (its own code reading itself); a read the CPU makes
 * sees the int3s (README, "Known limits"). */
void code_map_hide_breakpoints(code_map *cm, uint64_t addr, void *buf, size_t n);
/* Which user-code sites carry an int3 from the next planting on (SITES_ALL
 * by default; SITES_ATOMIC while page ownership finds the shared accesses,
 * exec_pages.h). A site without its int3 is no breakpoint for
 * code_map_lookup. */
void code_map_set_planting(code_map *cm, enum site_planting how);
enum site_planting code_map_planting(const code_map *cm);
/* Rewrites the sites of the executable and the program's own libraries
 * as code_map_set_planting says, into an address space planted before
 * (a fork of the template) with the same modules and entries. */
bool code_map_replant_sites(code_map *cm, int mem_fd);
/* The site of the user's code at runtime address addr, planted or not. */
const struct code_site *code_map_site_at(const code_map *cm, uint64_t addr);
/* Looks up the breakpoint at runtime address addr. */
bool code_map_lookup(const code_map *cm, uint64_t addr, struct breakpoint_hit *hit);
/* The instruction at runtime address addr as the program has it in
 * memory (mem_fd; the original byte under mdat's breakpoints), in the
 * executable or a library loaded with it, decoded once and kept until
 * code may have changed; NULL outside their code, in code the program may
 * be writing (code_map_exec_mapping), or where it does not decode.
 * *planted: one of the code map's breakpoints is at addr (what
 * code_map_lookup finds, remembered with the instruction). */
const struct x86_insn *code_map_insn_at(code_map *cm, int mem_fd, uint64_t addr, bool *planted);

/* The program asks for a mapping with PROT_EXEC (mmap, mprotect,
 * pkey_mprotect; seen at the call's seccomp stop, before the kernel runs
 * it): [addr, addr + len) when known (mprotect, a MAP_FIXED mmap; len 0:
 * not known), its protection, and whether it is shared with other
 * mappings (MAP_SHARED). When it meets the code of a module mdat decodes
 * (new mappings elsewhere change nothing mdat decoded), every decoded
 * instruction is decoded again from memory, and once the program runs
 * (after its entry point): code it may
 * write while it runs (PROT_WRITE, or shared) is never decoded ahead, and
 * the code map's breakpoints in it are taken out; breakpoints in code it
 * has rewritten are taken out (or forgotten, when it wrote over them).
 * Both last for this execution only. */
void code_map_exec_mapping(code_map *cm, int mem_fd, uint64_t addr, uint64_t len, int prot, bool shared);
/* A new execution begins: from the code the batch planted, whatever the
 * last one changed. */
void code_map_execution_starts(code_map *cm);

#endif
