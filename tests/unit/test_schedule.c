/* Unit tests for supervisor/schedule: the choice list, deep copy, and the
 * schedule file round trip and its error messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/explore/schedule.h"
#include "supervisor/explore/schedule_captions.h"

enum { N_CHOICES = 30 };

struct tmpfile {
    char path[64];
};

static int setup_tmp(void **state)
{
    struct tmpfile *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    snprintf(t->path, sizeof t->path, "/tmp/mdat_schedule_XXXXXX");
    int fd = mkstemp(t->path);
    if (fd < 0) {
        free(t);
        return -1;
    }
    close(fd);
    *state = t;
    return 0;
}

static int teardown_tmp(void **state)
{
    struct tmpfile *t = *state;
    unlink(t->path);
    free(t);
    return 0;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static const char *const ARGS[] = {
    "plain",
    "with space  and  two",
    "line1\nline2\n",
    "back\\slash\\\\double\\",
    "caf\xc3\xa9 \xe2\x82\xac \xff\x80\x01",  /* UTF-8, invalid bytes, control byte */
    "",                                         /* empty argument */
    "tab\there\rcr",
    "\\x41 looks like an escape \\n too",
    "#not a comment",
    "end",
};
enum { N_ARGS = sizeof ARGS / sizeof ARGS[0] };

static void fill(struct schedule *s)
{
    schedule_init(s);
    schedule_set_program(s, "/opt/my progs/t\xc3\xa9st\\bin", (char *const *)ARGS, N_ARGS);
    snprintf(s->sha256, sizeof s->sha256, "%s",
             "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    snprintf(s->strategy, sizeof s->strategy, "pct");
    s->depth = 3;
    s->seed = 18446744073709551557u;    /* near UINT64_MAX: no truncation */
    s->execution = 4294967301u;         /* > 32 bits */
    s->steps = 123456789012u;
    snprintf(s->failure, sizeof s->failure, "deadlock");
    s->max_steps = 1000000;
    s->timeout_sec = 2.5;
    s->fail_on_exit = true;
    s->limits = (struct spawn_limits){.cpu_sec = 60, .address_space = 5ull << 30, .nproc = 256, .file_size = 1 << 20};
    s->check_cmd = strdup("grep -q \"ok\" out.txt \\\n && echo d\xc3\xb6ne");
    for (int i = 0; i < N_CHOICES; i++)
        choice_list_add(&s->choices, (uint64_t)i * 7 + (i > 20 ? 10000000000u : 0),
                            i % 3 == 2 ? CHOICE_WAKE : CHOICE_THREAD, 1 + (i * 5) % 11);
}

static void assert_same(const struct schedule *a, const struct schedule *b)
{
    assert_string_equal(a->mdat_version, b->mdat_version);
    assert_string_equal(a->program, b->program);
    assert_int_equal(a->n_args, b->n_args);
    for (int i = 0; i < a->n_args; i++)
        assert_string_equal(a->args[i], b->args[i]);
    assert_string_equal(a->sha256, b->sha256);
    assert_string_equal(a->strategy, b->strategy);
    assert_int_equal(a->depth, b->depth);
    assert_int_equal(a->seed, b->seed);
    assert_int_equal(a->execution, b->execution);
    assert_int_equal(a->steps, b->steps);
    assert_string_equal(a->failure, b->failure);
    assert_int_equal(a->max_steps, b->max_steps);
    assert_true(a->timeout_sec == b->timeout_sec);
    assert_int_equal(a->fail_on_exit, b->fail_on_exit);
    assert_memory_equal(&a->limits, &b->limits, sizeof a->limits);
    if (a->check_cmd || b->check_cmd) {
        assert_non_null(a->check_cmd);
        assert_non_null(b->check_cmd);
        assert_string_equal(a->check_cmd, b->check_cmd);
    }
    assert_int_equal(a->choices.n, b->choices.n);
    for (size_t i = 0; i < a->choices.n; i++) {
        assert_int_equal(choice_list_at(&a->choices, i).step, choice_list_at(&b->choices, i).step);
        assert_int_equal(choice_list_at(&a->choices, i).kind, choice_list_at(&b->choices, i).kind);
        assert_int_equal(choice_list_at(&a->choices, i).thread, choice_list_at(&b->choices, i).thread);
    }
}

static void test_init(void **state)
{
    (void)state;
    struct schedule s;
    memset(&s, 0x5a, sizeof s);
    schedule_init(&s);
    assert_true(strlen(s.mdat_version) > 0);
    assert_string_equal(s.failure, "none");
    assert_null(s.program);
    assert_null(s.args);
    assert_int_equal(s.n_args, 0);
    assert_null(s.check_cmd);
    assert_null(s.choices.bytes);
    assert_int_equal(s.choices.n, 0);
    assert_false(s.fail_on_exit);
    schedule_free(&s);
}

static void test_add_and_clear_choices(void **state)
{
    (void)state;
    struct schedule s;
    schedule_init(&s);
    for (int i = 0; i < 1000; i++)
        choice_list_add(&s.choices, (uint64_t)i, i & 1 ? CHOICE_WAKE : CHOICE_THREAD, i + 1);
    assert_int_equal(s.choices.n, 1000);
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(choice_list_at(&s.choices, i).step, i);
        assert_int_equal(choice_list_at(&s.choices, i).kind, i & 1 ? 'w' : 't');
        assert_int_equal(choice_list_at(&s.choices, i).thread, i + 1);
    }
    choice_list_truncate(&s.choices, 0);
    assert_int_equal(s.choices.n, 0);
    choice_list_add(&s.choices, 5, CHOICE_THREAD, 2);
    assert_int_equal(s.choices.n, 1);
    assert_int_equal(choice_list_at(&s.choices, 0).step, 5);
    schedule_free(&s);
}

