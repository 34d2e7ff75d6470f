/* Unit tests for the timeline pictures (ui/timeline_model, timeline_svg,
 * trace_timeline, xml_text): synthetic executions with states go in; the
 * model's lanes, holds, blocked intervals, wake-ups and failing step, and
 * the SVG and page written from them, are checked, the documents for
 * well-formedness with a small XML checker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "supervisor/trace/trace.h"
#include "supervisor/trace/trace_tee.h"
#include "ui/render/timeline_model.h"
#include "ui/render/timeline_svg.h"
#include "ui/render/trace_timeline.h"
#include "ui/text/utf8.h"
#include "ui/text/xml_text.h"

/* ---- a checker of well-formed XML (enough for what mdat writes) ---------- */

/* NULL when doc is well-formed: tags nest and close, attributes are quoted,
 * every & starts an entity, no < in text or attributes, valid UTF-8. With
 * html, <!DOCTYPE> and the void element <meta> are allowed. Else a reason. */
static const char *xml_problem(const char *doc, bool html)
{
    static char why[200];
    char stack[64][32];
    int depth = 0;
    const char *p = doc;
    for (const unsigned char *u = (const unsigned char *)doc; *u;) {
        int len = utf8_sequence_length(u);
        if (len == 0)
            return "not UTF-8";
        u += len;
    }
    while (*p) {
        if (*p == '&') {
            size_t n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz#0123456789");
            if (n == 0 || p[1 + n] != ';')
                return "a bare &";
            p += n + 2;
            continue;
        }
        if (*p != '<') {
            if (*p == '>' && depth == 0)
                return "> outside any element";
            p++;
            continue;
        }
        if (strncmp(p, "<?", 2) == 0) {
            p = strstr(p, "?>");
            if (!p)
                return "unterminated <?";
            p += 2;
            continue;
        }
        if (strncmp(p, "<!--", 4) == 0) {
            p = strstr(p, "-->");
            if (!p)
                return "unterminated comment";
            p += 3;
            continue;
        }
        if (html && strncmp(p, "<!DOCTYPE", 9) == 0) {
            p = strchr(p, '>') + 1;
            continue;
        }
        bool closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t name_len = strcspn(name, " \t\n/>");
        if (name_len == 0 || name_len >= sizeof stack[0])
            return "bad tag name";
        /* Walk the tag: attributes quoted, no < inside. */
        const char *q = name + name_len;
        char quote = 0;
        for (; *q && (quote || *q != '>'); q++) {
            if (quote) {
                if (*q == quote)
                    quote = 0;
                else if (*q == '<')
                    return "< in an attribute";
                else if (*q == '&') {
                    size_t n = strspn(q + 1, "abcdefghijklmnopqrstuvwxyz#0123456789");
                    if (n == 0 || q[1 + n] != ';')
                        return "a bare & in an attribute";
                }
            } else if (*q == '"' || *q == '\'') {
                if (q[-1] != '=')
                    return "a quote not after =";
                quote = *q;
            } else if (*q == '<') {
                return "< in a tag";
            } else if (*q == '=' && q[1] != '"' && q[1] != '\'') {
                return "unquoted attribute";
            }
        }
        if (!*q)
            return "unterminated tag";
        bool self_closing = q[-1] == '/';
        bool is_void = html && name_len == 4 && strncmp(name, "meta", 4) == 0;
        if (closing) {
            if (depth == 0 || strlen(stack[depth - 1]) != name_len || strncmp(stack[depth - 1], name, name_len) != 0) {
                snprintf(why, sizeof why, "</%.*s> closes <%s>", (int)name_len, name, depth ? stack[depth - 1] : "");
                return why;
            }
            depth--;
        } else if (!self_closing && !is_void) {
            if (depth == 64)
                return "too deep";
            memcpy(stack[depth], name, name_len);
            stack[depth++][name_len] = '\0';
        }
        p = q + 1;
    }
    if (depth != 0) {
        snprintf(why, sizeof why, "<%s> never closed", stack[depth - 1]);
        return why;
    }
    return NULL;
}

