/* exec_template: the fork server. The program is started once, run to its
 * entry point (the dynamic loader done, every breakpoint planted) and kept
 * stopped there; each execution is a fork of it, so exec, ld.so,
 * relocation and planting are paid once per batch instead of once per
 * execution.
 *
 * Exact replay holds: every fork starts from the same image (ASLR is off),
 * its standard input is rewound to the start before it runs, its parent is
 * mdat (CLONE_PARENT), and nothing mdat keeps per execution (the virtual
 * clock, heap numbering, thread ids) lives in the template. */
#ifndef MDAT_ENGINE_EXEC_TEMPLATE_H
#define MDAT_ENGINE_EXEC_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "supervisor/code/code_map.h"
#include "supervisor/launch/pages_setup.h"
#include "supervisor/process/page_cache.h"

struct exec_template {
    pid_t pid;                      /* 0: none */
    int mem_fd;
    struct user_regs_struct entry;  /* registers at the entry point */
    uint64_t entry_addr;
    uint8_t entry_orig[3];          /* the bytes the fork trampoline replaces */
    /* Where glibc keeps the thread's cached TID, in bytes from fs_base, as
     * its libthread_db descriptor says; -1 when it does not say. */
    int cached_tid_offset;
    bool follow_memory;                /* planted with the runtime-library atomics */
    int stdin_fd;                   /* mdat's side of the program's stdin (rewound per fork), -1 */
    /* Killed from outside (it never runs the program's code: any death is
     * someone else's doing): the signal, once its exit was seen. */
    bool gone;                      /* on its way out, or reaped */
    int killed_by;
    bool reaped;                    /* its end was waited for */
    /* Prepared for page ownership (exec_pages.h), NULL when not asked or
     * not possible (then every access is observed). */
    struct pages_image *pages;
    /* Its shared mappings, which every copy forked from it starts with
     * (when known). */
    struct page_cache_ranges shared;
    bool shared_known;
};

struct exec_template_request {
    const char *path;
    char *const *argv;
    int stdin_fd, stdout_fd, stderr_fd;  /* as spawn_request; stdin must stay open while the template lives */
    code_map *code;
    bool follow_memory;
    double timeout_sec;             /* for the loader's part; 0: 10 s */
    bool own_pages;                 /* prepare it for page ownership when this machine can */
};


/* Starts the program and stops it at its entry point. false with a
 * one-line reason (the loader's failure included: *not_started). */
bool exec_template_start(struct exec_template *t, const struct exec_template_request *req, bool *not_started,
                         char *err, size_t errlen);
/* A new process of the program at its entry point, traced, stopped; -1
 * with a reason. *lost: the template itself is gone (killed from outside),
 * the reason names it; no execution can be made from it any more. */
pid_t exec_template_fork(struct exec_template *t, bool *lost, char *err, size_t errlen);
/* A wait for any tracee got an event of the template (status as waitpid
 * gives it): its exit (a SIGKILL from outside) is noted and let happen. */
void exec_template_saw(struct exec_template *t, int status);
/* Whether the template was killed (or ended) from outside since its last
 * fork, looked at without waiting; err then says so, as a failed fork
 * would. */
bool exec_template_lost(struct exec_template *t, char *err, size_t errlen);
void exec_template_stop(struct exec_template *t);

#endif
