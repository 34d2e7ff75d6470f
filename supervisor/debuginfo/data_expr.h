/* data_expr: C expressions over a program's variables.
 *
 * Lvalues, for watches: "countFemale", "queue.buf[3]", "q->head", "*p",
 * "table[1][2].count", "count_calls::calls" (a function's static),
 * "(*pa)[1]"; their results are runtime addresses. Integer expressions,
 * for invariants: those lvalues and numbers with + - * / %, comparisons,
 * && || ! and parentheses ("men_inside + women_inside <= 4", "q->count
 * <= SIZE && buf[q->head] != 0"); their results are a value and the values
 * of the objects read to get it (the terms, for reports).
 *
 * Owns the grammar, the type checks with their one-line reasons, and
 * following pointers through a data_reader. */
#ifndef MDAT_SUPERVISOR_DATA_EXPR_H
#define MDAT_SUPERVISOR_DATA_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/debuginfo/dwarf_info.h"
#include "supervisor/debuginfo/value_format.h"

/* Checks, before any execution, that expr can denote an object: its
 * syntax, names, members and constant indices within arrays' bounds; what
 * a pointer in it points to is only known at run time. */
bool data_expr_check_object(const dwarf_info *dw, const char *expr, char *err, size_t errlen);

/* Evaluates expr to the runtime address and type of the object it denotes.
 * tls_block (NULL when no thread is given) is the runtime start of the
 * thread's TLS block; without it a thread-local variable is an error. rd may
 * be NULL when nothing needs reading (bias 0 is then assumed). On failure
 * err gets a one-line reason such as "no variable named 'x'". */
bool data_expr_eval(const dwarf_info *dw, const char *expr, const struct data_reader *rd,
                    const uint64_t *tls_block, uint64_t *addr, const struct dwarf_type **type,
                    char *err, size_t errlen);

enum { DATA_EXPR_MAX_TERMS = 8 };

/* An object an integer expression read, and its value. */
struct data_expr_term {
    char text[64];          /* as written: "men_inside", "q->count", "buf[i]" */
    int64_t value;
};

struct data_expr_result {
    int64_t value;          /* comparisons and && || ! give 0 or 1 */
    int n_terms;            /* the first DATA_EXPR_MAX_TERMS distinct objects read */
    struct data_expr_term terms[DATA_EXPR_MAX_TERMS];
};

/* Evaluates an integer expression (C semantics in 64 bits: operands are
 * read as their type says and widened; && and || do not evaluate their
 * right side when the left decides). Scalar objects only: integers, _Bool,
 * chars, enums, pointers (their address). With rd NULL nothing is read:
 * the expression is only checked (syntax, names, types, thread-local
 * variables, constant indices out of bounds), which is what can be known
 * before the program runs. On failure err gets a one-line reason ("no
 * variable named 'x'", "'queue' is a struct, not a number", "'p' is NULL",
 * "division by zero"). */
bool data_expr_value(const dwarf_info *dw, const char *expr, const struct data_reader *rd,
                     struct data_expr_result *out, char *err, size_t errlen);

#endif
