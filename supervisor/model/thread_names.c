/* thread_names: what a thread runs, in the user's terms: "worker" for a
 * pthread, the callable of a std::thread or std::async ("lambda at
 * sum.cpp:31", "Adder::operator()", "Account::deposit", "square"), the
 * parallel region of an OpenMP worker ("omp parallel at sum.c:12").
 *
 * A std::thread starts in libstdc++'s execute_native_thread_routine with
 * the thread's _State as argument. Its vtable is that of
 * std::thread::_State_impl<_Invoker<tuple<F, Args...>>>, and the vtable's
 * symbol, demangled, says what F is: a class (a lambda, a functor), whose
 * operator() is found by name (or, inlined at -O2, by the first line of
 * user code in the _M_run the vtable points to), or a pointer to a
 * function or member function, whose value std::tuple keeps last in the
 * object. std::async's thread runs a member function of the async state,
 * which holds the user's callable in turn. A libgomp worker starts in
 * gomp_thread_start with a gomp_thread_start_data whose first fields are
 * the region's outlined function and its data. Everything is read from
 * memory and symbols and checked on the way; what does not fit is named
 * "std::thread" or "omp worker". The objects read do not outlive the
 * thread's start: a thread is named once, when first asked. */
#include "supervisor/debuginfo/cxx_names.h"
#include "supervisor/model/model_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds on what is read: glibc's struct pthread is about 2.3 KiB; a
 * _State holds the callable and its arguments. */
enum { PTHREAD_SCAN_BYTES = 4096, SCAN_CHUNK = 512, OBJECT_SCAN_MAX = 256 };
/* Room for a demangled template type: std::async of a function taking a
 * std::vector<std::string> spells out the allocators twice over. */
enum { CXX_TYPE_MAX = 4096 };

struct model_thread *model_thread_info(struct model *m, int id)
{
    size_t need = (size_t)(id > 0 ? id : 1);
    if (need > m->cap_threads) {
        size_t cap = m->cap_threads ? m->cap_threads : 16;
        while (cap < need)
            cap *= 2;
        m->threads = realloc(m->threads, cap * sizeof *m->threads);
        if (!m->threads)
            abort();
        memset(m->threads + m->cap_threads, 0, (cap - m->cap_threads) * sizeof *m->threads);
        m->cap_threads = cap;
    }
    return &m->threads[need - 1];
}

/* The argument t's start routine got: glibc keeps it in the thread's
 * struct pthread, right after the routine. */
static bool start_arg_of(struct model *m, const struct mthread *t, uint64_t *arg)
{
    if (!t->tls || !t->start_routine)
        return false;
    uint64_t words[SCAN_CHUNK / 8 + 1];
    for (uint64_t offset = 0; offset < PTHREAD_SCAN_BYTES; offset += SCAN_CHUNK) {
        if (!tracee_read(m->ex->mem_fd, t->tls + offset, words, sizeof words))
            return false;
        for (size_t i = 0; i < SCAN_CHUNK / 8; i++)
            if (words[i] == t->start_routine) {
                *arg = words[i + 1];
                return true;
            }
    }
    return false;
}

/* The user's function that starts exactly at addr, by its name. */
static bool user_function_at(struct model *m, uint64_t addr, char *name, size_t len)
{
    if (!addr || !code_map_is_user_code(m->ex->cfg->code, addr))
        return false;
    uint64_t fa;
    const char *lib;
    const debuginfo *di = exec_module_of(m->ex, addr, &fa, &lib);
    const struct elf_symbol *sym = di ? elf_image_function_at(debuginfo_elf(di), fa) : NULL;
    if (!sym || sym->addr != fa)
        return false;
    /* The function that begins there, not what is inlined at its first
     * instruction (clang -O2 puts std::counting_semaphore::_M_acquire or a
     * shared_ptr's __shared_count there): the outermost one. */
    struct src_loc loc;
    if (!exec_code_location(m->ex, addr, &loc))
        return false;
    const char *function = loc.inlined_into ? loc.inlined_into : loc.function;
    snprintf(name, len, "%s", function ? function : "");
    return name[0] != '\0';
}

