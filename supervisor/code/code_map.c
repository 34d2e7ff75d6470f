/* code_map: static analysis of the executable and per-execution breakpoints. */
#include "supervisor/code/code_map.h"
#include "supervisor/process/proc_maps.h"
#include "supervisor/code/site_table.h"
#include "supervisor/process/tracee.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const struct {
    const char *symbol;
    const char *verb;
} model_fns[MF_COUNT] = {
    [MF_MUTEX_LOCK] = {"pthread_mutex_lock", "lock"},
    [MF_MUTEX_TRYLOCK] = {"pthread_mutex_trylock", "trylock"},
    [MF_MUTEX_TIMEDLOCK] = {"pthread_mutex_timedlock", "timedlock"},
    [MF_MUTEX_UNLOCK] = {"pthread_mutex_unlock", "unlock"},
    [MF_COND_WAIT] = {"pthread_cond_wait", "cond_wait"},
    [MF_COND_TIMEDWAIT] = {"pthread_cond_timedwait", "cond_timedwait"},
    [MF_COND_SIGNAL] = {"pthread_cond_signal", "cond_signal"},
    [MF_COND_BROADCAST] = {"pthread_cond_broadcast", "cond_broadcast"},
    [MF_SEM_WAIT] = {"sem_wait", "sem_wait"},
    [MF_SEM_TRYWAIT] = {"sem_trywait", "sem_trywait"},
    [MF_SEM_TIMEDWAIT] = {"sem_timedwait", "sem_timedwait"},
    [MF_SEM_POST] = {"sem_post", "sem_post"},
    [MF_THREAD_CREATE] = {"pthread_create", "create"},
    [MF_THREAD_JOIN] = {"pthread_join", "join"},
    [MF_THREAD_EXIT] = {"pthread_exit", "thread_exit"},
    [MF_THREAD_CANCEL] = {"pthread_cancel", "cancel"},
    [MF_BARRIER_WAIT] = {"pthread_barrier_wait", "barrier_wait"},
    [MF_RWLOCK_RDLOCK] = {"pthread_rwlock_rdlock", "rdlock"},
    [MF_RWLOCK_WRLOCK] = {"pthread_rwlock_wrlock", "wrlock"},
    [MF_RWLOCK_TRYRDLOCK] = {"pthread_rwlock_tryrdlock", "tryrdlock"},
    [MF_RWLOCK_TRYWRLOCK] = {"pthread_rwlock_trywrlock", "trywrlock"},
    [MF_RWLOCK_UNLOCK] = {"pthread_rwlock_unlock", "rwunlock"},
    [MF_SPIN_LOCK] = {"pthread_spin_lock", "spin_lock"},
    [MF_SPIN_UNLOCK] = {"pthread_spin_unlock", "spin_unlock"},
    [MF_MUTEX_INIT] = {"pthread_mutex_init", "mutex_init"},
    [MF_MUTEX_DESTROY] = {"pthread_mutex_destroy", "mutex_destroy"},
    [MF_COND_INIT] = {"pthread_cond_init", "cond_init"},
    [MF_COND_DESTROY] = {"pthread_cond_destroy", "cond_destroy"},
    [MF_SEM_INIT] = {"sem_init", "sem_init"},
    [MF_SEM_DESTROY] = {"sem_destroy", "sem_destroy"},
    [MF_BARRIER_INIT] = {"pthread_barrier_init", "barrier_init"},
    [MF_RWLOCK_INIT] = {"pthread_rwlock_init", "rwlock_init"},
    [MF_SPIN_INIT] = {"pthread_spin_init", "spin_init"},
    [MF_ONCE] = {"pthread_once", "once"},
    /* What gcc 12 calls for parallel, parallel for schedule(dynamic|guided|runtime), parallel sections. */
    [MF_OMP_PARALLEL] = {"GOMP_parallel", "omp_parallel"},
    [MF_OMP_PARALLEL_LOOP_DYNAMIC] = {"GOMP_parallel_loop_nonmonotonic_dynamic", "omp_parallel"},
    [MF_OMP_PARALLEL_LOOP_GUIDED] = {"GOMP_parallel_loop_nonmonotonic_guided", "omp_parallel"},
    [MF_OMP_PARALLEL_LOOP_RUNTIME] = {"GOMP_parallel_loop_maybe_nonmonotonic_runtime", "omp_parallel"},
    [MF_OMP_PARALLEL_SECTIONS] = {"GOMP_parallel_sections", "omp_parallel"},
    [MF_ASSERT_FAIL] = {"__assert_fail", "assert_fail"},
    [MF_EXIT] = {"exit", "exit"},
    [MF_MALLOC] = {"malloc", "malloc"},
    [MF_CALLOC] = {"calloc", "calloc"},
    [MF_REALLOC] = {"realloc", "realloc"},
    [MF_FREE] = {"free", "free"},
    [MF_POSIX_MEMALIGN] = {"posix_memalign", "posix_memalign"},
    [MF_ALIGNED_ALLOC] = {"aligned_alloc", "aligned_alloc"},
    [MF_MEMALIGN] = {"memalign", "memalign"},
    [MF_VALLOC] = {"valloc", "valloc"},
    [MF_PVALLOC] = {"pvalloc", "pvalloc"},
    /* C++'s operator new/delete (they call malloc/free from the library). */
    [MF_NEW] = {"_Znwm", "new"},
    [MF_NEW_ARRAY] = {"_Znam", "new[]"},
    [MF_DELETE] = {"_ZdlPv", "delete"},
    [MF_DELETE_SIZED] = {"_ZdlPvm", "delete"},
    [MF_DELETE_ARRAY] = {"_ZdaPv", "delete[]"},
    [MF_DELETE_ARRAY_SIZED] = {"_ZdaPvm", "delete[]"},
    [MF_NEW_ALIGNED] = {"_ZnwmSt11align_val_t", "new"},
    [MF_NEW_ARRAY_ALIGNED] = {"_ZnamSt11align_val_t", "new[]"},
    [MF_DELETE_ALIGNED] = {"_ZdlPvSt11align_val_t", "delete"},
    [MF_DELETE_SIZED_ALIGNED] = {"_ZdlPvmSt11align_val_t", "delete"},
    [MF_DELETE_ARRAY_ALIGNED] = {"_ZdaPvSt11align_val_t", "delete[]"},
    [MF_DELETE_ARRAY_SIZED_ALIGNED] = {"_ZdaPvmSt11align_val_t", "delete[]"},
    /* Only the vDSO has these names; libc's wrappers end up there. */
    [MF_CLOCK_GETTIME] = {"__vdso_clock_gettime", "clock_gettime"},
    [MF_GETTIMEOFDAY] = {"__vdso_gettimeofday", "gettimeofday"},
    [MF_TIME] = {"__vdso_time", "time"},
};

const char *model_fn_name(enum model_fn fn)
{
    return fn < MF_COUNT ? model_fns[fn].symbol : "?";
}

const char *model_fn_verb(enum model_fn fn)
{
    return fn < MF_COUNT ? model_fns[fn].verb : "?";
}

