/* op_describe: a thread's next operation in source terms, for the trace:
 * "R counter -> 3", "W queue.buf[2] := 'x'", "lock mutex_a", "start worker".
 *
 * Values are formatted by the object's DWARF type when the access covers it
 * exactly; a store's value is known before it runs (from the instruction
 * and registers), a load's is read from memory. */
#include "supervisor/process/io_wait.h"
#include "supervisor/model/model_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* where, plus the same facts unformatted. */
static void set_where(struct model *m, struct trace_event *ev, uint64_t pc)
{
    ev->pc = pc;
    exec_format_code(m->ex, pc, ev->where, sizeof ev->where);
    struct src_loc loc;
    if (exec_code_location(m->ex, pc, &loc)) {
        snprintf(ev->file, sizeof ev->file, "%s", loc.basename ? loc.basename : "");
        ev->line = loc.line;
        ev->column = loc.column;
        snprintf(ev->function, sizeof ev->function, "%s", loc.function ? loc.function : "");
    }
}

/* buf, the user's place at for pc (users_place) in the trace's form:
 * when the user's code is there only as the caller of a function of the
 * C++ library's it called out of line (every template at -O0, std::thread::
 * join and std::future::get always), that function is put beside the
 * line, as code inlined from the library is: "prog.cpp:25 main (in
 * std::thread::join)". The thread is inside it: at is the call a frame of
 * the user's made (found up the stack from pc), or the user's own call of
 * a function mdat models. */
static void add_library_callee(struct model *m, const struct mthread *t, uint64_t pc, uint64_t at, char *buf,
                               size_t len)
{
    bool called = at != pc || (t->in_call && t->call_site && pc == t->call_site - 1);
    char callee[128];
    size_t n = strlen(buf);
    if (called && !strstr(buf, " (in ") && !strstr(buf, " (inlined into ") &&
        exec_library_callee(m->ex, t, at, callee, sizeof callee) && n + 1 < len)
        snprintf(buf + n, len - n, " (in %s)", callee);
}

/* No frame of the user's on t's stack: the runtime runs code compiled
 * into the program (the function) before or after the user's own. After
 * main returned, exit() runs the destructors of globals; a thread of
 * std::thread runs its start and end around the callable (moving the
 * arguments in, destroying them after). */
static void format_outside(struct model *m, const struct mthread *t, const char *function, char *buf, size_t len)
{
    uint64_t start_pc;
    const char *label = model_thread_label(m, t, &start_pc);
    if (t->exit_slot && !t->exit_call) {
        if (strcmp(function, "exit") == 0)
            snprintf(buf, len, "after %s: exit", label);
        else
            snprintf(buf, len, "after %s: %s (run by exit)", label, function);
    } else {
        snprintf(buf, len, "around %s: %s", label, function);
    }
}

/* pc resolved to the user's frame (*at); false when no frame of the
 * user's is on t's stack, function then naming the runtime's code it is
 * in ("exit" for exit's own, after main returned). */
static bool users_place(struct model *m, const struct mthread *t, uint64_t pc, uint64_t *at, char *function,
                        size_t flen)
{
    bool exiting = t->exit_slot && !t->exit_call;
    if (exiting && (!pc || !code_map_in_exe(m->ex->cfg->code, pc))) {
        /* (Inside libc's exit itself: flushing stdio, _exit.) */
        *at = pc;
        snprintf(function, flen, "exit");
        return false;
    }
    *at = pc ? exec_user_frame_pc(m->ex, t, pc) : 0;
    if (!*at || exec_is_users_place(m->ex, *at))
        return true;
    exec_runtime_function(m->ex, t, *at, function, flen);
    return false;
}

void model_format_place(struct model *m, const struct mthread *t, uint64_t pc, char *buf, size_t len,
                        uint64_t *place_pc, char *function, size_t flen)
{
    char name[sizeof ((struct trace_event *)0)->function];
    if (users_place(m, t, pc, place_pc, name, sizeof name)) {
        exec_format_code(m->ex, *place_pc, buf, len);
        add_library_callee(m, t, pc, *place_pc, buf, len);
        if (function)
            exec_format_function(m->ex, *place_pc, function, flen);
        return;
    }
    format_outside(m, t, name, buf, len);
    if (function)
        snprintf(function, flen, "%s", name);
}

