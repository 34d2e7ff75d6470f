/* foreign_watch: running threads stepped in turn until their whole state
 * repeats (see foreign_watch.h).
 *
 * Why a repeat proves a cycle: in a round every watched thread runs one
 * instruction, in the same order. Each instruction followed is a function
 * of the thread's registers and the memory it reads (foreign_watch_insn.c
 * refuses the others), and no one but the watched threads changes that
 * memory (the other threads are blocked for good; shared and kernel-written
 * memory is refused). So when, at the end of two rounds, every register is
 * the same and every location written in the window holds the same value
 * (the locations not written hold what they held at the start), the
 * rounds between them run again, the same, for ever. States are compared
 * exactly, not by a hash: no collision can make a verdict. Brent's method
 * keeps one saved state, renewed at powers of two, so the memory used does
 * not grow with the window. */
#include "supervisor/inspect/foreign_watch.h"
#include "supervisor/inspect/foreign_watch_insn.h"
#include "supervisor/inspect/foreign_watch_words.h"
#include "supervisor/process/tracee.h"

#include <elf.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

enum { INSN_CACHE = 4096, XSTATE_MAX = 16384, STEP_WAIT_MS = 1000 };

struct watched {
    struct foreign_thread *t;
    int number;
    struct user_regs_struct regs;
};

/* One saved state: registers, vector registers, written words' values. */
struct saved {
    struct user_regs_struct regs[FOREIGN_WATCH_MAX_THREADS];
    uint8_t *xstate[FOREIGN_WATCH_MAX_THREADS];
    size_t xstate_len[FOREIGN_WATCH_MAX_THREADS];
    uint64_t *values;
    size_t n_values;
};

struct watch {
    struct foreign_process *p;
    struct watched th[FOREIGN_WATCH_MAX_THREADS];
    size_t n;
    struct watch_memory mem;
    struct written w;
    struct saved saved;
    uint8_t *xstate_now[FOREIGN_WATCH_MAX_THREADS];
    size_t xstate_now_len[FOREIGN_WATCH_MAX_THREADS];
    x86_decoder *decoder;
    struct x86_insn *cache;     /* INSN_CACHE entries by pc; length 0: empty */
    struct foreign_watch *out;
    bool recording;             /* the cycle's pcs are being collected */
};

/* ---- registers ---- */

/* Everything the next instructions may depend on: orig_rax (a system
 * call's number, for a restart) and the trap and resume flags are not. */
static bool same_regs(const struct user_regs_struct *a, const struct user_regs_struct *b)
{
    struct user_regs_struct x = *a, y = *b;
    x.orig_rax = y.orig_rax = 0;
    x.eflags &= ~0x10100ull;
    y.eflags &= ~0x10100ull;
    return memcmp(&x, &y, sizeof x) == 0;
}

/* The thread's XSAVE area (SSE, AVX, x87, MXCSR): *len bytes into buf. */
static bool read_xstate(pid_t tid, uint8_t **buf, size_t *len)
{
    if (!*buf && !(*buf = malloc(XSTATE_MAX)))
        return false;
    struct iovec iov = {*buf, XSTATE_MAX};
    if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) != 0)
        return false;
    *len = iov.iov_len;
    return true;
}

/* ---- the saved state ---- */

static bool save_state(struct watch *wt)
{
    struct saved *s = &wt->saved;
    for (size_t k = 0; k < wt->n; k++) {
        s->regs[k] = wt->th[k].regs;
        if (!read_xstate(wt->th[k].t->tid, &s->xstate[k], &s->xstate_len[k]))
            return false;
    }
    if (wt->w.n > s->n_values || !s->values) {
        uint64_t *values = realloc(s->values, (wt->w.cap ? wt->w.cap : 1) * sizeof *values);
        if (!values)
            return false;
        s->values = values;
    }
    if (wt->w.n)    /* nothing written yet: cur is not allocated */
        memcpy(s->values, wt->w.cur, wt->w.n * sizeof *s->values);
    s->n_values = wt->w.n;
    return true;
}

