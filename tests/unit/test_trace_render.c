/* Unit tests for the trace renderers (ui/trace_log, trace_status,
 * trace_json, trace_formats, text_table, json_writer) and for the state
 * copies and comparisons they rely on (supervisor/trace, trace_tee): fed
 * synthetic events and states, their output is checked to the byte. */
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
#include "ui/text/json_writer.h"
#include "ui/text/text_table.h"
#include "ui/render/trace_formats.h"
#include "ui/render/trace_json.h"
#include "ui/render/trace_log.h"
#include "ui/render/trace_status.h"
#include "ui/render/trace_timeline.h"

static struct trace_event make_event(uint64_t step, int thread, bool switched, const char *op, const char *object,
                                     const char *value, const char *where)
{
    struct trace_event ev = {.step = step, .thread = thread, .switched = switched};
    snprintf(ev.op, sizeof ev.op, "%s", op);
    snprintf(ev.object, sizeof ev.object, "%s", object);
    snprintf(ev.value, sizeof ev.value, "%s", value);
    snprintf(ev.where, sizeof ev.where, "%s", where);
    return ev;
}

static struct state_thread make_thread(int id, enum thread_status status, const char *location, const char *next_op,
                                       const char *next_object, const char *waiting_on)
{
    struct state_thread t = {.id = id, .status = status};
    snprintf(t.start, sizeof t.start, "%s", id == 1 ? "main" : "worker");
    snprintf(t.location, sizeof t.location, "%s", location);
    snprintf(t.waiting_on, sizeof t.waiting_on, "%s", waiting_on);
    t.next = make_event(0, id, false, next_op, next_object, "", location);
    return t;
}

static struct state_object make_object(enum sync_kind kind, uint64_t addr, const char *name, int holder, int count)
{
    struct state_object o = {.kind = kind, .addr = addr, .holder = holder, .count = count};
    snprintf(o.name, sizeof o.name, "%s", name);
    return o;
}

/* Everything a renderer wrote for these events (states may be NULL). */
static char *render(const struct trace_format *format, bool every_step, const struct trace_event *events,
                    const struct exec_state *const *states, int n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    void *r = format->open(out, every_step);
    for (int i = 0; i < n; i++)
        format->event(r, &events[i], states ? states[i] : NULL);
    format->close(r);
    assert_int_equal(fclose(out), 0);
    return text;
}

/* ---- a three-step scenario with states ------------------------------- */

struct scenario {
    struct trace_event events[3];
    struct state_thread threads[3][2];
    struct state_object objects[3][2];
    int waiters_at_3[1];
    struct exec_state states[3];
    const struct exec_state *state_ptrs[3];
};

/* T1 starts, takes mutex m, then T2 (a switch) blocks on m. */
static void build_scenario(struct scenario *s)
{
    memset(s, 0, sizeof *s);
    s->events[0] = make_event(1, 1, false, "start", "main thread", "", "");
    s->events[1] = make_event(2, 1, false, "lock", "m", "", "prog.c:10 main");
    s->events[2] = make_event(3, 2, true, "lock", "m", "", "prog.c:21 worker");
    snprintf(s->events[2].outcome, sizeof s->events[2].outcome, "blocks on mutex m (held by T1)");

    s->threads[0][0] = make_thread(1, THREAD_RUNNING, "prog.c:10 main", "lock", "m", "");
    s->threads[0][1] = make_thread(2, THREAD_READY, "prog.c:21 worker", "lock", "m", "");
    s->threads[1][0] = make_thread(1, THREAD_RUNNING, "prog.c:11 main", "W", "x", "");
    s->threads[1][1] = s->threads[0][1];
    s->threads[2][0] = make_thread(1, THREAD_READY, "prog.c:11 main", "W", "x", "");
    s->threads[2][1] = make_thread(2, THREAD_WAITING_LOCK, "prog.c:21 worker", "lock", "m", "mutex m (held by T1)");
    s->threads[2][1].waits_for = 1;

    for (int i = 0; i < 3; i++) {
        s->objects[i][0] = make_object(SYNC_MUTEX, 0x4040a0, "m", i == 0 ? 0 : 1, i == 0 ? 0 : 1);
        snprintf(s->objects[i][0].type, sizeof s->objects[i][0].type, "normal");
        s->objects[i][1] = make_object(SYNC_SEMAPHORE, 0x4040c0, "sem", 0, 1);
    }
    s->waiters_at_3[0] = 2;
    s->objects[2][0].n_waiters = 1;
    s->objects[2][0].waiters = s->waiters_at_3;

    for (int i = 0; i < 3; i++) {
        s->states[i] = (struct exec_state){.step = (uint64_t)i + 1, .current = s->events[i].thread, .n_threads = 2,
                                           .threads = s->threads[i], .n_objects = 2, .objects = s->objects[i]};
        s->state_ptrs[i] = &s->states[i];
    }
}