static void assert_well_formed(const char *doc, bool html)
{
    const char *problem = xml_problem(doc, html);
    if (problem)
        fail_msg("not well-formed %s: %s", html ? "HTML" : "XML", problem);
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static bool starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* ---- a synthetic execution ------------------------------------------------ */

static struct trace_event make_event(uint64_t step, int thread, bool switched, const char *op, const char *object,
                                     const char *value, const char *outcome)
{
    struct trace_event ev = {.step = step, .thread = thread, .switched = switched, .line = 10 + (unsigned)step};
    snprintf(ev.op, sizeof ev.op, "%s", op);
    snprintf(ev.object, sizeof ev.object, "%s", object);
    snprintf(ev.value, sizeof ev.value, "%s", value);
    snprintf(ev.outcome, sizeof ev.outcome, "%s", outcome);
    snprintf(ev.file, sizeof ev.file, "prog.c");
    snprintf(ev.function, sizeof ev.function, thread == 1 ? "main" : "worker");
    snprintf(ev.where, sizeof ev.where, "prog.c:%u %s", ev.line, ev.function);
    return ev;
}

enum { STEPS = 10, THREADS = 3 };

/* The state after each step: each thread's status and wait, m's holder. */
struct step_state {
    enum thread_status status[THREADS];
    const char *waiting_on[THREADS];
    int holder;
};

struct execution {
    struct trace_event events[STEPS];
    struct state_thread threads[STEPS][THREADS];
    struct state_object objects[STEPS][2];
    struct exec_state states[STEPS];
    int waiter;
};

static const char *const hostile = "a<b&\"c\"";

/* T1 creates T2 and T3; T2 takes m, T3 blocks on it; T2 writes x and
 * unlocks m, which wakes T3; T3 takes m and reads x; it then fails an
 * assertion. Threads that do not exist yet are left out of the states. */
static void build_execution(struct execution *x, const char *start2, const char *mutex_name)
{
    memset(x, 0, sizeof *x);
    const enum thread_status R = THREAD_READY, U = THREAD_RUNNING, L = THREAD_WAITING_LOCK;
    const char *held = "mutex m (held by T2)";
    static const int exists[STEPS] = {1, 2, 2, 2, 3, 3, 3, 3, 3, 3};
    const struct step_state st[STEPS] = {
        {{U, R, R}, {0}, 0}, {{U, R, R}, {0}, 0}, {{R, U, R}, {0}, 0}, {{R, U, R}, {0}, 2},
        {{R, R, U}, {0}, 2}, {{R, R, L}, {NULL, NULL, held}, 2}, {{R, U, L}, {NULL, NULL, held}, 2},
        {{R, U, R}, {0}, 0}, {{R, R, U}, {0}, 3}, {{R, R, U}, {0}, 3},
    };
    x->events[0] = make_event(1, 1, false, "start", "main thread", "", "");
    x->events[1] = make_event(2, 1, false, "create", "worker", "", "");
    x->events[2] = make_event(3, 2, true, "start", "worker", "", "");
    x->events[3] = make_event(4, 2, false, "lock", mutex_name, "", "");
    x->events[4] = make_event(5, 3, true, "start", "worker", "", "");
    x->events[5] = make_event(6, 3, false, "lock", mutex_name, "", "blocks on mutex m (held by T2)");
    x->events[6] = make_event(7, 2, true, "W", "x", ":= 1", "");
    x->events[7] = make_event(8, 2, false, "unlock", mutex_name, "", "");
    x->events[8] = make_event(9, 3, true, "wakes", mutex_name, "in lock", "");
    x->events[9] = make_event(10, 3, false, "R", "x", "-> 1", "");
    x->waiter = 3;
    for (int s = 0; s < STEPS; s++) {
        for (int t = 0; t < exists[s]; t++) {
            struct state_thread *th = &x->threads[s][t];
            th->id = t + 1;
            th->status = st[s].status[t];
            snprintf(th->start, sizeof th->start, "%s", t == 0 ? "main" : t == 1 ? start2 : "worker");
            snprintf(th->waiting_on, sizeof th->waiting_on, "%s", st[s].waiting_on[t] ? st[s].waiting_on[t] : "");
        }
        struct state_object *m = &x->objects[s][0];
        *m = (struct state_object){.kind = SYNC_MUTEX, .addr = 0x4040a0, .holder = st[s].holder};
        snprintf(m->name, sizeof m->name, "%s", mutex_name);
        if (s == 5 || s == 6) {
            m->n_waiters = 1;
            m->waiters = &x->waiter;
        }
        x->objects[s][1] = (struct state_object){.kind = SYNC_SEMAPHORE, .addr = 0x4040c0, .count = 1};
        snprintf(x->objects[s][1].name, sizeof x->objects[s][1].name, "sem");
        x->states[s] = (struct exec_state){.step = (uint64_t)s + 1, .current = x->events[s].thread,
                                           .n_threads = exists[s], .threads = x->threads[s], .n_objects = 2,
                                           .objects = x->objects[s]};
    }
}

static const struct trace_summary assertion_summary = {
    .program = "/home/student/prog",
    .strategy = "pct",
    .seed = 7,
    .execution = 3,
    .steps = STEPS,
    .failure = "assertion",
    .message = "assertion `x == 2' failed at prog.c:40 in worker()",
    .location = "prog.c:40",
    .thread = 3,
};

static struct timeline *gather(const struct execution *x, bool with_states, const struct trace_summary *summary)
{
    struct timeline *tl = timeline_new();
    for (int s = 0; s < STEPS; s++)
        timeline_add(tl, &x->events[s], with_states ? &x->states[s] : NULL);
    if (summary)
        timeline_set_summary(tl, summary);
    timeline_end(tl);
    return tl;
}

static char *svg_of(const struct timeline *tl, bool standalone)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    timeline_write_svg(out, tl, standalone);
    assert_int_equal(fclose(out), 0);
    return text;
}

