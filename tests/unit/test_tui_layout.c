/* Unit tests for the TUI's layout and screen model (ui/tui/tui_layout.h,
 * ui/tui/tui_screen.h, ui/tui/tui_theme.h), without a terminal: pane rectangles at
 * 80x24, 120x40 and 200x60 and below the minimum, the source window around
 * the selected line, the gutter marks, which rows are marked changed, the
 * status line, the cursor, ASCII fallback and the theme chosen for
 * NO_COLOR and TERM=dumb. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ui/tui/tui_layout.h"
#include "ui/tui/tui_screen.h"
#include "ui/tui/tui_theme.h"

static const struct tui_layout_needs TYPICAL = {.thread_rows = 4, .object_rows = 2, .log_rows = 10};

static bool overlap(const struct tui_rect *a, const struct tui_rect *b)
{
    if (!a->h || !b->h)
        return false;
    return a->y < b->y + b->h && b->y < a->y + a->h && a->x < b->x + b->w && b->x < a->x + a->w;
}

/* Every pane inside the screen between status and hint, none overlapping. */
static void check_panes(const struct tui_layout *l, int cols, int rows)
{
    const struct tui_rect *panes[] = {&l->source, &l->threads, &l->objects, &l->story, &l->log, &l->output,
                                      &l->message};
    assert_int_equal(l->status.y, 0);
    assert_int_equal(l->hint.y, rows - 1);
    for (size_t i = 0; i < 7; i++) {
        const struct tui_rect *p = panes[i];
        if (!p->h)
            continue;
        assert_true(p->y >= 1 && p->y + p->h <= rows - 1);
        assert_true(p->x >= 0 && p->x + p->w <= cols);
        for (size_t j = i + 1; j < 7; j++)
            assert_false(overlap(p, panes[j]));
    }
}

static void test_layout_80x24(void **state)
{
    (void)state;
    struct tui_layout l;
    tui_layout_compute(80, 24, &TYPICAL, &l);
    assert_false(l.too_small);
    assert_false(l.wide);
    check_panes(&l, 80, 24);
    /* One column: every pane the full width, stacked with no row lost. */
    assert_int_equal(l.source.w, 80);
    assert_int_equal(l.threads.w, 80);
    assert_int_equal(l.source.h + l.threads.h + l.objects.h + l.log.h, 22);
    /* The threads table and objects fit whole; the log keeps six lines
     * (the story of a failure), the source a fair window. */
    assert_int_equal(tui_rect_content(&l.threads), 4);
    assert_int_equal(tui_rect_content(&l.objects), 2);
    assert_true(tui_rect_content(&l.source) >= 6);
    assert_true(tui_rect_content(&l.log) >= 6);
    assert_int_equal(l.output.h, 0);

    /* A message line takes a row; the output pane, when shown, another pane. */
    struct tui_layout_needs n = TYPICAL;
    n.message = true;
    n.show_output = true;
    n.output_rows = 3;
    tui_layout_compute(80, 24, &n, &l);
    check_panes(&l, 80, 24);
    assert_int_equal(l.message.y, 22);
    assert_true(tui_rect_content(&l.output) >= 2);
    assert_true(tui_rect_content(&l.source) >= 3);
}

static void test_layout_many_threads_leave_room(void **state)
{
    (void)state;
    struct tui_layout_needs n = {.thread_rows = 101, .object_rows = 40, .log_rows = 1000};
    struct tui_layout l;
    tui_layout_compute(80, 24, &n, &l);
    check_panes(&l, 80, 24);
    assert_true(tui_rect_content(&l.source) >= 3);
    assert_true(l.threads.h <= 22 * 2 / 5);
    assert_true(tui_rect_content(&l.log) >= 6);
}