bool model_fn_is_scheduling_point(enum model_fn fn)
{
    /* pthread_once: which thread runs the initialisation is the order of
     * the calls. */
    return fn < MF_MUTEX_INIT || fn == MF_ONCE;
}

bool model_fn_is_clock(enum model_fn fn)
{
    return fn >= MF_CLOCK_GETTIME && fn <= MF_TIME;
}

bool model_fn_is_heap(enum model_fn fn)
{
    return fn >= MF_MALLOC && fn <= MF_DELETE_ARRAY_SIZED_ALIGNED;
}

/* Runtime libraries that synchronize threads with atomics of their own,
 * behind entry points mdat does not model (libgomp's critical sections,
 * barriers, locks and work sharing): their atomic instructions are
 * observed, so that race detection sees the order they impose. */
static bool is_runtime_sync_library(const char *path)
{
    const char *slash = strrchr(path, '/');
    return strncmp(slash ? slash + 1 : path, "libgomp.so", 10) == 0;
}

/* The C and C++ runtimes, which keep state of their own behind internal
 * locks (stdio's FILE locks, malloc's arenas, rand's state, the static
 * local guards of C++): what a step does there is ordered against other
 * steps by the lock words it touches. */
static bool has_runtime_locks(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    return strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libstdc++.so", 12) == 0 ||
           strncmp(base, "libgcc_s.so", 11) == 0;
}

/* A library outside the system's library directories is the program's
 * own (built with it, like the executable): its code gets breakpoints and
 * its calls are the user's. The C and C++ runtimes, libgomp and the rest
 * of the system run without preemption. */
static bool is_programs_own_library(const char *path)
{
    /* mdat's own allocator (inprogram/mdat_alloc.c), wherever it is. */
    const char *slash = strrchr(path, '/');
    if (strcmp(slash ? slash + 1 : path, "libmdat_alloc.so") == 0)
        return false;
    static const char *const system_dirs[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/"};

    for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++)
        if (strncmp(path, system_dirs[i], strlen(system_dirs[i])) == 0)
            return false;
    return true;
}

struct entry_bp {
    uint64_t addr;      /* runtime */
    enum model_fn fn;
    uint8_t orig;
    struct x86_insn first;  /* the instruction the breakpoint covers (emulation: 0 if not decoded) */
};

/* A shared object's symbols and debug info, kept across executions (same
 * libraries, same addresses, since ASLR is off), and where this execution
 * has it mapped. */
struct lib_cache {
    char path[256];
    debuginfo *debug;   /* NULL when it could not be opened */
    /* The program's own library: its sites; a runtime library that
     * synchronizes (is_runtime_sync_library): its atomics, planted only
     * when the execution follows memory; NULL for the rest of the system. */
    struct site_table *sites;
    /* Its atomics are a runtime's synchronisation (libgomp), which race
     * detection follows; else (libc, libstdc++) only the words a search
     * counts as touched by a step. */
    bool runtime_sync;
    uint64_t lo, hi;    /* hi == 0: not mapped in this execution */
    uint64_t bias;
};

/* The program's own library (it has user code's sites, not only a runtime's atomics). */
static bool is_own_library(const struct lib_cache *lc)
{
    return lc->debug && lc->sites && !lc->sites->sync_only;
}

struct code_map {
    const debuginfo *exe;
    struct site_table exe_sites;
    char exe_path[PATH_MAX];

    /* per execution */
    uint64_t bias;
    uint64_t exe_lo, exe_hi;
    uint64_t entry_addr;
    uint8_t entry_orig;
    bool entry_planted;
    bool follow_memory;         /* this execution observes runtime-library atomics (heap calls: always) */
    /* The batch observes the atomics of the C and C++ runtimes as well
     * (code_map_observe_library_atomics): set before the first execution. */
    bool observe_library_atomics;
    /* ... but a static executable's could not be found (stripped, no
     * unwind index): what its steps touch inside libc is unknown. */
    bool library_atomics_unseen;
    /* Which sites carry an int3 in this execution: all, or only the atomic
     * ones while page ownership finds the shared accesses (exec_pages.h). */
    enum site_planting planting;
    /* Per function followed at its callers' PLT stubs (heap functions,
     * mutexes, condition variables): its breakpoint goes on the function itself
     * instead, since some caller may reach it without a stub. */
    bool at_definition[MF_COUNT];
    struct entry_bp *entries;
    size_t n_entries, cap_entries;

    struct lib_cache *libs;
    size_t n_libs;
    x86_decoder *decoder;       /* for the first instruction of modeled entries */
    debuginfo *vdso;            /* the vDSO's symbols, read from the first execution */

    /* The instructions of the executable and of the libraries loaded with
     * it decoded so far, by runtime address (open addressing; addr 0 is an
     * empty slot): what running ahead executes, decoded once per batch. */
    struct decoded_insn *decoded;
    size_t n_decoded, cap_decoded;
    /* Changes whenever the breakpoints planted change (each execution
     * plants its own): what a decoded instruction remembers of them is
     * good while it is the same. */
    uint32_t planted_generation;
    /* Changes whenever code may have changed (a mapping made executable,
     * relocations written): an instruction decoded before is decoded
     * again, from memory. */
    uint32_t decode_epoch;
    /* Ranges that hold no byte a breakpoint of the map's was planted in,
     * good for planted_generation: reads of the program's data (a stack
     * and a global, over and over) need no search for breakpoints to hide. */
    struct clean_range { uint64_t lo, hi; uint32_t generation; } clean[2];
    unsigned clean_next;

    /* Code the program changes, in this execution (code_map_exec_mapping):
     * it changed some (the next execution starts from the original code
     * again), ranges it may write while they run (writable and
     * executable, or shared with another mapping: never decoded ahead),
     * and sites whose int3 it wrote over or mdat took out (no longer
     * breakpoints). */
    bool code_changed;
    struct addr_range *volatile_code;
    size_t n_volatile, cap_volatile;
    uint64_t *dead_sites;
    size_t n_dead, cap_dead;
};

struct decoded_insn {
    uint64_t addr;
    /* Where it was decoded from: a library mapped elsewhere in a later
     * execution makes the entry stale. */
    const debuginfo *module;
    uint64_t bias;
    bool ok;                    /* false: not code, or the decoder could not decode it */
    bool planted;               /* one of the code map's breakpoints is here, */
    uint32_t planted_generation;    /* as of that generation */
    uint32_t epoch;             /* decoded in this decode_epoch */
    struct x86_insn insn;
};


code_map *code_map_build(const debuginfo *exe)
{
    code_map *cm = calloc(1, sizeof *cm);
    if (!cm)
        return NULL;
    cm->exe = exe;
    const elf_image *img = debuginfo_elf(exe);
    if (!realpath(elf_image_path(img), cm->exe_path))
        snprintf(cm->exe_path, sizeof cm->exe_path, "%s", elf_image_path(img));
    x86_decoder *dec = x86_decoder_new();
    if (!dec) {
        free(cm);
        return NULL;
    }
    cm->decoder = dec;
    site_table_build(&cm->exe_sites, exe, dec);
    return cm;
}

