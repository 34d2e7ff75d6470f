/* lc_harness: the generated harness and its build (see lc_harness.h). The
 * harness keeps each call's result in its own slot, written only by the
 * thread that makes the call and read by main after pthread_join, so the
 * bookkeeping adds no race and no fence between the calls under test.
 * Each call of the parallel part is stamped with clock_gettime when it
 * begins and when it returns: under mdat the clock is virtual, a function
 * of the schedule that mdat answers itself (no step, no store buffer
 * drained, nothing the model sees), so the stamps order the calls in real
 * time as the schedule ran them. */
#include "ui/lincheck/lc_harness.h"

#include "supervisor/launch/spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* One case of lc_do (or lc_seq_do): op's call, `call` its C text. */
static void write_call(FILE *f, const struct lc_op *op, const char *call)
{
    char arg[96];
    snprintf(arg, sizeof arg, "((%s)c->arg)", op->arg_type);
    fputs("        ", f);
    if (op->has_result)
        fputs("c->result = (long long)(", f);
    for (const char *p = call; *p; p++) {
        if (p[0] == '$' && p[1] == '1') {
            fputs(arg, f);
            p++;
        } else {
            fputc(*p, f);
        }
    }
    fputs(op->has_result ? ");\n" : ";\n", f);
}

static const char harness_runtime[] =
    "enum { LC_MAX_CALLS = 64, LC_POST = LC_MAX_CALLS - 1 };   /* the post part's row */\n"
    "struct lc_call { int thread; int op; long arg; long long result; struct timespec begin, end; };\n"
    "static struct lc_call lc_calls[LC_MAX_CALLS];\n"
    "static int lc_ncalls, lc_nthreads;\n"
    "static int lc_thread_calls[LC_MAX_CALLS][LC_MAX_CALLS], lc_thread_ncalls[LC_MAX_CALLS];\n"
    "\n"
    "static void *lc_thread_main(void *p)\n"
    "{\n"
    "    int t = (int)(long)p;\n"
    "    for (int i = 0; i < lc_thread_ncalls[t]; i++) {\n"
    "        struct lc_call *c = &lc_calls[lc_thread_calls[t][i]];\n"
    "        clock_gettime(CLOCK_MONOTONIC, &c->begin);\n"
    "        lc_do(c);\n"
    "        clock_gettime(CLOCK_MONOTONIC, &c->end);\n"
    "    }\n"
    "    return NULL;\n"
    "}\n"
    "\n"
    "static void lc_parse(int argc, char **argv)\n"
    "{\n"
    "    int thread = -1;\n"
    "    for (int i = 1; i < argc; i++) {\n"
    "        if (strcmp(argv[i], \"init\") == 0) { thread = 0; continue; }\n"
    "        if (strcmp(argv[i], \"thread\") == 0) { thread = ++lc_nthreads; continue; }\n"
    "        if (strcmp(argv[i], \"post\") == 0) { thread = LC_POST; continue; }\n"
    "        char name[64]; long arg = 0;\n"
    "        int fields = sscanf(argv[i], \"%63[A-Za-z0-9_]=%ld\", name, &arg);\n"
    "        int op = -1;\n"
    "        for (int k = 0; k < LC_NOPS; k++)\n"
    "            if (fields >= 1 && strcmp(name, lc_names[k]) == 0) op = k;\n"
    "        if (op < 0 || thread < 0 || lc_ncalls == LC_MAX_CALLS || (fields == 2) != lc_has_arg[op]) {\n"
    "            fprintf(stderr, \"harness: bad call %s\\n\", argv[i]);\n"
    "            exit(2);\n"
    "        }\n"
    "        lc_calls[lc_ncalls] = (struct lc_call){thread, op, arg, 0, {0, 0}, {0, 0}};\n"
    "        lc_thread_calls[thread][lc_thread_ncalls[thread]++] = lc_ncalls++;\n"
    "    }\n"
    "}\n"
    "\n"
    "static void lc_print(void)\n"
    "{\n"
    "    for (int i = 0; i < lc_ncalls; i++) {\n"
    "        const struct lc_call *c = &lc_calls[i];\n"
    "        if (c->thread == 0) printf(\"init \"); else if (c->thread == LC_POST) printf(\"post \");\n"
    "        else printf(\"T%d \", c->thread + 1);\n"
    "        if (lc_has_arg[c->op]) printf(\"%s(%ld)\", lc_names[c->op], c->arg);\n"
    "        else printf(\"%s()\", lc_names[c->op]);\n"
    "        if (lc_has_result[c->op]) printf(\" -> %lld\", c->result);\n"
    "        printf(\"\\n\");\n"
    "    }\n"
    "    /* When each call of the parallel part began and ended: @rt K BEGIN END (ns). */\n"
    "    for (int i = lc_thread_ncalls[0]; i < lc_ncalls; i++)\n"
    "        if (lc_calls[i].thread != LC_POST)\n"
    "            printf(\"@rt %d %lld %lld\\n\", i - lc_thread_ncalls[0],\n"
    "                   (long long)lc_calls[i].begin.tv_sec * 1000000000 + lc_calls[i].begin.tv_nsec,\n"
    "                   (long long)lc_calls[i].end.tv_sec * 1000000000 + lc_calls[i].end.tv_nsec);\n"
    "}\n"
    "\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "    const char *serial = NULL;\n"
    "    if (argc > 2 && strcmp(argv[1], \"--serial\") == 0) { serial = argv[2]; argv += 2; argc -= 2; }\n"
    "    lc_parse(argc, argv);\n"
    "    /* A serial order runs on the sequential implementation when the spec\n"
    "     * names one (LC_SEQ), else on the code under test. */\n"
    "    void (*run)(struct lc_call *) = serial && LC_SEQ ? lc_seq_do : lc_do;\n"
    "    if (run == lc_seq_do) lc_seq_construct(); else lc_construct();\n"
    "    for (int i = 0; i < lc_thread_ncalls[0]; i++)\n"
    "        run(&lc_calls[lc_thread_calls[0][i]]);\n"
    "    if (serial) {\n"
    "        int base = lc_thread_ncalls[0];\n"
    "        for (const char *p = serial; *p; ) {\n"
    "            char *end;\n"
    "            long k = strtol(p, &end, 10);\n"
    "            if (end == p || k < 0 || base + k >= lc_ncalls - lc_thread_ncalls[LC_POST]) { fprintf(stderr, \"harness: bad --serial\\n\"); return 2; }\n"
    "            run(&lc_calls[base + k]);\n"
    "            p = *end == ',' ? end + 1 : end;\n"
    "        }\n"
    "    } else {\n"
    "        pthread_t threads[LC_MAX_CALLS];\n"
    "        for (int t = 1; t <= lc_nthreads; t++)\n"
    "            if (pthread_create(&threads[t], NULL, lc_thread_main, (void *)(long)t) != 0) return 3;\n"
    "        for (int t = 1; t <= lc_nthreads; t++)\n"
    "            pthread_join(threads[t], NULL);\n"
    "    }\n"
    "    /* The post part: main, once every thread has ended (after the serial\n"
    "     * order's calls when serial). */\n"
    "    for (int i = 0; i < lc_thread_ncalls[LC_POST]; i++)\n"
    "        run(&lc_calls[lc_thread_calls[LC_POST][i]]);\n"
    "    lc_print();\n"
    "    return 0;\n"
    "}\n";