/* The scenario's step lines, as the log prints them. */
#define STEP_1 "     1   T1   start main thread\n"
#define STEP_2 "     2   T1   lock m                               prog.c:10 main\n"
#define STEP_3 "     3 * T2   lock m                               prog.c:21 worker  -> blocks on mutex m (held by T1)\n"
static const char SCENARIO_LOG[] = STEP_1 STEP_2 STEP_3;

/* The tables of the state after step 3, after tables of step 2 were shown:
 * both threads and the mutex changed, the semaphore did not. */
#define TABLES_3                                                                  \
    "    thread  status        location          waiting on / next\n"            \
    "  * T1      ready         prog.c:11 main    W x\n"                          \
    "  * T2      waiting-lock  prog.c:21 worker  mutex m (held by T1)\n"         \
    "    mutex  type    holder  waiting\n"                                       \
    "  * m      normal  T1      T2\n"                                            \
    "    semaphore  value  waiting\n"                                            \
    "    sem        1      -\n"

static void log_format_is_the_one_line_format(void **unused)
{
    struct scenario s;
    build_scenario(&s);
    char *text = render(&log_trace_format, false, s.events, s.state_ptrs, 3);
    assert_string_equal(text, SCENARIO_LOG);
    free(text);
    char line[TRACE_LOG_LINE_MAX];
    trace_log_format(&s.events[1], line, sizeof line);
    assert_string_equal(line, "     2   T1   lock m                               prog.c:10 main");
    assert_string_equal(log_trace_format.name, "log");
    assert_string_equal(log_trace_format.suffix, ".trace");
    assert_false(log_trace_format.needs_state);
}

static void status_without_states_is_the_log(void **unused)
{
    struct scenario s;
    build_scenario(&s);
    char *text = render(&status_trace_format, false, s.events, NULL, 3);
    assert_string_equal(text, SCENARIO_LOG);
    free(text);
    text = render(&status_trace_format, true, s.events, NULL, 3);
    assert_string_equal(text, SCENARIO_LOG);
    free(text);
}

/* Tables of the state at the switch (after step 2), unmarked as the first
 * ones; at close the final tables mark exactly the rows that changed. */
static void status_prints_tables_at_switches_and_marks_changes(void **unused)
{
    struct scenario s;
    build_scenario(&s);
    char *text = render(&status_trace_format, false, s.events, s.state_ptrs, 3);
    assert_string_equal(text,
        STEP_1
        STEP_2
        "  state after step 2:\n"
        "    thread  status   location          waiting on / next\n"
        "    T1      running  prog.c:11 main    W x\n"
        "    T2      ready    prog.c:21 worker  lock m\n"
        "    mutex  type    holder  waiting\n"
        "    m      normal  T1      -\n"
        "    semaphore  value  waiting\n"
        "    sem        1      -\n"
        STEP_3
        "  final state after step 3:\n"
        TABLES_3);
    free(text);
}

