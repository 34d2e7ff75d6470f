/* vector_regs: a few threads' vector registers, held while they are
 * stopped (see vector_regs.h). A handful of entries serve: mdat carries
 * out one thread's instructions at a time, and an entry is dropped when
 * its thread runs; the least recently used one makes room (written back
 * first when it was changed). */
#include "supervisor/process/vector_regs.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

/* An XSAVE area with every component a current CPU has (AMX's tiles are
 * the largest: about 11 KB in all). */
enum { ENTRIES = 8, XSAVE_BYTES = 16384 };

struct entry {
    pid_t tid;                  /* 0: free */
    bool changed;
    uint64_t used;              /* when last fetched */
    size_t size;                /* of the area the kernel gave */
    struct x86_vector_regs regs;
    uint8_t xsave[XSAVE_BYTES] __attribute__((aligned(64)));
};

static struct entry entries[ENTRIES];
static uint64_t clock_ticks;
static pid_t current;

void vector_regs_set_thread(pid_t tid)
{
    current = tid;
}

static struct entry *entry_of(pid_t tid)
{
    for (int i = 0; i < ENTRIES; i++)
        if (entries[i].tid == tid && tid)
            return &entries[i];
    return NULL;
}

static bool write_back(struct entry *e)
{
    if (!e->tid || !e->changed)
        return true;
    e->changed = false;
    struct iovec iov = {e->xsave, e->size};
    return x86_vector_regs_to_xsave(&e->regs, e->xsave, e->size) &&
           ptrace(PTRACE_SETREGSET, e->tid, (void *)NT_X86_XSTATE, &iov) == 0;
}

struct x86_vector_regs *vector_regs_fetch(void *ctx)
{
    (void)ctx;
    struct entry *e = entry_of(current);
    if (!e) {
        e = &entries[0];
        for (int i = 1; i < ENTRIES && e->tid; i++)
            if (!entries[i].tid || entries[i].used < e->used)
                e = &entries[i];
        if (!write_back(e))
            return NULL;
        e->tid = 0;
        struct iovec iov = {e->xsave, sizeof e->xsave};
        if (!current || ptrace(PTRACE_GETREGSET, current, (void *)NT_X86_XSTATE, &iov) != 0 ||
            !x86_vector_regs_from_xsave(e->xsave, iov.iov_len, &e->regs))
            return NULL;
        e->size = iov.iov_len;
        e->tid = current;
        e->changed = false;
    }
    e->used = ++clock_ticks;
    return &e->regs;
}

void vector_regs_mark_changed(void *ctx)
{
    (void)ctx;
    struct entry *e = entry_of(current);
    if (e)
        e->changed = true;
}

bool vector_regs_flush(pid_t tid)
{
    struct entry *e = entry_of(tid);
    if (!e)
        return true;
    bool ok = write_back(e);
    e->tid = 0;
    return ok;
}

bool vector_regs_before_resume(pid_t tid)
{
    return vector_regs_flush(tid);
}

void vector_regs_forget(pid_t tid)
{
    struct entry *e = entry_of(tid);
    if (e)
        e->tid = 0;
}