static void test_layout_120x40(void **state)
{
    (void)state;
    struct tui_layout l;
    tui_layout_compute(120, 40, &TYPICAL, &l);
    assert_false(l.too_small);
    assert_true(l.wide);
    check_panes(&l, 120, 40);
    /* Source on the left, tables on the right, the log under both the
     * full width of the screen, with room for all its 10 steps. */
    assert_int_equal(l.source.x, 0);
    assert_int_equal(l.log.x, 0);
    assert_int_equal(l.log.w, 120);
    assert_int_equal(l.log.y, l.source.y + l.source.h);
    assert_true(l.threads.x > l.source.w);
    assert_int_equal(l.source.w + 1 + l.threads.w, 120);
    assert_int_equal(l.source.h + l.log.h, 38);
    assert_int_equal(l.threads.h + l.objects.h, l.source.h);
    assert_int_equal(tui_rect_content(&l.log), 10);
    assert_true(tui_rect_content(&l.source) >= 20);
    /* A long log takes up to half the screen; the source keeps the rest. */
    struct tui_layout_needs n = TYPICAL;
    n.log_rows = 500;
    tui_layout_compute(120, 40, &n, &l);
    check_panes(&l, 120, 40);
    assert_int_equal(l.source.h, 19);
    assert_int_equal(l.log.h, 19);
    /* The story of a failure and the output (by itself) share what the tables leave. */
    n = TYPICAL;
    n.story_rows = 5;
    n.output_auto = true;
    n.output_rows = 2;
    tui_layout_compute(120, 40, &n, &l);
    check_panes(&l, 120, 40);
    assert_int_equal(tui_rect_content(&l.story), 5);
    assert_true(tui_rect_content(&l.output) >= 2);
    assert_int_equal(l.threads.h + l.objects.h + l.story.h + l.output.h, l.source.h);
    tui_layout_compute(80, 24, &n, &l);
    assert_int_equal(l.story.h, 0);
    assert_int_equal(l.output.h, 0);
}

static void test_layout_200x60(void **state)
{
    (void)state;
    struct tui_layout_needs n = TYPICAL;
    n.show_output = true;
    n.output_rows = 5;
    struct tui_layout l;
    tui_layout_compute(200, 60, &n, &l);
    assert_true(l.wide);
    check_panes(&l, 200, 60);
    assert_true(tui_rect_content(&l.output) >= 5);
    assert_true(tui_rect_content(&l.source) >= 30);
    assert_int_equal(l.threads.h + l.objects.h + l.output.h, l.source.h);
    assert_int_equal(l.source.h + l.log.h, 58);
}

static void test_layout_too_small(void **state)
{
    (void)state;
    struct tui_layout l;
    tui_layout_compute(79, 24, &TYPICAL, &l);
    assert_true(l.too_small);
    tui_layout_compute(80, 23, &TYPICAL, &l);
    assert_true(l.too_small);
    tui_layout_compute(1, 1, &TYPICAL, &l);
    assert_true(l.too_small);
    tui_layout_compute(0, 0, &TYPICAL, &l);
    assert_true(l.too_small);
}

static void test_source_window(void **state)
{
    (void)state;
    /* A third from the top, clamped to the file. */
    assert_int_equal(tui_source_first(100, 9, 50), 47);
    assert_int_equal(tui_source_first(100, 9, 2), 1);
    assert_int_equal(tui_source_first(100, 9, 99), 92);
    assert_int_equal(tui_source_first(5, 9, 3), 1);
    assert_int_equal(tui_source_first(100, 9, 0), 1);
    /* Lines 30..35 in 10 rows: centred. */
    assert_int_equal(tui_source_covering(100, 10, 30, 35), 28);
    assert_int_equal(tui_source_covering(100, 10, 1, 3), 1);
    /* The log's newest rows, scrolled back and clamped. */
    assert_int_equal(tui_tail_first(100, 10, 0), 90);
    assert_int_equal(tui_tail_first(100, 10, 15), 75);
    assert_int_equal(tui_tail_first(100, 10, 500), 0);
    assert_int_equal(tui_tail_first(3, 10, 0), 0);
}

/* ---------- the screen model ---------- */

/* A picture of deadlock_lock_order after T2 took lock_a (previous: before). */
struct picture {
    struct state_thread before_threads[3], now_threads[3];
    struct state_object before_objects[2], now_objects[2];
    int waiters[1];
    struct exec_state before, now;
    struct trace_event events[7];
    int candidates[3];
    struct session_view view;
    char source_dir[64], source_path[96];
    struct tui_source_cache cache;
    struct tui_ui ui;
};

static void set_thread(struct state_thread *t, int id, enum thread_status st, unsigned line, const char *op,
                       const char *object)
{
    memset(t, 0, sizeof *t);
    t->id = id;
    t->status = st;
    snprintf(t->start, sizeof t->start, "%s", id == 1 ? "main" : id == 2 ? "thread_one" : "thread_two");
    snprintf(t->location, sizeof t->location, "prog.c:%u %s", line, t->start);
    snprintf(t->next.op, sizeof t->next.op, "%s", op);
    snprintf(t->next.object, sizeof t->next.object, "%s", object);
    snprintf(t->next.file, sizeof t->next.file, "prog.c");
    t->next.line = line;
}

