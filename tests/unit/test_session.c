/* Unit tests for the session behind `mdat attach` (supervisor/explore/session.h),
 * without a terminal: a scripted frontend plays a person, command by
 * command, and checks the view it is handed each time. The sessions run
 * real executions of programs from tests/targets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/explore/session.h"

#define TARGET(name) TARGET_DIR "/" name

/* What the frontend saw when asked. */
struct seen {
    enum session_ask ask;
    uint64_t step, reach;
    char mode[48];
    int recorded_next;
    int waker;
    int candidates[8];
    size_t n_candidates;
    char notice[512];
    bool unsaved;
    struct exec_state *state;
    bool had_previous;
    size_t n_events;
    uint64_t last_event_step;
    char output[256];
};

/* A person acting from a script: each call records the view and answers
 * with the next command. */
struct script {
    const struct session_command *commands;
    size_t n, next;
    struct seen seen[64];
    size_t n_seen;
};

static void script_decide(void *ctx, const struct session_view *v, struct session_command *cmd)
{
    struct script *sc = ctx;
    assert_true(sc->n_seen < 64);
    struct seen *s = &sc->seen[sc->n_seen++];
    s->ask = v->ask;
    s->step = v->step;
    s->reach = v->reach;
    snprintf(s->mode, sizeof s->mode, "%s", v->mode);
    s->recorded_next = v->recorded_next;
    s->waker = v->waker;
    s->n_candidates = v->n_candidates < 8 ? v->n_candidates : 8;
    if (s->n_candidates > 0)
        memcpy(s->candidates, v->candidates, (size_t)s->n_candidates * sizeof(int));
    snprintf(s->notice, sizeof s->notice, "%s", v->notice);
    s->unsaved = v->unsaved;
    s->state = v->state ? exec_state_copy(v->state) : NULL;
    s->had_previous = v->previous != NULL;
    s->n_events = v->n_events;
    s->last_event_step = v->n_events ? v->events[v->n_events - 1].step : 0;
    snprintf(s->output, sizeof s->output, "%.*s", (int)v->output_len, v->output);
    if (getenv("SESSION_TEST_VERBOSE"))
        fprintf(stderr, "  asked %d at step %llu of %llu (%s) next %d notice '%s'\n", v->ask,
                (unsigned long long)v->step, (unsigned long long)v->reach, v->mode, v->recorded_next, v->notice);
    if (sc->next < sc->n)
        *cmd = sc->commands[sc->next++];
    else
        cmd->verb = SV_QUIT;
}

static void script_free(struct script *sc)
{
    for (size_t i = 0; i < sc->n_seen; i++)
        exec_state_free(sc->seen[i].state);
}

static struct session *open_program(const char *path, const char *replay)
{
    char *argv[] = {(char *)path, NULL};
    struct session_options opt = {.argv = replay ? NULL : argv, .argc = replay ? 0 : 1, .replay_file = replay};
    char err[512];
    struct session *s = session_open(&opt, err, sizeof err);
    if (!s)
        fail_msg("session_open: %s", err);
    return s;
}

static void run_script(struct session *s, struct script *sc)
{
    struct session_frontend fe = {script_decide, NULL, sc};
    char err[512];
    if (!session_run(s, &fe, err, sizeof err))
        fail_msg("session_run: %s", err);
}

#define STEP(t) {.verb = SV_STEP, .thread = (t)}
#define GOTO(n) {.verb = SV_GOTO, .step = (n)}

static const struct state_thread *thread_of(const struct exec_state *st, int id)
{
    for (int i = 0; st && i < st->n_threads; i++)
        if (st->threads[i].id == id)
            return &st->threads[i];
    fail_msg("no thread T%d", id);
    return NULL;
}

static const struct state_object *object_named(const struct exec_state *st, const char *name)
{
    for (int i = 0; st && i < st->n_objects; i++)
        if (strcmp(st->objects[i].name, name) == 0)
            return &st->objects[i];
    fail_msg("no object %s", name);
    return NULL;
}

/* Steps T1 three times (start, two creates), then T2, then goes back one
 * step and forward again: the views say where it stands each time. */
