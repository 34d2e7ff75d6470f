/* Unit tests for the pure parts of grading: shard ranges, verdicts and how
 * units combine, submission names, CSV/HTML escaping, the JSON reader, and
 * shard reports written, read back and checked as a set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ui/cli/cli.h"
#include "ui/text/escape.h"
#include "ui/text/xml_text.h"
#include "ui/grade/model/grade_model.h"
#include "ui/grade/reports/grade_links.h"
#include "ui/grade/grade_shard.h"
#include "ui/text/json_reader.h"

/* ---------- shards ---------- */

static void test_shard_ranges_cover_all(void **state)
{
    static const uint64_t sizes[] = {0, 1, 2, 5, 7, 8, 100, 1001, (uint64_t)1 << 63, UINT64_MAX};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int n = 1; n <= 12; n++) {
            uint64_t expect_first = 0, smallest = UINT64_MAX, largest = 0;
            for (int k = 1; k <= n; k++) {
                uint64_t first, end;
                grade_shard_range(sizes[s], k, n, &first, &end);
                assert_int_equal(first, expect_first);     /* contiguous, in order */
                assert_true(end >= first);
                smallest = end - first < smallest ? end - first : smallest;
                largest = end - first > largest ? end - first : largest;
                expect_first = end;
            }
            assert_int_equal(expect_first, sizes[s]);      /* all of them */
            assert_true(largest - smallest <= 1);          /* balanced */
        }
    }
    uint64_t first, end;
    grade_shard_range(8, 2, 3, &first, &end);
    assert_int_equal(first, 2);
    assert_int_equal(end, 5);
    grade_shard_range(2, 1, 3, &first, &end);          /* fewer schedules than shards */
    assert_int_equal(first, end);
}

