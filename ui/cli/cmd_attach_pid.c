/* cmd_attach_pid: `mdat attach -p PID --print | --json`: why a running
 * process mdat did not start is stuck. Attaches (supervisor/inspect/),
 * reads, lets the process go, then prints: the process is held only while
 * it is read. Exit 1 when it is stuck, 0 when not, 3 when it cannot be
 * read. */
#include <stdio.h>

#include "supervisor/inspect/foreign_attach.h"
#include "supervisor/inspect/foreign_code.h"
#include "supervisor/inspect/foreign_report.h"
#include "ui/cli/attach_print.h"
#include "ui/cli/cli.h"
#include "ui/cli/commands.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <signal.h>
#include <stdlib.h>

static bool parse_pid(const char *text, pid_t *pid)
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

int cmd_attach_pid(const char *pid_text, bool json)
{
    pid_t pid;
    if (!parse_pid(pid_text, &pid))
        return cli_usage_error("attach", "-p wants a process id (a positive number), not \"%s\"", pid_text);
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
    char err[600];
    struct foreign_code code;
    bool read = load_code_before(pid, &code);
    struct foreign_process proc;
    if (!foreign_attach(pid, &proc, err, sizeof err)) {
        sigprocmask(SIG_SETMASK, &saved, NULL);
        if (read)
            foreign_code_free(&code);
        fprintf(stderr, "mdat attach: %s\n", err);
        return EXIT_CANNOT_RUN;
    }
    struct foreign_report report;
    read = read ? foreign_code_refresh(&code, proc.proc_tid, proc.mem_fd, proc.exe, err, sizeof err)
                : foreign_code_load(proc.proc_tid, proc.mem_fd, proc.exe, &code, err, sizeof err);
    bool built = read && foreign_report_build(&proc, &code, &report, err, sizeof err);
    char detach_err[300];
    bool detached = foreign_detach(&proc, detach_err, sizeof detach_err);
    sigprocmask(SIG_SETMASK, &saved, NULL);
    if (built)
        (json ? attach_print_json : attach_print_text)(stdout, &report);
    int status = built ? (foreign_report_stuck(&report) ? EXIT_FAILURE_FOUND : EXIT_NO_FAILURE) : EXIT_CANNOT_RUN;
    if (!built)
        fprintf(stderr, "mdat attach: %s\n", err);
    if (!detached) {
        fprintf(stderr, "mdat attach: %s\n", detach_err);
        status = EXIT_CANNOT_RUN;
    }
    if (built)
        foreign_report_free(&report);
    if (read)
        foreign_code_free(&code);
    foreign_free(&proc);
    return status;
}