static void test_step_back_and_forward(void **state)
{
    (void)state;
    static const struct session_command cmds[] = {STEP(1), STEP(1), STEP(1), STEP(2), GOTO(3), GOTO(4), GOTO(0)};
    struct script sc = {cmds, sizeof cmds / sizeof cmds[0]};
    struct session *s = open_program(TARGET("deadlock_lock_order"), NULL);
    run_script(s, &sc);
    session_close(s);

    assert_int_equal(sc.n_seen, 8);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(sc.seen[i].ask, ASK_THREAD);
        assert_int_equal(sc.seen[i].step, i);
        assert_string_equal(sc.seen[i].mode, "live");
    }
    assert_false(sc.seen[0].had_previous);
    assert_true(sc.seen[1].had_previous);
    /* After T1 created both threads, all three can run. */
    assert_int_equal(sc.seen[3].n_candidates, 3);
    assert_int_equal(thread_of(sc.seen[3].state, 2)->status, THREAD_READY);
    /* T2 ran its start: step 4, T2 running. */
    assert_int_equal(thread_of(sc.seen[4].state, 2)->status, THREAD_RUNNING);
    assert_string_equal(thread_of(sc.seen[4].state, 2)->next.op, "lock");
    assert_int_equal(sc.seen[4].last_event_step, 4);
    /* Back to step 3 by re-execution: the same picture as the first time,
     * the path still knows step 4, and its next choice is T2. */
    assert_int_equal(sc.seen[5].step, 3);
    assert_int_equal(sc.seen[5].reach, 4);
    assert_string_equal(sc.seen[5].mode, "replaying");
    assert_int_equal(sc.seen[5].recorded_next, 2);
    assert_true(exec_state_same_picture(sc.seen[5].state, sc.seen[3].state));
    assert_int_equal(sc.seen[5].n_events, 3);
    /* Forward along the recording, then back to the start. */
    assert_int_equal(sc.seen[6].step, 4);
    assert_true(exec_state_same_picture(sc.seen[6].state, sc.seen[4].state));
    assert_int_equal(sc.seen[7].step, 0);
    assert_int_equal(sc.seen[7].n_events, 0);
    script_free(&sc);
}

/* The deadlock by hand: T1 creates both threads, T2 takes lock_a, T3
 * takes lock_b, each then waits for the other's, and T1 joins T2. */
static const struct session_command deadlock_cmds[] = {
    STEP(1), STEP(1), STEP(1), STEP(2), STEP(2), STEP(3), STEP(3), STEP(2), STEP(3), STEP(1),
};
enum { DEADLOCK_STEPS = 10 };