static void status_every_step_prints_tables_after_each_step(void **unused)
{
    struct scenario s;
    build_scenario(&s);
    char *text = render(&status_trace_format, true, s.events, s.state_ptrs, 3);
    assert_string_equal(text,
        STEP_1
        "  state after step 1:\n"
        "    thread  status   location          waiting on / next\n"
        "    T1      running  prog.c:10 main    lock m\n"
        "    T2      ready    prog.c:21 worker  lock m\n"
        "    mutex  type    holder  waiting\n"
        "    m      normal  free    -\n"
        "    semaphore  value  waiting\n"
        "    sem        1      -\n"
        STEP_2
        "  state after step 2:\n"
        "    thread  status   location          waiting on / next\n"
        "  * T1      running  prog.c:11 main    W x\n"
        "    T2      ready    prog.c:21 worker  lock m\n"
        "    mutex  type    holder  waiting\n"
        "  * m      normal  T1      -\n"
        "    semaphore  value  waiting\n"
        "    sem        1      -\n"
        STEP_3
        "  state after step 3:\n"
        TABLES_3);
    free(text);
}

/* A thread or object that was not in the last tables counts as changed;
 * long cells are cut to their column's limit with "...". */
static void status_marks_new_rows_and_truncates_long_cells(void **unused)
{
    struct state_thread threads[2] = {
        make_thread(1, THREAD_RUNNING, "a_source_file_with_a_very_long_name_indeed.c:1234 main", "yield", "", ""),
        make_thread(2, THREAD_READY, "w.c:1 worker", "R", "flag", ""),
    };
    struct state_object objects[3] = {
        make_object(SYNC_CONDVAR, 0x10, "cv", 0, 0),
        make_object(SYNC_BARRIER, 0x20, "gate", 0, 1),
        make_object(SYNC_FUTEX, 0x30, "word", 0, 7),
    };
    snprintf(objects[0].mutex_name, sizeof objects[0].mutex_name, "cv_lock");
    objects[1].limit = 3;
    struct exec_state before = {.step = 1, .current = 1, .n_threads = 1, .threads = threads, .n_objects = 1,
                                .objects = objects};
    struct exec_state after = {.step = 2, .current = 1, .n_threads = 2, .threads = threads, .n_objects = 3,
                               .objects = objects};
    struct trace_event events[2] = {make_event(1, 1, false, "yield", "", "", ""),
                                    make_event(2, 1, false, "create", "worker", "", "")};
    const struct exec_state *states[2] = {&before, &after};
    char *text = render(&status_trace_format, true, events, states, 2);
    assert_string_equal(text,
        "     1   T1   yield\n"
        "  state after step 1:\n"
        "    thread  status   location                                  waiting on / next\n"
        "    T1      running  a_source_file_with_a_very_long_name_i...  yield\n"
        "    condvar  mutex    waiting\n"
        "    cv       cv_lock  -\n"
        "     2   T1   create worker\n"
        "  state after step 2:\n"
        "    thread  status   location                                  waiting on / next\n"
        "    T1      running  a_source_file_with_a_very_long_name_i...  yield\n"
        "  * T2      ready    w.c:1 worker                              R flag\n"
        "    condvar  mutex    waiting\n"
        "    cv       cv_lock  -\n"
        "    barrier  arrived  waiting\n"
        "  * gate     1/3      -\n"
        "    futex  value  waiting\n"
        "  * word   7      -\n");
    free(text);
}

/* ---- watches --------------------------------------------------------- */