/* The place of t's step, pc being where it is (model_format_place). */
static void set_place(struct model *m, struct trace_event *ev, const struct mthread *t, uint64_t pc)
{
    uint64_t at;
    if (users_place(m, t, pc, &at, ev->function, sizeof ev->function)) {
        if (at) {
            set_where(m, ev, at);
            add_library_callee(m, t, pc, at, ev->where, sizeof ev->where);
        }
        return;
    }
    ev->pc = at;
    format_outside(m, t, ev->function, ev->where, sizeof ev->where);
}

/* An untyped 8-byte value that is an address the program can read (the
 * canonical user half of x86-64, above the first pages): a pointer, shown
 * in hex. An integer that large is rare; one the program's memory holds
 * rarer still. */
static bool looks_like_pointer(struct model *m, uint64_t v)
{
    uint8_t byte;
    return v >= 0x10000 && v < 0x800000000000ull && tracee_read(m->ex->mem_fd, v, &byte, 1);
}

/* A value an access of `size` bytes read or wrote: a heap block's number
 * for a pointer into one, by the object's type
 * when the access covers it exactly ("-> 'a'", ":= RED", "-> NULL"), else
 * as a pointer when it is one ("-> 0x7ffff7dc2010"), else as a signed
 * integer of that size ("-> 3", ":= -1"). */
static void format_sized(struct model *m, const struct dwarf_type *type, uint64_t v, unsigned size,
                         const char *arrow, char *buf, size_t len)
{
    /* A pointer to a block the user's code allocated: the block's number
     * ("-> heap#2", "-> heap#2+16"); its accesses say where it was made. */
    const struct dwarf_type *stripped = type ? dwarf_type_strip(type) : NULL;
    bool pointer_sized = size == 8 && (!stripped || stripped->kind == DWARF_TYPE_POINTER ||
                                       dwarf_type_size(type) != size);
    const struct heap_block *b = pointer_sized && v ? heap_map_find(&m->ex->heap, v) : NULL;
    if (b) {
        if (v == b->addr)
            snprintf(buf, len, "%s heap#%u", arrow, b->id);
        else
            snprintf(buf, len, "%s heap#%u+%" PRIu64, arrow, b->id, v - b->addr);
        return;
    }
    if (type && dwarf_type_size(type) == size) {
        char text[64];
        dwarf_format_bytes(type, &v, size, text, sizeof text);
        snprintf(buf, len, "%s %s", arrow, text);
        return;
    }
    if (size == 8 && looks_like_pointer(m, v)) {
        snprintf(buf, len, "%s 0x%" PRIx64, arrow, v);
        return;
    }
    int64_t value = size == 8 ? (int64_t)v
                    : size == 4 ? (int64_t)(int32_t)v
                    : size == 2 ? (int64_t)(int16_t)v
                                : (int64_t)(int8_t)v;
    snprintf(buf, len, "%s %" PRId64, arrow, value);
}

/* The value now at the thread's access address; nothing for wider accesses. */
static void format_access_value(struct model *m, const struct mthread *t, const struct dwarf_type *type,
                                const char *arrow, char *buf, size_t len)
{
    uint64_t v = 0;
    if (t->access_size == 0 || t->access_size > 8 || !tracee_read(m->ex->mem_fd, t->access_addr, &v, t->access_size))
        return;
    format_sized(m, type, v, t->access_size, arrow, buf, len);
}

/* The object of a modeled call: a thread for a join, else the object's name. */
static void name_call_object(struct model *m, enum model_fn fn, uint64_t arg0, struct trace_event *ev)
{
    if (fn == MF_THREAD_JOIN || fn == MF_THREAD_CANCEL) {
        int target = exec_thread_of_pthread(m->ex, arg0);
        if (target)
            snprintf(ev->object, sizeof ev->object, "T%d", target);
    } else if (fn != MF_THREAD_EXIT) {
        ev->addr = arg0;
        model_name_object(m, arg0, ev->object, sizeof ev->object);
    }
}

/* Threads waiting on condition variable cond now. */
static int cond_waiters(struct model *m, uint64_t cond)
{
    int n = 0;
    for (int i = 0; i < m->ex->n_threads; i++) {
        const struct mthread *w = &m->ex->threads[i];
        uint64_t object;
        if (w->state == TS_BLOCKED && model_thread_status(m, w, &object) == THREAD_WAITING_COND && object == cond)
            n++;
    }
    return n;
}

/* A call that may wait: a wake-up ends it. The others (unlock, signal,
 * create...) are only the context of library code that waited. */