void code_map_free(code_map *cm)
{
    if (!cm)
        return;
    free(cm->decoded);
    site_table_free(&cm->exe_sites);
    for (size_t i = 0; i < cm->n_libs; i++) {
        if (cm->libs[i].sites) {
            site_table_free(cm->libs[i].sites);
            free(cm->libs[i].sites);
        }
        debuginfo_free(cm->libs[i].debug);
    }
    x86_decoder_free(cm->decoder);
    debuginfo_free(cm->vdso);
    free(cm->libs);
    free(cm->entries);
    free(cm->volatile_code);
    free(cm->dead_sites);
    free(cm);
}

size_t code_map_site_count(const code_map *cm)
{
    size_t n = cm->exe_sites.n_sites;
    for (size_t i = 0; i < cm->n_libs; i++)
        n += is_own_library(&cm->libs[i]) ? cm->libs[i].sites->n_sites : 0;
    return n;
}

const debuginfo *code_map_exe(const code_map *cm)
{
    return cm->exe;
}

uint64_t code_map_bias(const code_map *cm)

{
    return cm->bias;
}

bool code_map_in_exe(const code_map *cm, uint64_t addr)
{
    return addr >= cm->exe_lo && addr < cm->exe_hi;
}

bool code_map_in_own_module(const code_map *cm, uint64_t addr)
{
    if (code_map_in_exe(cm, addr))
        return true;
    for (size_t i = 0; i < cm->n_libs; i++) {
        const struct lib_cache *lc = &cm->libs[i];
        if (!lc->hi || !is_own_library(lc))
            continue;
        /* Its .bss may lie beyond its file's mappings. */
        uint64_t hi = lc->hi;
        const struct elf_section *secs;
        size_t n = elf_image_sections(debuginfo_elf(lc->debug), &secs);
        for (size_t k = 0; k < n; k++)
            if (secs[k].alloc && lc->bias + secs[k].addr + secs[k].size > hi)
                hi = lc->bias + secs[k].addr + secs[k].size;
        if (addr >= lc->lo && addr < hi)
            return true;
    }
    return false;
}


/* The library with a site table (the program's own, or a runtime library's
 * atomics) mapped at addr in this execution, NULL if none. */
static const struct lib_cache *library_with_sites_at(const code_map *cm, uint64_t addr)
{
    for (size_t i = 0; i < cm->n_libs; i++) {
        const struct lib_cache *lc = &cm->libs[i];
        if (lc->sites && lc->hi && addr >= lc->lo && addr < lc->hi)
            return lc;
    }
    return NULL;
}

bool code_map_is_user_code(const code_map *cm, uint64_t addr)
{
    if (code_map_in_exe(cm, addr))
        return site_table_is_user(&cm->exe_sites, addr - cm->bias);
    const struct lib_cache *lc = cm->n_libs ? library_with_sites_at(cm, addr) : NULL;
    return lc && site_table_is_user(lc->sites, addr - lc->bias);
}

/* The C library and the dynamic loader: the threading implementation
 * itself, whose calls to its own modeled functions are internal (the
 * loader's locks, C11's mtx_lock calling pthread_mutex_lock). */
static bool is_threading_runtime_path(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    return strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libc-", 5) == 0 || strncmp(base, "ld-linux", 8) == 0 ||
           strncmp(base, "libpthread", 10) == 0;
}

/* In a static executable, libc is linked in beside libstdc++ and libgomp:
 * told apart by the function's name (C++ names are mangled; libgomp's
 * begin with GOMP_, gomp_ or omp_). A stripped one has no names: all of
 * it is taken as libc. */
static bool static_libc_function(const code_map *cm, uint64_t addr)
{
    const elf_image *img = debuginfo_elf(cm->exe);
    if (!elf_image_is_static(img))
        return false;
    const struct elf_symbol *fn = elf_image_function_at(img, addr - cm->bias);
    if (!fn || !fn->name)
        return true;
    return strncmp(fn->name, "_Z", 2) != 0 && strncmp(fn->name, "GOMP_", 5) != 0 &&
           strncmp(fn->name, "gomp_", 5) != 0 && strncmp(fn->name, "omp_", 4) != 0 &&
           strncmp(fn->name, "__cxa_", 6) != 0 && strncmp(fn->name, "__gxx_", 6) != 0;
}

bool code_map_is_threading_runtime(const code_map *cm, uint64_t addr)
{
    if (code_map_in_exe(cm, addr))
        return !code_map_is_user_code(cm, addr) && static_libc_function(cm, addr);
    for (size_t i = 0; i < cm->n_libs; i++) {
        const struct lib_cache *lc = &cm->libs[i];
        if (lc->hi && addr >= lc->lo && addr < lc->hi)
            return is_threading_runtime_path(lc->path);
    }
    return false;
}

static int cmp_entry(const void *a, const void *b)
{
    uint64_t x = ((const struct entry_bp *)a)->addr, y = ((const struct entry_bp *)b)->addr;
    return x < y ? -1 : x > y;
}

static bool entry_known(const code_map *cm, uint64_t addr)
{
    for (size_t i = 0; i < cm->n_entries; i++)
        if (cm->entries[i].addr == addr)
            return true;
    return false;
}

/* C11's <threads.h> functions that take their arguments where the POSIX
 * function they wrap does: a call from user code is the same step.
 * (thrd_create and the init functions take theirs elsewhere; the POSIX
 * call they make inside libc is observed as library code's.) */
static const struct {
    const char *symbol;
    enum model_fn fn;
} c11_aliases[] = {
    {"mtx_lock", MF_MUTEX_LOCK}, {"mtx_trylock", MF_MUTEX_TRYLOCK}, {"mtx_timedlock", MF_MUTEX_TIMEDLOCK},
    {"mtx_unlock", MF_MUTEX_UNLOCK}, {"cnd_wait", MF_COND_WAIT}, {"cnd_timedwait", MF_COND_TIMEDWAIT},
    {"cnd_signal", MF_COND_SIGNAL}, {"cnd_broadcast", MF_COND_BROADCAST}, {"thrd_join", MF_THREAD_JOIN},
    {"thrd_exit", MF_THREAD_EXIT}, {"call_once", MF_ONCE},
};

/* A breakpoint at addr, the entry of fn (a function, or a PLT stub that
 * jumps to it). */
static void plant_entry(code_map *cm, uint64_t addr, int mem_fd, enum model_fn fn)
{
    uint8_t code[16];
    if (entry_known(cm, addr) || !tracee_read(mem_fd, addr, code, sizeof code))
        return;
    uint8_t orig = code[0];
    struct x86_insn first;
    if (!x86_decode(cm->decoder, code, sizeof code, addr, &first))
        memset(&first, 0, sizeof first);
    static const uint8_t int3 = 0xcc;
    if (!tracee_write(mem_fd, addr, &int3, 1))
        return;
    if (cm->n_entries == cm->cap_entries) {
        cm->cap_entries = cm->cap_entries ? cm->cap_entries * 2 : 64;
        cm->entries = realloc(cm->entries, cm->cap_entries * sizeof *cm->entries);
        if (!cm->entries)
            abort();
    }
    cm->entries[cm->n_entries++] = (struct entry_bp){addr, fn, orig, first};
    cm->planted_generation++;
}