/* The whole state equals the saved one: registers first (cheap, and
 * what differs most), then memory, then vector registers. */
static bool same_as_saved(struct watch *wt)
{
    const struct saved *s = &wt->saved;
    for (size_t k = 0; k < wt->n; k++)
        if (!same_regs(&s->regs[k], &wt->th[k].regs))
            return false;
    for (size_t j = 0; j < wt->w.n; j++) {
        /* A word first written after the save held its first value then. */
        uint64_t then = j < s->n_values ? s->values[j] : wt->w.orig[j];
        if (then != wt->w.cur[j])
            return false;
    }
    for (size_t k = 0; k < wt->n; k++) {
        if (!read_xstate(wt->th[k].t->tid, &wt->xstate_now[k], &wt->xstate_now_len[k]) ||
            wt->xstate_now_len[k] != s->xstate_len[k] || memcmp(wt->xstate_now[k], s->xstate[k], s->xstate_len[k]))
            return false;
    }
    return true;
}

/* ---- one instruction ---- */

static const struct x86_insn *instruction_at(struct watch *wt, uint64_t pc)
{
    struct x86_insn *slot = &wt->cache[(pc ^ (pc >> 12)) & (INSN_CACHE - 1)];
    if (slot->length && slot->address == pc)
        return slot;
    uint8_t code[16];
    size_t got = sizeof code;
    /* Near the end of a mapping: as many bytes as there are. */
    while (got && !tracee_read(wt->p->mem_fd, pc, code, got))
        got--;
    if (!got || !x86_decode(wt->decoder, code, got, pc, slot)) {
        slot->length = 0;
        return NULL;
    }
    return slot;
}

static void stopped(struct watch *wt, size_t k, const char *fmt, const char *what)
{
    wt->out->end = FWATCH_STOPPED;
    char text[160];
    snprintf(text, sizeof text, fmt, what);
    snprintf(wt->out->why, sizeof wt->out->why, "T%d %s", wt->th[k].number, text);
}

/* The thread's stop after a single step, within the deadline; 0 when
 * it has not stopped. Spins first: a step's trap comes in microseconds. */
static pid_t wait_step(pid_t tid, uint64_t deadline, int *status)
{
    for (unsigned spins = 0;; spins++) {
        pid_t r = waitpid(tid, status, __WALL | WNOHANG);
        if (r != 0 || monotonic_ns() >= deadline)
            return r;
        if (spins < 200) {
            sched_yield();
        } else {
            struct timespec nap = {0, 50000};
            nanosleep(&nap, NULL);
        }
    }
}

/* The step's own trap: a SIGTRAP the kernel made (a sent one has
 * si_code <= 0). */
static bool own_trap(pid_t tid, int status)
{
    if (!WIFSTOPPED(status) || (status >> 16) != 0 || WSTOPSIG(status) != SIGTRAP)
        return false;
    siginfo_t si;
    return ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 && si.si_code > 0;
}

/* A stop that is not the step's own trap: a signal (given back at the
 * detach), a group stop, the thread's end. */
static void took_other_stop(struct watch *wt, size_t k, int status)
{
    struct foreign_thread *t = wt->th[k].t;
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
        t->seized = t->stopped = false;
        t->proc_state = 'X';
        stopped(wt, k, "%s", "ended");
        return;
    }
    int event = status >> 16, sig = WSTOPSIG(status);
    if (event == 0) {
        t->resend_signal = sig;
        stopped(wt, k, "was sent signal SIG%s", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
        return;
    }
    stopped(wt, k, "%s", "was stopped (a group stop)");
}

/* The thread did not finish its instruction in time: held again. */
static void interrupt_step(struct watch *wt, size_t k)
{
    struct foreign_thread *t = wt->th[k].t;
    ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
    int status = 0;
    pid_t r = wait_step(t->tid, monotonic_ns() + 2000000000ull, &status);
    if (r <= 0) {
        t->stopped = false;     /* let go by the kernel when mdat ends */
    } else if (WIFEXITED(status) || WIFSIGNALED(status) || ((status >> 16) == 0 && !own_trap(t->tid, status))) {
        took_other_stop(wt, k, status);
        return;
    }
    stopped(wt, k, "%s", "did not finish an instruction in time");
}