/* How many bytes of the heap object at addr may be read: its block as
 * the heap map knows it, else the size glibc's malloc keeps before it. */
static uint64_t object_extent(struct model *m, uint64_t addr)
{
    const struct heap_block *b = heap_map_find(&m->ex->heap, addr);
    uint64_t extent = b ? b->addr + b->size - addr : 64;
    uint64_t chunk;
    if (!b && tracee_read(m->ex->mem_fd, addr - 8, &chunk, sizeof chunk) && (chunk & ~7ull) >= 32)
        extent = (chunk & ~7ull) - 8;
    return extent < OBJECT_SCAN_MAX ? extent : OBJECT_SCAN_MAX;
}

/* A function pointer kept in the object at addr: the last word that is a
 * user function's entry (std::tuple keeps its first element last); for a
 * member function, one of class cls. */
static bool function_in_object(struct model *m, uint64_t addr, const char *cls, char *name, size_t len, uint64_t *pc)
{
    uint64_t words[OBJECT_SCAN_MAX / 8];
    size_t n = (size_t)object_extent(m, addr) / 8;
    if (n == 0 || !tracee_read(m->ex->mem_fd, addr, words, n * 8))
        return false;
    size_t cls_len = cls ? strlen(cls) : 0;
    for (size_t i = n; i-- > 0;) {
        char found[64];
        if (!user_function_at(m, words[i], found, sizeof found))
            continue;
        if (cls && (strncmp(found, cls, cls_len) != 0 || strncmp(found + cls_len, "::", 2) != 0))
            continue;
        snprintf(name, len, "%s", found);
        *pc = words[i];
        return true;
    }
    return false;
}

/* A lambda or a functor: its operator() by name; inlined into run (the
 * _State's _M_run, 0 if unknown), the first user line there. */
static bool class_callable(struct model *m, const debuginfo *di, uint64_t bias, const char *cls, uint64_t run,
                           char *name, size_t len, uint64_t *pc)
{
    char op[CXX_TYPE_MAX + 16];
    snprintf(op, sizeof op, "%s::operator()", cls);
    uint64_t fa = debuginfo_cxx_function(di, op);
    const struct elf_symbol *sym = run ? elf_image_function_at(debuginfo_elf(di), run - bias) : NULL;
    if (!fa && sym && !debuginfo_first_user_line(di, sym->addr, sym->addr + sym->size, &fa))
        fa = 0;
    *pc = fa ? fa + bias : 0;
    char readable[128];
    cxx_readable_function(op, readable, sizeof readable);
    if (strncmp(readable, "lambda", 6) != 0) {
        snprintf(name, len, "%s", readable);
        return true;
    }
    char line[64] = "";
    if (*pc)
        exec_format_line(m->ex, *pc, line, sizeof line);
    if (line[0])
        snprintf(name, len, "lambda at %s", line);
    else
        snprintf(name, len, "%s", readable);
    return true;
}

/* std::async's thread runs _Async_state_impl<_Invoker<tuple<G, ...>>>::_M_run
 * on the async state (the tuple's second element, just after the
 * _State's vtable pointer), which holds G. */
static bool async_callable(struct model *m, const debuginfo *di, uint64_t bias, const char *async_class,
                           uint64_t state, char *name, size_t len, uint64_t *pc)
{
    char callable[CXX_TYPE_MAX], cls[CXX_TYPE_MAX];
    uint64_t async_state;
    if (!cxx_first_template_arg(async_class, "std::tuple", callable, sizeof callable) ||
        !tracee_read(m->ex->mem_fd, state + 8, &async_state, sizeof async_state))
        return false;
    switch (cxx_callable_kind(callable, cls, sizeof cls)) {
    case CXX_CALLABLE_CLASS:
        return class_callable(m, di, bias, callable, 0, name, len, pc);
    case CXX_CALLABLE_FUNCTION_POINTER:
        return function_in_object(m, async_state, NULL, name, len, pc);
    case CXX_CALLABLE_MEMBER_POINTER:
        return function_in_object(m, async_state, cls, name, len, pc);
    }
    return false;
}