static void test_set_program_replaces(void **state)
{
    (void)state;
    struct schedule s;
    schedule_init(&s);
    char *const a1[] = {"x", "y", "z"};
    char *const a2[] = {"only"};
    schedule_set_program(&s, "/bin/one", a1, 3);
    schedule_set_program(&s, "/bin/two", a2, 1);
    assert_string_equal(s.program, "/bin/two");
    assert_int_equal(s.n_args, 1);
    assert_string_equal(s.args[0], "only");
    assert_null(s.args[1]);
    schedule_free(&s);
}

static void test_roundtrip(void **state)
{
    struct tmpfile *t = *state;
    struct schedule s, r;
    fill(&s);
    char err[512] = "";
    assert_true(schedule_write(&s, t->path, err, sizeof err));

    /* The file is line-oriented: no raw newline or non-ASCII byte of an
     * argument may leak into it. */
    const char *text = read_text(t->path);
    assert_non_null(strstr(text, "mdat-schedule 1\n"));
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        assert_true(*p == '\n' || (*p >= 0x20 && *p < 0x7f));
    assert_non_null(strstr(text, "\nend\n"));

    memset(&r, 0x5a, sizeof r);
    err[0] = '\0';
    assert_true(schedule_read(t->path, &r, err, sizeof err));
    assert_same(&s, &r);
    /* Spot checks independent of assert_same. */
    assert_int_equal(r.n_args, N_ARGS);
    assert_string_equal(r.args[2], "line1\nline2\n");
    assert_string_equal(r.args[3], "back\\slash\\\\double\\");
    assert_string_equal(r.args[4], "caf\xc3\xa9 \xe2\x82\xac \xff\x80\x01");
    assert_string_equal(r.args[5], "");
    assert_string_equal(r.args[7], "\\x41 looks like an escape \\n too");
    assert_string_equal(r.args[9], "end");
    assert_null(r.args[N_ARGS]);
    assert_string_equal(r.program, "/opt/my progs/t\xc3\xa9st\\bin");
    assert_int_equal(r.seed, 18446744073709551557u);
    assert_int_equal(r.execution, 4294967301u);
    assert_int_equal(r.steps, 123456789012u);
    assert_true(r.fail_on_exit);
    assert_true(r.timeout_sec == 2.5);
    assert_int_equal(r.limits.address_space, 5ull << 30);
    assert_int_equal(r.limits.nproc, 256);
    assert_int_equal(r.choices.n, N_CHOICES);
    assert_int_equal(choice_list_at(&r.choices, 2).kind, CHOICE_WAKE);
    assert_int_equal(choice_list_at(&r.choices, 3).kind, CHOICE_THREAD);
    assert_int_equal(choice_list_at(&r.choices, 29).step, 29 * 7 + 10000000000u);
    schedule_free(&r);
    schedule_free(&s);
}