/* A breakpoint on each definition of symbol in img, meaning fn. */
static void plant_symbol(code_map *cm, const elf_image *img, uint64_t bias, int mem_fd, const char *symbol,
                         enum model_fn fn)
{
    uint64_t addrs[8];
    size_t n = elf_image_symbol_addrs(img, symbol, addrs, 8);
    for (size_t i = 0; i < n && i < 8; i++)
        plant_entry(cm, bias + addrs[i], mem_fd, fn);
}

static void sort_entries(code_map *cm)
{
    if (cm->n_entries > 1)
        qsort(cm->entries, cm->n_entries, sizeof *cm->entries, cmp_entry);
}

/* Mutexes and condition variables are followed where a module other than
 * the one defining them (libc) calls them, at that module's PLT stubs,
 * rather than at their definition: the dynamic loader calls lock and unlock
 * through a pointer for its own locks (two stops in every pthread_create,
 * around the TLS block), C11's mtx_lock and cnd_wait call them inside libc,
 * and neither is the program's own synchronization (nor a step: calls from
 * library code never are). Where a module may reach them without a stub
 * (-fno-plt, an address taken), defines them itself (a static program, an
 * interposer) or the program's own code may load code later (dlopen), the
 * definition keeps its breakpoint, as every other modeled function does. */
static bool followed_at_callers(enum model_fn fn)
{
    return (fn >= MF_MUTEX_LOCK && fn <= MF_MUTEX_UNLOCK) || (fn >= MF_COND_WAIT && fn <= MF_COND_BROADCAST);
}

/* Plants a breakpoint on every modeled function that img defines. */
static void plant_model_entries(code_map *cm, const elf_image *img, uint64_t bias, int mem_fd)
{
    for (int fn = 0; fn < MF_COUNT; fn++) {
        if (model_fn_is_heap((enum model_fn)fn) && !cm->at_definition[fn])
            continue;
        if (followed_at_callers((enum model_fn)fn) && !cm->at_definition[fn])
            continue;
        plant_symbol(cm, img, bias, mem_fd, model_fns[fn].symbol, (enum model_fn)fn);
    }
    for (size_t i = 0; i < sizeof c11_aliases / sizeof c11_aliases[0]; i++)
        plant_symbol(cm, img, bias, mem_fd, c11_aliases[i].symbol, c11_aliases[i].fn);
    sort_entries(cm);
}

/* Heap calls are followed where the user's code makes them, at the PLT
 * stubs of the executable and of the program's own libraries: the calls
 * libc and libstdc++ make inside themselves (a thread's start and end free
 * a dozen blocks; operator new calls malloc) are not the user's and cost no
 * stop. A function the user's code may reach without its stub (-fno-plt,
 * its address taken, or defined in the executable itself) keeps its
 * breakpoint on the function instead. */
static void plan_heap_calls(code_map *cm, const debuginfo *module, bool defines_them)
{
    const elf_image *img = debuginfo_elf(module);
    for (int fn = MF_MALLOC; fn <= MF_DELETE_ARRAY_SIZED_ALIGNED; fn++) {
        uint64_t addr;
        const char *symbol = model_fns[fn].symbol;
        if (debuginfo_imports_unstubbed(module, symbol) ||
            (defines_them && elf_image_symbol_addrs(img, symbol, &addr, 1) > 0))
            cm->at_definition[fn] = true;
    }
}

static void plan_sync_calls(code_map *cm, const debuginfo *module, bool system_library)
{
    const elf_image *img = debuginfo_elf(module);
    /* Code the user's modules load later has no stubs planted; a system
     * library's own plugins (libgomp's offloading) are library code. */
    bool loads_code = !system_library && (debuginfo_imports(module, "dlopen") || debuginfo_imports(module, "dlmopen"));
    for (int fn = 0; fn < MF_COUNT; fn++) {
        uint64_t addr;
        const char *symbol = model_fns[fn].symbol;
        if (followed_at_callers((enum model_fn)fn) &&
            (loads_code || debuginfo_imports_unstubbed(module, symbol) ||
             (!system_library && elf_image_symbol_addrs(img, symbol, &addr, 1) > 0)))
            cm->at_definition[fn] = true;
    }
}

/* Breakpoints on module's PLT stubs of the functions followed at their
 * callers: the heap functions in the user's own modules (heap_stubs),
 * mutexes and condition variables in every module that imports them. */
static void plant_stubs(code_map *cm, const debuginfo *module, uint64_t bias, int mem_fd, bool heap_stubs)
{
    const struct elf_symbol *stubs;
    size_t n = debuginfo_plt_stubs(module, &stubs);
    for (size_t i = 0; i < n; i++)
        for (int fn = 0; fn < MF_COUNT; fn++) {
            bool followed = model_fn_is_heap((enum model_fn)fn) ? heap_stubs : followed_at_callers((enum model_fn)fn);
            if (followed && !cm->at_definition[fn] && strcmp(stubs[i].name, model_fns[fn].symbol) == 0)
                plant_entry(cm, bias + stubs[i].addr, mem_fd, (enum model_fn)fn);
        }
    sort_entries(cm);
}

/* The vDSO's clock functions get breakpoints like the modeled entries. Its
 * image is read out of the process once (it is the same in every
 * execution) and opened as a file through a memfd. */
static void plant_vdso(code_map *cm, pid_t pid, int mem_fd)
{
    struct proc_maps maps;
    if (!proc_maps_read(pid, &maps))
        return;
    for (size_t i = 0; i < maps.n; i++) {
        const struct proc_mapping *m = &maps.m[i];
        if (strcmp(m->path, "[vdso]") != 0)
            continue;
        if (!cm->vdso) {
            size_t size = (size_t)(m->end - m->start);
            uint8_t *image = malloc(size);
            int fd = memfd_create("mdat-vdso", MFD_CLOEXEC);
            if (image && fd >= 0 && tracee_read(mem_fd, m->start, image, size) &&
                write(fd, image, size) == (ssize_t)size) {
                char path[64], err[256];
                snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
                cm->vdso = debuginfo_load(path, err, sizeof err);
            }
            free(image);
            if (fd >= 0)
                close(fd);
        }
        if (cm->vdso) {
            const elf_image *img = debuginfo_elf(cm->vdso);
            plant_model_entries(cm, img, m->start - elf_image_base_vaddr(img), mem_fd);
        }
        break;
    }
    proc_maps_free(&maps);
}

void code_map_observe_library_atomics(code_map *cm)
{
    if (cm->observe_library_atomics)
        return;
    cm->observe_library_atomics = true;
    /* A static executable carries the C and C++ runtimes in itself: their
     * locks' words are touched there (libraries get theirs in lib_entry). */
    if (elf_image_is_static(debuginfo_elf(cm->exe))) {
        cm->library_atomics_unseen = !site_table_add_library_atomics(&cm->exe_sites, cm->decoder);
        cm->planted_generation++;
    }
}

