/* pages_setup: preparing a program at its entry point for page ownership
 * (exec_pages.h): protection keys allocated in it, mdat's stub mapped into
 * it (inject_stub.h), the memory mdat follows found and closed, and the
 * main thread given the rights to its own stack.
 *
 * Done once per batch, in the fork server before its first fork: every
 * execution forked from it starts from the image this describes. */
#ifndef MDAT_ENGINE_PAGES_SETUP_H
#define MDAT_ENGINE_PAGES_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "supervisor/code/code_map.h"
#include "supervisor/sharing/vma_list.h"

enum { PAGES_MAX_KEYS = 16 };

struct pages_range {
    uint64_t start, end;
};

struct pages_image {
    bool ready;
    int key_closed;             /* no thread may touch these pages natively */
    int key_read_only;          /* every thread may read, none write */
    int thread_keys[PAGES_MAX_KEYS];    /* one per live thread; [0] is the main thread's */
    int n_thread_keys;
    struct vma_list vmas;       /* the mappings at the entry point */
    struct pages_range *followed;       /* closed (untouched) at the entry point */
    size_t n_followed;
    struct pages_range main_stack;      /* the main thread's key (down to where it may grow) */
    uint64_t main_stack_mapped;         /* the lowest address of it mapped at the entry point */
    uint64_t brk_start, brk_end;        /* the program break at the entry point (page-rounded) */
};

/* The system calls mdat must see to follow the program's memory, and
 * those whose buffers the kernel reaches with the calling thread's rights:
 * rules of the seccomp filter (syscall_filter.c) when pages are followed. */
const long *pages_traced_syscalls(size_t *n);
bool pages_syscall_changes_mappings(long nr);
bool pages_syscall_traced(long nr);

/* This machine can do it (protection keys in CPU and kernel).
 * MDAT_NO_PAGE_OWNERSHIP=1 in the environment says no. */
bool pages_supported(void);

/* MDAT_ALWAYS_OWN_PAGES=1: a batch that may follow page ownership does so
 * in every execution, even where observing every access costs less (to
 * test ownership on small programs). */
bool pages_always(void);

/* Prepares the program (pid, its memory behind mem_fd) stopped at its
 * entry point with registers entry; injection runs system calls there and
 * leaves code, registers and memory as they were but for the stub and the
 * keys. false with a reason: then nothing was changed that matters (the
 * program runs with every access observed). */
bool pages_setup(pid_t pid, int mem_fd, const struct user_regs_struct *entry, code_map *code,
                 struct pages_image *img, char *err, size_t errlen);
void pages_image_free(struct pages_image *img);

/* Runs the system calls calls[0..n) in the stopped thread tid, through
 * `syscall; int3` written at `at` (its bytes and the registers put back
 * after); results into results. false when the thread could not be made
 * to run them. */
struct stub_call;
bool pages_inject(pid_t tid, int mem_fd, uint64_t at, const struct user_regs_struct *regs,
                  const struct stub_call *calls, size_t n, int64_t *results);

#endif