static void test_parse_shard(void **state)
{
    int k, n;
    assert_true(cli_parse_shard("1/1", &k, &n));
    assert_int_equal(k, 1);
    assert_int_equal(n, 1);
    assert_true(cli_parse_shard("3/4", &k, &n));
    assert_int_equal(k, 3);
    assert_int_equal(n, 4);
    assert_true(cli_parse_shard("100000/100000", &k, &n));
    static const char *const bad[] = {"0/2", "3/2", "a/b", "1/", "/2", "1/2x", "-1/2", "1/100001", "", "1", "1 /2",
                                      "1/-2", "1//2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(cli_parse_shard(bad[i], &k, &n));
    assert_false(cli_parse_shard(NULL, &k, &n));
}

/* The limits' sizes and times on the command line. */
static void test_cli_parse(void **state)
{
    uint64_t v;
    assert_true(cli_parse_size("512M", &v));
    assert_int_equal(v, 512u << 20);
    assert_true(cli_parse_size("4G", &v));
    assert_int_equal(v, 4ull << 30);
    assert_true(cli_parse_size("64k", &v));
    assert_int_equal(v, 65536);
    assert_true(cli_parse_size("0", &v));
    assert_int_equal(v, 0);
    static const char *const bad_sizes[] = {"", "M", "12Q", "-1", "1MB", "99999999999G", " 1"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++)
        assert_false(cli_parse_size(bad_sizes[i], &v));
    double sec;
    assert_true(cli_parse_seconds("1.5", &sec, false));
    assert_true(sec == 1.5);
    assert_false(cli_parse_seconds("0", &sec, false));
    assert_true(cli_parse_seconds("0", &sec, true));
    assert_false(cli_parse_seconds("-1", &sec, true));
    assert_false(cli_parse_seconds("1s", &sec, true));
    assert_false(cli_parse_seconds("inf", &sec, true));
    assert_false(cli_parse_u64("-3", &v));
    assert_true(cli_parse_u64("18446744073709551615", &v));
    assert_false(cli_parse_u64("18446744073709551616", &v));
}

/* ---------- verdicts and aggregation ---------- */

static void test_verdict_names(void **state)
{
    assert_string_equal(grade_verdict_name(VERDICT_OK), "ok");
    assert_string_equal(grade_verdict_text(VERDICT_OK), "no failure found");
    assert_string_equal(grade_verdict_text(VERDICT_CHECKER), "checker violation");
    assert_string_equal(grade_verdict_name(VERDICT_BUILD_FAILED), "build-failed");
    assert_string_equal(grade_verdict_name(VERDICT_MDAT_ERROR), "mdat-error");
    for (int v = 0; v < VERDICT_COUNT; v++) {
        assert_string_not_equal(grade_verdict_name((enum grade_verdict)v), "?");
        assert_string_not_equal(grade_verdict_text((enum grade_verdict)v), "?");
    }
    assert_int_equal(grade_verdict_of_failure(FAIL_HANG), VERDICT_HANG);
    assert_int_equal(grade_verdict_of_failure(FAIL_LIVELOCK), VERDICT_HANG);
    assert_int_equal(grade_verdict_of_failure(FAIL_CHECKER), VERDICT_CHECKER);
    assert_int_equal(grade_verdict_of_failure(FAIL_MISUSE), VERDICT_MISUSE);
    assert_int_equal(grade_verdict_of_failure(FAIL_EXIT_STATUS), VERDICT_EXIT_STATUS);
    assert_int_equal(grade_verdict_of_failure(FAIL_RACE), VERDICT_RACE);
    assert_int_equal(grade_verdict_of_failure(FAIL_INVARIANT), VERDICT_INVARIANT);
    assert_int_equal(grade_verdict_of_failure(FAIL_NONE), VERDICT_OK);
    for (int s = 0; s < UNIT_STATUS_COUNT; s++) {
        enum unit_status back;
        assert_true(grade_unit_status_from_name(grade_unit_status_name((enum unit_status)s), &back));
        assert_int_equal(back, s);
    }
    enum unit_status st;
    assert_false(grade_unit_status_from_name("finished", &st));
    /* One word per meaning: a call refused in the sandbox is a
     * sandbox-violation, tampering with the grading is tampered (which
     * shards of 0.3 still call sandbox-violation). */
    assert_int_equal(grade_verdict_of_failure(FAIL_SANDBOX), VERDICT_SANDBOX);
    assert_string_equal(grade_verdict_name(VERDICT_SANDBOX), "sandbox-violation");
    assert_string_equal(grade_verdict_name(VERDICT_TAMPERED), "tampered");
    assert_string_equal(grade_unit_status_name(UNIT_TAMPERED), "tampered");
    assert_true(grade_unit_status_from_name("sandbox-violation", &st));
    assert_int_equal(st, UNIT_TAMPERED);
    for (int a = 0; a < VERDICT_COUNT; a++)
        for (int b = a + 1; b < VERDICT_COUNT; b++) {
            assert_string_not_equal(grade_verdict_name((enum grade_verdict)a), grade_verdict_name((enum grade_verdict)b));
            assert_string_not_equal(grade_verdict_text((enum grade_verdict)a), grade_verdict_text((enum grade_verdict)b));
        }
}

static struct grade_unit graded(uint64_t first, uint64_t end, uint64_t failing, enum failure_kind kind,
                                uint64_t first_failing)
{
    struct grade_unit u = {.first = first, .end = end, .status = UNIT_GRADED, .schedules_run = end - first,
                           .failing = failing, .seconds = 1.5};
    if (failing) {
        u.failing_by_kind[kind] = failing;
        u.has_failure = true;
        u.first_failure.execution = first_failing;
        u.first_failure.kind = kind;
        u.first_failure.reproduced = true;
        snprintf(u.first_failure.message, sizeof u.first_failure.message, "%s at e%llu", failure_kind_name(kind),
                 (unsigned long long)first_failing);
    }
    return u;
}

static void test_aggregate_lowest_failure_and_sums(void **state)
{
    /* Given out of order: the earliest range's failure is the first one. */
    struct grade_unit units[3] = {
        graded(6, 9, 2, FAIL_DEADLOCK, 7),
        graded(0, 3, 0, FAIL_NONE, 0),
        graded(3, 6, 1, FAIL_CRASH, 5),
    };
    struct grade_result r;
    grade_aggregate(units, 3, &r);
    assert_int_equal(r.verdict, VERDICT_CRASH);
    assert_int_equal(r.schedules_run, 9);
    assert_int_equal(r.failing, 3);
    assert_int_equal(r.failing_by_kind[FAIL_DEADLOCK], 2);
    assert_int_equal(r.failing_by_kind[FAIL_CRASH], 1);
    assert_true(r.has_failure);
    assert_int_equal(r.first_failure.execution, 5);
    assert_string_equal(r.details, "crash at e5; also deadlock in 2");
    assert_true(r.seconds == 4.5);

    /* The same executions in one unit give the same result. */
    struct grade_unit whole = graded(0, 9, 3, FAIL_CRASH, 5);
    whole.failing_by_kind[FAIL_CRASH] = 1;
    whole.failing_by_kind[FAIL_DEADLOCK] = 2;
    struct grade_result w;
    grade_aggregate(&whole, 1, &w);
    assert_int_equal(w.verdict, r.verdict);
    assert_string_equal(w.details, r.details);
    assert_memory_equal(&w.first_failure, &r.first_failure, sizeof w.first_failure);
    assert_memory_equal(w.failing_by_kind, r.failing_by_kind, sizeof w.failing_by_kind);
}

static void test_aggregate_details(void **state)
{
    struct grade_result r;
    struct grade_unit u = graded(0, 4, 4, FAIL_HANG, 0);
    grade_aggregate(&u, 1, &r);
    assert_int_equal(r.verdict, VERDICT_HANG);
    assert_string_equal(r.details, "hang: hang at e0");

    u = graded(0, 4, 4, FAIL_LIVELOCK, 0);
    grade_aggregate(&u, 1, &r);
    assert_int_equal(r.verdict, VERDICT_HANG);
    assert_string_equal(r.details, "livelock: livelock at e0");

    /* The program's stderr for a crash, not for an assertion (it repeats it). */
    u = graded(0, 4, 1, FAIL_CRASH, 2);
    snprintf(u.first_failure.program_stderr, sizeof u.first_failure.program_stderr, "out of memory");
    u.first_failure.reproduced = false;
    grade_aggregate(&u, 1, &r);
    assert_string_equal(r.details, "crash at e2; the program's stderr: out of memory (not reproduced when re-run)");
    u = graded(0, 4, 1, FAIL_ASSERTION, 2);
    snprintf(u.first_failure.program_stderr, sizeof u.first_failure.program_stderr, "prog: Assertion failed");
    grade_aggregate(&u, 1, &r);
    assert_string_equal(r.details, "assertion at e2");

    /* Not reproduced when re-run: the recorded run has no message. */
    u = graded(0, 4, 1, FAIL_HANG, 3);
    u.first_failure.message[0] = '\0';
    u.first_failure.reproduced = false;
    grade_aggregate(&u, 1, &r);
    assert_string_equal(r.details, "hang (not reproduced when re-run)");

    u = graded(0, 4, 0, FAIL_NONE, 0);
    grade_aggregate(&u, 1, &r);
    assert_int_equal(r.verdict, VERDICT_OK);
    assert_string_equal(r.details, "");
    assert_false(r.has_failure);

    grade_aggregate(NULL, 0, &r);
    assert_int_equal(r.verdict, VERDICT_OK);
}

static void test_aggregate_precedence(void **state)
{
    struct grade_result r;
    struct grade_unit units[3] = {graded(0, 3, 1, FAIL_DEADLOCK, 1), graded(3, 6, 0, FAIL_NONE, 0),
                                  graded(6, 9, 0, FAIL_NONE, 0)};
    units[1].status = UNIT_WALL_CLOCK;
    snprintf(units[1].message, sizeof units[1].message, "wall clock: too long");
    units[1].schedules_run = 1;
    grade_aggregate(units, 3, &r);
    assert_int_equal(r.verdict, VERDICT_HANG);
    assert_string_equal(r.details, "wall clock: too long");
    assert_int_equal(r.schedules_run, 7);           /* what did run is counted */
    assert_int_equal(r.failing, 1);

    units[2].status = UNIT_MDAT_ERROR;
    snprintf(units[2].message, sizeof units[2].message, "worker 1 died");
    grade_aggregate(units, 3, &r);
    assert_int_equal(r.verdict, VERDICT_MDAT_ERROR);
    assert_string_equal(r.details, "worker 1 died");

    units[1].status = UNIT_TAMPERED;
    snprintf(units[1].message, sizeof units[1].message, "the submission killed mdat's grading process (SIGKILL)");
    grade_aggregate(units, 3, &r);
    assert_int_equal(r.verdict, VERDICT_TAMPERED);
    assert_string_equal(r.details, "the submission killed mdat's grading process (SIGKILL)");

    units[0].status = UNIT_BUILD_FAILED;
    snprintf(units[0].message, sizeof units[0].message, "the build exited with status 2");
    snprintf(units[0].build_output, sizeof units[0].build_output, "x.c:1: error");
    grade_aggregate(units, 3, &r);
    assert_int_equal(r.verdict, VERDICT_BUILD_FAILED);
    assert_string_equal(r.details, "the build exited with status 2");
    assert_string_equal(r.build_output, "x.c:1: error");
    assert_int_equal(r.failing, 0);
    assert_int_equal(r.schedules_run, 0);
    assert_false(r.has_failure);
}

/* Links from a report to a failure's files: relative, through "..",
 * only to files that are there. */
static void test_failure_links(void **state)
{
    char root[] = "/tmp/mdat-links-XXXXXX";
    assert_non_null(mkdtemp(root));
    char cmd[256], path[512], out[PATH_MAX];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/out/02-dave %s/other && touch %s/out/02-dave/d.sched %s/out/02-dave/d.html "
             "%s/out/02-dave/d.stdout", root, root, root, root, root);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/out/02-dave/d.html", root);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/out", root);
    assert_true(grade_relative_path(dir, path, out, sizeof out));
    assert_string_equal(out, "02-dave/d.html");
    snprintf(dir, sizeof dir, "%s/other", root);
    assert_true(grade_relative_path(dir, path, out, sizeof out));
    assert_string_equal(out, "../out/02-dave/d.html");
    snprintf(dir, sizeof dir, "%s/out/02-dave", root);
    assert_true(grade_relative_path(dir, path, out, sizeof out));
    assert_string_equal(out, "d.html");
    assert_false(grade_relative_path("/nonexistent-dir", path, out, sizeof out));

    struct grade_failure ff = {.kind = FAIL_DEADLOCK};
    snprintf(ff.schedule_file, sizeof ff.schedule_file, "%s/out/02-dave/d.sched", root);
    snprintf(path, sizeof path, "%s/out/report.html", root);
    struct grade_link links[GRADE_MAX_LINKS];
    assert_int_equal(grade_failure_links(path, &ff, links), 3);     /* no .trace, no .stderr */
    assert_string_equal(links[0].what, "timeline");
    assert_string_equal(links[0].href, "02-dave/d.html");
    assert_string_equal(links[1].what, "schedule");
    assert_string_equal(links[2].what, "output");
    assert_string_equal(links[2].href, "02-dave/d.stdout");
    snprintf(ff.schedule_file, sizeof ff.schedule_file, "%s", "");
    assert_int_equal(grade_failure_links(path, &ff, links), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
}