/* What a format writes for the execution, through a tee, as mdat does. */
static char *render(const struct trace_format *format, const struct execution *x, const struct trace_summary *summary)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    struct trace_tee tee = {0};
    assert_true(trace_tee_add(&tee, format, out, false));
    assert_true(trace_tee_needs_state(&tee));
    trace_tee_open(&tee);
    for (int s = 0; s < STEPS; s++)
        trace_tee_event(&tee, &x->events[s], &x->states[s]);
    if (summary)
        trace_tee_summary(&tee, summary);
    trace_tee_close(&tee);
    assert_int_equal(fclose(out), 0);
    return text;
}

/* ---- tests ------------------------------------------------------------------ */

static void kinds_follow_the_op(void **unused)
{
    assert_int_equal(timeline_kind_of("R"), TL_READ);
    assert_int_equal(timeline_kind_of("W"), TL_WRITE);
    assert_int_equal(timeline_kind_of("RMW"), TL_ATOMIC);
    assert_int_equal(timeline_kind_of("atomic"), TL_ATOMIC);
    assert_int_equal(timeline_kind_of("lock"), TL_SYNC);
    assert_int_equal(timeline_kind_of("unlock"), TL_SYNC);
    assert_int_equal(timeline_kind_of("cond_wait"), TL_SYNC);
    assert_int_equal(timeline_kind_of("sem_post"), TL_SYNC);
    assert_int_equal(timeline_kind_of("barrier_wait"), TL_SYNC);
    assert_int_equal(timeline_kind_of("spin_lock"), TL_SYNC);
    assert_int_equal(timeline_kind_of("wakes"), TL_SYNC);
    assert_int_equal(timeline_kind_of("start"), TL_THREAD);
    assert_int_equal(timeline_kind_of("create"), TL_THREAD);
    assert_int_equal(timeline_kind_of("join"), TL_THREAD);
    assert_int_equal(timeline_kind_of("thread_exit"), TL_THREAD);
    assert_int_equal(timeline_kind_of("yield"), TL_YIELD);
    assert_int_equal(timeline_kind_of("sleep"), TL_YIELD);
    assert_int_equal(timeline_kind_of("malloc"), TL_OTHER);
    assert_int_equal(timeline_kind_of(""), TL_OTHER);
    assert_string_equal(timeline_kind_name(TL_SYNC), "sync");
}

