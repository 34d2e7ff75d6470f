/* foreign_attach: seizing a running process's threads and letting them go.
 *
 * Why PTRACE_SEIZE and not PTRACE_ATTACH: ATTACH sends SIGSTOP, a signal
 * the program could see (and a stopped process's parent is told of);
 * SEIZE + INTERRUPT stops a thread without any signal, and a thread that
 * was already in a group stop (state T) reports that stop instead. On
 * PTRACE_DETACH the kernel puts a thread of a stopped group back into the
 * group stop, so T stays T without anything done here. */
#include "supervisor/inspect/foreign_attach.h"
#include "supervisor/process/proc_stat.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/process/tracee.h"

/* How long a thread may take to report its stop: one in an uninterruptible
 * sleep (D) stops only when that ends. */
enum { STOP_WAIT_MS = 2000, MAX_ATTACH_ROUNDS = 100 };

/* ---- /proc ---- */

/* The value of "Field:" in /proc/PID/status, trimmed; false when absent. */
static bool status_field(pid_t pid, const char *field, char *buf, size_t len, int *err_no)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (err_no)
            *err_no = errno;
        return false;
    }
    size_t flen = strlen(field);
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, field, flen) != 0 || line[flen] != ':')
            continue;
        const char *v = line + flen + 1;
        v += strspn(v, " \t");
        snprintf(buf, len, "%s", v);
        buf[strcspn(buf, "\n")] = '\0';
        found = true;
    }
    fclose(f);
    if (err_no)
        *err_no = found ? 0 : ENOENT;
    return found;
}

/* The thread's state letter; '?' when it is gone. */
static char task_state(pid_t pid, pid_t tid)
{
    struct proc_stat st;
    return proc_stat_read(pid, tid, &st) ? st.state : '?';
}

static void task_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

/* The flags field of /proc/PID/stat (the ninth, after the name). */
static unsigned long task_flags(pid_t pid)
{
    struct proc_stat st;
    return proc_stat_read(pid, 0, &st) ? st.flags : 0;
}

static int yama_scope(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = 0;
    if (!f)
        return 0;   /* no Yama: only the classic rules apply */
    if (fscanf(f, "%d", &scope) != 1)
        scope = 0;
    fclose(f);
    return scope;
}

static void yama_advice(pid_t pid, int scope, char *err, size_t errlen)
{
    if (scope >= 3)
        snprintf(err, errlen, "cannot attach to process %d: Yama's ptrace_scope is 3 "
                 "(/proc/sys/kernel/yama/ptrace_scope): no process may be attached to until the next boot", (int)pid);
    else if (scope == 2)
        snprintf(err, errlen, "cannot attach to process %d: Yama's ptrace_scope is 2 "
                 "(/proc/sys/kernel/yama/ptrace_scope): only root (CAP_SYS_PTRACE) may attach; run mdat as root", (int)pid);
    else
        snprintf(err, errlen, "cannot attach to process %d: Yama's ptrace_scope is 1 "
                 "(/proc/sys/kernel/yama/ptrace_scope): only a process's ancestors may attach; run mdat as root, "
                 "have the program call prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY), or set ptrace_scope to 0", (int)pid);
}

/* ---- the checks before attaching ---- */

static bool check_identity(pid_t pid, char *err, size_t errlen)
{
    char buf[128];
    int err_no = 0;
    if (pid == getpid()) {
        snprintf(err, errlen, "process %d is mdat itself", (int)pid);
        return false;
    }
    if (!status_field(pid, "Tgid", buf, sizeof buf, &err_no)) {
        if (err_no == ENOENT || err_no == ESRCH)
            snprintf(err, errlen, "no process with pid %d", (int)pid);
        else
            snprintf(err, errlen, "cannot read /proc/%d/status: %s", (int)pid, strerror(err_no));
        return false;
    }
    if (atoi(buf) != pid) {
        snprintf(err, errlen, "%d is a thread of process %s: attach to that (mdat attach -p %s)", (int)pid, buf, buf);
        return false;
    }
    /* A leader that ended alone (pthread_exit in main) is a zombie too,
     * while its other threads run: only a zombie with no thread left has
     * ended. */
    char threads[32];
    if (status_field(pid, "State", buf, sizeof buf, NULL) && (buf[0] == 'Z' || buf[0] == 'X') &&
        (!status_field(pid, "Threads", threads, sizeof threads, NULL) || atoi(threads) <= 1)) {
        snprintf(err, errlen, "process %d has ended (a zombie its parent has not collected)", (int)pid);
        return false;
    }
    return true;
}

