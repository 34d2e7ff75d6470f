/* data_expr: C lvalue expressions over a program's variables, for watches:
 * "countFemale", "queue.buf[3]", "q->head", "*p", "table[1][2].count",
 * "count_calls::calls" (a function's static), "(*pa)[1]".
 *
 * Owns the grammar (identifiers, '.', '->', '*', constant '[index]',
 * parentheses), the type checks with their one-line reasons, and following
 * pointers through a data_reader. Results are runtime addresses. */
#ifndef MDAT_SUPERVISOR_DATA_EXPR_H
#define MDAT_SUPERVISOR_DATA_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/debuginfo/dwarf_info.h"
#include "supervisor/debuginfo/value_format.h"

/* Evaluates expr to the runtime address and type of the object it denotes.
 * tls_block (NULL when no thread is given) is the runtime start of the
 * thread's TLS block; without it a thread-local variable is an error. rd may
 * be NULL when nothing needs reading (bias 0 is then assumed). On failure
 * err gets a one-line reason such as "no variable named 'x'". */
bool data_expr_eval(const dwarf_info *dw, const char *expr, const struct data_reader *rd,
                    const uint64_t *tls_block, uint64_t *addr, const struct dwarf_type **type,
                    char *err, size_t errlen);

#endif
