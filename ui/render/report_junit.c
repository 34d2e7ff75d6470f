/* report_junit: the JUnit XML report written by `mdat run --junit`: one test
 * case for the program explored, failed with the report and the replay
 * command of every failure found, or in error when mdat could not explore. */
#include "ui/render/report.h"
#include "ui/text/junit_writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* "PROG ARGS..." as the case's name. */
static char *command_line(const struct run_description *run)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        abort();
    fputs(run->program, f);
    for (int i = 0; i < run->n_args; i++)
        fprintf(f, " %s", run->args[i]);
    fclose(f);
    return text;
}

static enum failure_kind kind_of(const struct explore_failure *f)
{
    return f->result.kind != FAIL_NONE ? f->result.kind : f->found;
}

/* Every failure as mdat run prints it on the terminal. */
static char *failures_text(const struct run_description *run, const struct explore_summary *sum)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        abort();
    for (size_t i = 0; i < sum->n_failures; i++) {
        const struct explore_failure *ef = &sum->failures[i];
        fprintf(f, "%sFAILURE %s in execution %" PRIu64 " (seed %" PRIu64 ")%s\n", i ? "\n" : "",
                failure_kind_name(kind_of(ef)), ef->execution, run->seed,
                ef->reproduced ? "" : " -- NOT reproduced when re-run");
        report_failure_text(f, &ef->result);
        report_failure_files_text(f, ef);
    }
    fclose(f);
    return text;
}

bool report_junit_write(const char *path, const struct run_description *run,
                        const struct explore_summary *sum, const char *error, char *err, size_t errlen)
{
    char *name = command_line(run);
    char *text = NULL;
    char message[700] = "", seed[32], requested[32], ran[32];
    snprintf(seed, sizeof seed, "%" PRIu64, run->seed);
    snprintf(requested, sizeof requested, "%" PRIu64, run->schedules_requested);
    snprintf(ran, sizeof ran, "%" PRIu64, sum ? sum->schedules_run : 0);
    struct junit_case c = {.name = name, .classname = "mdat.run", .seconds = sum ? sum->elapsed_sec : -1};
    if (error) {
        c.outcome = JUNIT_ERROR;
        c.type = "mdat-error";
        c.message = c.text = error;
    } else if (sum->n_failures > 0) {
        const struct explore_failure *first = &sum->failures[0];
        snprintf(message, sizeof message, "%s in execution %" PRIu64 ": %s%s", failure_kind_name(kind_of(first)),
                 first->execution, first->result.message,
                 sum->n_failures > 1 ? " (and more failures: see the report)" : "");
        text = failures_text(run, sum);
        c.outcome = JUNIT_FAILED;
        c.type = failure_kind_name(kind_of(first));
        c.message = message;
        c.text = text;
    }
    const struct junit_property props[] = {
        {"mdat_version", MDAT_VERSION}, {"strategy", run->strategy}, {"seed", seed},
        {"schedules_requested", requested}, {"schedules_run", ran},
    };
    struct junit_suite suite = {"mdat run", props, 5, &c, 1, c.seconds};
    bool ok = junit_write_file(path, &suite, err, errlen);
    free(name);
    free(text);
    return ok;
}