static void test_deadlock_by_hand_save_and_replay(void **state)
{
    (void)state;
    char file[] = "/tmp/mdat-session-XXXXXX";
    int fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);

    struct session_command cmds[16];
    size_t n = 0;
    for (size_t i = 0; i < DEADLOCK_STEPS; i++)
        cmds[n++] = deadlock_cmds[i];
    cmds[n++] = (struct session_command)STEP(2);                   /* refused: it has ended */
    cmds[n++] = (struct session_command)GOTO(DEADLOCK_STEPS - 1);  /* back one step */
    cmds[n] = (struct session_command){.verb = SV_SAVE};
    snprintf(cmds[n++].text, sizeof cmds[0].text, "%s", file);
    struct script sc = {cmds, n};
    struct session *s = open_program(TARGET("deadlock_lock_order"), NULL);
    run_script(s, &sc);
    session_close(s);

    assert_int_equal(sc.n_seen, DEADLOCK_STEPS + 4);
    const struct seen *end = &sc.seen[DEADLOCK_STEPS];
    assert_int_equal(end->ask, ASK_ENDED);
    assert_string_equal(end->mode, "deadlock");
    assert_int_equal(end->step, DEADLOCK_STEPS);
    assert_true(end->unsaved);
    assert_int_equal(object_named(end->state, "lock_a")->holder, 2);
    assert_int_equal(object_named(end->state, "lock_b")->holder, 3);
    assert_int_equal(thread_of(end->state, 2)->status, THREAD_WAITING_LOCK);
    assert_int_equal(thread_of(end->state, 1)->status, THREAD_WAITING_JOIN);
    /* A step after the end is refused with a reason. */
    assert_int_equal(sc.seen[DEADLOCK_STEPS + 1].ask, ASK_ENDED);
    assert_non_null(strstr(sc.seen[DEADLOCK_STEPS + 1].notice, "ended"));
    /* One step back: T1 has not joined yet, the end is still known. */
    const struct seen *back = &sc.seen[DEADLOCK_STEPS + 2];
    assert_int_equal(back->ask, ASK_THREAD);
    assert_int_equal(back->step, DEADLOCK_STEPS - 1);
    assert_int_equal(back->reach, DEADLOCK_STEPS);
    assert_int_equal(back->recorded_next, 1);
    assert_int_equal(thread_of(back->state, 1)->status, THREAD_READY);
    const struct seen *saved = &sc.seen[DEADLOCK_STEPS + 3];
    assert_false(saved->unsaved);
    assert_non_null(strstr(saved->notice, "saved"));

    struct schedule sched;
    char err[256];
    assert_true(schedule_read(file, &sched, err, sizeof err));
    assert_string_equal(sched.failure, "deadlock");
    assert_int_equal(sched.steps, DEADLOCK_STEPS);
    assert_true(sched.choices.n >= 5);
    schedule_free(&sched);
    script_free(&sc);

    /* Opened again: replaying from step 0; End goes to the deadlock. */
    static const struct session_command replay_cmds[] = {GOTO(1000)};
    struct script rc = {replay_cmds, 1};
    s = open_program(TARGET("deadlock_lock_order"), file);
    run_script(s, &rc);
    session_close(s);
    assert_int_equal(rc.n_seen, 2);
    assert_string_equal(rc.seen[0].mode, "replaying");
    assert_int_equal(rc.seen[0].reach, DEADLOCK_STEPS);
    assert_int_equal(rc.seen[0].recorded_next, 1);
    assert_false(rc.seen[0].unsaved);
    assert_int_equal(rc.seen[1].ask, ASK_ENDED);
    assert_string_equal(rc.seen[1].mode, "deadlock");
    assert_int_equal(rc.seen[1].step, DEADLOCK_STEPS);
    script_free(&rc);
    if (getenv("SESSION_TEST_KEEP"))
        fprintf(stderr, "kept %s\n", file);
    else
        unlink(file);
}

/* --memory-model tso, the store-buffering litmus test by hand: each
 * thread's store waits in its buffer (shown in the state, oldest first)
 * while both read 0; "flush T3" (-3) commits T3's store; the rest runs to
 * the assertion. Stepping back finds the flush on the path, the saved
 * schedule says tso and holds it, and it reopens under tso only. */