static void watches_are_tabled_and_written_with_changes_marked(void **unused)
{
    struct scenario s;
    build_scenario(&s);
    struct state_watch watches[3][2];
    for (int i = 0; i < 3; i++) {
        watches[i][0] = (struct state_watch){.expr = "counter"};
        snprintf(watches[i][0].value, sizeof watches[i][0].value, "%d", i < 2 ? 0 : 1);
        watches[i][1] = (struct state_watch){.expr = "nosuch", .value = "no variable named 'nosuch'", .error = true};
        s.states[i].n_watches = 2;
        s.states[i].watches = watches[i];
    }
    char *text = render(&status_trace_format, true, s.events, s.state_ptrs, 3);
    /* After step 3 (tables every step): counter changed 0 -> 1, nosuch did not. */
    const char *last = strstr(text, "  state after step 3:");
    assert_non_null(last);
    assert_non_null(strstr(last, "    watch    value\n"
                                 "  * counter  1\n"
                                 "    nosuch   error: no variable named 'nosuch'\n"));
    free(text);

    text = render(&json_trace_format, false, s.events, s.state_ptrs, 3);
    assert_non_null(strstr(text, "\"watches\":[{\"expr\":\"counter\",\"value\":\"0\",\"error\":false},"
                                 "{\"expr\":\"nosuch\",\"value\":\"no variable named 'nosuch'\",\"error\":true}]"));
    assert_non_null(strstr(text, "{\"expr\":\"counter\",\"value\":\"1\",\"error\":false}"));
    free(text);

    /* A copy keeps its own watches, and its waiter ids stay aligned whatever
     * the number of watches (UBSan). */
    s.states[2].n_watches = 1;
    struct exec_state *copy = exec_state_copy(&s.states[2]);
    assert_int_equal(copy->objects[0].n_waiters, 1);
    assert_int_equal((uintptr_t)copy->objects[0].waiters % _Alignof(int), 0);
    assert_int_equal(copy->objects[0].waiters[0], 2);
    s.states[2].n_watches = 2;
    exec_state_free(copy);
    copy = exec_state_copy(&s.states[2]);
    watches[2][0].value[0] = 'X';
    assert_string_equal(copy->watches[0].value, "1");
    assert_false(exec_state_same_picture(copy, &s.states[2]));
    exec_state_free(copy);
}

/* ---- json ------------------------------------------------------------ */