static void record_pc(struct watch *wt, size_t k, uint64_t pc)
{
    struct foreign_watch *out = wt->out;
    for (size_t i = 0; i < out->n_pcs[k]; i++)
        if (out->pcs[k][i] == pc)
            return;
    if (out->n_pcs[k] < FOREIGN_WATCH_MAX_PCS)
        out->pcs[k][out->n_pcs[k]++] = pc;
}

/* What the next instruction of thread k may write, as indices of
 * written words (*n_words of them, added before the store with their
 * value then); false when the watch must stop before it. */
static bool before_step(struct watch *wt, size_t k, long *words, size_t *n_words, bool *stores)
{
    struct watched *th = &wt->th[k];
    char why[160];
    const struct x86_insn *insn = instruction_at(wt, th->regs.rip);
    if (!insn) {
        snprintf(why, sizeof why, "0x%llx", (unsigned long long)th->regs.rip);
        stopped(wt, k, "runs an instruction mdat cannot decode at %s", why);
        return false;
    }
    struct insn_effect eff;
    if (!watch_insn_effect(insn, &th->regs, &wt->mem, wt->p->mem_fd, &eff, why, sizeof why)) {
        stopped(wt, k, "%s", why);
        return false;
    }
    *n_words = 0;
    *stores = eff.n_writes > 0;
    for (size_t i = 0; i < eff.n_writes; i++)
        for (uint64_t a = eff.write_addr[i] & ~7ull; a < eff.write_addr[i] + eff.write_len[i]; a += 8) {
            long j = written_word(&wt->w, wt->p->mem_fd, a);
            if (j < 0) {
                stopped(wt, k, "%s", "writes memory mdat could not keep track of");
                return false;
            }
            words[(*n_words)++] = j;
        }
    return true;
}

/* Runs one instruction of thread k; false when the watch must stop. */
static bool step_one(struct watch *wt, size_t k)
{
    struct watched *th = &wt->th[k];
    /* Each write is at most 255 bytes: 33 words. */
    long words[WATCH_MAX_WRITES * 33];
    size_t n_words;
    bool stores;
    if (!before_step(wt, k, words, &n_words, &stores))
        return false;
    if (wt->recording)
        record_pc(wt, k, th->regs.rip);
    pid_t tid = th->t->tid;
    if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) != 0) {
        stopped(wt, k, "could not be stepped: %s", strerror(errno));
        return false;
    }
    int status = 0;
    pid_t r = wait_step(tid, monotonic_ns() + (uint64_t)STEP_WAIT_MS * 1000000u, &status);
    if (r == 0) {
        interrupt_step(wt, k);
        return false;
    }
    if (r < 0 || !own_trap(tid, status)) {
        took_other_stop(wt, k, r < 0 ? 0 : status);
        return false;
    }
    if (!tracee_get_regs(tid, &th->regs)) {
        stopped(wt, k, "%s", "could not be read after a step");
        return false;
    }
    th->t->regs = th->regs;
    for (size_t i = 0; i < n_words; i++)
        if (!written_reread(&wt->w, wt->p->mem_fd, words[i])) {
            stopped(wt, k, "%s", "wrote memory mdat could not read back");
            return false;
        }
    wt->out->stored = wt->out->stored || stores;
    wt->out->instructions++;
    return true;
}

static bool round_of_steps(struct watch *wt)
{
    for (size_t k = 0; k < wt->n; k++)
        if (!step_one(wt, k))
            return false;
    return true;
}

/* ---- the window ---- */

/* No thread may start inside a restartable sequence: the kernel moves its
 * pc when it is preempted there. */
static bool outside_rseq(struct watch *wt)
{
    for (size_t i = 0; i < wt->mem.n_rseq; i++) {
        uint64_t cs = 0;
        if (!tracee_read(wt->p->mem_fd, wt->mem.rseq[i][0] + 8, &cs, sizeof cs) || cs != 0) {
            wt->out->end = FWATCH_STOPPED;
            snprintf(wt->out->why, sizeof wt->out->why, "a thread is inside a restartable sequence (rseq)");
            return false;
        }
    }
    return true;
}