static void test_tso_buffers_flush_save_and_replay(void **state)
{
    (void)state;
    char file[] = "/tmp/mdat-session-XXXXXX";
    int fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    struct session_command cmds[] = {
        STEP(1), STEP(1), STEP(1), STEP(2), STEP(2), STEP(2), STEP(3), STEP(3), STEP(3),
        STEP(-1),                                   /* refused: T1 has nothing buffered */
        {.verb = SV_RUN, .thread = -2},             /* refused: a buffer does not run */
        STEP(-3),
        {.verb = SV_CONTINUE, .text = "random"},
        GOTO(9), GOTO(1000), {.verb = SV_SAVE},
    };
    size_t n = sizeof cmds / sizeof cmds[0];
    snprintf(cmds[n - 1].text, sizeof cmds[0].text, "%s", file);
    char *argv[] = {TARGET("tso_store_buffering"), NULL};
    struct session_options opt = {.argv = argv, .argc = 1, .tso = true, .memory_model_given = true};
    char err[512];
    struct session *s = session_open(&opt, err, sizeof err);
    if (!s)
        fail_msg("session_open: %s", err);
    struct script sc = {cmds, n};
    run_script(s, &sc);
    session_close(s);

    assert_int_equal(sc.n_seen, n + 1);
    const struct seen *both_read = &sc.seen[9];
    assert_int_equal(both_read->step, 9);
    bool flush2 = false, flush3 = false;
    for (size_t i = 0; i < both_read->n_candidates; i++) {
        flush2 |= both_read->candidates[i] == -2;
        flush3 |= both_read->candidates[i] == -3;
    }
    assert_true(flush2 && flush3);
    const struct state_thread *t2 = thread_of(both_read->state, 2), *t3 = thread_of(both_read->state, 3);
    assert_int_equal(t2->n_pending, 1);
    assert_string_equal(t2->pending[0].object, "x");
    assert_int_equal(t2->pending[0].value, 1);
    assert_int_equal(t2->pending[0].size, 4);
    assert_string_equal(t2->pending[0].where, "store_buffering.c:21");
    assert_int_equal(t3->n_pending, 1);
    assert_string_equal(t3->pending[0].object, "y");
    assert_int_equal(thread_of(both_read->state, 1)->n_pending, 0);
    assert_non_null(strstr(sc.seen[10].notice, "T1 has no buffered store to flush"));
    assert_int_equal(sc.seen[11].step, 9);
    assert_non_null(strstr(sc.seen[11].notice, "a store buffer does not run"));
    const struct seen *flushed = &sc.seen[12];
    assert_int_equal(flushed->step, 10);
    assert_int_equal(flushed->last_event_step, 10);
    assert_int_equal(thread_of(flushed->state, 3)->n_pending, 0);
    assert_int_equal(thread_of(flushed->state, 2)->n_pending, 1);
    assert_int_equal(sc.seen[13].ask, ASK_ENDED);
    assert_string_equal(sc.seen[13].mode, "assertion");
    uint64_t end = sc.seen[13].step;
    /* Back before the flush: the path flushes T3 next. */
    assert_int_equal(sc.seen[14].step, 9);
    assert_int_equal(sc.seen[14].recorded_next, -3);
    assert_int_equal(sc.seen[15].ask, ASK_ENDED);
    assert_int_equal(sc.seen[15].step, end);
    assert_non_null(strstr(sc.seen[16].notice, "saved"));
    script_free(&sc);

    struct schedule sched;
    assert_true(schedule_read(file, &sched, err, sizeof err));
    assert_true(sched.tso);
    assert_string_equal(sched.failure, "assertion");
    bool has_flush = false;
    for (size_t i = 0; i < sched.choices.n; i++)
        has_flush |= choice_list_at(&sched.choices, i).step == 9 && choice_list_at(&sched.choices, i).thread == -3;
    assert_true(has_flush);
    schedule_free(&sched);

    /* Reopened without --memory-model: under tso, to the same end. */
    static const struct session_command replay_cmds[] = {GOTO(1000)};
    struct script rc = {replay_cmds, 1};
    s = open_program(TARGET("tso_store_buffering"), file);
    run_script(s, &rc);
    session_close(s);
    assert_int_equal(rc.n_seen, 2);
    assert_string_equal(rc.seen[1].mode, "assertion");
    assert_int_equal(rc.seen[1].step, end);
    script_free(&rc);
    /* With the other model, refused. */
    struct session_options sc_opt = {.replay_file = file, .memory_model_given = true};
    assert_null(session_open(&sc_opt, err, sizeof err));
    assert_non_null(strstr(err, "recorded with --memory-model tso"));
    unlink(file);
}

/* A thread that cannot run is refused with its reason, and the question
 * is asked again at the same step. */
static void test_refused_step(void **state)
{
    (void)state;
    static const struct session_command cmds[] = {STEP(2), STEP(1)};
    struct script sc = {cmds, 2};
    struct session *s = open_program(TARGET("deadlock_lock_order"), NULL);
    run_script(s, &sc);
    session_close(s);
    assert_int_equal(sc.n_seen, 3);
    assert_int_equal(sc.seen[1].step, 0);
    assert_non_null(strstr(sc.seen[1].notice, "no thread T2"));
    assert_int_equal(sc.seen[2].step, 1);
    script_free(&sc);
}

