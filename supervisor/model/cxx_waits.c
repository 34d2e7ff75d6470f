/* cxx_waits: a futex word that is a C++20 synchronisation object, in the
 * user's terms: "latch start_line (count 1)", "semaphore slots (count 0)",
 * "atomic ready (== false)", "barrier sync_point (phase 0, expected 3)".
 *
 * libstdc++ 12 builds std::latch, std::counting_semaphore and
 * std::atomic<int>::wait on atomic waits that sleep on the object's own
 * counter when it is an int, so the word a thread sleeps on is the object
 * the user declared; its DWARF type says which. Other waits (std::barrier's
 * one-byte phase, atomic<bool>) sleep on a proxy word in libstdc++'s global
 * waiter pool, shared by every object whose address hashes to that entry:
 * the object is the one the waiter last read that hashes there (libstdc++
 * reads it, to test it, right before it sleeps). A std::future's get()
 * and wait() sleep on the status word of its shared state, a heap block
 * no variable's type describes: it is known by its vtable. What a blocked
 * thread's status is stays with waits.c. */
#include "supervisor/debuginfo/text_out.h"
#include "supervisor/debuginfo/value_format.h"
#include "supervisor/engine/code_names.h"
#include "supervisor/model/model_internal.h"

#include <stdio.h>
#include <string.h>

/* The C++ class a futex word's variable is, by its DWARF type's name
 * (typedefs such as std::binary_semaphore taken off). */
static enum cxx_sync_kind kind_of_type(const struct dwarf_type *type)
{
    const struct dwarf_type *t = dwarf_type_strip(type);
    if (!t || !t->name)
        return CXX_SYNC_NONE;
    if (strcmp(t->name, "latch") == 0)
        return CXX_SYNC_LATCH;
    if (strncmp(t->name, "counting_semaphore<", 19) == 0)
        return CXX_SYNC_SEMAPHORE;
    if (dwarf_type_is_atomic_class(t->name))
        return CXX_SYNC_ATOMIC;
    if (strncmp(t->name, "barrier<", 8) == 0)
        return CXX_SYNC_BARRIER;
    return CXX_SYNC_NONE;
}

/* ---------- a std::future's shared state ---------- */

/* libstdc++'s __future_base::_State_baseV2, and the states made from it
 * (_Task_state for std::packaged_task, _Async_state_impl and
 * _Deferred_state for std::async): a vtable pointer, the result (a
 * unique_ptr), then _M_status, an __atomic_futex_unsigned whose top bit
 * says someone waits and whose value is _Status::__ready (1) once the
 * result is in. */
#define FUTURE_STATE_VTABLE "_ZTVNSt13__future_base"
enum { FUTURE_STATUS_OFFSET = 16, FUTURE_WAITER_BIT = 0x80000000u, FUTURE_READY = 1 };

/* word is the status of a future's shared state: the word 16 bytes before
 * it points into a vtable of __future_base's. */
static bool is_future_status(struct model *m, uint64_t word)
{
    uint64_t vptr, fa;
    const char *lib;
    if (word < FUTURE_STATUS_OFFSET || !tracee_read(m->ex->mem_fd, word - FUTURE_STATUS_OFFSET, &vptr, sizeof vptr))
        return false;
    const debuginfo *di = exec_module_of(m->ex, vptr, &fa, &lib);
    const struct elf_symbol *sym = di ? elf_image_object_at(debuginfo_elf(di), fa) : NULL;
    return sym && sym->name && strncmp(sym->name, FUTURE_STATE_VTABLE, strlen(FUTURE_STATE_VTABLE)) == 0;
}

/* The state's name: the heap block it lives in ("heap#7 (new at
 * pool.cpp:36)", where std::packaged_task, std::promise or std::async
 * made it), else what the word is called. */
static void read_future(struct model *m, uint64_t word, struct cxx_sync *out)
{
    const struct heap_block *b = heap_map_find(&m->ex->heap, word);
    if (b)
        exec_format_heap_addr(m->ex, b, b->addr, out->name, sizeof out->name);
    uint32_t status = 0;
    tracee_read(m->ex->mem_fd, word, &status, sizeof status);
    out->counter = (status & ~FUTURE_WAITER_BIT) == FUTURE_READY;
}

/* ---------- libstdc++ 12's waiter pool ---------- */

/* std::__detail::__waiter_pool_base::_S_for's static array: 16 entries of
 * two 64-byte-aligned words, _M_wait (how many wait) and _M_ver (the proxy
 * a waiter sleeps on when its object is not an int). */