static bool check_tracer_and_owner(pid_t pid, char *err, size_t errlen)
{
    char buf[128];
    if (status_field(pid, "TracerPid", buf, sizeof buf, NULL) && atoi(buf) != 0) {
        char comm[32] = "";
        task_comm(atoi(buf), atoi(buf), comm, sizeof comm);
        snprintf(err, errlen, "process %d is already traced by process %d (%s): a process has one tracer at a time; "
                 "detach that one first", (int)pid, atoi(buf), comm[0] ? comm : "?");
        return false;
    }
    uid_t me = geteuid();
    unsigned uids[4];
    if (me != 0 && status_field(pid, "Uid", buf, sizeof buf, NULL) &&
        sscanf(buf, "%u %u %u %u", &uids[0], &uids[1], &uids[2], &uids[3]) == 4) {
        for (int i = 0; i < 4; i++) {
            if (uids[i] == me)
                continue;
            struct passwd *pw = getpwuid(uids[0]);
            snprintf(err, errlen, "process %d belongs to user %s (uid %u): only that user or root may attach to it",
                     (int)pid, pw ? pw->pw_name : "?", uids[0]);
            return false;
        }
    }
    int scope = yama_scope();
    if (scope >= 3 || (scope == 2 && me != 0)) {
        yama_advice(pid, scope, err, errlen);
        return false;
    }
    return true;
}

static bool check_program(pid_t pid, char *err, size_t errlen)
{
    char path[64], exe[PATH_MAX];
    enum { PF_KTHREAD = 0x00200000 };   /* include/linux/sched.h */
    if (task_flags(pid) & PF_KTHREAD) {
        snprintf(err, errlen, "process %d is a kernel thread: it runs no program mdat could read", (int)pid);
        return false;
    }
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    ssize_t n = readlink(path, exe, sizeof exe - 1);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return true;    /* permission: the seize says it better */
    unsigned char ident[EI_NIDENT];
    bool short_read = read(fd, ident, sizeof ident) != (ssize_t)sizeof ident;
    close(fd);
    if (!short_read && memcmp(ident, ELFMAG, SELFMAG) == 0 && ident[EI_CLASS] == ELFCLASS32) {
        exe[n > 0 ? n : 0] = '\0';
        snprintf(err, errlen, "process %d runs a 32-bit program (%s): mdat reads x86-64 processes only", (int)pid, exe);
        return false;
    }
    return true;
}

bool foreign_check(pid_t pid, char *err, size_t errlen)
{
    return check_identity(pid, err, errlen) && check_tracer_and_owner(pid, err, errlen) &&
           check_program(pid, err, errlen);
}

/* ---- seizing ---- */

static struct foreign_thread *find_thread(struct foreign_process *p, pid_t tid)
{
    for (size_t i = 0; i < p->n_threads; i++)
        if (p->threads[i].tid == tid)
            return &p->threads[i];
    return NULL;
}