/* Both workers wait on the semaphore; main's post asks which waiter wakes. */
static void test_waiter_choice(void **state)
{
    (void)state;
    /* T1: start, create, create; T2 and T3 start and block in sem_wait; T1 posts. */
    static const struct session_command cmds[] = {
        STEP(1), STEP(1), STEP(1), STEP(2), STEP(2), STEP(3), STEP(3), STEP(1), STEP(3),
        {.verb = SV_CONTINUE, .text = "random"},
    };
    struct script sc = {cmds, sizeof cmds / sizeof cmds[0]};
    struct session *s = open_program(TARGET("wake_choice"), NULL);
    run_script(s, &sc);
    session_close(s);
    size_t w = 0;
    while (w < sc.n_seen && sc.seen[w].ask != ASK_WAITER)
        w++;
    assert_true(w < sc.n_seen);
    assert_int_equal(sc.seen[w].waker, 1);
    assert_int_equal(sc.seen[w].n_candidates, 2);
    assert_int_equal(sc.seen[w].candidates[0], 2);
    assert_int_equal(sc.seen[w].candidates[1], 3);
    /* T3 woke: the program says so at its end. */
    const struct seen *end = &sc.seen[sc.n_seen - 1];
    assert_int_equal(end->ask, ASK_ENDED);
    assert_string_equal(end->mode, "exited 0");
    assert_non_null(strstr(end->output, "woken first: worker 2"));
    script_free(&sc);
}

/* Run a thread until it blocks: T2 takes lock_a and lock_b and runs on
 * through the loop; stopped by T3 holding lock_b. */
static void test_run_until_blocked(void **state)
{
    (void)state;
    static const struct session_command cmds[] = {
        STEP(1), STEP(1), STEP(1), STEP(3), STEP(3), {.verb = SV_RUN, .thread = 2},
    };
    struct script sc = {cmds, sizeof cmds / sizeof cmds[0]};
    struct session *s = open_program(TARGET("deadlock_lock_order"), NULL);
    run_script(s, &sc);
    session_close(s);
    const struct seen *after = &sc.seen[6];
    assert_int_equal(after->ask, ASK_THREAD);
    assert_int_equal(thread_of(after->state, 2)->status, THREAD_WAITING_LOCK);
    assert_non_null(strstr(after->notice, "T2 blocked"));
    script_free(&sc);
}

/* A breakpoint stops a run when a thread comes to its line; a new watch
 * re-executes to the same step and is listed from then on. */
static void test_breakpoint_and_watch(void **state)
{
    (void)state;
    struct session_command cmds[] = {
        STEP(1), STEP(1), STEP(1), STEP(2),
        {.verb = SV_BREAK_TOGGLE, .text = "deadlock_lock_order.c", .line = 31},
        {.verb = SV_RUN, .thread = 2},
        {.verb = SV_WATCH_ADD, .text = "shared"},
        {.verb = SV_BREAK_TOGGLE, .text = "deadlock_lock_order.c", .line = 31},
    };
    struct script sc = {cmds, sizeof cmds / sizeof cmds[0]};
    struct session *s = open_program(TARGET("deadlock_lock_order"), NULL);
    run_script(s, &sc);
    session_close(s);
    assert_int_equal(sc.n_seen, 9);
    assert_non_null(strstr(sc.seen[5].notice, "breakpoint at deadlock_lock_order.c:31"));
    /* T2: lock lock_a, lock lock_b, and its next operation is on line 31. */
    const struct seen *hit = &sc.seen[6];
    assert_int_equal(hit->step, 6);
    assert_non_null(strstr(hit->notice, "T2 reached breakpoint deadlock_lock_order.c:31"));
    assert_int_equal(thread_of(hit->state, 2)->next.line, 31);
    const struct seen *watched = &sc.seen[7];
    assert_int_equal(watched->step, 6);
    assert_non_null(strstr(watched->notice, "watching shared"));
    assert_true(exec_state_same_picture(watched->state, hit->state) || watched->state->n_watches == 1);
    assert_non_null(strstr(sc.seen[8].notice, "removed"));
    script_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_back_and_forward),
        cmocka_unit_test(test_deadlock_by_hand_save_and_replay),
        cmocka_unit_test(test_refused_step),
        cmocka_unit_test(test_tso_buffers_flush_save_and_replay),
        cmocka_unit_test(test_waiter_choice),
        cmocka_unit_test(test_run_until_blocked),
        cmocka_unit_test(test_breakpoint_and_watch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