static bool std_thread_callable(struct model *m, uint64_t state, char *name, size_t len, uint64_t *pc)
{
    static const char impl[] = "vtable for std::thread::_State_impl<";
    static const char async[] = "std::__future_base::_Async_state_impl<";
    uint64_t vptr, fa, run = 0;
    const char *lib;
    if (!state || !tracee_read(m->ex->mem_fd, state, &vptr, sizeof vptr))
        return false;
    const debuginfo *di = exec_module_of(m->ex, vptr, &fa, &lib);
    const struct elf_symbol *sym = di ? elf_image_object_at(debuginfo_elf(di), fa) : NULL;
    char vtable[2 * CXX_TYPE_MAX], callable[CXX_TYPE_MAX], cls[CXX_TYPE_MAX];
    if (!sym || !cxx_demangle(sym->name, vtable, sizeof vtable) || strncmp(vtable, impl, sizeof impl - 1) != 0 ||
        !cxx_first_template_arg(vtable, "std::tuple", callable, sizeof callable))
        return false;
    uint64_t bias = vptr - fa;
    tracee_read(m->ex->mem_fd, vptr + 16, &run, sizeof run);     /* after the two destructors */
    switch (cxx_callable_kind(callable, cls, sizeof cls)) {
    case CXX_CALLABLE_CLASS:
        return class_callable(m, di, bias, callable, run, name, len, pc);
    case CXX_CALLABLE_FUNCTION_POINTER:
        return function_in_object(m, state, NULL, name, len, pc);
    case CXX_CALLABLE_MEMBER_POINTER:
        if (strncmp(cls, async, sizeof async - 1) == 0)
            return async_callable(m, di, bias, cls, state, name, len, pc);
        return function_in_object(m, state, cls, name, len, pc);
    }
    return false;
}

/* gomp_thread_start_data begins with the region's outlined function and data. */
static bool omp_worker_region(struct model *m, uint64_t start_data, char *name, size_t len, uint64_t *pc,
                              uint64_t *region)
{
    uint64_t fn_data[2];
    char fn_name[96];
    if (!start_data || !tracee_read(m->ex->mem_fd, start_data, fn_data, sizeof fn_data) ||
        !user_function_at(m, fn_data[0], fn_name, sizeof fn_name) || !strstr(fn_name, "._omp_fn."))
        return false;
    snprintf(name, len, "%s", model_omp_region_add(m, fn_data[0], fn_data[1])->label);
    *region = fn_data[0];
    *pc = fn_data[0];
    return true;
}

static void start_label(struct model *m, uint64_t routine, uint64_t arg, char *buf, size_t len, uint64_t *pc,
                        uint64_t *region)
{
    *pc = routine;
    uint64_t fa;
    const char *lib = NULL;
    exec_module_of(m->ex, routine, &fa, &lib);
    if (lib && !code_map_is_user_code(m->ex->cfg->code, routine)) {
        if (strncmp(lib, "libstdc++", 9) == 0) {
            if (!std_thread_callable(m, arg, buf, len, pc)) {
                snprintf(buf, len, "std::thread");
                *pc = routine;
            }
            return;
        }
        if (strncmp(lib, "libgomp", 7) == 0) {
            if (!omp_worker_region(m, arg, buf, len, pc, region))
                snprintf(buf, len, "omp worker");
            return;
        }
    }
    exec_format_function_or_addr(m->ex, routine, buf, len);
}

void model_start_label(struct model *m, uint64_t routine, uint64_t arg, char *buf, size_t len, uint64_t *pc)
{
    uint64_t region = 0;
    start_label(m, routine, arg, buf, len, pc, &region);
}

const char *model_thread_label(struct model *m, const struct mthread *t, uint64_t *pc)
{
    *pc = 0;
    if (t->id == 1)
        return "main";
    struct model_thread *info = model_thread_info(m, t->id);
    if (!info->labelled && t->start_routine) {
        uint64_t arg = 0;
        start_arg_of(m, t, &arg);
        start_label(m, t->start_routine, arg, info->label, sizeof info->label, &info->label_pc, &info->region_fn);
        info->labelled = true;
    }
    *pc = info->label_pc;
    return info->label;
}