/* Default settings: no check command, fail_on_exit off, no args, no choices. */
static void test_roundtrip_minimal(void **state)
{
    struct tmpfile *t = *state;
    struct schedule s, r;
    schedule_init(&s);
    schedule_set_program(&s, "/bin/true", NULL, 0);
    snprintf(s.strategy, sizeof s.strategy, "random");
    char err[512] = "";
    assert_true(schedule_write(&s, t->path, err, sizeof err));
    const char *text = read_text(t->path);
    assert_null(strstr(text, "\ncheck"));
    assert_null(strstr(text, "\narg"));
    assert_null(strstr(text, "\nlimit-"));     /* only mdat grade sets limits */
    assert_true(schedule_read(t->path, &r, err, sizeof err));
    assert_same(&s, &r);
    assert_null(r.check_cmd);
    assert_false(r.fail_on_exit);
    assert_int_equal(r.n_args, 0);
    assert_int_equal(r.choices.n, 0);
    assert_string_equal(r.failure, "none");
    assert_string_equal(r.strategy, "random");
    schedule_free(&r);
    schedule_free(&s);
}

/* A fractional timeout survives the text format. */
static void test_roundtrip_timeout_precision(void **state)
{
    struct tmpfile *t = *state;
    struct schedule s, r;
    schedule_init(&s);
    schedule_set_program(&s, "/bin/true", NULL, 0);
    s.timeout_sec = 0.125;
    char err[512] = "";
    assert_true(schedule_write(&s, t->path, err, sizeof err));
    assert_true(schedule_read(t->path, &r, err, sizeof err));
    assert_true(r.timeout_sec == 0.125);
    schedule_free(&r);
    schedule_free(&s);
}

static void test_copy_is_deep(void **state)
{
    (void)state;
    struct schedule s, c;
    fill(&s);
    schedule_copy(&c, &s);
    assert_same(&s, &c);
    assert_ptr_not_equal(c.program, s.program);
    assert_ptr_not_equal(c.args, s.args);
    for (int i = 0; i < s.n_args; i++)
        assert_ptr_not_equal(c.args[i], s.args[i]);
    assert_ptr_not_equal(c.check_cmd, s.check_cmd);
    assert_ptr_not_equal(c.choices.bytes, s.choices.bytes);

    /* Mutating / freeing the source leaves the copy intact. */
    s.program[0] = 'X';
    s.args[0][0] = 'X';
    s.check_cmd[0] = 'X';
    choice_list_truncate(&s.choices, 0);
    choice_list_add(&s.choices, 0, CHOICE_THREAD, 99);
    choice_list_add(&s.choices, 1, CHOICE_THREAD, 1);
    schedule_free(&s);

    struct schedule again;
    fill(&again);
    assert_same(&again, &c);
    /* The copy can keep growing on its own. */
    for (int i = 0; i < 500; i++)
        choice_list_add(&c.choices, 1000 + (uint64_t)i, CHOICE_THREAD, 1);
    assert_int_equal(c.choices.n, N_CHOICES + 500);
    assert_int_equal(choice_list_at(&c.choices, N_CHOICES - 1).step, choice_list_at(&again.choices, N_CHOICES - 1).step);
    schedule_free(&again);
    schedule_free(&c);
}

static const char VALID_HEAD[] = "mdat-schedule 1\n"
                                 "mdat-version 0.1.0\n"
                                 "program /bin/prog\n"
                                 "sha256 abc\n"
                                 "strategy random\n"
                                 "seed 1\n";

static void expect_read_error(const char *path, const char *text, const char *word)
{
    if (text)
        write_text(path, text);
    struct schedule r;
    char err[512] = "";
    assert_false(schedule_read(path, &r, err, sizeof err));
    if (!strstr(err, word))
        fail_msg("error \"%s\" does not mention \"%s\"", err, word);
    /* A failed read leaves nothing to free. */
    assert_null(r.program);
    assert_null(r.choices.bytes);
    assert_null(r.args);
}

/* Captions ("# caption 12: TEXT") are comments to the schedule's reader,
 * anywhere in the file; schedule_captions_read finds them by step, and a
 * line that does not read so is an ordinary comment. */