static bool call_can_wait(enum model_fn fn)
{
    switch (fn) {
    case MF_MUTEX_LOCK: case MF_MUTEX_TIMEDLOCK: case MF_COND_WAIT: case MF_COND_TIMEDWAIT:
    case MF_SEM_WAIT: case MF_SEM_TIMEDWAIT: case MF_THREAD_JOIN: case MF_BARRIER_WAIT:
    case MF_RWLOCK_RDLOCK: case MF_RWLOCK_WRLOCK: case MF_SPIN_LOCK:
        return true;
    default:
        return false;
    }
}

/* "expected 3, found 5 -> failed" or "expected 3 -> stored 4": what a
 * compare-and-swap will do, known before it runs (it is carried out by
 * mdat from the memory as it is now). */
static void describe_cas(struct model *m, const struct mthread *t, const struct dwarf_type *type, char *buf,
                         size_t len)
{
    uint64_t found = 0;
    struct x86_cas cas;
    if (!tracee_read(m->ex->mem_fd, t->access_addr, &found, t->access_size) ||
        !x86_cas_outcome(&t->site->insn, &t->regs, found, &cas))
        return;
    char expected[48], got[48], desired[48];
    format_sized(m, type, cas.expected, cas.size, "", expected, sizeof expected);
    format_sized(m, type, cas.found, cas.size, "", got, sizeof got);
    format_sized(m, type, cas.desired, cas.size, "", desired, sizeof desired);
    if (cas.stored)
        snprintf(buf, len, "expected%s -> stored%s", expected, desired);
    else
        snprintf(buf, len, "expected%s, found%s -> failed", expected, got);
}

static void describe_access(struct model *m, const struct mthread *t, struct trace_event *ev,
                            const struct dwarf_type **type_out)
{
    const struct x86_insn *in = &t->site->insn;
    bool rd = false, wr = false;
    for (int i = 0; i < in->n_mem; i++) {
        rd |= in->mem[i].read;
        wr |= in->mem[i].write;
    }
    bool split = x86_is_split_rmw(in);
    if (split) {
        /* As the hardware does it: the load, then (a step later) the store. */
        rd = !t->rmw_loaded;
        wr = t->rmw_loaded;
    }
    bool cas = in->emulation == X86_EMU_CMPXCHG;
    snprintf(ev->op, sizeof ev->op, "%s", cas ? "cas" : (in->flags & X86_ATOMIC) ? "atomic" : rd && wr ? "RMW" : wr ? "W" : "R");
    ev->addr = t->access_addr;
    const struct dwarf_type *type;
    model_name_typed(m, t->access_addr, ev->object, sizeof ev->object, &type);
    *type_out = type;
    uint64_t stored;
    if (cas)
        describe_cas(m, t, type, ev->value, sizeof ev->value);
    else if (split && t->rmw_loaded && x86_rmw_result(in, &t->regs, t->rmw_old, &stored))
        format_sized(m, type, stored, t->access_size, ":=", ev->value, sizeof ev->value);
    else if (rd && !wr)
        format_access_value(m, t, type, "->", ev->value, sizeof ev->value);
    else if (wr && !rd && t->access_size <= 8 && x86_store_value(in, &t->regs, &stored))
        format_sized(m, type, stored, t->access_size, ":=", ev->value, sizeof ev->value);
    set_place(m, ev, t, t->regs.rip);
}