static struct foreign_thread *add_thread(struct foreign_process *p, pid_t tid)
{
    struct foreign_thread *grown = realloc(p->threads, (p->n_threads + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    p->threads = grown;
    struct foreign_thread *t = &p->threads[p->n_threads++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    return t;
}

static void seize_failed(pid_t pid, int err_no, char *err, size_t errlen)
{
    if (err_no == EPERM && yama_scope() >= 1) {
        yama_advice(pid, yama_scope(), err, errlen);
        return;
    }
    char buf[32];
    if (err_no == EPERM && status_field(pid, "TracerPid", buf, sizeof buf, NULL) && atoi(buf) != 0)
        snprintf(err, errlen, "process %d is already traced by process %d: a process has one tracer at a time",
                 (int)pid, atoi(buf));
    else if (err_no == EPERM)
        snprintf(err, errlen, "not permitted to attach to process %d (another user's, or a set-uid program that "
                 "cannot be read): run mdat as root", (int)pid);
    else
        snprintf(err, errlen, "cannot attach to process %d: %s", (int)pid, strerror(err_no));
}

/* Seizes every thread of /proc/PID/task not seized yet. Returns how many
 * it seized, -1 (err set) when the kernel refused. */
static int seize_new_threads(struct foreign_process *p, char *err, size_t errlen)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)p->pid);
    DIR *d = opendir(path);
    if (!d) {
        snprintf(err, errlen, "process %d ended while mdat attached to it", (int)p->pid);
        return -1;
    }
    int seized = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t tid = (pid_t)atoi(e->d_name);
        if (tid <= 0 || find_thread(p, tid))
            continue;
        struct foreign_thread *t = add_thread(p, tid);
        if (!t) {
            snprintf(err, errlen, "out of memory");
            seized = -1;
            break;
        }
        t->proc_state = task_state(p->pid, tid);
        task_comm(p->pid, tid, t->name, sizeof t->name);
        if (t->proc_state == 'Z' || t->proc_state == 'X' || t->proc_state == '?')
            continue;   /* an ended thread (a leader that called pthread_exit): nothing to stop */
        if (ptrace(PTRACE_SEIZE, tid, 0, 0) != 0) {
            int seize_errno = errno;
            /* A thread that ended meanwhile: ESRCH once it is gone, EPERM
             * while it is a zombie waiting to be reaped. */
            char now = task_state(p->pid, tid);
            if (seize_errno == ESRCH || now == 'Z' || now == 'X' || now == '?') {
                t->proc_state = 'X';
                continue;
            }
            seize_failed(p->pid, seize_errno, err, errlen);
            seized = -1;
            break;
        }
        t->seized = true;
        ptrace(PTRACE_INTERRUPT, tid, 0, 0);
        seized++;
    }
    closedir(d);
    return seized;
}

/* Takes what waitpid said of t: a stop, or its end. */
static void note_status(struct foreign_thread *t, int status)
{
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
        t->seized = false;  /* gone: nothing to detach */
        t->proc_state = 'X';
        return;
    }
    if (!WIFSTOPPED(status))
        return;
    t->stopped = true;
    /* A signal-delivery stop (no event) holds a signal the thread was about
     * to take: it goes back with the detach. The interrupt's and a group
     * stop's reports (PTRACE_EVENT_STOP) hold none. */
    if ((status >> 16) == 0)
        t->resend_signal = WSTOPSIG(status);
}

/* Waits until every seized thread reported a stop or its end, at most
 * STOP_WAIT_MS in all; a thread that does not stop is left unread. */
static void wait_for_stops(struct foreign_process *p)
{
    uint64_t deadline = monotonic_ns() + (uint64_t)STOP_WAIT_MS * 1000000u;
    for (;;) {
        bool waiting = false;
        for (size_t i = 0; i < p->n_threads; i++) {
            struct foreign_thread *t = &p->threads[i];
            if (!t->seized || t->stopped)
                continue;
            int status;
            pid_t r = waitpid(t->tid, &status, __WALL | WNOHANG);
            if (r == t->tid)
                note_status(t, status);
            else if (r < 0 && errno == ECHILD)
                t->seized = false;
            if (t->seized && !t->stopped)
                waiting = true;
        }
        if (!waiting || monotonic_ns() > deadline)
            return;
        struct timespec pause = {0, 200000};
        nanosleep(&pause, NULL);
    }
}