static void test_captions(void **state)
{
    struct tmpfile *t = *state;
    char text[1024];
    snprintf(text, sizeof text,
             "%s# caption 12: T3 takes the last item  \n# caption 3:T2 starts\n#caption 7: no blank after #\n"
             "choices 2\n1:t1\n# caption 12: a second caption for step 12\n5:t2\nend\n"
             "# caption twelve: not a step\n# caption 4 no colon\n# caption 5:\n# captions 6: another word\n",
             VALID_HEAD);
    write_text(t->path, text);
    struct schedule r;
    char err[512] = "";
    assert_true(schedule_read(t->path, &r, err, sizeof err));
    assert_int_equal(r.choices.n, 2);
    schedule_free(&r);
    struct schedule_captions c;
    schedule_captions_read(t->path, &c);
    assert_int_equal(c.n, 4);
    assert_int_equal(c.at[0].step, 3);
    assert_string_equal(c.at[0].text, "T2 starts");
    assert_int_equal(c.at[1].step, 7);
    assert_int_equal(c.at[2].step, 12);
    assert_string_equal(c.at[2].text, "T3 takes the last item");
    assert_string_equal(c.at[3].text, "a second caption for step 12");
    assert_null(schedule_caption_at(&c, 2));
    assert_string_equal(schedule_caption_at(&c, 3)->text, "T2 starts");
    assert_string_equal(schedule_caption_at(&c, 11)->text, "no blank after #");
    assert_string_equal(schedule_caption_at(&c, 40)->text, "a second caption for step 12");
    schedule_captions_free(&c);
    schedule_captions_read("/nonexistent/x.sched", &c);
    assert_int_equal(c.n, 0);
    assert_null(schedule_caption_at(&c, 5));
}

static void test_read_valid_handwritten(void **state)
{
    struct tmpfile *t = *state;
    char text[1024];
    snprintf(text, sizeof text,
             "%s# a comment\n\nchoices 4\n1:t1   2:w3\n\t7:t12\n# comment among choices\n9:t2\nend\n"
             "anything after end is ignored\n",
             VALID_HEAD);
    write_text(t->path, text);
    struct schedule r;
    char err[512] = "";
    assert_true(schedule_read(t->path, &r, err, sizeof err));
    assert_string_equal(r.program, "/bin/prog");
    assert_string_equal(r.mdat_version, "0.1.0");
    assert_int_equal(r.seed, 1);
    assert_int_equal(r.choices.n, 4);
    assert_int_equal(choice_list_at(&r.choices, 0).step, 1);
    assert_int_equal(choice_list_at(&r.choices, 0).kind, 't');
    assert_int_equal(choice_list_at(&r.choices, 0).thread, 1);
    assert_int_equal(choice_list_at(&r.choices, 1).step, 2);
    assert_int_equal(choice_list_at(&r.choices, 1).kind, 'w');
    assert_int_equal(choice_list_at(&r.choices, 1).thread, 3);
    assert_int_equal(choice_list_at(&r.choices, 2).step, 7);
    assert_int_equal(choice_list_at(&r.choices, 2).thread, 12);
    assert_int_equal(choice_list_at(&r.choices, 3).step, 9);
    schedule_free(&r);
}

/* Out of range, badly escaped or not finite: refused with the line's number. */
static void test_read_strict_values(void **state)
{
    struct tmpfile *t = *state;
    static const struct {
        const char *line, *word;
    } bad[] = {
        {"choices 1\n1:t2147483648\nend\n", "from 1 to 2147483647"},    /* wrapped to a negative id before */
        {"choices 1\n1:f99999999999\nend\n", "from 1 to 2147483647"},
        {"choices 1\n18446744073709551616:t1\nend\n", "step"},          /* beyond 64 bits */
        {"timeout inf\nchoices 0\nend\n", "timeout wants a finite number"},
        {"timeout nan\nchoices 0\nend\n", "timeout wants a finite number"},
        {"time-limit -1\nchoices 0\nend\n", "time-limit wants a finite number"},
        {"timeout 1e999\nchoices 0\nend\n", "timeout wants a finite number"},
        {"arg a\\xZZb\nchoices 0\nend\n", "\\x escape"},
        {"arg a\\x00b\nchoices 0\nend\n", "\\x escape"},
        {"check \\x4\nchoices 0\nend\n", "\\x escape"},
        {"depth -3\nchoices 0\nend\n", "depth wants a number from 0 to"},
        {"seed 12abc\nchoices 0\nend\n", "seed wants an unsigned number"},
        {"fail-on-exit yes\nchoices 0\nend\n", "fail-on-exit wants 0 or 1"},
        {"limit-procs -1\nchoices 0\nend\n", "limit-procs wants an unsigned number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s", VALID_HEAD, bad[i].line);
        expect_read_error(t->path, text, bad[i].word);
        char where[64];
        snprintf(where, sizeof where, "%s:", t->path);
        struct schedule r;
        char err[512] = "";
        assert_false(schedule_read(t->path, &r, err, sizeof err));
        if (strncmp(err, where, strlen(where)) != 0 || !strchr(err + strlen(where), ':'))
            fail_msg("error \"%s\" does not say FILE:LINE:", err);
    }
}