static void set_mutex(struct state_object *o, const char *name, uint64_t addr, int holder)
{
    memset(o, 0, sizeof *o);
    o->kind = SYNC_MUTEX;
    o->addr = addr;
    snprintf(o->name, sizeof o->name, "%s", name);
    o->holder = holder;
}

static void picture_init(struct picture *p)
{
    memset(p, 0, sizeof *p);
    set_thread(&p->before_threads[0], 1, THREAD_READY, 56, "join", "T2");
    set_thread(&p->before_threads[1], 2, THREAD_RUNNING, 29, "lock", "lock_a");
    set_thread(&p->before_threads[2], 3, THREAD_READY, 42, "lock", "lock_b");
    set_thread(&p->now_threads[0], 1, THREAD_READY, 56, "join", "T2");
    set_thread(&p->now_threads[1], 2, THREAD_RUNNING, 30, "lock", "lock_b");
    set_thread(&p->now_threads[2], 3, THREAD_READY, 42, "lock", "lock_b");
    set_mutex(&p->before_objects[0], "lock_a", 0x4010, 0);
    set_mutex(&p->before_objects[1], "lock_b", 0x4040, 0);
    set_mutex(&p->now_objects[0], "lock_a", 0x4010, 2);
    set_mutex(&p->now_objects[1], "lock_b", 0x4040, 0);
    p->before = (struct exec_state){.step = 4, .current = 2, .n_threads = 3, .threads = p->before_threads,
                                    .n_objects = 2, .objects = p->before_objects};
    p->now = (struct exec_state){.step = 5, .current = 2, .n_threads = 3, .threads = p->now_threads,
                                 .n_objects = 2, .objects = p->now_objects};
    for (int i = 0; i < 5; i++) {
        p->events[i].step = (uint64_t)i + 1;
        p->events[i].thread = i < 3 ? 1 : 2;
        snprintf(p->events[i].op, sizeof p->events[i].op, "%s", i == 4 ? "lock" : "start");
        snprintf(p->events[i].object, sizeof p->events[i].object, "%s", i == 4 ? "lock_a" : "x");
    }
    p->candidates[0] = 1;
    p->candidates[1] = 2;
    p->candidates[2] = 3;
    p->view = (struct session_view){
        .program = "/tmp/prog", .ask = ASK_THREAD, .candidates = p->candidates, .n_candidates = 3,
        .recorded_next = 2, .step = 5, .reach = 10, .mode = "replaying", .state = &p->now,
        .previous = &p->before, .events = p->events, .n_events = 5, .output = "", .notice = "",
        .schedule_file = "",
    };
    /* A 60-line prog.c. */
    snprintf(p->source_dir, sizeof p->source_dir, "/tmp/mdat-tui-test-XXXXXX");
    assert_non_null(mkdtemp(p->source_dir));
    snprintf(p->source_path, sizeof p->source_path, "%s/prog.c", p->source_dir);
    FILE *f = fopen(p->source_path, "w");
    assert_non_null(f);
    for (int i = 1; i <= 60; i++)
        fprintf(f, "line %d\tof the program\n", i);
    fclose(f);
    p->ui = (struct tui_ui){.selected = 2, .glyphs = &tui_glyphs_ascii, .message_cursor = -1};
    p->ui.source = tui_source_get(&p->cache, p->source_path);
    p->ui.source_line = 30;
}

static void picture_free(struct picture *p)
{
    tui_source_cache_free(&p->cache);
    unlink(p->source_path);
    rmdir(p->source_dir);
}

static const struct tui_row *row_of_thread(const struct tui_pane *pane, int id)
{
    for (int i = 0; i < pane->n_rows; i++)
        if (pane->rows[i].thread == id)
            return &pane->rows[i];
    fail_msg("no row for T%d", id);
    return NULL;
}

static const struct tui_row *row_containing(const struct tui_pane *pane, const char *text)
{
    for (int i = 0; i < pane->n_rows; i++)
        if (strstr(pane->rows[i].text, text))
            return &pane->rows[i];
    return NULL;
}