#define WAITER_POOL_SYMBOL "_ZZNSt8__detail18__waiter_pool_base6_S_forEPKvE3__w"
enum { POOL_ENTRIES = 16, POOL_ENTRY_SIZE = 128, POOL_PROXY_OFFSET = 64 };

/* The entry whose proxy word is word, or -1 when word is no such proxy. */
static int pool_proxy_entry(struct model *m, uint64_t word)
{
    uint64_t fa;
    const char *lib;
    const debuginfo *di = exec_module_of(m->ex, word, &fa, &lib);
    const struct elf_symbol *sym = di ? elf_image_object_at(debuginfo_elf(di), fa) : NULL;
    if (!sym || !sym->name || strcmp(sym->name, WAITER_POOL_SYMBOL) != 0)
        return -1;
    uint64_t offset = fa - sym->addr;
    if (offset % POOL_ENTRY_SIZE != POOL_PROXY_OFFSET || offset / POOL_ENTRY_SIZE >= POOL_ENTRIES)
        return -1;
    return (int)(offset / POOL_ENTRY_SIZE);
}

/* The entry libstdc++ hashes an object's address into. */
static int pool_entry_of(uint64_t addr)
{
    return (int)((addr >> 2) % POOL_ENTRIES);
}

/* The object a name of one of its parts belongs to ("sync_point (phase)",
 * "sync_point+25", "pool._M_b"): the variable before the part, evaluated
 * for its address and type (name is cut there). */
static enum cxx_sync_kind whole_object(struct model *m, char *name, uint64_t *base, const struct dwarf_type **type)
{
    char *cut = strpbrk(name, "+");
    for (const char *const *sep = (const char *const[]){"._M_", " (", NULL}; *sep; sep++) {
        char *at = strstr(name, *sep);
        if (at && (!cut || at < cut))
            cut = at;
    }
    if (!cut)
        return CXX_SYNC_NONE;
    *cut = '\0';
    struct data_reader rd = model_reader(m);
    char err[128];
    if (!debuginfo_eval(m->ex->cfg->exe, name, &rd, base, type, err, sizeof err))
        return CXX_SYNC_NONE;
    return kind_of_type(*type);
}

/* The C++ sync object that contains addr, when there is one the pool
 * serves: an atomic itself ("ready"), or a barrier whose phase addr is
 * ("sync_point (phase)", a part of a library class: the variable before
 * the part is evaluated for its address and type). */
static uint64_t pool_object_containing(struct model *m, uint64_t addr)
{
    char name[128];
    const struct dwarf_type *type;
    model_name_typed(m, addr, name, sizeof name, &type);
    if (type && kind_of_type(type) == CXX_SYNC_ATOMIC)
        return addr;
    uint64_t base;
    enum cxx_sync_kind kind = whole_object(m, name, &base, &type);
    return kind == CXX_SYNC_BARRIER || kind == CXX_SYNC_ATOMIC ? base : 0;
}

uint64_t model_cxx_pool_object(struct model *m, const struct mthread *t, uint64_t word)
{
    int entry = pool_proxy_entry(m, word);
    if (entry < 0)
        return 0;
    struct model_thread *info = model_thread_info(m, t->id);
    if (info->pool_wait_seq == t->wait_seq && info->pool_word == word)
        return info->pool_object;
    uint64_t object = 0;
    unsigned n = info->n_recent < 8 ? info->n_recent : 8;
    for (unsigned i = 0; i < n && !object; i++) {
        unsigned at = (info->n_recent - 1 - i) % 8;
        uint64_t addr = info->recent[at];
        if (pool_entry_of(addr) == entry && pool_proxy_entry(m, addr) < 0)
            object = pool_object_containing(m, addr);
        if (object == addr)
            info->pool_bytes = info->recent_bytes[at];
    }
    info->pool_wait_seq = t->wait_seq;
    info->pool_word = word;
    info->pool_object = object;
    return object;
}

/* std::barrier holds a __tree_barrier (_M_b): _M_expected, the threads
 * each phase waits for, and _M_phase, a byte that steps by 2 a phase. */
static void read_barrier(struct model *m, const struct dwarf_type *type, uint64_t addr, struct cxx_sync *out)
{
    uint64_t impl, expected_at, phase_at;
    const struct dwarf_member *b = dwarf_type_find_member(dwarf_type_strip(type), "_M_b", &impl);
    const struct dwarf_type *bt = b ? dwarf_type_strip(b->type) : NULL;
    if (!bt || !dwarf_type_find_member(bt, "_M_expected", &expected_at) ||
        !dwarf_type_find_member(bt, "_M_phase", &phase_at))
        return;
    int64_t expected = 0;
    uint8_t phase = 0;
    tracee_read(m->ex->mem_fd, addr + impl + expected_at, &expected, sizeof expected);
    tracee_read(m->ex->mem_fd, addr + impl + phase_at, &phase, sizeof phase);
    out->counter = (int)expected;
    out->phase = phase / 2;
}

