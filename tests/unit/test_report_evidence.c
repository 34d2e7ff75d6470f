/* Unit tests for a checker failure's evidence in the reports
 * (ui/render/report_evidence.c): the first lines of the rejected output
 * and the checker's words, quoted, said to be the first of more when they
 * are; nothing for other failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ui/render/report.h"
#include "ui/text/json_writer.h"

static char *evidence_text(const struct exec_result *res)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    report_checker_evidence_text(out, res);
    assert_int_equal(fclose(out), 0);
    return text;
}

static void output_and_checker_words_are_quoted(void **unused)
{
    struct exec_result res = {.kind = FAIL_CHECKER, .output_lines = 3};
    snprintf(res.output_head, sizeof res.output_head, "rounds=10\nsum=95\ndone\n");
    snprintf(res.checker_said, sizeof res.checker_said, "expected sum=110, got sum=95 (15 lost)\n");
    char *text = evidence_text(&res);
    assert_string_equal(text, "  the output the checker rejected:\n"
                              "    | rounds=10\n    | sum=95\n    | done\n"
                              "  the checker said:\n"
                              "    | expected sum=110, got sum=95 (15 lost)\n");
    free(text);
}

static void a_longer_output_says_how_much_is_shown(void **unused)
{
    struct exec_result res = {.kind = FAIL_CHECKER, .output_lines = 120};
    for (int i = 0; i < EXEC_EVIDENCE_LINES; i++) {
        size_t used = strlen(res.output_head);
        snprintf(res.output_head + used, sizeof res.output_head - used, "line %d\n", i + 1);
    }
    char *text = evidence_text(&res);
    assert_non_null(strstr(text, "  the output the checker rejected (its first 8 of 120 lines):\n    | line 1\n"));
    assert_non_null(strstr(text, "    | line 8\n"));
    /* A checker that said nothing has no section of its own. */
    assert_null(strstr(text, "the checker said"));
    free(text);
}

static void an_empty_output_is_said_to_be_empty(void **unused)
{
    struct exec_result res = {.kind = FAIL_CHECKER};
    snprintf(res.checker_said, sizeof res.checker_said, "no sum= line in the output\n");
    char *text = evidence_text(&res);
    assert_string_equal(text, "  the output the checker rejected:\n    | (nothing)\n"
                              "  the checker said:\n    | no sum= line in the output\n");
    free(text);
}

static void other_failures_have_none(void **unused)
{
    struct exec_result res = {.kind = FAIL_ASSERTION};
    snprintf(res.output_head, sizeof res.output_head, "stale\n");
    char *text = evidence_text(&res);
    assert_string_equal(text, "");
    free(text);
}

static void json_has_the_lines(void **unused)
{
    struct exec_result res = {.kind = FAIL_CHECKER, .output_lines = 2};
    snprintf(res.output_head, sizeof res.output_head, "sum=95\n\"q\"\n");
    snprintf(res.checker_said, sizeof res.checker_said, "expected sum=110\n");
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    struct json_writer w = {.f = out, .compact = true};
    json_begin_object(&w, NULL);
    report_json_checker_evidence(&w, &res);
    res.kind = FAIL_DEADLOCK;
    json_begin_object(&w, "other");
    report_json_checker_evidence(&w, &res);
    json_end_object(&w);
    json_end_object(&w);
    fclose(out);
    assert_non_null(strstr(text, "\"checker_evidence\":{\"output_first_lines\":[\"sum=95\",\"\\\"q\\\"\"],"
                                 "\"output_lines\":2,\"checker_said\":[\"expected sum=110\"]}"));
    assert_non_null(strstr(text, "\"other\":{\"checker_evidence\":null}"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_and_checker_words_are_quoted),
        cmocka_unit_test(a_longer_output_says_how_much_is_shown),
        cmocka_unit_test(an_empty_output_is_said_to_be_empty),
        cmocka_unit_test(other_failures_have_none),
        cmocka_unit_test(json_has_the_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