static void test_screen_changed_rows(void **state)
{
    (void)state;
    struct picture p;
    picture_init(&p);
    struct tui_screen s;
    tui_screen_init(&s);
    tui_screen_build(&s, 100, 30, &p.view, &p.ui);
    assert_false(s.layout.too_small);
    /* T2 moved on (and took lock_a); T1 and T3 did not change. */
    assert_true(row_of_thread(&s.threads, 2)->changed);
    assert_false(row_of_thread(&s.threads, 1)->changed);
    assert_false(row_of_thread(&s.threads, 3)->changed);
    assert_int_equal(row_of_thread(&s.threads, 2)->text[0], '*');
    assert_int_equal(row_of_thread(&s.threads, 1)->text[0], ' ');
    const struct tui_row *a = row_containing(&s.objects, "lock_a"), *b = row_containing(&s.objects, "lock_b");
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a->changed);
    assert_int_equal(a->style, TS_CHANGED);
    assert_non_null(strstr(a->text, "held by T2"));
    assert_false(b->changed);
    assert_non_null(strstr(b->text, "free"));
    /* Without a previous state nothing is marked. */
    p.view.previous = NULL;
    tui_screen_build(&s, 100, 30, &p.view, &p.ui);
    assert_false(row_of_thread(&s.threads, 2)->changed);
    assert_false(row_containing(&s.objects, "lock_a")->changed);
    tui_screen_free(&s);
    picture_free(&p);
}

static void test_screen_threads_table(void **state)
{
    (void)state;
    struct picture p;
    picture_init(&p);
    p.now_threads[0].status = THREAD_WAITING_JOIN;
    snprintf(p.now_threads[0].waiting_on, sizeof p.now_threads[0].waiting_on, "join T2");
    p.view.candidates = p.candidates + 1;
    p.view.n_candidates = 2;
    struct tui_screen s;
    tui_screen_init(&s);
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    const struct tui_row *t1 = row_of_thread(&s.threads, 1), *t2 = row_of_thread(&s.threads, 2);
    /* State in words and a symbol, what it waits on or does next, and the runnable ones styled so. */
    assert_non_null(strstr(t1->text, "# waiting-join"));
    assert_non_null(strstr(t1->text, "waits: join T2"));
    assert_int_equal(t1->style, TS_BLOCKED);
    assert_non_null(strstr(t2->text, "+ running"));
    assert_non_null(strstr(t2->text, "next: lock lock_b"));
    assert_non_null(strstr(t2->text, " line 30 thread_one "));    /* prog.c is the file shown */
    assert_int_equal(t2->style, TS_RUNNABLE);
    /* The selected thread carries the mark, and the cursor sits on its row. */
    assert_int_equal(t2->text[1], '>');
    assert_int_equal(s.cursor_y, s.layout.threads.y + 2 + 1);
    assert_non_null(strstr(s.threads.title, "2 can run"));
    tui_screen_free(&s);
    picture_free(&p);
}

/* --memory-model tso: a thread with buffered stores gets a row under its
 * own listing them, oldest first; a narrow pane drops their lines first,
 * then the last stores for "+N more"; the status line says tso. */
static void test_screen_store_buffers(void **state)
{
    (void)state;
    struct picture p;
    picture_init(&p);
    struct state_store stores[3] = {
        {.addr = 0x4010, .size = 4, .value = 1, .object = "flag[0]", .where = "prog.c:14"},
        {.addr = 0x4018, .size = 4, .value = 1, .object = "turn", .where = "prog.c:15"},
        {.addr = 0x4020, .size = 8, .value = 42, .object = "victim", .where = "other.c:7"},
    };
    p.now_threads[1].n_pending = 2;
    p.now_threads[1].pending = stores;
    int candidates[4] = {1, 2, 3, -2};
    p.view.candidates = candidates;
    p.view.n_candidates = 4;
    p.view.tso = true;
    struct tui_screen s;
    tui_screen_init(&s);
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    const struct tui_row *row = row_containing(&s.threads, "T2 buffer: ");
    assert_non_null(row);
    assert_non_null(strstr(row->text, "    T2 buffer: flag[0] := 1 (line 14), turn := 1 (line 15)"));
    assert_int_equal(row->thread, 2);
    assert_int_equal(row->style, TS_TEXT);      /* it can be flushed */
    /* Just under T2's row; the cursor stays on T2's. */
    assert_ptr_equal(row - 1, row_of_thread(&s.threads, 2));
    assert_int_equal(s.cursor_y, s.layout.threads.y + 2 + 1);
    assert_non_null(strstr(s.status.text, "| tso"));
    assert_null(row_containing(&s.threads, "T1 buffer"));
    tui_screen_free(&s);

    char text[256];
    p.now_threads[1].n_pending = 3;
    tui_buffer_text(&p.now_threads[1], "prog.c", 200, text, sizeof text);
    assert_string_equal(text, "T2 buffer: flag[0] := 1 (line 14), turn := 1 (line 15), victim := 42 (other.c:7)");
    tui_buffer_text(&p.now_threads[1], "prog.c", 50, text, sizeof text);
    assert_string_equal(text, "T2 buffer: flag[0] := 1, turn := 1, victim := 42");
    tui_buffer_text(&p.now_threads[1], "prog.c", 40, text, sizeof text);
    assert_string_equal(text, "T2 buffer: flag[0] := 1, +2 more");
    tui_buffer_text(&p.now_threads[0], "prog.c", 40, text, sizeof text);
    assert_string_equal(text, "");
    picture_free(&p);
}