/* The sequential implementation's state and constructor, or stubs
 * when the spec names none (LC_SEQ 0: never called). */
static void write_seq_prelude(FILE *f, const struct lc_spec *spec)
{
    fprintf(f, "enum { LC_SEQ = %d };\nstatic void lc_seq_do(struct lc_call *c);\n", spec->has_seq);
    if (spec->has_seq)
        fprintf(f, "\n%s;\n\nstatic void lc_seq_construct(void)\n{\n    %s = %s;\n}\n\n", spec->seq_state_decl,
                spec->seq_state_name, spec->seq_state_init);
    else
        fputs("static void lc_seq_construct(void) {}\n\n", f);
}

static void write_seq_do(FILE *f, const struct lc_spec *spec)
{
    fputs("\nstatic void lc_seq_do(struct lc_call *c)\n{\n", f);
    if (!spec->has_seq) {
        fputs("    (void)c;\n}\n", f);
        return;
    }
    fputs("    switch (c->op) {\n", f);
    for (int i = 0; i < spec->nops; i++) {
        fprintf(f, "    case %d: /* %s on the sequential implementation */\n", i, spec->ops[i].name);
        write_call(f, &spec->ops[i], spec->ops[i].seq_call);
        fputs("        break;\n", f);
    }
    fputs("    }\n}\n", f);
}