/* Flush choices (tso) and the largest thread id are kept; CRLF lines read
 * as LF ones; a NUL byte or a line without end is not a schedule. */
static void test_read_edges(void **state)
{
    struct tmpfile *t = *state;
    char text[1024];
    snprintf(text, sizeof text, "%schoices 2\n4:f2 5:t2147483647\nend\n", VALID_HEAD);
    write_text(t->path, text);
    struct schedule r;
    char err[512] = "";
    assert_true(schedule_read(t->path, &r, err, sizeof err));
    assert_int_equal(r.choices.n, 2);
    assert_int_equal(choice_list_at(&r.choices, 0).thread, -2);
    assert_int_equal(choice_list_at(&r.choices, 1).thread, 2147483647);
    schedule_free(&r);

    char crlf[2048], *o = crlf;
    for (const char *p = text; *p; p++) {
        if (*p == '\n')
            *o++ = '\r';
        *o++ = *p;
    }
    *o = '\0';
    write_text(t->path, crlf);
    assert_true(schedule_read(t->path, &r, err, sizeof err));
    assert_string_equal(r.program, "/bin/prog");
    assert_int_equal(r.choices.n, 2);
    schedule_free(&r);

    FILE *f = fopen(t->path, "w");
    assert_non_null(f);
    fputs("mdat-schedule 1\nprogram /bin/x", f);
    fputc('\0', f);
    fclose(f);
    expect_read_error(t->path, NULL, ":2: a NUL byte");

    f = fopen(t->path, "w");
    assert_non_null(f);
    fputs("mdat-schedule 1\narg ", f);
    for (int i = 0; i < (2 << 20); i++)
        fputc('a', f);
    fclose(f);
    expect_read_error(t->path, NULL, "a line longer than");

    char dir[] = "/tmp/mdat_schedule_dir_XXXXXX";
    assert_non_null(mkdtemp(dir));
    expect_read_error(dir, NULL, "is a directory");
    rmdir(dir);
}

/* Course material: the program beside the schedule, any binary allowed. */
static void test_read_portable(void **state)
{
    (void)state;
    char dir[] = "/tmp/mdat_portable_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sched[128], prog[128];
    snprintf(sched, sizeof sched, "%s/demo.sched", dir);
    snprintf(prog, sizeof prog, "%s/demo", dir);
    write_text(prog, "");
    write_text(sched, "mdat-schedule 1\nmdat-version 0.1.0\nprogram demo\nsha256 -\nstrategy pct\n"
                      "depth 3\nseed 1\nexecution 0\nsteps 3\nfailure deadlock\nchoices 0\nend\n");
    struct schedule r;
    char err[512] = "";
    assert_true(schedule_read(sched, &r, err, sizeof err));
    assert_string_equal(r.program, prog);
    assert_true(schedule_binary_matches(&r, "0123abcd"));
    schedule_free(&r);
    /* A pinned binary matches only itself. */
    write_text(sched, "mdat-schedule 1\nprogram /bin/true\nsha256 0123abcd\nchoices 0\nend\n");
    assert_true(schedule_read(sched, &r, err, sizeof err));
    assert_string_equal(r.program, "/bin/true");
    assert_true(schedule_binary_matches(&r, "0123abcd"));
    assert_false(schedule_binary_matches(&r, "0123abce"));
    schedule_free(&r);
    unlink(sched);
    unlink(prog);
    rmdir(dir);
}

