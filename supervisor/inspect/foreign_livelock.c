/* foreign_livelock: when to watch the running threads of an attached
 * process, and the verdict it gives (see foreign_livelock.h). */
#include "supervisor/inspect/foreign_livelock.h"
#include "supervisor/debuginfo/text_out.h"
#include "supervisor/inspect/foreign_watch.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* glibc's own signals (SIGCANCEL, SIGSETXID): only its threads send them. */
enum { GLIBC_SIGCANCEL = 32, GLIBC_SIGSETXID = 33 };

static bool alive(const struct foreign_thread_view *t) { return t->proc_state != 'Z' && t->proc_state != 'X'; }

/* The indices of the running threads, when the watch may tell a
 * livelock: every other live thread waits for good, no thread has a
 * signal to take, the process is not stopped. 0 when it may not. */
static size_t watchable(const struct foreign_process *p, const struct foreign_report *r, size_t *index)
{
    size_t n = 0;
    if (r->verdict != FVERDICT_NOT_STUCK || r->stopped_process || p->n_threads != r->n_threads)
        return 0;
    for (size_t i = 0; i < r->n_threads; i++) {
        const struct foreign_thread_view *t = &r->threads[i];
        const struct foreign_thread *pt = &p->threads[i];
        if (!alive(t))
            continue;
        if (pt->resend_signal || !pt->stopped || !pt->have_regs || pt->proc_state == 'T')
            return 0;
        if (t->stuck)
            continue;
        if (t->wait.kind != FWAIT_NONE || n == FOREIGN_MAX_WATCHED)
            return 0;
        index[n++] = i;
    }
    return n;
}

/* "unless a signal it handles comes (SIGUSR1, SIGALRM)" when the program
 * catches a signal: a handler could change what the threads read. */
static void signals_caught(pid_t pid, char *buf, size_t len)
{
    char path[64], line[256];
    unsigned long long caught = 0;
    buf[0] = '\0';
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "SigCgt: %llx", &caught) == 1)
            break;
    fclose(f);
    int named = 0;
    for (int sig = 1; sig <= 64; sig++) {
        if (!(caught & (1ull << (sig - 1))) || sig == GLIBC_SIGCANCEL || sig == GLIBC_SIGSETXID)
            continue;
        const char *name = sigabbrev_np(sig);
        char rt[16];
        if (!name) {
            snprintf(rt, sizeof rt, "RTMIN+%d", sig - SIGRTMIN);
            name = rt;
        }
        if (named < 4)
            text_append(buf, len, "%sSIG%s", named ? ", " : "unless a signal it handles comes (", name);
        named++;
    }
    if (named > 4)
        text_append(buf, len, " and %d more", named - 4);
    if (named)
        text_append(buf, len, ")");
}

/* "spin.c:14-17 waiter": the lines of the user's code the thread's
 * cycle runs (of the file and function of its first), else the lowest
 * address it runs. */
static void cycle_place(const struct foreign_code *fc, const uint64_t *pcs, size_t n, char *buf, size_t len)
{
    struct src_loc first = {0};
    unsigned lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        struct src_loc loc;
        if (!foreign_is_user_code(fc, pcs[i]) || !foreign_code_location(fc, pcs[i], &loc) || !loc.line ||
            !loc.basename)
            continue;
        if (!lo) {
            first = loc;
            lo = hi = loc.line;
        } else if (strcmp(loc.basename, first.basename) == 0 &&
                   (!loc.function == !first.function) && (!loc.function || !strcmp(loc.function, first.function))) {
            lo = loc.line < lo ? loc.line : lo;
            hi = loc.line > hi ? loc.line : hi;
        }
    }
    if (!lo) {
        /* No line: the lowest pc of the user's code (else of all), the
         * same for threads that run the same code. */
        uint64_t pc = UINT64_MAX, any = UINT64_MAX;
        for (size_t i = 0; i < n; i++) {
            any = pcs[i] < any ? pcs[i] : any;
            if (foreign_is_user_code(fc, pcs[i]) && pcs[i] < pc)
                pc = pcs[i];
        }
        foreign_format_code(fc, pc != UINT64_MAX ? pc : any != UINT64_MAX ? any : 0, buf, len);
        return;
    }
    if (lo == hi)
        snprintf(buf, len, "%s:%u", first.basename, lo);
    else
        snprintf(buf, len, "%s:%u-%u", first.basename, lo, hi);
    if (first.function)
        text_append(buf, len, " %s", first.function);
}