bool lc_harness_write(const struct lc_spec *spec, const char *spec_path, const char *c_path)
{
    FILE *f = fopen(c_path, "w");
    if (!f)
        return false;
    fprintf(f, "/* Generated by mdat lincheck from %s: runs the scenario its arguments\n"
               " * name (see docs/lincheck.md) and prints each call's result. */\n", spec_path);
    fputs("#include <pthread.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n", f);
    for (int i = 0; i < spec->nincludes; i++) {
        const char *h = spec->includes[i];
        fprintf(f, h[0] == '<' ? "#include %s\n" : "#include \"%s\"\n", h);
    }
    fprintf(f, "\n%s;\n\nstatic void lc_construct(void)\n{\n    %s = %s;\n}\n\n", spec->state_decl, spec->state_name,
            spec->state_init);
    fprintf(f, "enum { LC_NOPS = %d };\nstatic const char *const lc_names[] = {", spec->nops);
    for (int i = 0; i < spec->nops; i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", spec->ops[i].name);
    fputs("};\nstatic const int lc_has_arg[] = {", f);
    for (int i = 0; i < spec->nops; i++)
        fprintf(f, "%s%d", i ? ", " : "", spec->ops[i].has_arg);
    fputs("};\nstatic const int lc_has_result[] = {", f);
    for (int i = 0; i < spec->nops; i++)
        fprintf(f, "%s%d", i ? ", " : "", spec->ops[i].has_result);
    fputs("};\n\nstruct lc_call;\nstatic void lc_do(struct lc_call *c);\n", f);
    write_seq_prelude(f, spec);
    fputs(harness_runtime, f);
    fputs("\nstatic void lc_do(struct lc_call *c)\n{\n    switch (c->op) {\n", f);
    for (int i = 0; i < spec->nops; i++) {
        fprintf(f, "    case %d: /* %s, spec line %d */\n", i, spec->ops[i].name, spec->ops[i].line);
        write_call(f, &spec->ops[i], spec->ops[i].call);
        fputs("        break;\n", f);
    }
    fputs("    }\n}\n", f);
    write_seq_do(f, spec);
    return fclose(f) == 0;
}

static char *spec_file(const struct lc_spec *spec, const char *name)
{
    char buf[8192];
    if (name[0] == '/')
        snprintf(buf, sizeof buf, "%s", name);
    else
        snprintf(buf, sizeof buf, "%s/%s", spec->dir, name);
    return strdup(buf);
}

/* The cflags words (split at blanks; no quoting: flags with blanks are
 * not supported) appended to argv. */
static int add_words(char **argv, int n, int max, const char *text)
{
    if (!text)
        return n;
    char *copy = strdup(text);
    for (char *w = strtok(copy, " \t"); w && n < max; w = strtok(NULL, " \t"))
        argv[n++] = strdup(w);
    free(copy);
    return n;
}

static void first_error_line(const char *log_path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(log_path, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strstr(line, "error") || !out[0])
            snprintf(out, len, "%s", line);
        if (strstr(line, "error"))
            break;
    }
    fclose(f);
}

bool lc_harness_build(const struct lc_spec *spec, const char *c_path, const char *extra_cflags, const char *exe_path,
                      const char *log_path, char *err, size_t errlen)
{
    enum { MAX_ARGS = 128 };
    char *argv[MAX_ARGS];
    int n = 0;
    const char *fixed[] = {"cc", "-g", "-O0", "-pthread", "-o", exe_path, "-I", spec->dir, c_path};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[n++] = strdup(fixed[i]);
    for (int i = 0; i < spec->nsources; i++)
        argv[n++] = spec_file(spec, spec->sources[i]);
    n = add_words(argv, n, MAX_ARGS - 1, spec->cflags);
    n = add_words(argv, n, MAX_ARGS - 1, extra_cflags);
    argv[n] = NULL;
    int status = -1;
    pid_t pid = fork();
    if (pid == 0) {
        /* The code under test's build is the program's (a no-op outside
         * mdat grade's sandbox): its log and harness in a folder it owns. */
        if (!spawn_become_program_user())
            _exit(126);
        FILE *log = freopen(log_path, "w", stderr);
        if (log)
            dup2(fileno(stderr), STDOUT_FILENO);
        execvp("cc", argv);
        fprintf(stderr, "cannot run cc: not found on PATH\n");
        _exit(127);
    }
    if (pid > 0)
        waitpid(pid, &status, 0);
    for (int i = 0; i < n; i++)
        free(argv[i]);
    if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    char first[512];
    first_error_line(log_path, first, sizeof first);
    snprintf(err, errlen, "the harness did not build (%s): %s", log_path, first[0] ? first : "cc failed");
    return false;
}