static void json_lines_carry_every_field_and_state_only_when_changed(void **unused)
{
    struct scenario s;
    build_scenario(&s);
    s.events[1].addr = 0x4040a0;
    s.events[1].pc = 0x401136;
    snprintf(s.events[1].file, sizeof s.events[1].file, "prog.c");
    s.events[1].line = 10;
    snprintf(s.events[1].function, sizeof s.events[1].function, "main");
    /* Step 3 changes nothing in the picture: no state on its line. */
    s.states[2] = s.states[1];
    s.states[2].step = 3;
    s.states[2].current = 2;
    char *text = render(&json_trace_format, false, s.events, s.state_ptrs, 3);
    const char *state1 =
        "\"state\":{\"step\":1,\"current\":1,\"full\":true,\"threads\":["
        "{\"id\":1,\"status\":\"running\",\"start\":\"main\",\"location\":\"prog.c:10 main\",\"waiting_on\":\"\","
        "\"waits_for\":0,\"next\":{\"step\":0,\"thread\":1,\"switched\":false,\"op\":\"lock\",\"object\":\"m\","
        "\"addr\":null,\"value\":\"\",\"file\":\"\",\"line\":0,\"column\":0,\"function\":\"\",\"where\":\"prog.c:10 main\","
        "\"outcome\":\"\",\"pc\":null}},"
        "{\"id\":2,\"status\":\"ready\",\"start\":\"worker\",\"location\":\"prog.c:21 worker\",\"waiting_on\":\"\","
        "\"waits_for\":0,\"next\":{\"step\":0,\"thread\":2,\"switched\":false,\"op\":\"lock\",\"object\":\"m\","
        "\"addr\":null,\"value\":\"\",\"file\":\"\",\"line\":0,\"column\":0,\"function\":\"\",\"where\":\"prog.c:21 worker\","
        "\"outcome\":\"\",\"pc\":null}}],"
        "\"objects\":["
        "{\"kind\":\"mutex\",\"name\":\"m\",\"addr\":\"0x4040a0\",\"type\":\"normal\",\"holder\":0,\"count\":0,"
        "\"limit\":0,\"mutex\":null,\"mutex_name\":\"\",\"waiters\":[]},"
        "{\"kind\":\"semaphore\",\"name\":\"sem\",\"addr\":\"0x4040c0\",\"type\":\"\",\"holder\":0,\"count\":1,"
        "\"limit\":0,\"mutex\":null,\"mutex_name\":\"\",\"waiters\":[]}],\"watches\":[]}";
    char expected[8192];
    snprintf(expected, sizeof expected,
             "{\"step\":1,\"thread\":1,\"switched\":false,\"op\":\"start\",\"object\":\"main thread\",\"addr\":null,"
             "\"value\":\"\",\"file\":\"\",\"line\":0,\"column\":0,\"function\":\"\",\"where\":\"\",\"outcome\":\"\",\"pc\":null,%s}\n",
             state1);
    assert_memory_equal(text, expected, strlen(expected));
    const char *line2 = text + strlen(expected);
    const char *line2_start =
        "{\"step\":2,\"thread\":1,\"switched\":false,\"op\":\"lock\",\"object\":\"m\",\"addr\":\"0x4040a0\","
        "\"value\":\"\",\"file\":\"prog.c\",\"line\":10,\"column\":0,\"function\":\"main\",\"where\":\"prog.c:10 main\","
        "\"outcome\":\"\",\"pc\":\"0x401136\",\"state\":{\"step\":2,\"current\":1,\"full\":false,";
    assert_memory_equal(line2, line2_start, strlen(line2_start));
    /* Only what changed: the mutex now held (not the unchanged semaphore). */
    const char *line2_end = strchr(line2, '\n');
    const char *held = strstr(line2, "\"holder\":1");
    assert_true(held && held < line2_end);
    const char *sem = strstr(line2, "\"name\":\"sem\"");
    assert_true(!sem || sem > line2_end);
    const char *line3 = strchr(line2, '\n') + 1;
    const char *line3_expected =
        "{\"step\":3,\"thread\":2,\"switched\":true,\"op\":\"lock\",\"object\":\"m\",\"addr\":null,\"value\":\"\","
        "\"file\":\"\",\"line\":0,\"column\":0,\"function\":\"\",\"where\":\"prog.c:21 worker\","
        "\"outcome\":\"blocks on mutex m (held by T1)\",\"pc\":null}\n";
    assert_memory_equal(line3, line3_expected, strlen(line3_expected));
    /* The end line always has the final state, changed or not. */
    const char *end = line3 + strlen(line3_expected);
    assert_memory_equal(end, "{\"end\":true,\"state\":{\"step\":3,\"current\":2,\"full\":true,", 54);
    assert_string_equal(end + strlen(end) - 4, "]}}\n");
    assert_int_equal(strchr(end, '\n')[1], '\0');     /* one end line, the last */
    free(text);
}

static void json_without_states_has_no_state(void **unused)
{
    struct scenario s;
    build_scenario(&s);
    char *text = render(&json_trace_format, false, s.events, NULL, 3);
    assert_null(strstr(text, "\"state\""));
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 4);
    assert_string_equal(text + strlen(text) - strlen("{\"end\":true}\n"), "{\"end\":true}\n");
    free(text);
}

static void json_escapes_quotes_backslashes_controls_and_bad_utf8(void **unused)
{
    struct trace_event ev = make_event(1, 1, false, "W", "a\"b\\c\nd\te\r\x01\x1f", "", "");
    /* é in UTF-8, then a lone 0xff, a stray continuation byte, a truncated
     * sequence and an encoded surrogate: only é survives as it is. */
    snprintf(ev.where, sizeof ev.where, "caf\xc3\xa9 \xff \x80 \xe2\x82 \xed\xa0\x80!");
    char *text = render(&json_trace_format, false, &ev, NULL, 1);
    assert_non_null(strstr(text, "\"object\":\"a\\\"b\\\\c\\nd\\te\\r\\u0001\\u001f\""));
    assert_non_null(strstr(text, "\"where\":\"caf\xc3\xa9 \\ufffd \\ufffd \\ufffd\\ufffd \\ufffd\\ufffd\\ufffd!\""));
    free(text);
}