/* "T2", "T2 and T3", "T2, T3 and T4". */
static void thread_names(const struct foreign_livelock *l, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < l->n_threads; i++)
        text_append(buf, len, "%sT%d", i == 0 ? "" : i + 1 == l->n_threads ? " and " : ", ", l->threads[i]);
}

/* "; no other thread can run (T1: join T2)", "" when there is none. */
static void others_text(const struct foreign_report *r, char *buf, size_t len)
{
    int listed = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->n_threads; i++) {
        const struct foreign_thread_view *t = &r->threads[i];
        if (!alive(t) || !t->stuck)
            continue;
        char what[256];
        foreign_wait_text(r, t, what, sizeof what);
        if (listed < 6)
            text_append(buf, len, "%sT%d: %s", listed ? "; " : "; no other thread can run (", t->number, what);
        listed++;
    }
    if (listed > 6)
        text_append(buf, len, "; and %d more", listed - 6);
    if (listed)
        text_append(buf, len, ")");
}

static void say_livelock(struct foreign_report *r)
{
    const struct foreign_livelock *l = &r->livelock;
    char names[128], others[700];
    thread_names(l, names, sizeof names);
    others_text(r, others, sizeof others);
    char *out = r->verdict_text;
    size_t len = sizeof r->verdict_text;
    bool one = l->n_threads == 1;
    if (l->any_schedule)
        snprintf(out, len, "livelock: %s %s the same %lu instructions for ever (%s), storing nothing: no thread "
                 "can change what %s, whatever the schedule", names, one ? "runs" : "run", l->period, l->where,
                 one ? "it reads" : "they read");
    else if (one)
        snprintf(out, len, "livelock: %s comes back to the same state, the memory it writes included, every %lu "
                 "instructions (%s)", names, l->period, l->where);
    else
        snprintf(out, len, "livelock: %s, stepped in turn, come back to the same state every %lu instructions (%s)",
                 names, l->period, l->where);
    text_append(out, len, "%s", others);
    if (l->unless[0])
        text_append(out, len, "; %s", l->unless);
}

/* After "no deadlock: T2 is running": what the watch saw. */
static void say_not_found(struct foreign_report *r)
{
    const struct foreign_livelock *l = &r->livelock;
    double sec = l->window_ms / 1000.0;
    if (l->why_not[0])
        text_append(r->verdict_text, sizeof r->verdict_text, " (watched, no livelock told: %s)", l->why_not);
    else
        text_append(r->verdict_text, sizeof r->verdict_text, " (watched for %g s, %lu instructions: no state came "
                    "back)", sec, l->instructions);
}

void foreign_livelock_watch(struct foreign_process *p, const struct foreign_code *fc, struct foreign_report *r,
                            int window_ms)
{
    size_t index[FOREIGN_MAX_WATCHED];
    size_t n = window_ms > 0 ? watchable(p, r, index) : 0;
    if (n == 0)
        return;
    struct foreign_watch *w = calloc(1, sizeof *w);
    char err[200];
    if (!w || !foreign_watch_threads(p, index, n, window_ms, w, err, sizeof err)) {
        free(w);
        return;
    }
    struct foreign_livelock *l = &r->livelock;
    l->watched = true;
    l->window_ms = window_ms;
    l->instructions = w->instructions;
    l->n_threads = n;
    for (size_t k = 0; k < n; k++)
        l->threads[k] = r->threads[index[k]].number;
    if (w->end == FWATCH_CYCLE) {
        l->found = true;
        l->any_schedule = !w->stored;
        l->period = w->period;
        for (size_t k = 0; k < n; k++) {
            char place[128];
            cycle_place(fc, w->pcs[k], w->n_pcs[k], place, sizeof place);
            if (!strstr(l->where, place))
                text_append(l->where, sizeof l->where, "%s%s", l->where[0] ? "; " : "", place);
        }
        signals_caught(p->pid, l->unless, sizeof l->unless);
        r->verdict = FVERDICT_LIVELOCK;
        say_livelock(r);
    } else {
        if (w->end == FWATCH_STOPPED)
            snprintf(l->why_not, sizeof l->why_not, "%s", w->why);
        say_not_found(r);
    }
    free(w);
}
