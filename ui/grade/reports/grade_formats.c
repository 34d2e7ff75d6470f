/* grade_formats: the options of --junit and --gradescope, checked before
 * grading (a wrong path is told at once, not after an hour of grading),
 * and writing the documents asked for. The text of a submission's result
 * that both documents carry is grade_result_text.c's. */
#include "ui/grade/reports/grade_formats.h"
#include "ui/grade/reports/grade_junit.h"
#include "ui/grade/reports/gradescope.h"

#include "supervisor/explore/explore.h"
#include "ui/cli/cli.h"
#include "ui/text/junit_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int grade_formats_option(const char *cmd, int c, const char *arg, struct grade_formats *f)
{
    char why[PATH_MAX + 200];
    switch (c) {
    case GRADE_OPT_JUNIT:
        f->junit = arg;
        return 1;
    case GRADE_OPT_GRADESCOPE:
        f->gradescope = arg;
        return 1;
    case GRADE_OPT_RUBRIC:
    case GRADE_OPT_POINTS:
        f->rubric_given = true;
        if (!(c == GRADE_OPT_RUBRIC ? rubric_read_file(&f->rubric, arg, why, sizeof why)
                                    : rubric_add_points(&f->rubric, arg, why, sizeof why))) {
            cli_usage_error(cmd, "%s", why);
            return -1;
        }
        return 1;
    default:
        return 0;
    }
}

bool grade_formats_ready(const char *cmd, struct grade_formats *f, bool sharded)
{
    char why[PATH_MAX + 200];
    if (sharded && (f->junit || f->gradescope)) {
        cli_usage_error(cmd, "with --shard only the shard report is written: give --junit and --gradescope to "
                             "mdat merge%s", "");
        return false;
    }
    if (f->rubric_given && !f->gradescope) {
        cli_usage_error(cmd, "a rubric (--rubric, --points) scores --gradescope DIR, which is not given%s", "");
        return false;
    }
    if (f->gradescope && (!make_directories(f->gradescope) || access(f->gradescope, W_OK) != 0)) {
        fprintf(stderr, "mdat %s: cannot write into %s: %s\n", cmd, f->gradescope, strerror(errno));
        return false;
    }
    if (f->junit && !junit_check_path(f->junit, why, sizeof why)) {
        fprintf(stderr, "mdat %s: %s\n", cmd, why);
        return false;
    }
    return true;
}

bool grade_formats_write(struct grade_formats *f, const struct grade_report *r, char *err, size_t errlen)
{
    bool ok = true;
    if (f->junit)
        ok = grade_write_junit(f->junit, r, err, errlen);
    if (ok && f->gradescope) {
        struct rubric rubric = f->rubric;
        if (!f->rubric_given)
            rubric_default(&rubric, r->settings);
        ok = grade_write_gradescope(f->gradescope, r, &rubric, err, errlen);
    }
    return ok;
}