bool code_map_library_atomics_unseen(const code_map *cm)
{
    return cm->library_atomics_unseen;
}

bool code_map_plant_exe(code_map *cm, pid_t pid, int mem_fd, bool follow_memory, char *err, size_t errlen)
{
    cm->follow_memory = follow_memory;
    cm->decode_epoch++;
    const elf_image *img = debuginfo_elf(cm->exe);
    memset(cm->at_definition, 0, sizeof cm->at_definition);
    plan_heap_calls(cm, cm->exe, true);
    plan_sync_calls(cm, cm->exe, false);
    cm->n_entries = 0;
    cm->entry_planted = false;
    cm->planted_generation++;
    struct proc_maps maps;
    if (!proc_maps_read(pid, &maps)) {
        snprintf(err, errlen, "cannot read the memory map of process %d", (int)pid);
        return false;
    }
    cm->exe_lo = UINT64_MAX;
    cm->exe_hi = 0;
    uint64_t lowest_offset0 = UINT64_MAX;
    for (size_t i = 0; i < maps.n; i++) {
        if (strcmp(maps.m[i].path, cm->exe_path) != 0)
            continue;
        if (maps.m[i].start < cm->exe_lo)
            cm->exe_lo = maps.m[i].start;
        if (maps.m[i].end > cm->exe_hi)
            cm->exe_hi = maps.m[i].end;
        if (maps.m[i].offset == 0 && maps.m[i].start < lowest_offset0)
            lowest_offset0 = maps.m[i].start;
    }
    proc_maps_free(&maps);
    if (lowest_offset0 == UINT64_MAX) {
        snprintf(err, errlen, "cannot find %s in the memory map of the program", cm->exe_path);
        return false;
    }
    cm->bias = elf_image_is_pie(img) ? lowest_offset0 - elf_image_base_vaddr(img) : 0;
    /* The .bss beyond the file mapping belongs to the executable too. */
    const struct elf_section *secs;
    size_t n = elf_image_sections(img, &secs);
    for (size_t i = 0; i < n; i++)
        if (secs[i].alloc && cm->bias + secs[i].addr + secs[i].size > cm->exe_hi)
            cm->exe_hi = cm->bias + secs[i].addr + secs[i].size;

    if (!site_table_write(&cm->exe_sites, cm->bias, mem_fd, cm->planting)) {
        snprintf(err, errlen, "cannot write breakpoints into the program");
        return false;
    }
    plant_model_entries(cm, img, cm->bias, mem_fd);
    plant_vdso(cm, pid, mem_fd);
    if (!elf_image_is_static(img)) {
        cm->entry_addr = cm->bias + elf_image_entry(img);
        static const uint8_t int3 = 0xcc;
        if (!tracee_read(mem_fd, cm->entry_addr, &cm->entry_orig, 1) ||
            !tracee_write(mem_fd, cm->entry_addr, &int3, 1)) {
            snprintf(err, errlen, "cannot set a breakpoint at the entry point");
            return false;
        }
        cm->entry_planted = true;
    }
    return true;
}

static struct lib_cache *lib_entry(code_map *cm, const char *path)
{
    for (size_t i = 0; i < cm->n_libs; i++)
        if (strcmp(cm->libs[i].path, path) == 0)
            return &cm->libs[i];
    struct lib_cache *grown = realloc(cm->libs, (cm->n_libs + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    cm->libs = grown;
    struct lib_cache *lc = &cm->libs[cm->n_libs++];
    memset(lc, 0, sizeof *lc);
    snprintf(lc->path, sizeof lc->path, "%s", path);
    char err[256];
    lc->debug = debuginfo_load(path, err, sizeof err);
    bool own = is_programs_own_library(path), sync = !own && is_runtime_sync_library(path);
    bool atomics = !own && !sync && cm->observe_library_atomics && has_runtime_locks(path);
    lc->runtime_sync = sync;
    if (lc->debug && (own || sync || atomics)) {
        lc->sites = calloc(1, sizeof *lc->sites);
        if (!lc->sites)
            abort();
        if (own)
            site_table_build(lc->sites, lc->debug, cm->decoder);
        else if (sync)
            site_table_build_sync(lc->sites, lc->debug, cm->decoder);
        else
            site_table_build_atomics(lc->sites, lc->debug, cm->decoder);
    }
    return lc;
}

bool code_map_plant_libs(code_map *cm, pid_t pid, int mem_fd, char *err, size_t errlen)
{
    cm->planted_generation++;
    cm->decode_epoch++;
    /* The loader has relocated the executable: text relocations (a
     * DT_TEXTREL executable) changed instructions under its sites. */
    site_table_refresh(&cm->exe_sites, cm->bias, mem_fd, cm->decoder);
    if (cm->entry_planted) {
        tracee_write(mem_fd, cm->entry_addr, &cm->entry_orig, 1);
        cm->entry_planted = false;
    }
    struct proc_maps maps;
    if (!proc_maps_read(pid, &maps)) {
        snprintf(err, errlen, "cannot read the memory map of process %d", (int)pid);
        return false;
    }
    for (size_t i = 0; i < cm->n_libs; i++)
        cm->libs[i].lo = cm->libs[i].hi = 0;
    /* Where heap calls are followed depends on every module of the user's
     * code, where lock and unlock are on every module: decided before the
     * runtime libraries get their entries. */
    for (size_t i = 0; i < maps.n; i++) {
        const struct proc_mapping *m = &maps.m[i];
        if (m->path[0] != '/' || strcmp(m->path, cm->exe_path) == 0 || m->offset != 0)
            continue;
        struct lib_cache *lc = lib_entry(cm, m->path);
        if (lc && is_own_library(lc))
            plan_heap_calls(cm, lc->debug, false);
        if (lc && lc->debug)
            plan_sync_calls(cm, lc->debug, !is_programs_own_library(lc->path));
    }
    plant_stubs(cm, cm->exe, cm->bias, mem_fd, true);
    for (size_t i = 0; i < maps.n; i++) {
        const struct proc_mapping *m = &maps.m[i];
        if (m->path[0] != '/' || strcmp(m->path, cm->exe_path) == 0)
            continue;
        struct lib_cache *lc = lib_entry(cm, m->path);
        if (!lc || !lc->debug)
            continue;
        if (lc->hi == 0 || m->start < lc->lo)
            lc->lo = m->start;
        if (m->end > lc->hi)
            lc->hi = m->end;
        if (m->offset != 0)
            continue;
        const elf_image *img = debuginfo_elf(lc->debug);
        lc->bias = m->start - elf_image_base_vaddr(img);
        /* The site table writes whole code sections: before the entries,
         * whose int3s it would otherwise overwrite. */
        if (lc->sites && (!lc->sites->sync_only || cm->follow_memory || cm->observe_library_atomics) &&
            !site_table_write(lc->sites, lc->bias, mem_fd, lc->sites->sync_only ? SITES_ALL : cm->planting)) {
            snprintf(err, errlen, "cannot write breakpoints into %s", lc->path);
            proc_maps_free(&maps);
            return false;
        }
        if (lc->sites && (!lc->sites->sync_only || cm->follow_memory))
            site_table_refresh(lc->sites, lc->bias, mem_fd, cm->decoder);
        plant_model_entries(cm, img, lc->bias, mem_fd);
        plant_stubs(cm, lc->debug, lc->bias, mem_fd, is_own_library(lc));
    }
    proc_maps_free(&maps);
    return true;
}

bool code_map_before_entry(const code_map *cm)
{
    return cm->entry_planted;
}

uint64_t code_map_entry_point(const code_map *cm)
{
    return cm->bias + elf_image_entry(debuginfo_elf(cm->exe));
}

bool code_map_library_at(const code_map *cm, uint64_t addr, const debuginfo **debug, uint64_t *bias,
                         const char **name)
{
    for (size_t i = 0; i < cm->n_libs; i++) {
        const struct lib_cache *lc = &cm->libs[i];
        if (lc->hi && addr >= lc->lo && addr < lc->hi) {
            *debug = lc->debug;
            *bias = lc->bias;
            const char *slash = strrchr(lc->path, '/');
            *name = slash ? slash + 1 : lc->path;
            return true;
        }
    }
    return false;
}

bool code_map_symbol_address(const code_map *cm, const char *name, uint64_t *addr)
{
    uint64_t at;
    if (elf_image_symbol_addrs(debuginfo_elf(cm->exe), name, &at, 1) > 0) {
        *addr = cm->bias + at;
        return true;
    }
    for (size_t i = 0; i < cm->n_libs; i++) {
        const struct lib_cache *lc = &cm->libs[i];
        if (lc->hi && lc->debug && elf_image_symbol_addrs(debuginfo_elf(lc->debug), name, &at, 1) > 0) {
            *addr = lc->bias + at;
            return true;
        }
    }
    return false;
}

void code_map_unplant(const code_map *cm, int mem_fd)
{
    site_table_write(&cm->exe_sites, cm->bias, mem_fd, SITES_NONE);
    for (size_t i = 0; i < cm->n_libs; i++)
        if (cm->libs[i].sites && cm->libs[i].hi)
            site_table_write(cm->libs[i].sites, cm->libs[i].bias, mem_fd, SITES_NONE);
    for (size_t i = 0; i < cm->n_entries; i++)
        tracee_write(mem_fd, cm->entries[i].addr, &cm->entries[i].orig, 1);
    if (cm->entry_planted)
        tracee_write(mem_fd, cm->entry_addr, &cm->entry_orig, 1);
}

bool code_map_in_exe_data(const code_map *cm, uint64_t addr, uint64_t size, bool write)
{
    const struct elf_section *secs;
    size_t n = elf_image_sections(debuginfo_elf(cm->exe), &secs);
    for (size_t i = 0; i < n; i++) {
        const struct elf_section *sec = &secs[i];
        if (!sec->alloc || sec->exec || sec->size == 0)
            continue;
        /* Other writable sections (.got, .data.rel.ro) turn read-only once
         * relocated. */
        if (write && strcmp(sec->name, ".data") != 0 && strcmp(sec->name, ".bss") != 0)
            continue;
        uint64_t lo = cm->bias + sec->addr;
        if (addr >= lo && addr + size <= lo + sec->size)
            return true;
    }
    return false;
}

static bool site_is_dead(const code_map *cm, uint64_t addr)
{
    for (size_t i = 0; i < cm->n_dead; i++)
        if (cm->dead_sites[i] == addr)
            return true;
    return false;
}

/* ---- code the program changes ---- */

static void grow_append(void **array, size_t *n, size_t *cap, size_t size, const void *item)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *array = realloc(*array, *cap * size);
        if (!*array)
            abort();
    }
    memcpy((char *)*array + *n * size, item, size);
    (*n)++;
}

