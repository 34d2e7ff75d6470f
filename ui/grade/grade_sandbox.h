/* grade_sandbox: one submission's build and exploration in a sandbox of its
 * own (Linux namespaces, no helper program): as root the program and its
 * build run as a user of their own and mdat's processes as another (the
 * kernel keeps the program off them), private PID, mount, IPC, UTS and
 * network namespaces, a new read-only root holding only the system's
 * programs, libraries and /etc, a few devices, the checker and one
 * size-limited tmpfs (the disk quota) at the unit's output directory
 * holding the submission's private copy, /tmp and /dev/shm. When the work
 * is done the tmpfs's regular files are copied out to the real output
 * directory (schedules, traces and the built program stay replayable at the
 * same paths), and every process left in the sandbox dies with its PID
 * namespace. See README "Grading untrusted code" and docs/architecture.md
 * "The trust boundary". */
#ifndef MDAT_UI_GRADE_SANDBOX_H
#define MDAT_UI_GRADE_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/grade/model/grade_model.h"

/* Exit status of the sandbox when the work was stopped (SIGSTOP) by the
 * submission: the sandbox is then torn down. */
enum { SANDBOX_EXIT_STOPPED = 125 };

/* Probes once what this machine provides, says loudly (stderr) what it
 * cannot (or that --no-sandbox was given), and keeps the answer for
 * grade_sandbox_usable. */
void grade_sandbox_announce(const struct grade_settings *s);
/* Whether units of s run in a sandbox (asked for and possible here). */
bool grade_sandbox_usable(const struct grade_settings *s);

struct sandbox_plan {
    const struct grade_settings *settings;
    int submission;             /* index: with grader, its uid when mdat grade runs as root */
    int grader;                 /* mdat grade's process id */
    const char *unit_dir;       /* absolute: becomes the private tmpfs, copied out at the end */
    const char *copy_dir;       /* absolute, below unit_dir: the private copy of the submission */
    int (*work)(void *ctx);     /* runs inside, as the sandbox's user, in copy_dir; its exit status */
    /* Outside, once nothing runs inside any more, before the copy-out
     * (NULL: nothing): checks what the work left against what only mdat
     * knows. */
    void (*before_copy_out)(void *ctx);
    void *ctx;
};

/* In a child process of mdat grade (it changes this process's namespaces
 * for good): sets the sandbox up, runs plan->work in it, copies the results
 * out. Returns work's exit status, 128+signal if it was killed,
 * SANDBOX_EXIT_STOPPED if it was stopped, or -1 with a reason in err when
 * the sandbox could not be made. */
int grade_sandbox_run(const struct sandbox_plan *plan, char *err, size_t errlen);

#endif
