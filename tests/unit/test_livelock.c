/* Unit tests for supervisor/engine/livelock: the step a livelock is declared
 * at depends only on which states of the execution are equal, never on
 * values that differ from run to run but stay put within one. A replay runs
 * the same schedule with other kernel thread ids; a thread blocked in
 * pthread_join keeps the joined thread's id in a register for the whole
 * run. With a state table that forgot a state when another one hashed to
 * its slot, that id decided which states were forgotten, and a replay
 * declared the livelock at another step than its run (or never). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "supervisor/engine/exec_core.h"
#include "supervisor/engine/livelock.h"

/* The memory outside what visible steps wrote: the same throughout, or
 * moving on at every step (a counter on a page one thread owns). */
static bool unseen_memory_moves;

static bool fake_digest(const struct execution *ex, uint64_t *out)
{
    *out = unseen_memory_moves ? ex->steps : 42;
    return true;
}

/* Two threads: T1 blocked in a join, holding `tid` in rdx; T2 runnable,
 * stepping through states_before unique states, then round a cycle of
 * cycle states for ever. Returns the step the livelock is declared at (0:
 * not within max_steps). */
static uint64_t livelock_step(uint64_t tid, uint64_t states_before, uint64_t cycle, uint64_t max_steps)
{
    struct execution *ex = calloc(1, sizeof *ex);
    struct mthread *threads = calloc(2, sizeof *threads);
    assert_non_null(ex);
    assert_non_null(threads);
    threads[0] = (struct mthread){.id = 1, .state = TS_BLOCKED};
    threads[0].regs.rdx = tid;
    threads[0].regs.rip = 0x7ffff48a3f16;
    threads[1] = (struct mthread){.id = 2, .state = TS_RUNNABLE};
    ex->threads = threads;
    ex->n_threads = 2;
    struct livelock l;
    livelock_init(&l);
    l.digest = fake_digest;
    livelock_touch(&l, 1);
    uint64_t declared = 0;
    for (uint64_t step = 1; step <= max_steps && !declared; step++) {
        uint64_t state = step <= states_before ? step : states_before + 1 + (step - states_before) % cycle;
        threads[1].regs.rip = 0x555555555000 + state % 64;
        threads[1].regs.rax = state;
        livelock_note_write(&l, 0x555555558010, 4, state % 3);
        ex->steps = step;
        if (livelock_after_step(&l, ex, 2))
            declared = step;
    }
    livelock_free(&l);
    free(threads);
    free(ex);
    return declared;
}

/* The cycle is entered after `before` steps; its states repeat from one
 * cycle later; half a window in, the state and memory are taken as
 * reference, and the verdict comes at the first visit of that state again
 * once LIVELOCK_WINDOW steps have repeated. */
static void declared_after_window_whatever_the_tid(void **state)
{
    (void)state;
    unseen_memory_moves = false;
    const uint64_t before = 500, cycle = 3000;
    uint64_t reference = before + cycle + LIVELOCK_WINDOW / 2;
    uint64_t expected = reference + cycle * ((LIVELOCK_WINDOW / 2 + cycle - 1) / cycle);
    for (uint64_t tid = 4500; tid < 4560; tid++)
        assert_int_equal(livelock_step(tid, before, cycle, 40000), expected);
}

static void progress_is_no_livelock(void **state)
{
    (void)state;
    unseen_memory_moves = false;
    assert_int_equal(livelock_step(4500, 60000, 1, 60000), 0);
}

/* The same cycle of registers and visible writes, while memory no step
 * shows moves on (late_sharing.c's counter under a lock on a page the
 * lock hands over): no livelock, however long. */
static void unseen_progress_is_no_livelock(void **state)
{
    (void)state;
    unseen_memory_moves = true;
    assert_int_equal(livelock_step(4500, 500, 3000, 100000), 0);
    unseen_memory_moves = false;
}

/* A cycle longer than the steps kept is not seen as one: no false verdict,
 * only a late or missing one. */
static void cycle_longer_than_memory_is_not_judged(void **state)
{
    (void)state;
    unseen_memory_moves = false;
    assert_int_equal(livelock_step(4500, 10, 70000, 150000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(declared_after_window_whatever_the_tid),
        cmocka_unit_test(progress_is_no_livelock),
        cmocka_unit_test(unseen_progress_is_no_livelock),
        cmocka_unit_test(cycle_longer_than_memory_is_not_judged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