/* The threads table in a narrow pane gives way column by column and keeps
 * "waiting on / next" whole: widths of the deadlock of deadlock_lock_order. */
static void test_threads_columns(void **state)
{
    (void)state;
    const struct tui_thread_widths w = {.mark = 2, .id = 2, .id_header = 6, .state = 14, .state_short = 7,
                                        .location = 18, .location_short = 8, .doing = 32};
    struct tui_thread_columns c;
    tui_threads_columns(80, 2, &w, &c);        /* 80x24: everything, as it is */
    assert_true(c.id_header && !c.state_short && !c.location_short && c.location);
    assert_int_equal(c.doing, 32);
    tui_threads_columns(70, 2, &w, &c);        /* the location's function goes first */
    assert_true(c.location_short && c.id_header && !c.state_short);
    assert_int_equal(c.doing, 32);
    tui_threads_columns(53, 2, &w, &c);        /* 120x40's right column: no location, short states */
    assert_true(c.id_header && c.state_short && !c.location);
    assert_int_equal(c.doing, 32);
    tui_threads_columns(40, 2, &w, &c);        /* only then is the last column cut, never below 12 */
    assert_false(c.location);
    assert_int_equal(c.doing, 40 - (2 + 2 + 2 + 2 + 7 + 2));
    tui_threads_columns(20, 2, &w, &c);
    assert_int_equal(c.doing, 12);
}

/* At 120x40 (the two-column layout) the threads' rows say what each waits
 * on in full; at 200x60 every column is there. */
static void test_screen_threads_wide(void **state)
{
    (void)state;
    struct picture p;
    picture_init(&p);
    p.now_threads[0].status = THREAD_WAITING_LOCK;
    snprintf(p.now_threads[0].waiting_on, sizeof p.now_threads[0].waiting_on, "mutex lock_b (held by T3)");
    struct tui_screen s;
    tui_screen_init(&s);
    tui_screen_build(&s, 120, 40, &p.view, &p.ui);
    assert_true(s.layout.wide);
    const struct tui_row *t1 = row_of_thread(&s.threads, 1);
    assert_non_null(strstr(t1->text, "# lock"));
    assert_non_null(strstr(t1->text, "waits: mutex lock_b (held by T3)"));
    assert_null(strstr(t1->text, "..."));
    tui_screen_build(&s, 200, 60, &p.view, &p.ui);
    t1 = row_of_thread(&s.threads, 1);
    assert_non_null(strstr(t1->text, "# waiting-lock"));
    assert_non_null(strstr(t1->text, "waits: mutex lock_b (held by T3)"));
    tui_screen_free(&s);
    picture_free(&p);
}