/* The site of st (at bias) at runtime address addr no longer holds: its
 * int3 goes (when still there: take_out) and the address is dead. */
static void kill_site(code_map *cm, int mem_fd, const struct site_table *st, uint64_t bias, size_t i, bool take_out)
{
    uint64_t addr = bias + st->sites[i].vaddr;
    uint8_t orig, now;
    if (take_out && site_table_lookup(st, st->sites[i].vaddr, &orig) && tracee_read(mem_fd, addr, &now, 1) &&
        now == 0xcc)
        tracee_write(mem_fd, addr, &orig, 1);
    if (!site_is_dead(cm, addr))
        grow_append((void **)&cm->dead_sites, &cm->n_dead, &cm->cap_dead, sizeof addr, &addr);
}

/* The sites of st (at bias) in [lo, hi): in code the program may write
 * while it runs (all_go), every one is taken out; else each whose
 * instruction is no longer what was decoded: its int3 written over (the
 * program's byte stays) or the bytes after it changed (the original byte
 * goes back: the program did not write it). */
static void check_sites(code_map *cm, int mem_fd, const struct site_table *st, uint64_t bias, uint64_t lo,
                        uint64_t hi, bool all_go)
{
    size_t from, to;
    site_table_range(st, lo - bias, hi - bias, &from, &to);
    for (size_t i = from; i < to; i++) {
        const struct x86_insn *in = &st->sites[i].insn;
        uint8_t now[16];
        uint64_t addr = bias + st->sites[i].vaddr;
        bool readable = tracee_read(mem_fd, addr, now, in->length);
        bool int3_there = readable && now[0] == 0xcc;
        bool intact = int3_there && memcmp(now + 1, in->bytes + 1, in->length - 1u) == 0;
        if (all_go || !intact)
            kill_site(cm, mem_fd, st, bias, i, int3_there);
    }
}

/* [lo, hi) meets the code of a module mdat decodes (what code_map_insn_at
 * and the site tables know). */
static bool meets_known_code(const code_map *cm, uint64_t lo, uint64_t hi)
{
    if (lo < cm->exe_hi && hi > cm->exe_lo)
        return true;
    for (size_t i = 0; i < cm->n_libs; i++)
        if (cm->libs[i].hi && lo < cm->libs[i].hi && hi > cm->libs[i].lo)
            return true;
    return false;
}

void code_map_exec_mapping(code_map *cm, int mem_fd, uint64_t addr, uint64_t len, int prot, bool shared)
{
    /* A mapping made where nothing was (no MAP_FIXED: len 0), or away from
     * every module mdat decodes (a library dlopen maps, a JIT's pages),
     * changes nothing mdat decoded. The loader's own mappings and
     * relocations before the entry point: code_map_plant_libs looks. */
    if (cm->entry_planted || len == 0 || addr + len < addr || !meets_known_code(cm, addr, addr + len))
        return;
    cm->decode_epoch++;
    cm->planted_generation++;
    cm->code_changed = true;
    bool writable = (prot & PROT_WRITE) || shared;
    if (writable) {
        struct addr_range r = {addr, addr + len};
        grow_append((void **)&cm->volatile_code, &cm->n_volatile, &cm->cap_volatile, sizeof r, &r);
    }
    check_sites(cm, mem_fd, &cm->exe_sites, cm->bias, addr, addr + len, writable);
    for (size_t i = 0; i < cm->n_libs; i++)
        if (cm->libs[i].sites && cm->libs[i].hi && addr < cm->libs[i].hi && addr + len > cm->libs[i].lo)
            check_sites(cm, mem_fd, cm->libs[i].sites, cm->libs[i].bias, addr, addr + len, writable);
}

