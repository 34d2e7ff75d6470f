/* virtual_clock: time under mdat is a function of the schedule.
 *
 * Owns the answers to the vDSO's time, gettimeofday and clock_gettime (the
 * calls go there through libc, and reach mdat as breakpoints) and what the
 * sleeps do to the clock. A program that seeds rand() with time() or times
 * its work then replays exactly. */
#include "supervisor/engine/exec_engine.h"

#include <sys/syscall.h>

/* Time under mdat is a function of the schedule, so that a program that
 * reads the clock (srand(time(NULL)), timestamps) replays exactly: it starts
 * at 2026-01-01 00:00:00 UTC, and moves 1 ms per visible step, per reading
 * (so that a loop waiting for time to pass ends) and by what each sleep
 * asked for. */
enum { CLOCK_STEP_NS = 1000000 };
static const uint64_t CLOCK_EPOCH_NS = 1767225600ull * 1000000000ull;
static const uint64_t CLOCK_BOOT_NS = 1000ull * 1000000000ull;

static uint64_t virtual_ns(struct execution *ex)
{
    return (ex->steps + ex->clock_reads) * CLOCK_STEP_NS + ex->clock_slept_ns;
}

/* Answers a call of the vDSO's clock_gettime, gettimeofday or time from
 * the virtual clock and returns from it; false to let the real one run
 * (clocks mdat does not virtualise: CPU time). */
bool exec_answer_clock(struct execution *ex, struct mthread *t, enum model_fn fn, uint64_t ret)
{
    uint64_t now = virtual_ns(ex);
    struct user_regs_struct *r = &t->regs;
    int64_t result = 0;
    if (fn == MF_CLOCK_GETTIME) {
        uint64_t base;
        switch ((int)r->rdi) {
        case 0: case 5: case 11:        /* REALTIME, REALTIME_COARSE, TAI */
            base = CLOCK_EPOCH_NS;
            break;
        case 1: case 4: case 6: case 7: /* MONOTONIC, _RAW, _COARSE, BOOTTIME */
            base = CLOCK_BOOT_NS;
            break;
        default:
            return false;
        }
        int64_t ts[2] = {(int64_t)((base + now) / 1000000000u), (int64_t)((base + now) % 1000000000u)};
        if (!r->rsi || !tracee_write_as_program(ex->vm_pid, r->rsi, ts, sizeof ts))
            return false;
    } else if (fn == MF_GETTIMEOFDAY) {
        uint64_t t_ns = CLOCK_EPOCH_NS + now;
        int64_t tv[2] = {(int64_t)(t_ns / 1000000000u), (int64_t)(t_ns % 1000000000u / 1000u)};
        if (r->rdi && !tracee_write_as_program(ex->vm_pid, r->rdi, tv, sizeof tv))
            return false;
        int32_t tz[2] = {0, 0};
        if (r->rsi && !tracee_write_as_program(ex->vm_pid, r->rsi, tz, sizeof tz))
            return false;
    } else {
        result = (int64_t)((CLOCK_EPOCH_NS + now) / 1000000000u);
        if (r->rdi && !tracee_write_as_program(ex->vm_pid, r->rdi, &result, sizeof result))
            return false;
    }
    ex->clock_reads++;
    /* Return to the caller as the function would have. */
    r->rax = (uint64_t)result;
    r->rip = ret;
    r->rsp += 8;
    t->stop = STOP_PLAIN;
    t->regs_dirty = false;
    return tracee_set_regs(t->tid, r);
}

/* A sleep returns at once under mdat; the virtual clock moves on by what
 * it asked for. */
void exec_clock_sleeps(struct execution *ex, struct mthread *t)
{
    int64_t req[2];
    uint64_t at = t->regs.orig_rax == SYS_nanosleep ? t->regs.rdi : t->regs.rdx;
    if (!at || !tracee_read(ex->mem_fd, at, req, sizeof req) || req[0] < 0 || req[1] < 0)
        return;
    uint64_t ns = (uint64_t)req[0] * 1000000000u + (uint64_t)req[1];
    if (t->regs.orig_rax == SYS_clock_nanosleep && (t->regs.rsi & 1 /* TIMER_ABSTIME */)) {
        uint64_t base = (int)t->regs.rdi == 0 ? CLOCK_EPOCH_NS : CLOCK_BOOT_NS;
        uint64_t now = base + virtual_ns(ex);
        ns = ns > now ? ns - now : 0;
    }
    if (ns < (uint64_t)1 << 62)
        ex->clock_slept_ns += ns;
}