static void test_read_not_schedule(void **state)
{
    struct tmpfile *t = *state;
    expect_read_error(t->path, "#!/bin/sh\necho hello\n", "not an mdat schedule file");
    expect_read_error(t->path, "mdat-schedule 2\nprogram /x\nchoices 0\nend\n", "not an mdat schedule file");
}

static void test_read_truncated(void **state)
{
    struct tmpfile *t = *state;
    char text[1024];
    snprintf(text, sizeof text, "%schoices 2\n1:t1 2:t2\n", VALID_HEAD);
    expect_read_error(t->path, text, "truncated");
    /* Cut before the choices line. */
    expect_read_error(t->path, VALID_HEAD, "truncated");
    /* "end" but no program line: said as it is. */
    expect_read_error(t->path, "mdat-schedule 1\nseed 3\nchoices 0\nend\n", "has no \"program\" line");
}

static void test_read_malformed_choice(void **state)
{
    struct tmpfile *t = *state;
    static const char *const bad[] = {
        "1:t1 2:x2\n",      /* unknown kind */
        "1:t1 2t2\n",       /* no colon */
        "1:t1 :t2\n",       /* no step */
        "1:t1 2:t\n",       /* no thread */
        "1:t1 2:t0\n",      /* thread ids start at 1 */
        "1:t1 2:t-3\n",     /* negative thread */
        "1:t1 2:t2x\n",     /* trailing garbage */
        "1:t1,2:t2\n",      /* wrong separator */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%schoices 2\n%send\n", VALID_HEAD, bad[i]);
        expect_read_error(t->path, text, "malformed choice");
    }
}

static void test_read_count_mismatch(void **state)
{
    struct tmpfile *t = *state;
    char text[1024];
    snprintf(text, sizeof text, "%schoices 3\n1:t1 2:t2\nend\n", VALID_HEAD);
    expect_read_error(t->path, text, "says 3 choices but lists 2");
    snprintf(text, sizeof text, "%schoices 1\n1:t1 2:t2\nend\n", VALID_HEAD);
    expect_read_error(t->path, text, "says 1 choices but lists 2");
}

static void test_read_unknown_line(void **state)
{
    struct tmpfile *t = *state;
    char text[1024];
    snprintf(text, sizeof text, "%sbogus-key 12\nchoices 0\nend\n", VALID_HEAD);
    expect_read_error(t->path, text, "unknown line");
}

static void test_read_empty(void **state)
{
    struct tmpfile *t = *state;
    expect_read_error(t->path, "", "empty");
    expect_read_error(t->path, "# only a comment\n\n", "empty");
}

static void test_read_missing(void **state)
{
    (void)state;
    expect_read_error("/nonexistent/mdat/schedule/none.sched", NULL, "cannot open");
    expect_read_error("/nonexistent/mdat/schedule/none.sched", NULL, "No such file");
}

static void test_write_unwritable(void **state)
{
    (void)state;
    struct schedule s;
    fill(&s);
    char err[512] = "";
    assert_false(schedule_write(&s, "/nonexistent/mdat/dir/out.sched", err, sizeof err));
    assert_non_null(strstr(err, "cannot write"));
    schedule_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_add_and_clear_choices),
        cmocka_unit_test(test_set_program_replaces),
        cmocka_unit_test_setup_teardown(test_roundtrip, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_roundtrip_minimal, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_roundtrip_timeout_precision, setup_tmp, teardown_tmp),
        cmocka_unit_test(test_copy_is_deep),
        cmocka_unit_test_setup_teardown(test_read_valid_handwritten, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_read_not_schedule, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_read_truncated, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_read_malformed_choice, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_read_count_mismatch, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_read_unknown_line, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_read_empty, setup_tmp, teardown_tmp),
        cmocka_unit_test(test_read_missing),
        cmocka_unit_test(test_read_portable),
        cmocka_unit_test_setup_teardown(test_read_strict_values, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_read_edges, setup_tmp, teardown_tmp),
        cmocka_unit_test(test_write_unwritable),
        cmocka_unit_test_setup_teardown(test_captions, setup_tmp, teardown_tmp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