static void test_submission_name(void **state)
{
    char name[64];
    grade_submission_name("subs/alice/", 0, 5, name, sizeof name);
    assert_string_equal(name, "01-alice");
    grade_submission_name("a b;c$(rm -rf)", 9, 120, name, sizeof name);
    assert_string_equal(name, "010-a_b_c__rm_-rf_");
    grade_submission_name("/", 1, 2, name, sizeof name);
    assert_string_equal(name, "02-submission");
    grade_submission_name("../..", 0, 1, name, sizeof name);
    assert_string_equal(name, "01-submission");
    grade_submission_name("caf\xc3\xa9.bin", 0, 1, name, sizeof name);
    assert_string_equal(name, "01-caf__.bin");
}

/* ---------- escaping ---------- */

/* What write(f, s) writes. */
static char *written(void (*write)(FILE *, const char *), const char *s)
{
    static char buf[256];
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf, "w");
    write(f, s);
    fclose(f);
    return buf;
}

static char *csv(const char *s)
{
    return written(csv_write_field, s);
}

static char *html(const char *s)
{
    return written(xml_escaped, s);
}

static void test_csv_escaping(void **state)
{
    assert_string_equal(csv("plain text"), "plain text");
    assert_string_equal(csv(""), "");
    assert_string_equal(csv(NULL), "");
    assert_string_equal(csv("a,b"), "\"a,b\"");
    assert_string_equal(csv("say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_string_equal(csv("two\nlines"), "\"two\nlines\"");
    assert_string_equal(csv("cr\r"), "\"cr\r\"");
    /* Spreadsheets would run these as formulas. */
    assert_string_equal(csv("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
    assert_string_equal(csv("+1"), "\"'+1\"");
    assert_string_equal(csv("-> 3"), "\"'-> 3\"");
    assert_string_equal(csv("@sum"), "\"'@sum\"");
    assert_string_equal(csv("a=b"), "a=b");
    /* Not UTF-8, or a control character: U+FFFD. */
    assert_string_equal(csv("x\xffy"), "x\xef\xbf\xbdy");
    assert_string_equal(csv("bell\a"), "bell\xef\xbf\xbd");
    assert_string_equal(csv("caf\xc3\xa9"), "caf\xc3\xa9");
}

static void test_html_escaping(void **state)
{
    assert_string_equal(html("<script>alert('x')</script>"), "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
    assert_string_equal(html("a & b \"c\""), "a &amp; b &quot;c&quot;");
    assert_string_equal(html("line\nnext\ttab"), "line\nnext\ttab");
    assert_string_equal(html("\x1b[31mred"), "\xef\xbf\xbd[31mred");
    assert_string_equal(html("\xc3\x28"), "\xef\xbf\xbd(");
    assert_string_equal(html("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");   /* a surrogate */
    assert_string_equal(html("\xe2\x82\xac"), "\xe2\x82\xac");
    assert_string_equal(html(NULL), "");
}

/* ---------- JSON reader ---------- */

static struct json_value *parse(const char *text, char *err, size_t len)
{
    return json_parse(text, strlen(text), err, len);
}

static void test_json_reader(void **state)
{
    char err[200];
    struct json_value *v = parse(" {\"a\": [1, -2.5e3, true, false, null], \"s\": \"\\\"q\\\\ \\/ \\n\\u00e9\\ud83d\\ude00\","
                                 " \"big\": 18446744073709551615, \"o\": {}, \"e\": [], \"a\": 7}\n",
                                 err, sizeof err);
    assert_non_null(v);
    assert_int_equal(v->type, JSON_OBJECT);
    const struct json_value *a = &v->items[0];
    assert_int_equal(a->type, JSON_ARRAY);
    assert_int_equal(a->n, 5);
    assert_string_equal(a->items[1].text, "-2.5e3");
    assert_true(a->items[2].boolean);
    assert_int_equal(a->items[4].type, JSON_NULL);
    assert_string_equal(json_member_string(v, "s"), "\"q\\ / \n\xc3\xa9\xf0\x9f\x98\x80");
    uint64_t big = 0, seven = 0;
    assert_true(json_member_u64(v, "big", &big));
    assert_true(big == UINT64_MAX);
    assert_true(json_member_u64(v, "a", &seven));     /* a repeated key: the last one */
    assert_int_equal(seven, 7);
    double d;
    assert_false(json_member_u64(a, "x", &big));
    assert_false(json_member_double(v, "s", &d));
    assert_string_equal(json_member_string(v, "missing"), "");
    assert_false(json_member_true(v, "o"));
    struct json_value *same = parse("{\"a\":[1,-2.5e3,true,false,null],\"s\":\"\\\"q\\\\ / \\n\xc3\xa9\xf0\x9f\x98\x80\","
                                    "\"big\":18446744073709551615,\"o\":{},\"e\":[],\"a\":7}",
                                    err, sizeof err);
    assert_non_null(same);
    assert_true(json_equal(v, same));
    struct json_value *other = parse("{\"a\":[1,-2.5e3,true,false,null],\"s\":\"x\",\"big\":1,\"o\":{},\"e\":[],\"a\":7}",
                                     err, sizeof err);
    assert_false(json_equal(v, other));
    json_value_free(v);
    json_value_free(same);
    json_value_free(other);

    struct json_value *nul = parse("\"a\\u0000b\"", err, sizeof err);
    assert_int_equal(nul->text_len, 3);
    json_value_free(nul);
}

static void test_json_reader_errors(void **state)
{
    static const char *const bad[] = {"", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "\"open", "\"\\ud800\"",
                                      "\"\\udc00x\"", "\"\\x\"", "01", "1.", "1e", "-", "tru", "nul", "[1] 2",
                                      "\"tab\there\"", "{1:2}"};
    char err[200];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        struct json_value *v = parse(bad[i], err, sizeof err);
        if (v)
            fail_msg("parsed %s", bad[i]);
        assert_non_null(strstr(err, "line "));
    }
    char deep[200];
    memset(deep, '[', 70);
    memset(deep + 70, ']', 70);
    deep[140] = '\0';
    assert_null(parse(deep, err, sizeof err));
    assert_non_null(strstr(err, "nested too deep"));
    assert_null(parse("{\n\"a\": 1,\n\"b\": }", err, sizeof err));
    assert_non_null(strstr(err, "line 3"));
    assert_null(json_parse_file("/nonexistent/shard.json", err, sizeof err));
    assert_non_null(strstr(err, "cannot read /nonexistent/shard.json"));
    /* Bounded before parsing: /dev/zero and a directory are refused at once. */
    assert_null(json_parse_file("/dev/zero", err, sizeof err));
    assert_non_null(strstr(err, "/dev/zero is not a JSON document mdat reads (a NUL byte"));
    assert_null(json_parse_file("/tmp", err, sizeof err));
    assert_non_null(strstr(err, "/tmp is a directory"));
}

/* ---------- shard reports ---------- */

static const char *const SUBS[] = {"subs/alice", "subs/bob, \"the\" <builder>"};

static struct grade_settings settings(void)
{
    return (struct grade_settings){
        .submissions = SUBS,
        .n_submissions = 2,
        .schedules = 5,
        .seed = 18446744073709551557u,
        .strategy = "pct",
        .depth = 3,
        .max_steps = 2000,
        .timeout_sec = 1.5,
        .check_cmd = "check.sh --strict",
        .limits = {.cpu_sec = 60, .address_space = 4ull << 30, .nproc = 64, .file_size = 1 << 20},
        .unit_timeout_sec = 600,
        .build_cmd = "make",
        .build_timeout_sec = 300,
        .out_dir = "grades",
    };
}

struct shard_dir {
    char dir[64];
    char path[4][128];
};

static int make_dir(void **state)
{
    struct shard_dir *d = calloc(1, sizeof *d);
    snprintf(d->dir, sizeof d->dir, "/tmp/mdat_grade_XXXXXX");
    assert_non_null(mkdtemp(d->dir));
    for (int i = 0; i < 4; i++)
        snprintf(d->path[i], sizeof d->path[i], "%s/shard%d.json", d->dir, i);
    *state = d;
    return 0;
}

static int remove_dir(void **state)
{
    struct shard_dir *d = *state;
    for (int i = 0; i < 4; i++)
        unlink(d->path[i]);
    rmdir(d->dir);
    free(d);
    return 0;
}

/* Shard k of 3 of the settings above, written to path. */
static void write_shard(const struct grade_settings *s, int k, const char *path)
{
    struct grade_unit units[2];
    for (int i = 0; i < 2; i++) {
        uint64_t first, end;
        grade_shard_range(s->schedules, k, 3, &first, &end);
        units[i] = graded(first, end, i == 1 ? end - first : 0, FAIL_CHECKER, first);
        units[i].submission = i;
        if (i == 1) {
            snprintf(units[i].first_failure.location, sizeof units[i].first_failure.location, "bob.c:12");
            snprintf(units[i].first_failure.schedule_file, sizeof units[i].first_failure.schedule_file,
                     "grades/02-bob/bob-checker-s1-e%llu.sched", (unsigned long long)first);
            snprintf(units[i].first_failure.program_stderr, sizeof units[i].first_failure.program_stderr,
                     "caf\xc3\xa9 \"x\"\n");
            snprintf(units[i].build_output, sizeof units[i].build_output, "cc -o bob bob.c\nwarning: \x01");
        }
    }
    char err[300];
    if (!grade_write_shard(path, s, k, 3, units, 2, err, sizeof err))
        fail_msg("%s", err);
}

static void test_shard_roundtrip(void **state)
{
    struct shard_dir *d = *state;
    struct grade_settings s = settings();
    write_shard(&s, 2, d->path[0]);
    struct grade_shard sh;
    char err[300];
    if (!grade_read_shard(d->path[0], &sh, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(sh.k, 2);
    assert_int_equal(sh.n, 3);
    assert_int_equal(sh.settings.n_submissions, 2);
    assert_string_equal(sh.settings.submissions[1], SUBS[1]);
    assert_int_equal(sh.settings.seed, s.seed);
    assert_int_equal(sh.settings.limits.address_space, s.limits.address_space);
    assert_true(sh.settings.timeout_sec == 1.5);
    assert_string_equal(sh.settings.check_cmd, "check.sh --strict");
    assert_null(sh.settings.exe_name);
    assert_string_equal(sh.settings.out_dir, "grades");
    assert_int_equal(sh.n_units, 2);
    const struct grade_unit *u = &sh.units[1];
    assert_int_equal(u->submission, 1);
    assert_int_equal(u->first, 1);
    assert_int_equal(u->end, 3);
    assert_int_equal(u->failing, 2);
    assert_int_equal(u->failing_by_kind[FAIL_CHECKER], 2);
    assert_true(u->has_failure);
    assert_int_equal(u->first_failure.kind, FAIL_CHECKER);
    assert_int_equal(u->first_failure.execution, 1);
    assert_string_equal(u->first_failure.location, "bob.c:12");
    assert_string_equal(u->first_failure.program_stderr, "caf\xc3\xa9 \"x\"\n");
    assert_string_equal(u->build_output, "cc -o bob bob.c\nwarning: \x01");
    assert_false(sh.units[0].has_failure);
    grade_shard_free(&sh);
}

static void read_all(struct shard_dir *d, struct grade_shard *sh, int n)
{
    char err[300];
    for (int i = 0; i < n; i++)
        if (!grade_read_shard(d->path[i], &sh[i], err, sizeof err))
            fail_msg("%s", err);
}

static void expect_refused(struct grade_shard *sh, int n, const char *const *paths, const char *why)
{
    char err[600] = "";
    assert_false(grade_check_shards(sh, paths, (size_t)n, err, sizeof err));
    if (!strstr(err, why))
        fail_msg("\"%s\" does not say \"%s\"", err, why);
    for (int i = 0; i < n; i++)
        grade_shard_free(&sh[i]);
}

static void test_shard_checks(void **state)
{
    struct shard_dir *d = *state;
    struct grade_settings s = settings();
    const char *paths[4] = {d->path[0], d->path[1], d->path[2], d->path[3]};
    for (int k = 1; k <= 3; k++)
        write_shard(&s, k, d->path[k - 1]);
    struct grade_shard sh[4];
    char err[600];

    read_all(d, sh, 3);
    if (!grade_check_shards(sh, paths, 3, err, sizeof err))
        fail_msg("%s", err);
    for (int i = 0; i < 3; i++)
        grade_shard_free(&sh[i]);

    read_all(d, sh, 2);
    expect_refused(sh, 2, paths, "missing shard 3 of 3");
    read_all(d, sh, 1);
    expect_refused(sh, 1, paths, "missing shards 2, 3 of 3");

    const char *twice[3] = {d->path[0], d->path[0], d->path[1]};
    char err2[300];
    for (int i = 0; i < 3; i++)
        assert_true(grade_read_shard(twice[i], &sh[i], err2, sizeof err2));
    expect_refused(sh, 3, twice, "shard 1 of 3 is given twice");

    struct grade_settings other = s;
    other.seed = 2;
    write_shard(&other, 3, d->path[3]);
    const char *mixed[3] = {d->path[0], d->path[1], d->path[3]};
    for (int i = 0; i < 3; i++)
        assert_true(grade_read_shard(mixed[i], &sh[i], err2, sizeof err2));
    expect_refused(sh, 3, mixed, "different settings (seed differs)");

    static const char *const renamed[] = {"subs/alice", "subs/carol"};
    other = s;
    other.submissions = renamed;
    write_shard(&other, 3, d->path[3]);
    for (int i = 0; i < 3; i++)
        assert_true(grade_read_shard(mixed[i], &sh[i], err2, sizeof err2));
    expect_refused(sh, 3, mixed, "different settings (submissions differs)");

    /* A shard whose units are not those of its number. */
    read_all(d, sh, 3);
    sh[2].units[1].end--;
    expect_refused(sh, 3, paths, "should hold executions 3-4 of subs/bob");
    read_all(d, sh, 3);
    sh[1].n_units = 1;
    expect_refused(sh, 3, paths, "should hold executions 1-2 of subs/bob");

    assert_false(grade_check_shards(NULL, NULL, 0, err, sizeof err));
}

static void test_shard_read_refuses(void **state)
{
    struct shard_dir *d = *state;
    struct grade_shard sh;
    char err[300];
    FILE *f = fopen(d->path[0], "w");
    fputs("{\"format\": \"mdat-grade-report\"}", f);
    fclose(f);
    assert_false(grade_read_shard(d->path[0], &sh, err, sizeof err));
    assert_non_null(strstr(err, "is not an mdat grade shard report"));
    grade_shard_free(&sh);
    f = fopen(d->path[0], "w");
    fputs("{\"format\": \"mdat-grade-shard\", \"shard\": 1}", f);
    fclose(f);
    assert_false(grade_read_shard(d->path[0], &sh, err, sizeof err));
    assert_non_null(strstr(err, "incomplete shard report"));
    grade_shard_free(&sh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shard_ranges_cover_all),
        cmocka_unit_test(test_parse_shard),
        cmocka_unit_test(test_cli_parse),
        cmocka_unit_test(test_verdict_names),
        cmocka_unit_test(test_aggregate_lowest_failure_and_sums),
        cmocka_unit_test(test_aggregate_details),
        cmocka_unit_test(test_aggregate_precedence),
        cmocka_unit_test(test_submission_name),
        cmocka_unit_test(test_failure_links),
        cmocka_unit_test(test_csv_escaping),
        cmocka_unit_test(test_html_escaping),
        cmocka_unit_test(test_json_reader),
        cmocka_unit_test(test_json_reader_errors),
        cmocka_unit_test_setup_teardown(test_shard_roundtrip, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_shard_checks, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_shard_read_refuses, make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