/* Brent's cycle search: the state at the end of each round against the
 * one saved; a new one saved when the distance reaches a power of two. */
static void search(struct watch *wt, uint64_t deadline)
{
    unsigned long power = 1, distance = 0;
    if (!save_state(wt)) {
        stopped(wt, 0, "%s", "could not be read (its vector registers)");
        return;
    }
    while (monotonic_ns() < deadline) {
        if (!round_of_steps(wt))
            return;
        distance++;
        if (same_as_saved(wt)) {
            wt->out->end = FWATCH_CYCLE;
            wt->out->period = distance * wt->n;
            return;
        }
        if (distance == power) {
            if (!save_state(wt)) {
                stopped(wt, 0, "%s", "could not be read (its vector registers)");
                return;
            }
            power *= 2;
            distance = 0;
        }
    }
    wt->out->end = FWATCH_NO_REPEAT;
}

/* Runs the cycle found once more, collecting the pcs it runs; it must
 * come back to the same state (saved again here) in as many rounds, or
 * something outside changed it and there is no verdict. */
static void run_cycle_again(struct watch *wt, uint64_t deadline)
{
    unsigned long rounds = wt->out->period / wt->n;
    if (!save_state(wt)) {
        stopped(wt, 0, "%s", "could not be read (its vector registers)");
        return;
    }
    wt->recording = true;
    for (unsigned long i = 0; i < rounds; i++) {
        if (monotonic_ns() >= deadline) {
            wt->out->end = FWATCH_NO_REPEAT;
            return;
        }
        if (!round_of_steps(wt))
            return;
    }
    if (!same_as_saved(wt)) {
        wt->out->end = FWATCH_STOPPED;
        snprintf(wt->out->why, sizeof wt->out->why, "the cycle did not repeat: something outside the watched "
                 "threads changed their state");
    }
}

static void watch_free(struct watch *wt)
{
    watch_memory_free(&wt->mem);
    written_free(&wt->w);
    for (size_t k = 0; k < FOREIGN_WATCH_MAX_THREADS; k++) {
        free(wt->saved.xstate[k]);
        free(wt->xstate_now[k]);
    }
    free(wt->saved.values);
    free(wt->cache);
    x86_decoder_free(wt->decoder);
}

bool foreign_watch_threads(struct foreign_process *p, const size_t *index, size_t n, int window_ms,
                           struct foreign_watch *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || n > FOREIGN_WATCH_MAX_THREADS || p->mem_fd < 0) {
        snprintf(err, errlen, n ? "too many running threads to watch (%zu; at most %d)" : "no thread to watch", n,
                 FOREIGN_WATCH_MAX_THREADS);
        return false;
    }
    struct watch wt = {.p = p, .n = n, .out = out};
    pid_t tids[FOREIGN_WATCH_MAX_THREADS];
    for (size_t k = 0; k < n; k++) {
        wt.th[k].t = &p->threads[index[k]];
        wt.th[k].number = foreign_thread_number(p, wt.th[k].t->tid);
        wt.th[k].regs = wt.th[k].t->regs;
        tids[k] = wt.th[k].t->tid;
    }
    wt.decoder = x86_decoder_new();
    wt.cache = calloc(INSN_CACHE, sizeof *wt.cache);
    if (!wt.decoder || !wt.cache || !watch_memory_read(p->proc_tid, tids, n, &wt.mem)) {
        snprintf(err, errlen, "cannot watch the running threads: out of memory, or the maps unreadable");
        watch_free(&wt);
        return false;
    }
    uint64_t start = monotonic_ns(), window = (uint64_t)window_ms * 1000000u;
    if (outside_rseq(&wt))
        search(&wt, start + window);
    if (out->end == FWATCH_CYCLE)
        run_cycle_again(&wt, monotonic_ns() + window);
    watch_free(&wt);
    return true;
}
