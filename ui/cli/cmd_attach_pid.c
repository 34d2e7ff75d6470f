/* cmd_attach_pid: `mdat attach -p PID --print | --json`: why a running
 * process mdat did not start is stuck. Attaches (supervisor/inspect/),
 * reads (and watches running threads for a livelock, --livelock SEC), lets
 * the process go, then prints: the process is held only while it is read. Exit 1 when it is stuck, 0 when not, 3 when it cannot be
 * read. */
#include <stdio.h>

#include "supervisor/inspect/foreign_attach.h"
#include "supervisor/inspect/foreign_code.h"
#include "supervisor/inspect/foreign_livelock.h"
#include "supervisor/inspect/foreign_report.h"
#include "ui/cli/attach_look.h"
#include "ui/cli/attach_print.h"
#include "ui/cli/cli.h"
#include "ui/cli/commands.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <signal.h>
#include <stdlib.h>

bool attach_parse_pid(const char *text, pid_t *pid)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v <= 0 || v > 4194304)
        return false;
    *pid = (pid_t)v;
    return true;
}

/* The program's modules are read before its threads are stopped (a large
 * program's DWARF takes seconds), once nothing stands in the way. */
static bool load_code_before(pid_t pid, struct foreign_code *code)
{
    char err[600], path[64], exe[PATH_MAX];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    ssize_t n = readlink(path, exe, sizeof exe - 1);
    if (n <= 0 || !foreign_check(pid, err, sizeof err))
        return false;   /* foreign_attach says why, or the code is loaded once attached */
    exe[n] = '\0';
    return foreign_code_load(pid, -1, exe, code, err, sizeof err);
}

void attach_code_free(struct attach_code *c)
{
    if (c->loaded)
        foreign_code_free(&c->code);
    c->loaded = false;
}

bool attach_look(pid_t pid, struct attach_code *code, int watch_ms, struct foreign_report *report, bool *detach_failed,
                 char *err, size_t errlen)
{
    *detach_failed = false;
    /* Ctrl-C while the threads are held would let the kernel detach them
     * when mdat dies, and a signal that arrived meanwhile would be lost:
     * the few milliseconds from attach to detach are not interrupted. */
    sigset_t hold, saved;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    sigaddset(&hold, SIGQUIT);
    sigprocmask(SIG_BLOCK, &hold, &saved);
    if (!code->loaded)
        code->loaded = load_code_before(pid, &code->code);
    struct foreign_process proc;
    if (!foreign_attach(pid, &proc, err, errlen)) {
        sigprocmask(SIG_SETMASK, &saved, NULL);
        return false;
    }
    bool read;
    if (code->loaded) {
        read = foreign_code_refresh(&code->code, proc.proc_tid, proc.mem_fd, proc.exe, err, errlen);
    } else {
        read = foreign_code_load(proc.proc_tid, proc.mem_fd, proc.exe, &code->code, err, errlen);
        code->loaded = read;
    }
    bool built = read && foreign_report_build(&proc, &code->code, report, err, errlen);
    if (built)
        foreign_livelock_watch(&proc, &code->code, report, watch_ms);
    char detach_err[300];
    bool detached = foreign_detach(&proc, detach_err, sizeof detach_err);
    sigprocmask(SIG_SETMASK, &saved, NULL);
    foreign_free(&proc);
    if (!detached) {
        *detach_failed = true;
        snprintf(err, errlen, "%s", detach_err);
    }
    return built;
}

int cmd_attach_pid(const char *pid_text, bool json, int watch_ms)
{
    pid_t pid;
    if (!attach_parse_pid(pid_text, &pid))
        return cli_usage_error("attach", "-p wants a process id (a positive number), not \"%s\"", pid_text);
    char err[600];
    struct attach_code code = {0};
    struct foreign_report report;
    bool detach_failed;
    bool built = attach_look(pid, &code, watch_ms, &report, &detach_failed, err, sizeof err);
    int status = EXIT_CANNOT_RUN;
    if (built) {
        (json ? attach_print_json : attach_print_text)(stdout, &report);
        status = foreign_report_stuck(&report) ? EXIT_FAILURE_FOUND : EXIT_NO_FAILURE;
        foreign_report_free(&report);
    }
    if (!built || detach_failed) {
        fprintf(stderr, "mdat attach: %s\n", err);
        status = EXIT_CANNOT_RUN;
    }
    attach_code_free(&code);
    return status;
}
