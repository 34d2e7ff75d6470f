/* source_model: the execution in the student's terms, as the engine's model
 * (engine/exec_model.h).
 *
 * Names data (variables, members, heap blocks by their allocation, TLS,
 * stacks), describes each thread's next operation and what a blocked
 * thread waits for, keeps the registry of sync objects with their holders,
 * values and waiters (read from glibc's own fields), evaluates watches, and
 * judges pthread API misuse. Reads the tracee's memory, never resumes it. */
#ifndef MDAT_MODEL_SOURCE_MODEL_H
#define MDAT_MODEL_SOURCE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "supervisor/engine/exec_model.h"

struct execution;

extern const struct exec_model_ops source_model_ops;

/* A name for a data address of a running execution that has this model:
 * variable, member, heap block, TLS, stack; hex at worst. For detectors'
 * reports ("race on counter"). */
void model_name_data(struct execution *ex, uint64_t addr, char *buf, size_t len);

#endif
