/* junit_writer: the JUnit XML document that CI systems read (Jenkins,
 * GitLab, GitHub actions that publish test results): one test suite of
 * test cases, each passed, failed or in error. It knows the format only;
 * what a case is (a program explored, a submission graded) is its callers'
 * business (ui/render/report_junit.c, ui/grade/reports/grade_junit.c).
 * docs/junit.xsd is the schema of what it writes. */
#ifndef MDAT_UI_TEXT_JUNIT_WRITER_H
#define MDAT_UI_TEXT_JUNIT_WRITER_H

#include <stdbool.h>
#include <stdio.h>

enum junit_outcome { JUNIT_PASSED, JUNIT_FAILED, JUNIT_ERROR };

struct junit_case {
    const char *name;
    const char *classname;
    enum junit_outcome outcome;
    const char *type;           /* failed or error: a short token ("deadlock", "build-failed") */
    const char *message;        /* failed or error: one line */
    const char *text;           /* failed or error: the whole report, several lines */
    double seconds;             /* < 0: unknown, no time attribute */
};

struct junit_property {
    const char *name, *value;
};

struct junit_suite {
    const char *name;
    const struct junit_property *properties;
    int n_properties;
    const struct junit_case *cases;
    int n_cases;
    double seconds;             /* < 0: unknown */
};

/* Writes the document (<testsuites> holding the one <testsuite>) to f. */
void junit_write(FILE *f, const struct junit_suite *suite);

/* Whether path can be written (before any work starts): false after
 * "cannot write PATH: why" in err. */
bool junit_check_path(const char *path, char *err, size_t errlen);
/* Writes the suite to path (under a temporary name, renamed when complete):
 * false with a reason in err. */
bool junit_write_file(const char *path, const struct junit_suite *suite, char *err, size_t errlen);

#endif