static void test_screen_source_marks(void **state)
{
    (void)state;
    struct picture p;
    picture_init(&p);
    p.now_threads[2].next.line = 30;    /* T3 on T2's line too */
    snprintf(p.now_threads[2].location, sizeof p.now_threads[2].location, "prog.c:30 thread_two");
    struct tui_screen s;
    tui_screen_init(&s);
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    int height = tui_rect_content(&s.layout.source);
    assert_int_equal(s.source.n_rows, height);
    /* Lines 30 (T2, T3) and 56 (T1) do not fit together: centred on T2's line. */
    const struct tui_row *r30 = row_containing(&s.source, " 30  line 30");
    assert_non_null(r30);
    assert_memory_equal(r30->text, "  2,3>", 6);
    assert_int_equal(r30->style, TS_CURRENT);
    assert_non_null(strstr(r30->text, "line 30 of the program"));    /* the tab expanded */
    assert_null(row_containing(&s.source, " 56  line 56"));
    assert_non_null(strstr(s.source.title, "T2 at line 30"));
    /* A waiting thread (no next operation) is marked by its location; when
     * every marked line fits, the window shows them all. */
    p.now_threads[0].next.line = 0;
    p.now_threads[0].next.op[0] = '\0';
    snprintf(p.now_threads[0].location, sizeof p.now_threads[0].location, "prog.c:33 main");
    p.now_threads[0].status = THREAD_WAITING_JOIN;
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    const struct tui_row *r33 = row_containing(&s.source, " 33  line 33");
    assert_non_null(r33);
    assert_memory_equal(r33->text, "    1>", 6);
    assert_int_equal(r33->style, TS_TEXT);
    assert_int_equal(r33->span[0].style, TS_MARK);
    assert_non_null(row_containing(&s.source, " 30  line 30"));
    /* A breakpoint shows in the gutter. */
    struct session_breakpoint bp = {"prog.c", 31};
    p.view.breakpoints = &bp;
    p.view.n_breakpoints = 1;
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    const struct tui_row *r31 = row_containing(&s.source, "B31  line 31");
    assert_non_null(r31);
    tui_screen_free(&s);
    picture_free(&p);
}

static void test_screen_status_and_log(void **state)
{
    (void)state;
    struct picture p;
    picture_init(&p);
    struct tui_screen s;
    tui_screen_init(&s);
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    assert_non_null(strstr(s.status.text, "prog"));
    assert_non_null(strstr(s.status.text, "step 5 of 10"));
    assert_non_null(strstr(s.status.text, "last: T2 lock lock_a"));
    assert_non_null(strstr(s.status.text, "replaying"));
    assert_true(tui_width(s.hint.text) <= 80);
    /* The newest events at the bottom of the log. */
    int rows = s.log.n_rows;
    assert_true(rows >= 2);
    assert_non_null(strstr(s.log.rows[rows - 1].text, "    5   T2  lock lock_a"));
    /* Live with nothing ahead: no "of N". */
    p.view.reach = 5;
    p.view.mode = "live";
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    assert_non_null(strstr(s.status.text, "| step 5 |"));
    /* A notice takes the message line. */
    p.view.notice = "T3 cannot run: mutex lock_b";
    p.view.notice_is_error = true;
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    assert_true(s.layout.message.h == 1);
    assert_string_equal(s.message.text, "T3 cannot run: mutex lock_b");
    assert_int_equal(s.message.style, TS_ERROR);
    tui_screen_free(&s);
    picture_free(&p);
}

/* The status line is shortened to fit 80 columns, never cut: the demo's
 * key hint goes first, then the last step's object, then "step k of n". */
static void test_screen_status_shortened(void **state)
{
    (void)state;
    struct picture p;
    picture_init(&p);
    p.view.program = "/tmp/a_program_with_rather_a_long_name";
    p.view.mode = "assertion";
    p.view.unsaved = true;
    p.view.tso = true;
    p.ui.demo = "paused (Space plays)";
    struct tui_screen s;
    tui_screen_init(&s);
    tui_screen_build(&s, 200, 60, &p.view, &p.ui);
    assert_non_null(strstr(s.status.text, "| step 5 of 10 | last: T2 lock lock_a | assertion (unsaved) | tso | demo "
                                          "paused (Space plays)"));
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    assert_true(tui_width(s.status.text) <= 80);
    assert_null(strstr(s.status.text, "..."));
    assert_non_null(strstr(s.status.text, "| assertion (unsaved) | tso | demo paused"));
    assert_null(strstr(s.status.text, "(Space plays)"));
    tui_screen_free(&s);
    picture_free(&p);
}

/* At the end of a failed execution: the thread that failed shows how; the
 * log keeps the steps that led to it, marked, before the last step; a wide
 * screen tells the story beside the tables, with each step's code. */