static void json_writer_indents_unless_compact(void **unused)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    struct json_writer pretty = {.f = out};
    json_begin_object(&pretty, NULL);
    json_int(&pretty, "a", -1);
    json_begin_array(&pretty, "b");
    json_null(&pretty, NULL);
    json_bool(&pretty, NULL, true);
    json_end_array(&pretty);
    json_end_object(&pretty);
    struct json_writer compact = {.f = out, .compact = true};
    for (int i = 0; i < 2; i++) {
        json_begin_object(&compact, NULL);
        json_uint(&compact, "n", (uint64_t)i);
        json_begin_array(&compact, "e");
        json_end_array(&compact);
        json_end_object(&compact);
    }
    fclose(out);
    assert_string_equal(text, "{\n  \"a\": -1,\n  \"b\": [\n    null,\n    true\n  ]\n}\n"
                              "{\"n\":0,\"e\":[]}\n{\"n\":1,\"e\":[]}\n");
    free(text);
}

/* ---- registry, tee, state copies ------------------------------------- */

static void formats_are_found_by_name_and_parsed_from_the_option(void **unused)
{
    assert_ptr_equal(trace_format_by_name("log"), &log_trace_format);
    assert_ptr_equal(trace_format_by_name("status"), &status_trace_format);
    assert_ptr_equal(trace_format_by_name("json"), &json_trace_format);
    assert_null(trace_format_by_name("bogus"));
    int n = 0;
    while (trace_formats[n])
        n++;
    assert_int_equal(n, 5);
    assert_ptr_equal(trace_formats[0], &log_trace_format);
    assert_ptr_equal(trace_format_by_name("timeline"), &timeline_trace_format);
    assert_ptr_equal(trace_format_by_name("timeline-svg"), &timeline_svg_trace_format);

    const struct trace_format *f;
    bool every;
    char err[200];
    assert_true(trace_option_parse(NULL, &f, &every, err, sizeof err));
    assert_ptr_equal(f, &log_trace_format);
    assert_false(every);
    assert_true(trace_option_parse("status,every", &f, &every, err, sizeof err));
    assert_ptr_equal(f, &status_trace_format);
    assert_true(every);
    assert_true(trace_option_parse("json", &f, &every, err, sizeof err));
    assert_ptr_equal(f, &json_trace_format);
    assert_false(every);
    assert_false(trace_option_parse("bogus", &f, &every, err, sizeof err));
    assert_string_equal(err, "unknown trace format \"bogus\"; the formats are log, status, json");
    assert_false(trace_option_parse("log,sometimes", &f, &every, err, sizeof err));
    assert_non_null(strstr(err, "\"sometimes\""));
    assert_false(trace_option_parse("", &f, &every, err, sizeof err));
    assert_false(trace_option_parse("a_name_far_too_long_to_be_any_format_at_all", &f, &every, err, sizeof err));
    /* Pictures go to files: --trace does not print them. */
    assert_false(trace_option_parse("timeline", &f, &every, err, sizeof err));
    assert_null(f);
    assert_non_null(strstr(err, "--timeline FILE"));
    assert_null(strchr(err, '\n'));
    assert_false(trace_option_parse("timeline-svg", &f, &every, err, sizeof err));
}