static int by_tid(const void *a, const void *b)
{
    const struct foreign_thread *x = a, *y = b;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static void read_process_names(struct foreign_process *p)
{
    char path[64];
    bool leader_alive = p->n_threads && p->threads[0].tid == p->pid && p->threads[0].seized;
    p->proc_tid = p->pid;
    for (size_t i = 0; !leader_alive && i < p->n_threads; i++)
        if (p->threads[i].seized) {
            p->proc_tid = p->threads[i].tid;
            break;
        }
    snprintf(path, sizeof path, "/proc/%d/exe", (int)p->proc_tid);
    ssize_t n = readlink(path, p->exe, sizeof p->exe - 1);
    p->exe[n > 0 ? n : 0] = '\0';
    task_comm(p->pid, p->pid, p->comm, sizeof p->comm);
}

bool foreign_attach(pid_t pid, struct foreign_process *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->pid = pid;
    out->mem_fd = -1;
    if (!foreign_check(pid, err, errlen))
        return false;
    /* Until every thread is stopped, a running one may make another: list
     * the threads again until a listing finds none new. A stopped thread
     * makes none, so this ends once all have stopped. */
    for (int round = 0;; round++) {
        int seized = seize_new_threads(out, err, errlen);
        if (seized < 0) {
            foreign_detach(out, NULL, 0);
            foreign_free(out);
            return false;
        }
        wait_for_stops(out);
        if (seized == 0)
            break;
        if (round == MAX_ATTACH_ROUNDS) {
            snprintf(err, errlen, "process %d makes threads faster than mdat can stop them", (int)pid);
            foreign_detach(out, NULL, 0);
            foreign_free(out);
            return false;
        }
    }
    size_t alive = 0, kept = 0;
    for (size_t i = 0; i < out->n_threads; i++) {
        struct foreign_thread *t = &out->threads[i];
        if (t->proc_state == 'X' || t->proc_state == '?')
            continue;   /* ended during the attach: not part of the picture */
        if (t->stopped)
            t->have_regs = tracee_get_regs(t->tid, &t->regs);
        alive += t->seized;
        out->threads[kept++] = *t;
    }
    out->n_threads = kept;
    if (alive == 0) {
        snprintf(err, errlen, "process %d ended while mdat attached to it", (int)pid);
        foreign_detach(out, NULL, 0);
        foreign_free(out);
        return false;
    }
    qsort(out->threads, out->n_threads, sizeof *out->threads, by_tid);
    read_process_names(out);
    out->mem_fd = tracee_open_mem(out->proc_tid);
    return true;
}

bool foreign_detach(struct foreign_process *p, char *err, size_t errlen)
{
    bool ok = true;
    for (size_t i = 0; i < p->n_threads; i++) {
        struct foreign_thread *t = &p->threads[i];
        if (!t->seized)
            continue;
        /* A thread that never reported its stop cannot be detached now; it
         * is let go when mdat exits (the kernel detaches a dead tracer's
         * tracees). */
        if (t->stopped && ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)t->resend_signal) != 0 && errno != ESRCH) {
            if (ok && err)
                snprintf(err, errlen, "could not detach from thread %d: %s", (int)t->tid, strerror(errno));
            ok = false;
        }
        t->seized = false;
    }
    if (p->mem_fd >= 0)
        close(p->mem_fd);
    p->mem_fd = -1;
    return ok;
}

void foreign_free(struct foreign_process *p)
{
    free(p->threads);
    p->threads = NULL;
    p->n_threads = 0;
}

struct foreign_thread *foreign_adopt_thread(struct foreign_process *p, pid_t tid, char *err, size_t errlen)
{
    struct foreign_thread *t = add_thread(p, tid);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* Seized by the kernel with its maker's options, it reports a stop
     * before its first instruction. */
    t->seized = true;
    t->proc_state = 'R';
    wait_for_stops(p);
    t = &p->threads[p->n_threads - 1];
    if (!t->stopped) {
        snprintf(err, errlen, "new thread %d did not stop for mdat: it runs free", (int)tid);
        return NULL;
    }
    task_comm(p->pid, tid, t->name, sizeof t->name);
    t->have_regs = tracee_get_regs(tid, &t->regs);
    return t;
}

int foreign_thread_number(const struct foreign_process *p, pid_t tid)
{
    for (size_t i = 0; i < p->n_threads; i++)
        if (p->threads[i].tid == tid)
            return (int)i + 1;
    return 0;
}