static void test_screen_failure_story(void **state)
{
    (void)state;
    struct picture p;
    picture_init(&p);
    static const struct { int thread; const char *op; } steps[] = {
        {2, "R"}, {3, "R"}, {3, "W"}, {2, "W"}, {1, "start"}, {1, "start"}, {1, "R"},
    };
    for (int i = 0; i < 7; i++) {
        struct trace_event *e = &p.events[i];
        memset(e, 0, sizeof *e);
        e->step = (uint64_t)i + 1;
        e->thread = steps[i].thread;
        snprintf(e->op, sizeof e->op, "%s", steps[i].op);
        snprintf(e->object, sizeof e->object, "%s", strcmp(steps[i].op, "start") ? "x" : "f");
        snprintf(e->file, sizeof e->file, "prog.c");
        e->line = 30;
    }
    p.view.n_events = 7;
    p.view.ask = ASK_ENDED;
    p.view.mode = "assertion";
    struct exec_result res = {.kind = FAIL_ASSERTION, .thread = 2};
    snprintf(res.message, sizeof res.message, "T2: assertion `x == 2' failed at prog.c:30 in thread_one");
    p.view.result = &res;
    struct tui_screen s;
    tui_screen_init(&s);
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    const struct tui_row *t2 = row_of_thread(&s.threads, 2);
    assert_non_null(strstr(t2->text, "x assertion"));
    assert_null(strstr(t2->text, "running"));
    assert_int_equal(t2->style, TS_ERROR);
    assert_non_null(strstr(row_of_thread(&s.threads, 3)->text, "+ ready"));
    assert_int_equal(s.n_cause, 4);
    assert_true(s.log.n_rows >= 6);
    int marked = 0;
    for (int i = 0; i < s.log.n_rows; i++)
        marked += s.log.rows[i].text[0] == '!';
    assert_int_equal(marked, 4);
    assert_non_null(strstr(s.log.rows[0].text, "!   1   T2  R x"));
    assert_non_null(strstr(s.log.rows[s.log.n_rows - 1].text, "7   T1  R x"));
    assert_non_null(strstr(s.log.title, "! marks the steps that led to the assertion"));
    assert_int_equal(s.layout.story.h, 0);

    tui_screen_build(&s, 160, 48, &p.view, &p.ui);
    assert_true(s.layout.story.h > 0);
    assert_non_null(row_containing(&s.story, "T2: assertion `x == 2' failed"));
    assert_non_null(row_containing(&s.story, "! 1 T2 R x  line 30: line 30 of the program"));
    assert_non_null(row_containing(&s.story, "! 4 T2 W x"));
    /* The log runs the full width, each step with its line of code. */
    assert_int_equal(s.layout.log.w, 160);
    assert_non_null(row_containing(&s.log, "| line 30"));
    /* Scrolled back, the log is the plain window again. */
    p.ui.log_back = 1;
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    assert_null(row_containing(&s.log, "!   1 "));
    /* Walking back along the path, the steps its end showed stay marked. */
    static const uint64_t known[] = {2, 3};
    p.ui.log_back = 0;
    p.ui.cause_steps = known;
    p.ui.n_cause_steps = 2;
    p.view.ask = ASK_THREAD;
    p.view.n_events = 4;
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    assert_int_equal(s.n_cause, 0);
    assert_non_null(row_containing(&s.log, "!   2   T3  R x"));
    assert_non_null(row_containing(&s.log, "!   3   T3  W x"));
    assert_non_null(row_containing(&s.log, "    4   T2  W x"));
    tui_screen_free(&s);
    picture_free(&p);
}

static void test_screen_too_small(void **state)
{
    (void)state;
    struct picture p;
    picture_init(&p);
    struct tui_screen s;
    tui_screen_init(&s);
    tui_screen_build(&s, 60, 20, &p.view, &p.ui);
    assert_true(s.layout.too_small);
    assert_string_equal(s.too_small, "terminal too small (need 80x24, have 60x20)");
    assert_int_equal(s.threads.n_rows, 0);
    tui_screen_free(&s);
    picture_free(&p);
}