static void tee_feeds_every_branch(void **unused)
{
    struct scenario s;
    build_scenario(&s);
    char *log_text = NULL, *json_text = NULL;
    size_t log_len = 0, json_len = 0;
    FILE *log_out = open_memstream(&log_text, &log_len);
    FILE *json_out = open_memstream(&json_text, &json_len);
    struct trace_tee tee = {0};
    assert_true(trace_tee_add(&tee, &log_trace_format, log_out, false));
    assert_false(trace_tee_needs_state(&tee));
    assert_true(trace_tee_add(&tee, &json_trace_format, json_out, false));
    assert_true(trace_tee_needs_state(&tee));
    trace_tee_open(&tee);
    for (int i = 0; i < 3; i++)
        trace_tee_event(&tee, &s.events[i], s.state_ptrs[i]);
    trace_tee_close(&tee);
    fclose(log_out);
    fclose(json_out);
    assert_string_equal(log_text, SCENARIO_LOG);
    char *alone = render(&json_trace_format, false, s.events, s.state_ptrs, 3);
    assert_string_equal(json_text, alone);
    free(alone);
    free(log_text);
    free(json_text);
    while (tee.n < TRACE_TEE_MAX)
        assert_true(trace_tee_add(&tee, &log_trace_format, stdout, false));
    assert_false(trace_tee_add(&tee, &log_trace_format, stdout, false));
}

static void state_copy_is_deep_and_independent(void **unused)
{
    struct scenario s;
    build_scenario(&s);
    struct exec_state *copy = exec_state_copy(&s.states[2]);
    assert_true(exec_state_same_picture(copy, &s.states[2]));
    assert_int_equal(copy->step, 3);
    assert_int_equal(copy->current, 2);
    assert_ptr_not_equal(copy->threads, s.states[2].threads);
    assert_ptr_not_equal(copy->objects, s.states[2].objects);
    assert_ptr_not_equal(copy->objects[0].waiters, s.waiters_at_3);

    /* Whatever happens to the original, the copy keeps what it saw. */
    s.waiters_at_3[0] = 9;
    snprintf(s.threads[2][0].location, sizeof s.threads[2][0].location, "elsewhere.c:1");
    s.objects[2][0].holder = 0;
    assert_int_equal(copy->objects[0].waiters[0], 2);
    assert_string_equal(copy->threads[0].location, "prog.c:11 main");
    assert_int_equal(copy->objects[0].holder, 1);
    assert_false(exec_state_same_picture(copy, &s.states[2]));
    exec_state_free(copy);

    struct exec_state empty = {.step = 7};
    copy = exec_state_copy(&empty);
    assert_int_equal(copy->n_threads, 0);
    assert_int_equal(copy->n_objects, 0);
    assert_true(exec_state_same_picture(copy, &empty));
    exec_state_free(copy);
}

/* --memory-model tso: a thread's buffered stores are copied with the state,
 * make a different picture, get a table of their own in the status view
 * (a buffer that emptied reads "-") and a "buffer" array in JSON. */
static void buffered_stores_are_copied_tabled_and_written(void **unused)
{
    struct scenario s;
    build_scenario(&s);
    struct state_store stores[2] = {{.addr = 0x404010, .size = 4, .value = 1, .object = "flag[0]", .where = "p.c:14"},
                                    {.addr = 0x404018, .size = 4, .value = 2, .object = "turn", .where = "p.c:15"}};
    s.threads[1][0].n_pending = 2;
    s.threads[1][0].pending = stores;
    s.threads[2][0].n_pending = 0;

    struct exec_state *copy = exec_state_copy(&s.states[1]);
    assert_int_equal(copy->threads[0].n_pending, 2);
    assert_ptr_not_equal(copy->threads[0].pending, stores);
    assert_null(copy->threads[1].pending);
    assert_true(exec_state_same_picture(copy, &s.states[1]));
    stores[1].value = 3;
    assert_string_equal(copy->threads[0].pending[1].object, "turn");
    assert_int_equal(copy->threads[0].pending[1].value, 2);
    assert_false(exec_state_same_picture(copy, &s.states[1]));
    assert_false(exec_state_same_picture(copy, &s.states[2]));
    stores[1].value = 2;
    exec_state_free(copy);

    char *text = render(&status_trace_format, true, s.events, s.state_ptrs, 3);
    const char *two = strstr(text, "  state after step 2:");
    assert_non_null(two);
    /* Before any store is buffered there is no such table. */
    char *before_two = strndup(text, (size_t)(two - text));
    assert_null(strstr(before_two, "buffer"));
    free(before_two);
    assert_non_null(strstr(two, "    buffer  stores, oldest first\n"
                                "  * T1      flag[0] := 1 (p.c:14), turn := 2 (p.c:15)\n"));
    const char *three = strstr(text, "  state after step 3:");
    assert_non_null(three);
    assert_non_null(strstr(three, "    buffer  stores, oldest first\n"
                                  "  * T1      -\n"));
    free(text);

    text = render(&json_trace_format, false, s.events, s.state_ptrs, 3);
    assert_non_null(strstr(text, "\"buffer\":[{\"object\":\"flag[0]\",\"addr\":\"0x404010\",\"size\":4,\"value\":1,"
                                 "\"where\":\"p.c:14\"},{\"object\":\"turn\""));
    free(text);
}