static void model_has_lanes_holds_waits_wakes_and_the_failing_step(void **unused)
{
    struct execution x;
    build_execution(&x, "worker", "m");
    struct timeline *tl = gather(&x, true, &assertion_summary);
    assert_int_equal(tl->n_lanes, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(tl->lanes[i].id, i + 1);
    assert_string_equal(tl->lanes[1].start, "worker");
    assert_int_equal(timeline_n_steps(tl), STEPS);
    assert_int_equal(timeline_first_step(tl), 1);

    /* m: held by T2 over steps 4..8, then by T3 from 9 to the end. */
    assert_int_equal(tl->n_objects, 1);
    assert_string_equal(tl->objects[0].name, "m");
    assert_int_equal(tl->n_holds, 2);
    const struct timeline_interval *h2 = tl->holds[0].thread == 2 ? &tl->holds[0] : &tl->holds[1];
    const struct timeline_interval *h3 = tl->holds[0].thread == 3 ? &tl->holds[0] : &tl->holds[1];
    assert_int_equal(h2->thread, 2);
    assert_int_equal(h2->from, 4);
    assert_int_equal(h2->to, 8);
    assert_int_equal(h3->thread, 3);
    assert_int_equal(h3->from, 9);
    assert_int_equal(h3->to, 0);

    /* T3 blocked from step 6 until T2's unlock at 8. */
    assert_int_equal(tl->n_blocked, 1);
    assert_int_equal(tl->blocked[0].thread, 3);
    assert_int_equal(tl->blocked[0].from, 6);
    assert_int_equal(tl->blocked[0].to, 8);
    assert_int_equal(tl->blocked[0].status, THREAD_WAITING_LOCK);
    assert_string_equal(tl->blocked[0].what, "mutex m (held by T2)");

    /* The unlock (step 8, T2) wakes T3, which runs again at step 9. */
    assert_int_equal(tl->n_wakes, 1);
    assert_int_equal(tl->wakes[0].from_step, 8);
    assert_int_equal(tl->wakes[0].from_thread, 2);
    assert_int_equal(tl->wakes[0].to_step, 9);
    assert_int_equal(tl->wakes[0].to_thread, 3);
    assert_string_equal(tl->wakes[0].by, "unlock m");

    assert_int_equal(timeline_failing_step(tl), 10);
    assert_string_equal(tl->summary.program, "prog");
    timeline_free(tl);
}

static void failing_step_is_the_failing_threads_last_or_the_last(void **unused)
{
    struct execution x;
    build_execution(&x, "worker", "m");
    struct trace_summary s = assertion_summary;
    s.thread = 2;   /* its last step is 8 */
    struct timeline *tl = gather(&x, true, &s);
    assert_int_equal(timeline_failing_step(tl), 8);
    timeline_free(tl);
    s.thread = 0;
    s.failure = "deadlock";
    tl = gather(&x, true, &s);
    assert_int_equal(timeline_failing_step(tl), 10);
    timeline_free(tl);
    s.failure = "none";
    s.message = "";
    tl = gather(&x, true, &s);
    assert_int_equal(timeline_failing_step(tl), 0);
    timeline_free(tl);
    tl = gather(&x, true, NULL);
    assert_int_equal(timeline_failing_step(tl), 0);
    timeline_free(tl);
}

static void without_states_a_wake_is_guessed_from_the_events(void **unused)
{
    struct execution x;
    build_execution(&x, "worker", "m");
    struct timeline *tl = gather(&x, false, NULL);
    assert_int_equal(tl->n_lanes, 3);
    assert_int_equal(tl->n_holds, 0);
    assert_int_equal(tl->n_blocked, 0);
    assert_int_equal(tl->n_wakes, 1);
    assert_int_equal(tl->wakes[0].from_step, 8);     /* T2's last step on m */
    assert_int_equal(tl->wakes[0].to_step, 9);
    assert_string_equal(tl->lanes[0].start, "");
    timeline_free(tl);
}

/* The SVG of the failing execution of build_execution, checked well-formed. */
static char *assertion_svg(bool standalone)
{
    struct execution x;
    build_execution(&x, "worker", "m");
    struct timeline *tl = gather(&x, true, &assertion_summary);
    char *svg = svg_of(tl, standalone);
    timeline_free(tl);
    assert_well_formed(svg, false);
    return svg;
}

static void svg_draws_every_part_and_is_well_formed(void **unused)
{
    char *svg = assertion_svg(true);
    assert_true(starts_with(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_int_equal(count(svg, "<g class=\"lane\""), 3);
    assert_non_null(strstr(svg, "<g class=\"lane\" data-thread=\"2\""));
    assert_non_null(strstr(svg, ">T2 worker</text>"));
    /* A mark per step, each with its tooltip. */
    assert_int_equal(count(svg, "<g class=\"mark"), STEPS);
    assert_int_equal(count(svg, "\"><title>step "), STEPS + 1 /* and the wake-up's */);
    assert_non_null(strstr(svg, "data-kind=\"write\" data-step=\"7\"><title>step 7 \xc2\xb7 T2 worker (context "
                                "switch)\nW x := 1\nprog.c:17 worker</title>"));
    assert_non_null(strstr(svg, "data-step=\"6\"><title>step 6 \xc2\xb7 T3 worker\nlock m\n"
                                "prog.c:16 worker\n\xe2\x86\x92 blocks on mutex m (held by T2)</title>"));
    assert_non_null(strstr(svg, "class=\"mark k-sync outcome\""));
    /* Holds of m by T2 (4..8) and T3 (9..), named. */
    assert_int_equal(count(svg, "<g class=\"hold\" data-object=\"m\">"), 2);
    assert_non_null(strstr(svg, "<title>T2 holds mutex m from step 4 to step 8</title>"));
    assert_non_null(strstr(svg, "<title>T3 holds mutex m from step 9 to the end</title>"));
    /* T3 blocked 6..8, saying on what. */
    assert_int_equal(count(svg, "<g class=\"blocked\" data-status=\"waiting-lock\">"), 1);
    assert_non_null(strstr(svg, "<title>T3 worker waiting-lock from step 6 to step 8: waiting on mutex m (held by "
                                "T2)</title>"));
    /* The wake-up arrow from T2's unlock to T3's next step. */
    assert_int_equal(count(svg, "<g class=\"wake\" data-from=\"8\" data-to=\"9\">"), 1);
    assert_non_null(strstr(svg, "<title>step 8: T2 unlock m wakes T3 (waiting on mutex m (held by T2)); T3 runs again "
                                "at step 9</title>"));
    assert_non_null(strstr(svg, "marker-end=\"url(#mdat-arrow)\""));
    /* Context switches at steps 3, 5, 7 and 9. */
    assert_int_equal(count(svg, "<line class=\"switch\""), 4 + 1 /* the legend's */);
    /* The failing step, captioned. */
    assert_int_equal(count(svg, "<g class=\"failure\" id=\"failing-mark\" data-step=\"10\">"), 1);
    assert_non_null(strstr(svg, "FAILURE assertion at step 10: assertion `x == 2&#39; failed at prog.c:40 in "
                                "worker()"));
    assert_non_null(strstr(svg, "<text class=\"caption\">"));
    assert_non_null(strstr(svg, "pct seed 7, execution 3"));
    assert_non_null(strstr(svg, "<g class=\"legend\">"));
    /* Self-contained: nothing fetched. */
    assert_int_equal(count(svg, "http"), 1);
    assert_null(strstr(svg, "<script"));
    free(svg);
}

static void svg_for_a_page_has_no_header_of_its_own(void **unused)
{
    char *svg = assertion_svg(false);
    assert_true(starts_with(svg, "<svg "));
    assert_null(strstr(svg, "<text class=\"caption\""));
    assert_non_null(strstr(svg, "<g class=\"failure\" id=\"failing-mark\" data-step=\"10\">"));
    free(svg);
}

static void hostile_names_are_escaped(void **unused)
{
    struct execution x;
    char mutex[64];
    snprintf(mutex, sizeof mutex, "x<y>&'z'\xff\xfe\x01");
    build_execution(&x, hostile, mutex);
    snprintf(x.events[6].value, sizeof x.events[6].value, ":= \"<&>\"");
    struct trace_summary s = assertion_summary;
    s.message = "boom </svg><script>alert(1)</script> & \xc3";
    char *svg = render(&timeline_svg_trace_format, &x, &s);
    assert_well_formed(svg, false);
    assert_null(strstr(svg, hostile));
    assert_null(strstr(svg, "<script"));
    assert_non_null(strstr(svg, "T2 a&lt;b&amp;&quot;c&quot;"));
    assert_non_null(strstr(svg, "data-object=\"x&lt;y&gt;&amp;&#39;z&#39;\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""));
    assert_non_null(strstr(svg, ":= &quot;&lt;&amp;&gt;&quot;"));
    assert_non_null(strstr(svg, "boom &lt;/svg&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; \xef\xbf\xbd"));
    free(svg);

    char *page = render(&timeline_trace_format, &x, &s);
    assert_well_formed(page, true);
    assert_null(strstr(page, "<script"));
    assert_null(strstr(page, hostile));
    free(page);
}

static void page_is_self_contained_with_header_picture_and_tables(void **unused)
{
    struct execution x;
    build_execution(&x, "worker", "m");
    char *page = render(&timeline_trace_format, &x, &assertion_summary);
    assert_well_formed(page, true);
    assert_true(starts_with(page, "<!DOCTYPE html>\n<html lang=\"en\">"));
    assert_non_null(strstr(page, "<meta charset=\"utf-8\">"));
    assert_non_null(strstr(page, "<h1>mdat timeline: prog</h1>"));
    assert_non_null(strstr(page, "strategy pct, seed 7, execution 3; 10 steps, 3 threads"));
    assert_non_null(strstr(page, "<p class=\"verdict\">FAILURE assertion at <a href=\"#failing-mark\">step 10</a> (<a "
                                 "href=\"#failing-step\">in the table</a>): assertion `x == 2&#39; failed"));
    assert_non_null(strstr(page, "@media print"));
    assert_int_equal(count(page, "<svg "), 1);
    assert_int_equal(count(page, "<g class=\"lane\""), 3);
    /* Nothing from elsewhere: no script, link, image, or URL but the SVG namespace. */
    assert_null(strstr(page, "<script"));
    assert_null(strstr(page, "<link"));
    assert_null(strstr(page, "<img"));
    assert_null(strstr(page, "@import"));
    assert_int_equal(count(page, "http"), 1);
    /* The tables: 3 threads, 10 steps, the failing one marked. */
    assert_int_equal(count(page, "<tr><td>T"), 3);
    assert_int_equal(count(page, "<td class=\"n\">"), STEPS);
    assert_non_null(strstr(page, "<tr class=\"failing\" id=\"failing-step\"><td class=\"n\">10</td><td>T3</td>"
                                 "<td>R x -&gt; 1</td>"));
    /* Ten steps fit the window: the picture is drawn across the page. */
    assert_non_null(strstr(page, "<div class=\"scroll fit\">"));
    assert_null(strstr(page, "<div class=\"scroll wide\">"));
    assert_non_null(strstr(page, "<td>T2</td><td>worker</td><td>ready</td><td></td>"));
    free(page);
}

/* 2000 steps of two threads taking turns with m, then a step limit: to
 * add() one by one, then the summary to summarize(). */
static void feed_long_execution(void *ctx, void (*add)(void *, const struct trace_event *, const struct exec_state *),
                                void (*summarize)(void *, const struct trace_summary *))
{
    const uint64_t total = TIMELINE_MAX_STEPS + 500;
    struct state_thread threads[2] = {{.id = 1, .status = THREAD_RUNNING}, {.id = 2, .status = THREAD_READY}};
    struct state_object m = {.kind = SYNC_MUTEX, .addr = 0x10};
    snprintf(m.name, sizeof m.name, "m");
    for (uint64_t s = 1; s <= total; s++) {
        /* T1 locks m at odd steps, unlocks at even ones. */
        int thread = s % 4 < 2 ? 1 : 2;
        struct trace_event ev = make_event(s, thread, s % 2 == 1, s % 2 ? "lock" : "unlock", "m", "", "");
        m.holder = s % 2 ? thread : 0;
        struct exec_state st = {.step = s, .current = thread, .n_threads = 2, .threads = threads, .n_objects = 1,
                                .objects = &m};
        add(ctx, &ev, &st);
    }
    struct trace_summary s = assertion_summary;
    s.thread = 0;
    s.failure = "step-limit";
    summarize(ctx, &s);
}

static void add_to_timeline(void *tl, const struct trace_event *ev, const struct exec_state *st)
{
    timeline_add(tl, ev, st);
}

static void summarize_timeline(void *tl, const struct trace_summary *s)
{
    timeline_set_summary(tl, s);
}

static void long_executions_keep_their_last_steps(void **unused)
{
    struct timeline *tl = timeline_new();
    const uint64_t total = TIMELINE_MAX_STEPS + 500;
    feed_long_execution(tl, add_to_timeline, summarize_timeline);
    timeline_end(tl);
    assert_int_equal(timeline_n_steps(tl), TIMELINE_MAX_STEPS);
    assert_int_equal(timeline_first_step(tl), 501);
    assert_int_equal(timeline_step(tl, TIMELINE_MAX_STEPS - 1)->step, total);
    assert_int_equal(timeline_failing_step(tl), total);
    for (size_t i = 0; i < tl->n_holds; i++)
        assert_true(tl->holds[i].to == 0 || tl->holds[i].to >= 501);
    assert_true(tl->n_holds <= TIMELINE_MAX_STEPS / 2 + 1);
    char *svg = svg_of(tl, true);
    assert_well_formed(svg, false);
    assert_int_equal(count(svg, "<g class=\"mark"), TIMELINE_MAX_STEPS);
    assert_non_null(strstr(svg, "showing the last 1500 steps (501 to 2000)"));
    assert_null(strstr(svg, "data-step=\"500\""));
    free(svg);
    timeline_free(tl);
}

/* A picture too wide for the window opens at its end, where the failing
 * step is, with no script: the page's box scrolls right to left, and the
 * failing step lies within the last window's width of the picture. */
static void a_long_page_opens_on_its_failing_step(void **unused)
{
    char *page = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&page, &len);
    assert_non_null(out);
    void *r = timeline_trace_format.open(out, false);
    feed_long_execution(r, timeline_trace_format.event, timeline_trace_format.summary);
    timeline_trace_format.close(r);
    assert_int_equal(fclose(out), 0);
    assert_well_formed(page, true);
    assert_non_null(strstr(page, "<div class=\"scroll wide\">"));
    assert_non_null(strstr(page, ".scroll.wide{direction:rtl}.scroll.wide svg{direction:ltr}"));
    assert_null(strstr(page, "<script"));
    double width = 0, x = 0;
    const char *svg = strstr(page, "<svg ");
    assert_non_null(svg);
    assert_int_equal(sscanf(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"mdat-tl\" width=\"%lf\"", &width), 1);
    const char *failure = strstr(page, "<g class=\"failure\" id=\"failing-mark\" data-step=\"2000\">");
    assert_non_null(failure);
    const char *rect = strstr(failure, "</title><rect x=\"");
    assert_non_null(rect);
    assert_int_equal(sscanf(rect, "</title><rect x=\"%lf\"", &x), 1);
    assert_true(width > 1400);
    assert_true(x > width - 1300);
    /* The lanes are named on the right too, where the page opens. */
    assert_int_equal(count(page, "<text class=\"lane-name right\""), 2);
    free(page);
}

/* T1 creates T2 and T3 and joins T2; T2 takes a, T3 takes b, T3 waits
 * for a, T2 for b: a deadlock, its cycle T2 -> T3 -> T2. */
static struct timeline *deadlock_timeline(void)
{
    enum { N = 8 };
    const enum thread_status R = THREAD_READY, J = THREAD_WAITING_JOIN, L = THREAD_WAITING_LOCK;
    static const struct {
        int thread;
        const char *op, *object;
        int threads;
        enum thread_status status[3];
        int waits_for[3];
        int holder_a, holder_b;
    } steps[N] = {
        {1, "start", "main thread", 1, {R}, {0}, 0, 0},
        {1, "create", "worker", 2, {R, R}, {0}, 0, 0},
        {1, "create", "worker", 3, {R, R, R}, {0}, 0, 0},
        {1, "join", "T2", 3, {J, R, R}, {2, 0, 0}, 0, 0},
        {2, "lock", "a", 3, {J, R, R}, {2, 0, 0}, 2, 0},
        {3, "lock", "b", 3, {J, R, R}, {2, 0, 0}, 2, 3},
        {3, "lock", "a", 3, {J, R, L}, {2, 0, 2}, 2, 3},
        {2, "lock", "b", 3, {J, L, L}, {2, 3, 2}, 2, 3},
    };
    static const char *const waits[3][4] = {{"join T2"}, {"mutex b (held by T3)"}, {"mutex a (held by T2)"}};
    struct timeline *tl = timeline_new();
    for (int s = 0; s < N; s++) {
        struct trace_event ev = make_event((uint64_t)s + 1, steps[s].thread, s > 0 && steps[s].thread != steps[s - 1].thread,
                                           steps[s].op, steps[s].object, "", "");
        struct state_thread threads[3];
        memset(threads, 0, sizeof threads);
        for (int t = 0; t < steps[s].threads; t++) {
            threads[t] = (struct state_thread){.id = t + 1, .status = steps[s].status[t], .waits_for = steps[s].waits_for[t]};
            snprintf(threads[t].start, sizeof threads[t].start, "%s", t ? "worker" : "main");
            if (steps[s].waits_for[t])
                snprintf(threads[t].waiting_on, sizeof threads[t].waiting_on, "%s", waits[t][0]);
        }
        struct state_object locks[2] = {{.kind = SYNC_MUTEX, .addr = 0xa0, .holder = steps[s].holder_a},
                                        {.kind = SYNC_MUTEX, .addr = 0xb0, .holder = steps[s].holder_b}};
        snprintf(locks[0].name, sizeof locks[0].name, "a");
        snprintf(locks[1].name, sizeof locks[1].name, "b");
        struct exec_state st = {.step = (uint64_t)s + 1, .current = steps[s].thread, .n_threads = steps[s].threads,
                                .threads = threads, .n_objects = 2, .objects = locks};
        timeline_add(tl, &ev, &st);
    }
    struct trace_summary sum = assertion_summary;
    sum.thread = 0;
    sum.failure = "deadlock";
    sum.message = "3 threads blocked, none can run; wait cycle T2 -> T3 -> T2";
    sum.steps = N;
    timeline_set_summary(tl, &sum);
    timeline_end(tl);
    return tl;
}

static void a_deadlocks_wait_cycle_is_drawn(void **unused)
{
    struct timeline *tl = deadlock_timeline();
    assert_int_equal(timeline_waits_for_at_end(tl, timeline_lane(tl, 1)), 2);
    assert_int_equal(timeline_waits_for_at_end(tl, timeline_lane(tl, 2)), 3);
    assert_int_equal(timeline_waits_for_at_end(tl, timeline_lane(tl, 3)), 2);
    assert_false(timeline_in_wait_cycle(tl, timeline_lane(tl, 1)));
    assert_true(timeline_in_wait_cycle(tl, timeline_lane(tl, 2)));
    assert_true(timeline_in_wait_cycle(tl, timeline_lane(tl, 3)));
    char *svg = svg_of(tl, false);
    assert_well_formed(svg, false);
    /* Arrows between the lanes: T2 waits for T3 and T3 for T2 (the
     * cycle, red), T1 for T2 (its join, grey); each says on what. */
    assert_int_equal(count(svg, "<g class=\"wait-edge cycle\" data-from=\""), 2);
    assert_non_null(strstr(svg, "<g class=\"wait-edge cycle\" data-from=\"2\" data-to=\"3\"><title>T2 waits for T3: "
                                "mutex b (held by T3) (part of the wait cycle)</title>"));
    assert_non_null(strstr(svg, "<g class=\"wait-edge cycle\" data-from=\"3\" data-to=\"2\"><title>T3 waits for T2: "
                                "mutex a (held by T2) (part of the wait cycle)</title>"));
    assert_non_null(strstr(svg, "<g class=\"wait-edge\" data-from=\"1\" data-to=\"2\"><title>T1 waits for T2: join "
                                "T2</title>"));
    assert_non_null(strstr(svg, ">wait cycle</text>"));
    /* What each waits on is written whole after the last step, where the
     * waits that began at the end have room. */
    assert_non_null(strstr(svg, ">waiting on mutex b (held by T3)</text>"));
    assert_non_null(strstr(svg, ">waiting on mutex a (held by T2)</text>"));
    free(svg);
    timeline_free(tl);
}

/* Without a wait at the end nothing is drawn after the last step. */
static void no_wait_no_arrows(void **unused)
{
    struct execution x;
    build_execution(&x, "worker", "m");
    struct timeline *tl = gather(&x, true, &assertion_summary);
    char *svg = svg_of(tl, false);
    assert_null(strstr(svg, "<g class=\"wait-edge\" data-from"));
    assert_null(strstr(svg, "<g class=\"wait-edge cycle\" data-from"));
    assert_null(strstr(svg, "<g class=\"waits\">"));
    free(svg);
    timeline_free(tl);
}

static void formats_are_chosen_by_extension(void **unused)
{
    assert_ptr_equal(timeline_format_for_path("out.html"), &timeline_trace_format);
    assert_ptr_equal(timeline_format_for_path("dir.d/OUT.HTM"), &timeline_trace_format);
    assert_ptr_equal(timeline_format_for_path("slides/x.svg"), &timeline_svg_trace_format);
    assert_null(timeline_format_for_path("x.png"));
    assert_null(timeline_format_for_path("svg"));
    assert_null(timeline_format_for_path("x.svg/page"));
    assert_null(timeline_format_for_path(""));
    assert_true(timeline_trace_format.file_only && timeline_svg_trace_format.file_only);
    assert_string_equal(timeline_trace_format.suffix, ".html");
    assert_string_equal(timeline_svg_trace_format.suffix, ".svg");
}

static void xml_text_escapes_cuts_and_counts(void **unused)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    xml_escaped(out, "a<b>&\"c\"'d'\t\n");
    fputc('|', out);
    xml_escaped(out, "\x01\x7f\xc3\x28\xef\xbf\xbe\xed\xa0\x80 \xc3\xa9");
    fputc('|', out);
    xml_escaped_cut(out, "\xc3\xa9t\xc3\xa9 long", 4);
    fputc('|', out);
    xml_escaped_cut(out, "short", 5);
    fputc('|', out);
    xml_escaped(out, NULL);
    fclose(out);
    assert_string_equal(text, "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;\t\n|"
                              "\xef\xbf\xbd\x7f\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xc3\xa9|"
                              "\xc3\xa9t\xc3\xa9\xe2\x80\xa6|short|");
    free(text);
    assert_int_equal(xml_char_count("\xc3\xa9t\xc3\xa9"), 3);
    assert_int_equal(xml_char_count("\xff\xfe"), 2);
    assert_int_equal(xml_char_count(NULL), 0);
}

/* The checker itself: it must see what it is there to see. */
static void xml_checker_finds_what_is_wrong(void **unused)
{
    assert_null(xml_problem("<?xml version=\"1.0\"?>\n<a x=\"1&amp;\"><b/>t &lt; &#39;<!-- c --></a>", false));
    assert_null(xml_problem("<!DOCTYPE html>\n<html><meta charset=\"utf-8\"><p>x</p></html>", true));
    assert_non_null(xml_problem("<a><b></a>", false));
    assert_non_null(xml_problem("<a>", false));
    assert_non_null(xml_problem("<a>x & y</a>", false));
    assert_non_null(xml_problem("<a x=1/>", false));
    assert_non_null(xml_problem("<a x=\"<\"/>", false));
    assert_non_null(xml_problem("<a x=\"&\"/>", false));
    assert_non_null(xml_problem("<a>\xff</a>", false));
    assert_non_null(xml_problem("<meta charset=\"utf-8\">", false));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(xml_checker_finds_what_is_wrong),
        cmocka_unit_test(kinds_follow_the_op),
        cmocka_unit_test(model_has_lanes_holds_waits_wakes_and_the_failing_step),
        cmocka_unit_test(failing_step_is_the_failing_threads_last_or_the_last),
        cmocka_unit_test(without_states_a_wake_is_guessed_from_the_events),
        cmocka_unit_test(svg_draws_every_part_and_is_well_formed),
        cmocka_unit_test(svg_for_a_page_has_no_header_of_its_own),
        cmocka_unit_test(hostile_names_are_escaped),
        cmocka_unit_test(page_is_self_contained_with_header_picture_and_tables),
        cmocka_unit_test(long_executions_keep_their_last_steps),
        cmocka_unit_test(a_long_page_opens_on_its_failing_step),
        cmocka_unit_test(a_deadlocks_wait_cycle_is_drawn),
        cmocka_unit_test(no_wait_no_arrows),
        cmocka_unit_test(formats_are_chosen_by_extension),
        cmocka_unit_test(xml_text_escapes_cuts_and_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