static void test_screen_waiter_chooser(void **state)
{
    (void)state;
    struct picture p;
    picture_init(&p);
    p.view.ask = ASK_WAITER;
    p.view.waker = 1;
    p.view.candidates = p.candidates + 1;
    p.view.n_candidates = 2;
    p.ui.selected = 3;
    snprintf(p.now_threads[0].next.op, sizeof p.now_threads[0].next.op, "unlock");
    snprintf(p.now_threads[0].next.object, sizeof p.now_threads[0].next.object, "lock_a");
    struct tui_screen s;
    tui_screen_init(&s);
    tui_screen_build(&s, 80, 24, &p.view, &p.ui);
    assert_int_equal(s.n_popup, 3);
    assert_string_equal(s.popup[0], "T1 unlock lock_a: which waiter wakes?");
    assert_string_equal(s.popup[1], "[2] thread_one   [3] thread_two");
    assert_int_equal(s.popup_span[1].start, 17);    /* "[3] thread_two" highlighted */
    assert_int_equal(s.popup_span[1].len, 14);
    tui_screen_free(&s);
    picture_free(&p);
}

static void test_fit_and_glyphs(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(tui_fit("\u25b6 ready", 10, true, buf, sizeof buf), 7);
    assert_string_equal(buf, "\u25b6 ready");
    tui_fit("\u25b6 ready", 10, false, buf, sizeof buf);
    assert_string_equal(buf, "? ready");
    tui_fit("a\tb\x01" "c", 10, true, buf, sizeof buf);
    assert_string_equal(buf, "a?b?c");
    assert_int_equal(tui_fit("abcdef", 3, true, buf, sizeof buf), 3);
    assert_string_equal(buf, "abc");
    assert_int_equal(tui_width("\u25b6\u25a0x"), 3);
    /* The ASCII glyphs are ASCII, and every state has its own symbol. */
    const struct tui_glyphs *g = &tui_glyphs_ascii;
    const char *all[] = {g->runnable, g->blocked, g->exited, g->selected, g->changed, g->breakpoint, g->failed,
                         g->cause};
    for (size_t i = 0; i < 8; i++) {
        for (const char *c = all[i]; *c; c++)
            assert_true((unsigned char)*c < 0x80);
        for (size_t j = i + 1; j < 8; j++)
            assert_string_not_equal(all[i], all[j]);
    }
}

static void test_theme_choice(void **state)
{
    (void)state;
    assert_string_equal(tui_theme_initial(NULL, NULL, "xterm-256color")->name, "dark");
    assert_string_equal(tui_theme_initial(NULL, "1", "xterm-256color")->name, "mono");
    assert_string_equal(tui_theme_initial(NULL, "", "xterm-256color")->name, "dark");
    assert_string_equal(tui_theme_initial(NULL, NULL, "dumb")->name, "mono");
    assert_string_equal(tui_theme_initial("projector", NULL, "dumb")->name, "mono");
    assert_string_equal(tui_theme_initial("light", "1", "xterm")->name, "light");
    assert_string_equal(tui_theme_initial(NULL, NULL, NULL)->name, "mono");
    /* t cycles through all four and back. */
    const struct tui_theme *t = tui_theme_by_name("dark");
    const char *order[] = {"light", "mono", "projector", "dark"};
    for (int i = 0; i < 4; i++) {
        t = tui_theme_next(t);
        assert_string_equal(t->name, order[i]);
    }
    /* mono uses no colour; projector keeps the terminal's background. */
    assert_false(tui_theme_by_name("mono")->color);
    const struct tui_theme *pr = tui_theme_by_name("projector");
    for (int i = 0; i < TS_COUNT; i++)
        assert_int_equal(pr->look[i].bg, TUI_DEFAULT_COLOR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_80x24),
        cmocka_unit_test(test_layout_many_threads_leave_room),
        cmocka_unit_test(test_layout_120x40),
        cmocka_unit_test(test_layout_200x60),
        cmocka_unit_test(test_layout_too_small),
        cmocka_unit_test(test_source_window),
        cmocka_unit_test(test_screen_changed_rows),
        cmocka_unit_test(test_screen_threads_table),
        cmocka_unit_test(test_threads_columns),
        cmocka_unit_test(test_screen_store_buffers),
        cmocka_unit_test(test_screen_threads_wide),
        cmocka_unit_test(test_screen_source_marks),
        cmocka_unit_test(test_screen_status_and_log),
        cmocka_unit_test(test_screen_status_shortened),
        cmocka_unit_test(test_screen_failure_story),
        cmocka_unit_test(test_screen_too_small),
        cmocka_unit_test(test_screen_waiter_chooser),
        cmocka_unit_test(test_fit_and_glyphs),
        cmocka_unit_test(test_theme_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
