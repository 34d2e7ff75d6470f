/* exec_tso: x86-TSO store buffers in an execution (exec_tso.c says how);
 * engine-internal. Every function is a no-op returning true under the
 * sequentially consistent model (ex->tso NULL). */
#ifndef MDAT_ENGINE_EXEC_TSO_H
#define MDAT_ENGINE_EXEC_TSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/engine/exec_core.h"
#include "supervisor/engine/store_buffer.h"

void exec_tso_begin(struct execution *ex);
void exec_tso_end(struct execution *ex);
/* t is about to take a step: memory as t sees it, and its buffer committed
 * when its operation orders memory. */
bool exec_tso_before_step(struct execution *ex, struct mthread *t);
/* t's operation is one whose store (if it stores) waits in the buffer: a
 * plain access without LOCK. */
bool exec_tso_buffers_store(const struct mthread *t);
/* The running thread's visible plain store (n <= 8 bytes): into memory as
 * it sees it, pending for the others. */
bool exec_tso_record_store(struct execution *ex, uint64_t addr, const void *value, size_t n);
/* t is about to run natively from its rip: commits its buffer unless the
 * way to its next visible operation is plain code. */
bool exec_tso_before_native(struct execution *ex, struct mthread *t);
bool exec_tso_drain(struct execution *ex, struct mthread *t);
/* The flush pseudo-candidates (-T for each T with pending stores). */
size_t exec_tso_flush_candidates(const struct execution *ex, int *ids, size_t max);
/* A thread whose oldest pending store has waited so long that a CPU would
 * have committed it (exec_tso.c, TSO_DRAIN_STEPS): it is committed next,
 * with no choice; 0 when none. */
int exec_tso_overdue(const struct execution *ex);
/* Commits `thread`'s oldest pending store; *flushed says which it was. */
bool exec_tso_flush(struct execution *ex, int thread, struct pending_store *flushed);

#endif