void code_map_execution_starts(code_map *cm)
{
    if (!cm->code_changed)
        return;
    cm->code_changed = false;
    cm->n_volatile = cm->n_dead = 0;
    cm->decode_epoch++;
    cm->planted_generation++;
}

size_t code_map_unseen_code(const code_map *cm, uint64_t *first)
{
    /* Sites taken out of code the program rewrites are unseen too. */
    size_t n = cm->exe_sites.n_unseen + cm->n_dead;
    if (first)
        *first = cm->exe_sites.n_unseen ? cm->bias + cm->exe_sites.first_unseen : cm->n_dead ? cm->dead_sites[0] : 0;
    for (size_t i = 0; i < cm->n_libs; i++) {
        const struct lib_cache *lc = &cm->libs[i];
        if (!lc->hi || !is_own_library(lc) || !lc->sites->n_unseen)
            continue;
        if (first && n == 0)
            *first = lc->bias + lc->sites->first_unseen;
        n += lc->sites->n_unseen;
    }
    return n;
}

/* The original bytes of st's sites (at bias) within [addr, addr + n) into buf. */
static void hide_sites(const struct site_table *st, uint64_t bias, uint64_t addr, uint8_t *buf, size_t n)
{
    for (size_t i = 0; i < st->n_patched; i++) {
        const struct patched_section *p = &st->patched[i];
        uint64_t lo = bias + p->vaddr, hi = lo + p->size;
        if (addr >= hi || addr + n <= lo)
            continue;
        size_t from, to;
        site_table_range(st, (addr > lo ? addr : lo) - bias, (addr + n < hi ? addr + n : hi) - bias, &from, &to);
        for (size_t k = from; k < to; k++) {
            uint64_t at = bias + st->sites[k].vaddr;
            if (buf[at - addr] == 0xcc)
                buf[at - addr] = p->orig[st->sites[k].vaddr - p->vaddr];
        }
    }
}

/* Narrows [*lo, *hi) around [addr, addr + n) by the planted bytes of st's
 * patched sections; false when one of them overlaps it. */
static bool clear_of_sites(const struct site_table *st, uint64_t bias, uint64_t addr, size_t n, uint64_t *lo,
                           uint64_t *hi)
{
    for (size_t i = 0; i < st->n_patched; i++) {
        uint64_t start = bias + st->patched[i].vaddr, end = start + st->patched[i].size;
        if (end <= addr)
            *lo = end > *lo ? end : *lo;
        else if (start >= addr + n)
            *hi = start < *hi ? start : *hi;
        else
            return false;
    }
    return true;
}