bool model_cxx_sync_at(struct model *m, uint64_t word, struct cxx_sync *out)
{
    memset(out, 0, sizeof *out);
    const struct dwarf_type *type;
    model_name_typed(m, word, out->name, sizeof out->name, &type);
    out->kind = kind_of_type(type);
    /* A barrier's first part is named for itself: "sync_point (expected)". */
    uint64_t base;
    if (out->kind == CXX_SYNC_NONE && (out->kind = whole_object(m, out->name, &base, &type)) != CXX_SYNC_NONE &&
        base != word)
        out->kind = CXX_SYNC_NONE;
    if (out->kind == CXX_SYNC_NONE && is_future_status(m, word)) {
        out->kind = CXX_SYNC_FUTURE;
        read_future(m, word, out);
        return true;
    }
    if (out->kind == CXX_SYNC_NONE)
        return false;
    /* A latch's and a semaphore's counter is their first member (an int:
     * libstdc++'s __platform_wait_t), the word itself; a barrier's is read
     * below. */
    int32_t counter = 0;
    tracee_read(m->ex->mem_fd, word, &counter, sizeof counter);
    out->counter = counter;
    if (out->kind == CXX_SYNC_ATOMIC) {
        /* An atomic's own bytes only (a bool's next three are others'). */
        size_t size = dwarf_type_size(type);
        int64_t v = 0;
        if (size && size <= sizeof v && tracee_read(m->ex->mem_fd, word, &v, size))
            out->counter = (int)v;
        struct data_reader rd = model_reader(m);
        debuginfo_format_value(m->ex->cfg->exe, type, word, &rd, out->value, sizeof out->value);
    }
    if (out->kind == CXX_SYNC_BARRIER)
        read_barrier(m, type, word, out);
    return true;
}

bool model_cxx_wait_of(struct model *m, const struct mthread *t, uint64_t object, struct cxx_sync *out)
{
    if (!model_cxx_sync_at(m, object, out))
        return false;
    const struct model_thread *info = model_thread_info(m, t->id);
    if (out->kind != CXX_SYNC_ATOMIC || info->pool_wait_seq != t->wait_seq || info->pool_object != object)
        return true;
    const struct dwarf_type *type;
    char name[8];
    model_name_typed(m, object, name, sizeof name, &type);
    size_t size = type ? dwarf_type_size(type) : 0;
    if (size && size <= sizeof info->pool_bytes)
        dwarf_format_bytes(type, &info->pool_bytes, size, out->waited, sizeof out->waited);
    if (strcmp(out->waited, out->value) == 0)
        out->waited[0] = '\0';
    return true;
}

const char *cxx_sync_class(enum cxx_sync_kind kind)
{
    switch (kind) {
    case CXX_SYNC_LATCH: return "std::latch";
    case CXX_SYNC_SEMAPHORE: return "std::counting_semaphore";
    case CXX_SYNC_ATOMIC: return "std::atomic";
    case CXX_SYNC_BARRIER: return "std::barrier";
    case CXX_SYNC_FUTURE: return "std::future";
    default: return "";
    }
}

void cxx_sync_describe(const struct cxx_sync *s, char *buf, size_t len)
{
    switch (s->kind) {
    case CXX_SYNC_LATCH:
        snprintf(buf, len, "latch %s (count %d)", s->name, s->counter);
        break;
    case CXX_SYNC_SEMAPHORE:
        snprintf(buf, len, "semaphore %s (count %d)", s->name, s->counter);
        break;
    case CXX_SYNC_ATOMIC:
        /* A pool waiter sleeps until notified, whatever the value now. */
        if (s->waited[0])
            snprintf(buf, len, "atomic %s (== %s, now %s, not notified)", s->name, s->waited, s->value);
        else
            snprintf(buf, len, "atomic %s (== %s)", s->name, s->value);
        break;
    case CXX_SYNC_BARRIER:
        snprintf(buf, len, "barrier %s (phase %d, expected %d)", s->name, s->phase, s->counter);
        break;
    case CXX_SYNC_FUTURE:
        /* (No state: a waiter's wake-up repeats this, said when it slept.) */
        snprintf(buf, len, "future %s", s->name);
        break;
    default:
        buf[0] = '\0';
        break;
    }
}

void cxx_sync_object_name(const struct cxx_sync *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s (%s)", s->name, cxx_sync_class(s->kind));
}