/* Texts that differ only after their terminator are the same. */
static void same_picture_ignores_step_current_and_bytes_after_strings(void **unused)
{
    struct scenario s;
    build_scenario(&s);
    struct exec_state *copy = exec_state_copy(&s.states[1]);
    copy->step = 99;
    copy->current = 2;
    assert_true(exec_state_same_picture(copy, &s.states[1]));
    struct state_thread *t = (struct state_thread *)&copy->threads[0];
    t->location[sizeof t->location - 1] = 'x';
    t->next.object[sizeof t->next.object - 2] = 'y';
    assert_true(exec_state_same_picture(copy, &s.states[1]));
    t->next.line = 5;
    assert_false(exec_state_same_picture(copy, &s.states[1]));
    exec_state_free(copy);
    assert_false(exec_state_same_picture(&s.states[0], &s.states[1]));
}

/* ---- text_table ------------------------------------------------------ */

static void text_table_aligns_limits_and_never_ends_in_blanks(void **unused)
{
    struct text_table *t = text_table_new(3);
    text_table_set_width(t, 1, 0, 8);
    text_table_set_width(t, 2, 5, 0);
    const char *header[] = {"name", "what", "x"};
    const char *row1[] = {"caf\xc3\xa9s", "a much longer cell", NULL};
    const char *row2[] = {"b", "tab\there", "end"};
    text_table_add_row(t, header);
    text_table_add_row(t, row1);
    text_table_add_row(t, row2);
    assert_int_equal(text_table_rows(t), 3);
    char line[64];
    text_table_line(t, 0, line, sizeof line);
    assert_string_equal(line, "name   what      x");
    text_table_line(t, 1, line, sizeof line);
    assert_string_equal(line, "caf\xc3\xa9s  a muc...");
    text_table_line(t, 2, line, sizeof line);
    assert_string_equal(line, "b      tab?here  end");
    char small[8];
    assert_int_equal(text_table_line(t, 2, small, sizeof small), strlen("b      tab?here  end"));
    assert_string_equal(small, "b      ");
    text_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(log_format_is_the_one_line_format),
        cmocka_unit_test(status_without_states_is_the_log),
        cmocka_unit_test(status_prints_tables_at_switches_and_marks_changes),
        cmocka_unit_test(status_every_step_prints_tables_after_each_step),
        cmocka_unit_test(status_marks_new_rows_and_truncates_long_cells),
        cmocka_unit_test(json_lines_carry_every_field_and_state_only_when_changed),
        cmocka_unit_test(watches_are_tabled_and_written_with_changes_marked),
        cmocka_unit_test(json_without_states_has_no_state),
        cmocka_unit_test(json_escapes_quotes_backslashes_controls_and_bad_utf8),
        cmocka_unit_test(json_writer_indents_unless_compact),
        cmocka_unit_test(formats_are_found_by_name_and_parsed_from_the_option),
        cmocka_unit_test(tee_feeds_every_branch),
        cmocka_unit_test(state_copy_is_deep_and_independent),
        cmocka_unit_test(same_picture_ignores_step_current_and_bytes_after_strings),
        cmocka_unit_test(buffered_stores_are_copied_tabled_and_written),
        cmocka_unit_test(text_table_aligns_limits_and_never_ends_in_blanks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
