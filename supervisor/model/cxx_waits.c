/* cxx_waits: a futex word that is a C++20 synchronisation object, in the
 * user's terms: "latch start_line (count 1)", "semaphore slots (value 0)",
 * "atomic ready (= false)".
 *
 * libstdc++ 12 builds std::latch, std::counting_semaphore and
 * std::atomic<int>::wait on atomic waits that sleep on the object's own
 * counter when it is an int, so the word a thread sleeps on is the object
 * the user declared; its DWARF type says which. Waits libstdc++ parks on a
 * proxy in its global waiter pool (std::barrier, atomic<bool>) are left to
 * the plain futex description: the pool entry does not say whose it is.
 * What a blocked thread's status is stays with waits.c. */
#include "supervisor/debuginfo/text_out.h"
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
    return CXX_SYNC_NONE;
}

bool model_cxx_sync_at(struct model *m, uint64_t word, struct cxx_sync *out)
{
    memset(out, 0, sizeof *out);
    const struct dwarf_type *type;
    model_name_typed(m, word, out->name, sizeof out->name, &type);
    out->kind = kind_of_type(type);
    if (out->kind == CXX_SYNC_NONE)
        return false;
    /* A latch's and a semaphore's counter is their first member (an int:
     * libstdc++'s __platform_wait_t), the word itself. */
    int32_t counter = 0;
    tracee_read(m->ex->mem_fd, word, &counter, sizeof counter);
    out->counter = counter;
    if (out->kind == CXX_SYNC_ATOMIC) {
        struct data_reader rd = model_reader(m);
        debuginfo_format_value(m->ex->cfg->exe, type, word, &rd, out->value, sizeof out->value);
    }
    return true;
}

const char *cxx_sync_class(enum cxx_sync_kind kind)
{
    switch (kind) {
    case CXX_SYNC_LATCH: return "std::latch";
    case CXX_SYNC_SEMAPHORE: return "std::counting_semaphore";
    case CXX_SYNC_ATOMIC: return "std::atomic";
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
        snprintf(buf, len, "semaphore %s (value %d)", s->name, s->counter);
        break;
    case CXX_SYNC_ATOMIC:
        snprintf(buf, len, "atomic %s (= %s) to change", s->name, s->value);
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