/* The first entry breakpoint at or after addr. */
static size_t entry_from(const code_map *cm, uint64_t addr)
{
    size_t lo = 0, hi = cm->n_entries;     /* sorted by address */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cm->entries[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether [addr, addr + n) holds no planted byte; then remembers the
 * widest range around it that holds none either. */
static bool learn_clean(code_map *cm, uint64_t addr, size_t n)
{
    uint64_t lo = 0, hi = UINT64_MAX;
    if (!clear_of_sites(&cm->exe_sites, cm->bias, addr, n, &lo, &hi))
        return false;
    for (size_t i = 0; i < cm->n_libs; i++) {
        const struct lib_cache *lc = &cm->libs[i];
        if (lc->sites && lc->hi && !clear_of_sites(lc->sites, lc->bias, addr, n, &lo, &hi))
            return false;
    }
    size_t e = entry_from(cm, addr);
    if (e < cm->n_entries && cm->entries[e].addr < addr + n)
        return false;
    if (e < cm->n_entries && cm->entries[e].addr < hi)
        hi = cm->entries[e].addr;
    if (e > 0 && cm->entries[e - 1].addr + 1 > lo)
        lo = cm->entries[e - 1].addr + 1;
    if (cm->entry_planted) {
        if (cm->entry_addr >= addr && cm->entry_addr < addr + n)
            return false;
        if (cm->entry_addr >= addr + n && cm->entry_addr < hi)
            hi = cm->entry_addr;
        if (cm->entry_addr < addr && cm->entry_addr + 1 > lo)
            lo = cm->entry_addr + 1;
    }
    cm->clean[cm->clean_next] = (struct clean_range){lo, hi, cm->planted_generation};
    cm->clean_next = (cm->clean_next + 1) % 2;
    return true;
}

void code_map_hide_breakpoints(code_map *cm, uint64_t addr, void *buf, size_t n)
{
    uint8_t *bytes = buf;
    if (addr + n < addr)
        return;
    for (int i = 0; i < 2; i++)
        if (cm->clean[i].generation == cm->planted_generation && addr >= cm->clean[i].lo && addr + n <= cm->clean[i].hi)
            return;
    if (learn_clean(cm, addr, n))
        return;
    hide_sites(&cm->exe_sites, cm->bias, addr, bytes, n);
    for (size_t i = 0; i < cm->n_libs; i++) {
        const struct lib_cache *lc = &cm->libs[i];
        if (lc->sites && lc->hi && addr < lc->hi && addr + n > lc->lo)
            hide_sites(lc->sites, lc->bias, addr, bytes, n);
    }
    for (size_t i = entry_from(cm, addr); i < cm->n_entries && cm->entries[i].addr < addr + n; i++)
        if (bytes[cm->entries[i].addr - addr] == 0xcc)
            bytes[cm->entries[i].addr - addr] = cm->entries[i].orig;
    if (cm->entry_planted && cm->entry_addr >= addr && cm->entry_addr < addr + n &&
        bytes[cm->entry_addr - addr] == 0xcc)
        bytes[cm->entry_addr - addr] = cm->entry_orig;
}

bool code_map_lookup(const code_map *cm, uint64_t addr, struct breakpoint_hit *hit)
{
    memset(hit, 0, sizeof *hit);
    if (cm->entry_planted && addr == cm->entry_addr) {
        hit->kind = BP_ENTRY;
        hit->orig = cm->entry_orig;
        return true;
    }
    size_t lo = 0, hi = cm->n_entries;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cm->entries[mid].addr == addr) {
            hit->kind = BP_MODEL;
            hit->fn = cm->entries[mid].fn;
            hit->orig = cm->entries[mid].orig;
            hit->insn = &cm->entries[mid].first;
            return true;
        }
        if (cm->entries[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct code_site *site = NULL;
    bool site_in_sync_table = false, lc_runtime_sync = false;
    if (cm->n_dead && site_is_dead(cm, addr))
        return false;
    if (code_map_in_exe(cm, addr)) {
        site = site_table_lookup(&cm->exe_sites, addr - cm->bias, &hit->orig);
        site_in_sync_table = site && site->library_atomic;
    } else {
        const struct lib_cache *lc = cm->n_libs ? library_with_sites_at(cm, addr) : NULL;
        site = lc ? site_table_lookup(lc->sites, addr - lc->bias, &hit->orig) : NULL;
        site_in_sync_table = lc && lc->sites->sync_only;
        lc_runtime_sync = lc && lc->runtime_sync;
    }
    if (!site || (cm->planting == SITES_ATOMIC && !site_in_sync_table && !(site->insn.flags & X86_ATOMIC) &&
                  !site->tail_call))
        return false;
    hit->kind = site_in_sync_table ? BP_LIB_ATOMIC : BP_SITE;
    hit->runtime_sync = site_in_sync_table && lc_runtime_sync;
    hit->site = site;
    hit->insn = &site->insn;
    return true;
}

const struct code_site *code_map_site_at(const code_map *cm, uint64_t addr)
{
    uint8_t orig;
    if (code_map_in_exe(cm, addr))
        return site_table_lookup(&cm->exe_sites, addr - cm->bias, &orig);
    const struct lib_cache *lc = cm->n_libs ? library_with_sites_at(cm, addr) : NULL;
    return lc && !lc->sites->sync_only ? site_table_lookup(lc->sites, addr - lc->bias, &orig) : NULL;
}

void code_map_set_planting(code_map *cm, enum site_planting how)
{
    if (cm->planting != how)
        cm->planted_generation++;
    cm->planting = how;
}

enum site_planting code_map_planting(const code_map *cm)
{
    return cm->planting;
}

bool code_map_replant_sites(code_map *cm, int mem_fd)
{
    static const uint8_t int3 = 0xcc;
    cm->planted_generation++;
    if (!site_table_write(&cm->exe_sites, cm->bias, mem_fd, cm->planting))
        return false;
    for (size_t i = 0; i < cm->n_libs; i++) {
        const struct lib_cache *lc = &cm->libs[i];
        if (lc->sites && lc->hi && !lc->sites->sync_only &&
            !site_table_write(lc->sites, lc->bias, mem_fd, cm->planting))
            return false;
    }
    /* The sections were written whole: the entries' int3s go back on top. */
    for (size_t i = 0; i < cm->n_entries; i++)
        if (!tracee_write(mem_fd, cm->entries[i].addr, &int3, 1))
            return false;
    return true;
}

bool code_map_is_constant(const code_map *cm, uint64_t addr, uint64_t size)
{
    if (code_map_in_exe(cm, addr))
        return elf_image_addr_constant(debuginfo_elf(cm->exe), addr - cm->bias, size);
    for (size_t i = 0; i < cm->n_libs; i++) {
        const struct lib_cache *lc = &cm->libs[i];
        if (lc->hi && lc->debug && addr >= lc->lo && addr < lc->hi)
            return elf_image_addr_constant(debuginfo_elf(lc->debug), addr - lc->bias, size);
    }
    return false;
}

static size_t decoded_slot(const struct decoded_insn *table, size_t cap, uint64_t addr)
{
    size_t i = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
    while (table[i].addr && table[i].addr != addr)
        i = (i + 1) & (cap - 1);
    return i;
}

static bool grow_decoded(code_map *cm)
{
    size_t cap = cm->cap_decoded ? cm->cap_decoded * 2 : 1024;
    struct decoded_insn *table = calloc(cap, sizeof *table);
    if (!table)
        return false;
    for (size_t i = 0; i < cm->cap_decoded; i++)
        if (cm->decoded[i].addr)
            table[decoded_slot(table, cap, cm->decoded[i].addr)] = cm->decoded[i];
    free(cm->decoded);
    cm->decoded = table;
    cm->cap_decoded = cap;
    return true;
}

/* The code at runtime address addr as the program has it in memory (so
 * code relocated or rewritten at run time is what is decoded), with the
 * original byte under a breakpoint of the code map's there; up to 16
 * bytes. *ours_or_none: the first byte is not an int3 mdat does not know
 * of (a return breakpoint, or the program's own int3): such a decoding is
 * not kept. */
static size_t code_bytes(code_map *cm, int mem_fd, uint64_t addr, uint8_t *code, bool *ours_or_none)
{
    size_t len = 16;
    while (len > 0 && !tracee_read(mem_fd, addr, code, len))
        len = len > 1 ? len / 2 : 0;     /* near the end of a mapping */
    *ours_or_none = true;
    struct breakpoint_hit hit;
    if (len && code[0] == 0xcc) {
        if (code_map_lookup(cm, addr, &hit))
            code[0] = hit.orig;
        else
            *ours_or_none = false;
    }
    return len;
}

static bool in_volatile_code(const code_map *cm, uint64_t addr)
{
    for (size_t i = 0; i < cm->n_volatile; i++)
        if (addr >= cm->volatile_code[i].lo && addr < cm->volatile_code[i].hi)
            return true;
    return false;
}

/* The module whose code is at runtime address addr: the executable or a
 * library loaded with it; false elsewhere (the vDSO, JIT code, a library
 * loaded later). */
static bool module_at(const code_map *cm, uint64_t addr, const debuginfo **module, uint64_t *bias)
{
    if (addr >= cm->exe_lo && addr < cm->exe_hi) {
        *module = cm->exe;
        *bias = cm->bias;
        return true;
    }
    for (size_t i = 0; i < cm->n_libs; i++) {
        const struct lib_cache *lc = &cm->libs[i];
        if (lc->debug && lc->hi && addr >= lc->lo && addr < lc->hi) {
            *module = lc->debug;
            *bias = lc->bias;
            return true;
        }
    }
    return false;
}

const struct x86_insn *code_map_insn_at(code_map *cm, int mem_fd, uint64_t addr, bool *planted)
{
    const debuginfo *module;
    uint64_t bias;
    struct breakpoint_hit hit;
    if (!addr || !module_at(cm, addr, &module, &bias) || (cm->n_volatile && in_volatile_code(cm, addr)) ||
        ((cm->n_decoded + 1) * 2 > cm->cap_decoded && !grow_decoded(cm))) {
        *planted = code_map_lookup(cm, addr, &hit);   /* the vDSO's clock functions have entries */
        return NULL;
    }
    struct decoded_insn *d = &cm->decoded[decoded_slot(cm->decoded, cm->cap_decoded, addr)];
    if (!d->addr || d->module != module || d->bias != bias || d->epoch != cm->decode_epoch) {
        uint8_t code[16];
        bool keep;
        size_t len = code_bytes(cm, mem_fd, addr, code, &keep);
        cm->n_decoded += !d->addr;
        d->addr = addr;
        d->module = module;
        d->bias = bias;
        d->ok = len > 0 && x86_decode(cm->decoder, code, len, addr, &d->insn);
        d->planted_generation = cm->planted_generation - 1;
        d->epoch = keep ? cm->decode_epoch : cm->decode_epoch - 1;
    }
    if (d->planted_generation != cm->planted_generation) {
        d->planted = code_map_lookup(cm, addr, &hit);
        d->planted_generation = cm->planted_generation;
    }
    *planted = d->planted;
    return d->ok ? &d->insn : NULL;
}