void model_describe_next(struct model *m, const struct mthread *t, struct trace_event *ev,
                         const struct dwarf_type **type)
{
    *type = NULL;
    switch (t->op) {
    case OP_START:
        snprintf(ev->op, sizeof ev->op, "start");
        if (t->id == 1) {
            snprintf(ev->object, sizeof ev->object, "main thread");
        } else {
            uint64_t pc;
            snprintf(ev->object, sizeof ev->object, "%s", model_thread_label(m, t, &pc));
            if (pc)
                set_where(m, ev, pc);
        }
        break;
    case OP_ACCESS:
        describe_access(m, t, ev, type);
        break;
    case OP_CALL:
        snprintf(ev->op, sizeof ev->op, "%s", model_fn_verb(t->fn));
        if (t->fn == MF_THREAD_CREATE) {
            uint64_t pc;
            model_start_label(m, t->regs.rdx, t->regs.rcx, ev->object, sizeof ev->object, &pc);
        } else
            name_call_object(m, t->fn, t->call_arg[0], ev);
        /* The lost wake-up: a signal nobody waits for does nothing. */
        if ((t->fn == MF_COND_SIGNAL || t->fn == MF_COND_BROADCAST) && cond_waiters(m, t->call_arg[0]) == 0)
            snprintf(ev->value, sizeof ev->value, "(nobody waits: no effect)");
        /* (A call library code made after tail calls has no call site of
         * the user's: the user's last place.) */
        set_place(m, ev, t, exec_user_pc(m->ex, t));
        break;
    case OP_YIELD:
    case OP_SLEEP:
        snprintf(ev->op, sizeof ev->op, "%s", t->op == OP_YIELD ? "yield" : "sleep");
        /* (Library code yields too: libstdc++'s atomic waits spin with
         * sched_yield. The user's frame, not the library's last access.) */
        if (t->last_user_pc)
            set_place(m, ev, t, t->last_user_pc);
        break;
    case OP_SYSCALL: {
        snprintf(ev->op, sizeof ev->op, "%s", io_verb(t->sys_nr));
        char what[96];
        io_describe(m->ex->pid, t->sys_nr, t->sys_args, what, sizeof what);
        /* "read(fd 3: pipe)": the object is what is inside the parentheses. */
        const char *open = strchr(what, '(');
        snprintf(ev->object, sizeof ev->object, "%.*s", open ? (int)(strlen(open + 1) - 1) : 0, open ? open + 1 : "");
        set_place(m, ev, t, t->sys_caller);
        break;
    }
    case OP_EXIT:
        snprintf(ev->op, sizeof ev->op, "exit");
        snprintf(ev->value, sizeof ev->value, "status %d", (int)(t->regs.rdi & 0xff));
        /* (Ended by exit(): the user's call of it, or none when main
         * returned and the runtime called it.) */
        if (t->exit_slot)
            set_place(m, ev, t, t->exit_call);
        else if (t->last_user_pc)
            set_where(m, ev, t->last_user_pc);
        break;
    case OP_WOKEN:
    case OP_TIMEDOUT:
    case OP_INTERRUPTED:
        snprintf(ev->op, sizeof ev->op, "%s",
                 t->op == OP_WOKEN ? "wakes" : t->op == OP_TIMEDOUT ? "timeout" : "signal");
        if (t->in_call && call_can_wait(t->call_fn)) {
            name_call_object(m, t->call_fn, t->call_arg[0], ev);
            snprintf(ev->value, sizeof ev->value, "%s %s", t->op == OP_INTERRUPTED ? "interrupts" : "in",
                     model_fn_verb(t->call_fn));
        } else {
            /* Library code waited (libstdc++'s join, libgomp's barrier):
             * what it waited on, as it was described when it blocked. */
            const struct model_thread *info = model_thread_info(m, t->id);
            if (info->waited) {
                snprintf(ev->object, sizeof ev->object, "%s", info->wait_object);
                if (info->wait_verb[0])
                    snprintf(ev->value, sizeof ev->value, "%s %s", t->op == OP_INTERRUPTED ? "interrupts" : "in",
                             info->wait_verb);
            }
            /* Where the user called the library that waited. */
            uint64_t call_pc;
            if (!code_map_is_user_code(m->ex->cfg->code, t->regs.rip) && exec_library_call(m->ex, t, &call_pc)) {
                /* (The call may be a header's template compiled into the
                 * program: libstdc++'s __platform_wait. The user's frame.) */
                set_place(m, ev, t, call_pc);
                break;
            }
        }
        set_place(m, ev, t, exec_user_pc(m->ex, t));
        break;
    }
}

void model_describe_op(void *state, const struct mthread *t, struct trace_event *ev)
{
    struct model *m = state;
    model_describe_next(m, t, ev, &m->event_type);
    /* The objects this step's call changes, to be read again after it. */
    bool calling = t->op == OP_CALL || t->in_call;
    m->step_call[0] = calling ? t->call_arg[0] : 0;
    m->step_call[1] = calling ? t->call_arg[1] : 0;
}

void model_op_done(void *state, const struct mthread *t, struct trace_event *ev)
{
    struct model *m = state;
    if (t->op == OP_ACCESS) {
        model_object_touched(m, t->access_addr);    /* hand-written code on a lock's bytes */
        struct model_thread *info = model_thread_info(m, t->id);
        uint64_t bytes = 0;
        tracee_read(m->ex->mem_fd, t->access_addr, &bytes, t->access_size < 8 ? t->access_size : 8);
        info->recent_bytes[info->n_recent % 8] = bytes;
        info->recent[info->n_recent++ % 8] = t->access_addr;
    }
    if (t->op == OP_ACCESS && !ev->value[0])
        format_access_value(m, t, m->event_type, ":=", ev->value, sizeof ev->value);
}
