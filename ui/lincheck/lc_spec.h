/* lc_spec: the lincheck spec file a C programmer writes (see
 * docs/lincheck.md): the code under test, the shared state and its
 * constructor, the operations. Parsing only; the harness is lc_harness.c's. */
#ifndef MDAT_UI_LINCHECK_SPEC_H
#define MDAT_UI_LINCHECK_SPEC_H

#include <stdbool.h>
#include <stddef.h>

enum { LC_MAX_SPEC_OPS = 16, LC_MAX_FILES = 16 };

struct lc_op {
    char name[64];
    bool has_arg;
    char arg_type[64];          /* "int" */
    long lo, hi;                /* argument range, inclusive */
    bool has_result;
    char result_type[64];       /* "long" */
    char *call;                 /* the C expression, $1 the argument */
    char *seq_call;             /* the same on the sequential implementation, or NULL */
    int line;                   /* in the spec, for messages */
};

struct lc_spec {
    char dir[4096];             /* the spec's folder: relative paths start there */
    char *sources[LC_MAX_FILES];    /* source, object and library lines, as given */
    int nsources;
    char *includes[LC_MAX_FILES];
    int nincludes;
    char *state_decl;           /* "struct queue *q" */
    char *state_init;           /* "queue_new(8)" */
    char *state_name;           /* "q" */
    char *cflags;               /* the cflags line, or NULL */
    /* The user's sequential implementation (seq lines), when given: serial
     * orders run on it instead of on the code under test. */
    bool has_seq;
    char *seq_state_decl, *seq_state_init, *seq_state_name;
    struct lc_op ops[LC_MAX_SPEC_OPS];
    int nops;
};

/* Parses the spec at path. false with a one-line reason naming the file
 * and line ("queue.lc:4: ...") in err. */
bool lc_spec_load(const char *path, struct lc_spec *spec, char *err, size_t errlen);
void lc_spec_free(struct lc_spec *spec);
/* The operation called name, or -1. */
int lc_spec_find_op(const struct lc_spec *spec, const char *name);

#endif
