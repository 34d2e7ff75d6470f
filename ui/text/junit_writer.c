/* junit_writer: JUnit XML, every string escaped for XML (xml_text). */
#include "ui/text/junit_writer.h"
#include "ui/text/xml_text.h"
#include "supervisor/trace/safe_file.h"

#include <errno.h>
#include <string.h>

static void attribute(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    xml_escaped(f, value ? value : "");
    fputc('"', f);
}

static void time_attribute(FILE *f, double seconds)
{
    if (seconds >= 0)
        fprintf(f, " time=\"%.3f\"", seconds);
}

static void counts(FILE *f, const struct junit_suite *s)
{
    int failures = 0, errors = 0;
    for (int i = 0; i < s->n_cases; i++) {
        failures += s->cases[i].outcome == JUNIT_FAILED;
        errors += s->cases[i].outcome == JUNIT_ERROR;
    }
    fprintf(f, " tests=\"%d\" failures=\"%d\" errors=\"%d\"", s->n_cases, failures, errors);
}

static void write_case(FILE *f, const struct junit_case *c)
{
    fputs("    <testcase", f);
    attribute(f, "name", c->name);
    attribute(f, "classname", c->classname);
    time_attribute(f, c->seconds);
    if (c->outcome == JUNIT_PASSED) {
        fputs("/>\n", f);
        return;
    }
    const char *element = c->outcome == JUNIT_FAILED ? "failure" : "error";
    fprintf(f, ">\n      <%s", element);
    attribute(f, "type", c->type);
    attribute(f, "message", c->message);
    fputs(">", f);
    xml_escaped(f, c->text);
    fprintf(f, "</%s>\n    </testcase>\n", element);
}

void junit_write(FILE *f, const struct junit_suite *s)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
    attribute(f, "name", s->name);
    counts(f, s);
    time_attribute(f, s->seconds);
    fputs(">\n  <testsuite", f);
    attribute(f, "name", s->name);
    counts(f, s);
    fputs(" skipped=\"0\"", f);
    time_attribute(f, s->seconds);
    fputs(">\n", f);
    if (s->n_properties > 0) {
        fputs("    <properties>\n", f);
        for (int i = 0; i < s->n_properties; i++) {
            fputs("      <property", f);
            attribute(f, "name", s->properties[i].name);
            attribute(f, "value", s->properties[i].value);
            fputs("/>\n", f);
        }
        fputs("    </properties>\n", f);
    }
    for (int i = 0; i < s->n_cases; i++)
        write_case(f, &s->cases[i]);
    fputs("  </testsuite>\n</testsuites>\n", f);
}

bool junit_check_path(const char *path, char *err, size_t errlen)
{
    return safe_file_writable(path, err, errlen);
}

bool junit_write_file(const char *path, const struct junit_suite *suite, char *err, size_t errlen)
{
    struct safe_file sf;
    FILE *f = safe_file_open(&sf, path, err, errlen);
    if (!f)
        return false;
    junit_write(f, suite);
    return safe_file_commit(&sf, err, errlen);
}
