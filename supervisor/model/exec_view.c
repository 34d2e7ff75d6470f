/* exec_view: an execution described in the student's terms.
 *
 * Owns naming (code addresses as file:line function, data addresses as
 * variables, heap blocks, stacks), the description of each thread's next
 * operation and of what a blocked thread waits for, the registry of sync
 * objects the program uses, and the exec_state handed to observers after a
 * step. Reads the tracee's memory but never resumes it. */
#include "supervisor/engine/execution_internal.h"
#include "supervisor/model/glibc_sync.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- code ---------- */

static bool in_exe(struct execution *ex, uint64_t addr)
{
    return addr && code_map_in_exe(ex->cfg->code, addr);
}

static uint64_t file_addr(struct execution *ex, uint64_t addr)
{
    return addr - code_map_bias(ex->cfg->code);
}

/* The debug info an address belongs to, the address as that file sees it,
 * and the library's name (NULL for the executable). NULL when unknown. */
static const debuginfo *module_of(struct execution *ex, uint64_t addr, uint64_t *faddr, const char **lib)
{
    *lib = NULL;
    if (!addr)
        return NULL;
    if (in_exe(ex, addr)) {
        *faddr = file_addr(ex, addr);
        return ex->cfg->exe;
    }
    const debuginfo *di;
    uint64_t bias;
    if (!code_map_library_at(ex->cfg->code, addr, &di, &bias, lib))
        return NULL;
    *faddr = addr - bias;
    return di;
}

/* " (libc.so.6)" after a name that comes from a library. */
static void append_library(char *buf, size_t len, const char *lib)
{
    size_t n = strlen(buf);
    if (lib && n + 1 < len)
        snprintf(buf + n, len - n, " (%s)", lib);
}

void exec_format_code(struct execution *ex, uint64_t addr, char *buf, size_t len)
{
    uint64_t fa;
    const char *lib;
    const debuginfo *di = module_of(ex, addr, &fa, &lib);
    if (!di) {
        snprintf(buf, len, "0x%" PRIx64, addr);
        return;
    }
    debuginfo_format_code(di, fa, buf, len);
    if (lib && strncmp(buf, "0x", 2) == 0)
        snprintf(buf, len, "%s+0x%" PRIx64, lib, fa);   /* no symbol: an offset in the file */
    else
        append_library(buf, len, lib);
}

void exec_format_line(struct execution *ex, uint64_t addr, char *buf, size_t len)
{
    buf[0] = '\0';
    uint64_t fa;
    const char *lib;
    const debuginfo *di = module_of(ex, addr, &fa, &lib);
    if (di)
        debuginfo_format_line(di, fa, buf, len);
}

static bool code_location(struct execution *ex, uint64_t addr, struct src_loc *loc)
{
    uint64_t fa;
    const char *lib;
    const debuginfo *di = module_of(ex, addr, &fa, &lib);
    return di && debuginfo_code_location(di, fa, loc);
}

void exec_format_function(struct execution *ex, uint64_t addr, char *buf, size_t len)
{
    buf[0] = '\0';
    struct src_loc loc;
    if (code_location(ex, addr, &loc) && loc.function)
        snprintf(buf, len, "%s", loc.function);
}

void exec_format_function_or_addr(struct execution *ex, uint64_t addr, char *buf, size_t len)
{
    exec_format_function(ex, addr, buf, len);
    if (!buf[0])
        snprintf(buf, len, "0x%" PRIx64, addr);
}

/* where, plus the same facts unformatted. */
static void set_where(struct execution *ex, struct trace_event *ev, uint64_t pc)
{
    ev->pc = pc;
    exec_format_code(ex, pc, ev->where, sizeof ev->where);
    struct src_loc loc;
    if (code_location(ex, pc, &loc)) {
        snprintf(ev->file, sizeof ev->file, "%s", loc.basename ? loc.basename : "");
        ev->line = loc.line;
        ev->column = loc.column;
        snprintf(ev->function, sizeof ev->function, "%s", loc.function ? loc.function : "");
    }
}

/* Code from a system header (a C++ library template compiled into the
 * user's binary, at -O0 a function of its own) is shown at the user's line
 * that led there: the frame-pointer chain from rbp is followed, checking
 * every return address, for at most a few frames. */
static bool in_system_header(struct execution *ex, uint64_t pc)
{
    struct src_loc loc;
    return code_location(ex, pc, &loc) && loc.file && strncmp(loc.file, "/usr/", 5) == 0;
}

uint64_t exec_user_frame_pc(struct execution *ex, const struct mthread *t, uint64_t pc)
{
    uint64_t frame = t->regs.rbp, at = pc;
    for (int depth = 0; depth < 8 && in_system_header(ex, at); depth++) {
        uint64_t link[2];   /* saved rbp, return address */
        if (!frame || !tracee_read(ex->mem_fd, frame, link, sizeof link) || !code_map_is_user_code(ex->cfg->code, link[1]))
            return pc;
        at = link[1] - 1;   /* the call instruction */
        frame = link[0];
    }
    return in_system_header(ex, at) ? pc : at;
}

/* ---------- data ---------- */

static const struct mthread *thread_with_stack(struct execution *ex, uint64_t addr)
{
    for (int i = 0; i < ex->n_threads; i++)
        if (ex->threads[i].stack_hi && addr >= ex->threads[i].stack_lo && addr < ex->threads[i].stack_hi)
            return &ex->threads[i];
    return NULL;
}

static bool read_tracee(void *ctx, uint64_t addr, void *buf, size_t n)
{
    const struct execution *ex = ctx;
    return tracee_read(ex->mem_fd, addr, buf, n);
}

static uint64_t heap_extent(void *ctx, uint64_t addr)
{
    const struct execution *ex = ctx;
    const struct heap_block *b = heap_map_find(&ex->heap, addr);
    return b ? b->addr + b->size - addr : 0;
}

/* How debug info reads this execution's memory. */
static struct data_reader reader_of(struct execution *ex)
{
    return (struct data_reader){read_tracee, ex, code_map_bias(ex->cfg->code), heap_extent};
}

/* A thread's pointer: glibc's struct pthread, where the TLS block ends. */
static uint64_t thread_pointer(const struct mthread *t)
{
    return t->tls ? t->tls : t->regs.fs_base;
}

/* A thread-local variable of the executable: "tls_counter (T2)". */
static bool name_tls(struct execution *ex, uint64_t addr, char *buf, size_t len, const struct dwarf_type **type)
{
    uint64_t size, align;
    if (!debuginfo_tls_block(ex->cfg->exe, &size, &align))
        return false;
    for (int i = 0; i < ex->n_threads; i++) {
        uint64_t tp = thread_pointer(&ex->threads[i]);
        if (!tp || addr >= tp || addr < tp - size)
            continue;
        char name[96];
        if (!debuginfo_name_tls(ex->cfg->exe, addr - (tp - size), name, sizeof name, type))
            return false;
        snprintf(buf, len, "%s (T%d)", name, ex->threads[i].id);
        return true;
    }
    return false;
}

/* Names addr and, when the name is a whole object of known type, gives
 * the type (for formatting its value). */
static void name_typed(struct execution *ex, uint64_t addr, char *buf, size_t len, const struct dwarf_type **type)
{
    buf[0] = '\0';
    *type = NULL;
    struct data_reader rd = reader_of(ex);
    if (debuginfo_name_data(ex->cfg->exe, addr, &rd, buf, len, type))
        return;
    *type = NULL;
    const struct heap_block *b = heap_map_find(&ex->heap, addr);
    if (b) {
        char site[96];
        exec_format_line(ex, b->site, site, sizeof site);
        char offset[24] = "";
        if (addr != b->addr)
            snprintf(offset, sizeof offset, "+%" PRIu64, addr - b->addr);
        if (site[0])
            snprintf(buf, len, "heap#%u (%s at %s)%s", b->id, b->how, site, offset);
        else
            snprintf(buf, len, "heap#%u%s", b->id, offset);
        return;
    }
    if (name_tls(ex, addr, buf, len, type))
        return;
    *type = NULL;
    uint64_t fa;
    const char *lib;
    const debuginfo *di = module_of(ex, addr, &fa, &lib);
    if (di && di != ex->cfg->exe) {
        debuginfo_format_data(di, fa, buf, len);
        if (buf[0]) {
            append_library(buf, len, lib);
            return;
        }
    }
    const struct mthread *owner = thread_with_stack(ex, addr);
    if (owner) {
        snprintf(buf, len, "0x%" PRIx64 " (stack of T%d)", addr, owner->id);
        return;
    }
    snprintf(buf, len, "0x%" PRIx64, addr);
}

void exec_name_object(struct execution *ex, uint64_t addr, char *buf, size_t len)
{
    const struct dwarf_type *type;
    name_typed(ex, addr, buf, len, &type);
}

/* ---------- threads and what they wait for ---------- */

uint64_t exec_user_pc(struct execution *ex, const struct mthread *t)
{
    if (t->op == OP_START && t->id != 1 && t->start_routine)
        return t->start_routine;    /* not run yet: where it will begin */
    if (t->in_call && t->call_site)
        return t->call_site - 1;    /* the call instruction, not the line after */
    if (t->regs.rip && code_map_is_user_code(ex->cfg->code, t->regs.rip))
        return t->regs.rip;
    return t->last_user_pc ? t->last_user_pc : t->regs.rip;
}

int exec_mutex_holder(struct execution *ex, uint64_t mutex)
{
    struct glibc_mutex m;
    if (!glibc_read_mutex(ex->mem_fd, mutex, &m))
        return 0;
    return exec_thread_id_of_tid(ex, m.owner_tid);
}

int exec_thread_of_pthread(struct execution *ex, uint64_t pthread)
{
    /* glibc reuses the memory of joined threads: the newest owner is meant. */
    for (int i = ex->n_threads - 1; i >= 0; i--)
        if (ex->threads[i].tls == pthread)
            return ex->threads[i].id;
    return 0;
}

/* A thread in pthread_cond_wait first waits on the condvar, then, once
 * signalled, for the mutex: the futex word says which. */
static bool cond_waiter_wants_mutex(struct execution *ex, const struct mthread *t)
{
    const struct futex_waiter *w = futex_table_get(&ex->futex, t->id);
    return w && w->addr >= t->call_arg[1] && w->addr < t->call_arg[1] + glibc_sync_size(SYNC_MUTEX);
}

static bool is_cond_wait(enum model_fn fn)
{
    return fn == MF_COND_WAIT || fn == MF_COND_TIMEDWAIT;
}

/* The status of a blocked thread and the object it is blocked on (0 for a
 * join, which waits for a thread). */
static enum thread_status blocked_status(struct execution *ex, const struct mthread *t, uint64_t *object)
{
    const struct futex_waiter *w = futex_table_get(&ex->futex, t->id);
    *object = w ? w->addr : 0;
    if (!t->in_call)
        return THREAD_WAITING_FUTEX;
    switch (t->call_fn) {
    case MF_MUTEX_LOCK:
    case MF_MUTEX_TIMEDLOCK:
    case MF_RWLOCK_RDLOCK:
    case MF_RWLOCK_WRLOCK:
    case MF_SPIN_LOCK:
        *object = t->call_arg[0];
        return THREAD_WAITING_LOCK;
    case MF_COND_WAIT:
    case MF_COND_TIMEDWAIT:
        if (cond_waiter_wants_mutex(ex, t)) {
            *object = t->call_arg[1];
            return THREAD_WAITING_LOCK;
        }
        *object = t->call_arg[0];
        return THREAD_WAITING_COND;
    case MF_SEM_WAIT:
    case MF_SEM_TIMEDWAIT:
        *object = t->call_arg[0];
        return THREAD_WAITING_SEM;
    case MF_BARRIER_WAIT:
        *object = t->call_arg[0];
        return THREAD_WAITING_BARRIER;
    case MF_THREAD_JOIN:
        *object = 0;
        return THREAD_WAITING_JOIN;
    default:
        return THREAD_WAITING_FUTEX;
    }
}

void exec_describe_wait(struct execution *ex, const struct mthread *t, char *buf, size_t len, int *holder)
{
    *holder = 0;
    uint64_t object;
    enum thread_status st = blocked_status(ex, t, &object);
    char name[96], mname[96];
    switch (st) {
    case THREAD_WAITING_LOCK:
        exec_name_object(ex, object, name, sizeof name);
        if (t->call_fn == MF_RWLOCK_RDLOCK || t->call_fn == MF_RWLOCK_WRLOCK) {
            struct glibc_rwlock rw;
            if (glibc_read_rwlock(ex->mem_fd, object, &rw))
                *holder = exec_thread_id_of_tid(ex, rw.writer_tid);
            snprintf(buf, len, "rwlock %s", name);
        } else if (t->call_fn == MF_SPIN_LOCK) {
            snprintf(buf, len, "spinlock %s", name);
        } else {
            *holder = exec_mutex_holder(ex, object);
            snprintf(buf, len, "mutex %s", name);
        }
        if (*holder) {
            size_t n = strlen(buf);
            snprintf(buf + n, len - n, " (held by T%d)", *holder);
        }
        if (is_cond_wait(t->call_fn)) {
            size_t n = strlen(buf);
            snprintf(buf + n, len - n, ", to return from pthread_cond_wait");
        }
        return;
    case THREAD_WAITING_COND:
        exec_name_object(ex, object, name, sizeof name);
        exec_name_object(ex, t->call_arg[1], mname, sizeof mname);
        snprintf(buf, len, "condvar %s (with mutex %s)", name, mname);
        return;
    case THREAD_WAITING_SEM:
        exec_name_object(ex, object, name, sizeof name);
        snprintf(buf, len, "semaphore %s", name);
        return;
    case THREAD_WAITING_BARRIER:
        exec_name_object(ex, object, name, sizeof name);
        snprintf(buf, len, "barrier %s", name);
        return;
    case THREAD_WAITING_JOIN:
        *holder = exec_thread_of_pthread(ex, t->call_arg[0]);
        if (*holder)
            snprintf(buf, len, "join T%d", *holder);
        else
            snprintf(buf, len, "join of thread 0x%" PRIx64, t->call_arg[0]);
        return;
    default:
        exec_name_object(ex, object, name, sizeof name);
        snprintf(buf, len, "futex word %s", name);
        return;
    }
}

/* ---------- operations ---------- */

/* A value an access of `size` bytes read or wrote: by the object's type
 * when the access covers it exactly ("-> 'a'", ":= RED", "-> NULL"), else as
 * a signed integer of that size ("-> 3", ":= -1"). */
static void format_sized(const struct dwarf_type *type, uint64_t v, unsigned size, const char *arrow, char *buf,
                         size_t len)
{
    if (type && dwarf_type_size(type) == size) {
        char text[64];
        dwarf_format_bytes(type, &v, size, text, sizeof text);
        snprintf(buf, len, "%s %s", arrow, text);
        return;
    }
    int64_t value = size == 8 ? (int64_t)v
                    : size == 4 ? (int64_t)(int32_t)v
                    : size == 2 ? (int64_t)(int16_t)v
                                : (int64_t)(int8_t)v;
    snprintf(buf, len, "%s %" PRId64, arrow, value);
}

/* The value now at the thread's access address; nothing for wider accesses. */
static void format_access_value(struct execution *ex, const struct mthread *t, const struct dwarf_type *type,
                                const char *arrow, char *buf, size_t len)
{
    uint64_t v = 0;
    if (t->access_size == 0 || t->access_size > 8 || !tracee_read(ex->mem_fd, t->access_addr, &v, t->access_size))
        return;
    format_sized(type, v, t->access_size, arrow, buf, len);
}

/* The object of a modeled call: a thread for a join, else the object's name. */
static void name_call_object(struct execution *ex, enum model_fn fn, uint64_t arg0, struct trace_event *ev)
{
    if (fn == MF_THREAD_JOIN) {
        int target = exec_thread_of_pthread(ex, arg0);
        if (target)
            snprintf(ev->object, sizeof ev->object, "T%d", target);
    } else if (fn != MF_THREAD_EXIT) {
        ev->addr = arg0;
        exec_name_object(ex, arg0, ev->object, sizeof ev->object);
    }
}

const struct dwarf_type *exec_describe_op(struct execution *ex, const struct mthread *t, struct trace_event *ev)
{
    const struct dwarf_type *type = NULL;
    switch (t->op) {
    case OP_START:
        snprintf(ev->op, sizeof ev->op, "start");
        if (t->id == 1) {
            snprintf(ev->object, sizeof ev->object, "main thread");
        } else {
            exec_format_function_or_addr(ex, t->start_routine, ev->object, sizeof ev->object);
            set_where(ex, ev, t->start_routine);
        }
        break;
    case OP_ACCESS: {
        const struct x86_insn *in = &t->site->insn;
        bool rd = false, wr = false;
        for (int i = 0; i < in->n_mem; i++) {
            rd |= in->mem[i].read;
            wr |= in->mem[i].write;
        }
        snprintf(ev->op, sizeof ev->op, "%s", (in->flags & X86_ATOMIC) ? "atomic" : rd && wr ? "RMW" : wr ? "W" : "R");
        ev->addr = t->access_addr;
        name_typed(ex, t->access_addr, ev->object, sizeof ev->object, &type);
        uint64_t stored;
        if (rd && !wr)
            format_access_value(ex, t, type, "->", ev->value, sizeof ev->value);
        else if (wr && !rd && t->access_size <= 8 && x86_store_value(in, &t->regs, &stored))
            format_sized(type, stored, t->access_size, ":=", ev->value, sizeof ev->value);
        set_where(ex, ev, exec_user_frame_pc(ex, t, t->regs.rip));
        break;
    }
    case OP_CALL:
        snprintf(ev->op, sizeof ev->op, "%s", model_fn_verb(t->fn));
        if (t->fn == MF_THREAD_CREATE)
            exec_format_function_or_addr(ex, t->regs.rdx, ev->object, sizeof ev->object);
        else
            name_call_object(ex, t->fn, t->call_arg[0], ev);
        set_where(ex, ev, exec_user_frame_pc(ex, t, t->call_site ? t->call_site - 1 : t->regs.rip));
        break;
    case OP_YIELD:
    case OP_SLEEP:
        snprintf(ev->op, sizeof ev->op, "%s", t->op == OP_YIELD ? "yield" : "sleep");
        if (t->last_user_pc)
            set_where(ex, ev, t->last_user_pc);
        break;
    case OP_WOKEN:
    case OP_TIMEDOUT:
    case OP_INTERRUPTED:
        snprintf(ev->op, sizeof ev->op, "%s",
                 t->op == OP_WOKEN ? "wakes" : t->op == OP_TIMEDOUT ? "timeout" : "signal");
        if (t->in_call) {
            name_call_object(ex, t->call_fn, t->call_arg[0], ev);
            snprintf(ev->value, sizeof ev->value, "%s %s", t->op == OP_INTERRUPTED ? "interrupts" : "in",
                     model_fn_verb(t->call_fn));
        }
        set_where(ex, ev, exec_user_pc(ex, t));
        break;
    }
    return type;
}

void exec_note_written_value(struct execution *ex, struct mthread *t)
{
    struct trace_event *ev = ex->event;
    if (ev && t->op == OP_ACCESS && !ev->value[0])
        format_access_value(ex, t, ex->event_type, ":=", ev->value, sizeof ev->value);
}

/* ---------- sync objects ---------- */

static bool kind_of_call(enum model_fn fn, enum sync_kind *kind)
{
    switch (fn) {
    case MF_MUTEX_LOCK: case MF_MUTEX_TRYLOCK: case MF_MUTEX_TIMEDLOCK: case MF_MUTEX_UNLOCK:
    case MF_MUTEX_INIT: case MF_MUTEX_DESTROY:
        *kind = SYNC_MUTEX;
        return true;
    case MF_COND_WAIT: case MF_COND_TIMEDWAIT: case MF_COND_SIGNAL: case MF_COND_BROADCAST:
    case MF_COND_INIT: case MF_COND_DESTROY:
        *kind = SYNC_CONDVAR;
        return true;
    case MF_SEM_WAIT: case MF_SEM_TRYWAIT: case MF_SEM_TIMEDWAIT: case MF_SEM_POST:
    case MF_SEM_INIT: case MF_SEM_DESTROY:
        *kind = SYNC_SEMAPHORE;
        return true;
    case MF_BARRIER_WAIT: case MF_BARRIER_INIT:
        *kind = SYNC_BARRIER;
        return true;
    case MF_RWLOCK_RDLOCK: case MF_RWLOCK_WRLOCK: case MF_RWLOCK_TRYRDLOCK: case MF_RWLOCK_TRYWRLOCK:
    case MF_RWLOCK_UNLOCK: case MF_RWLOCK_INIT:
        *kind = SYNC_RWLOCK;
        return true;
    case MF_SPIN_LOCK: case MF_SPIN_UNLOCK: case MF_SPIN_INIT:
        *kind = SYNC_SPINLOCK;
        return true;
    default:
        return false;
    }
}

static struct sync_object *register_object(struct execution *ex, enum sync_kind kind, uint64_t addr)
{
    struct sync_object *o = sync_model_get(&ex->sync, addr);
    if (o) {
        if (o->kind == SYNC_FUTEX)
            o->kind = kind;
        return o;
    }
    char name[96];
    exec_name_object(ex, addr, name, sizeof name);
    return sync_model_add(&ex->sync, kind, addr, name);
}

void exec_register_call_objects(struct execution *ex, const struct mthread *t, enum model_fn fn, uint64_t arg0,
                                uint64_t arg1)
{
    enum sync_kind kind;
    if (!ex->describe || !arg0 || !kind_of_call(fn, &kind))
        return;
    struct sync_object *o = register_object(ex, kind, arg0);
    if (is_cond_wait(fn) && arg1) {
        o->mutex = arg1;
        register_object(ex, SYNC_MUTEX, arg1);
    }
    if (fn == MF_SPIN_LOCK)
        o->spin_holder = t->id;
    else if (fn == MF_SPIN_UNLOCK)
        o->spin_holder = 0;
}

void exec_register_declared_objects(struct execution *ex)
{
    const struct sync_global *globals;
    size_t n = debuginfo_sync_globals(ex->cfg->exe, &globals);
    uint64_t bias = code_map_bias(ex->cfg->code);
    for (size_t i = 0; i < n; i++)
        sync_model_add(&ex->sync, globals[i].kind, globals[i].addr + bias, globals[i].name);
}

/* ---------- watches ---------- */

/* Evaluates each watched expression now; a thread-local one in the thread
 * that ran the last step. */
static void evaluate_watches(struct execution *ex)
{
    int n = ex->cfg->n_watches;
    if (n > ex->cap_state_watches) {
        ex->state_watches = realloc(ex->state_watches, (size_t)n * sizeof *ex->state_watches);
        if (!ex->state_watches)
            abort();
        ex->cap_state_watches = n;
    }
    struct data_reader rd = reader_of(ex);
    const struct mthread *current = exec_thread_by_id(ex, ex->last_thread ? ex->last_thread : 1);
    uint64_t tls_size = 0, align;
    bool has_tls = debuginfo_tls_block(ex->cfg->exe, &tls_size, &align);
    for (int i = 0; i < n; i++) {
        struct state_watch *w = &ex->state_watches[i];
        memset(w, 0, sizeof *w);
        snprintf(w->expr, sizeof w->expr, "%s", ex->cfg->watches[i]);
        uint64_t addr;
        const struct dwarf_type *type;
        char err[128];
        bool ok;
        if (has_tls && current && thread_pointer(current))
            ok = debuginfo_eval_thread(ex->cfg->exe, w->expr, &rd, thread_pointer(current) - tls_size, &addr, &type,
                                       err, sizeof err);
        else
            ok = debuginfo_eval(ex->cfg->exe, w->expr, &rd, &addr, &type, err, sizeof err);
        if (ok) {
            debuginfo_format_value(ex->cfg->exe, type, addr, &rd, w->value, sizeof w->value);
        } else {
            w->error = true;
            snprintf(w->value, sizeof w->value, "%s", err);
        }
    }
}

/* ---------- the state after a step ---------- */

static void grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    *buf = realloc(*buf, n * elem);
    if (!*buf)
        abort();
    *cap = n;
}

static enum thread_status status_of(struct execution *ex, const struct mthread *t, uint64_t *object)
{
    *object = 0;
    switch (t->state) {
    case TS_EXITED:
        return THREAD_EXITED;
    case TS_BLOCKED:
        return blocked_status(ex, t, object);
    case TS_RUNNABLE:
        break;
    }
    if (t->id == ex->last_thread)
        return THREAD_RUNNING;
    return t->yielded ? THREAD_SLEEPING : THREAD_READY;
}

static void fill_thread(struct execution *ex, const struct mthread *t, struct state_thread *st, uint64_t *object)
{
    memset(st, 0, sizeof *st);
    st->id = t->id;
    st->status = status_of(ex, t, object);
    if (t->id == 1)
        snprintf(st->start, sizeof st->start, "main");
    else if (t->start_routine)
        exec_format_function_or_addr(ex, t->start_routine, st->start, sizeof st->start);
    if (t->state == TS_EXITED)
        return;
    exec_format_code(ex, exec_user_pc(ex, t), st->location, sizeof st->location);
    if (t->state == TS_BLOCKED)
        exec_describe_wait(ex, t, st->waiting_on, sizeof st->waiting_on, &st->waits_for);
    else
        exec_describe_op(ex, t, &st->next);
    st->next.thread = t->id;
}

void exec_describe_thread(struct execution *ex, const struct mthread *t, struct state_thread *st)
{
    uint64_t object;
    fill_thread(ex, t, st, &object);
}

/* A holder for the state: the thread, or -1 for one that is not ours. */
static int holder_of_tid(struct execution *ex, int32_t tid)
{
    if (tid <= 0)
        return 0;
    int id = exec_thread_id_of_tid(ex, tid);
    return id ? id : -1;
}

static void fill_object(struct execution *ex, const struct sync_object *o, struct state_object *so)
{
    memset(so, 0, sizeof *so);
    so->kind = o->kind;
    so->addr = o->addr;
    snprintf(so->name, sizeof so->name, "%s", o->name);
    switch (o->kind) {
    case SYNC_MUTEX: {
        struct glibc_mutex m;
        if (glibc_read_mutex(ex->mem_fd, o->addr, &m)) {
            snprintf(so->type, sizeof so->type, "%s", m.type);
            if (m.locked) {
                so->holder = holder_of_tid(ex, m.owner_tid);
                if (!so->holder)
                    so->holder = -1;
                so->count = strcmp(m.type, "recursive") == 0 && m.count ? (int)m.count : 1;
            }
        }
        break;
    }
    case SYNC_SEMAPHORE: {
        int64_t v;
        if (glibc_read_sem(ex->mem_fd, o->addr, &v))
            so->count = (int)v;
        break;
    }
    case SYNC_CONDVAR:
        so->mutex = o->mutex;
        if (o->mutex) {
            const struct sync_object *m = sync_model_get(&ex->sync, o->mutex);
            if (m)
                snprintf(so->mutex_name, sizeof so->mutex_name, "%s", m->name);
            else
                exec_name_object(ex, o->mutex, so->mutex_name, sizeof so->mutex_name);
        }
        break;
    case SYNC_BARRIER:
        glibc_read_barrier_limit(ex->mem_fd, o->addr, &so->limit);
        break;
    case SYNC_RWLOCK: {
        struct glibc_rwlock rw;
        if (glibc_read_rwlock(ex->mem_fd, o->addr, &rw)) {
            so->count = (int)rw.readers;
            so->holder = holder_of_tid(ex, rw.writer_tid);
        }
        break;
    }
    case SYNC_SPINLOCK: {
        bool locked = false;
        glibc_read_spinlock(ex->mem_fd, o->addr, &locked);
        so->holder = locked ? (o->spin_holder ? o->spin_holder : -1) : 0;
        break;
    }
    case SYNC_FUTEX: {
        uint32_t v = 0;
        tracee_read(ex->mem_fd, o->addr, &v, sizeof v);
        so->count = (int)v;
        break;
    }
    default:
        break;
    }
}

/* Insertion sort by wait order: waiter lists are short. */
static void sort_by_wait_seq(int *ids, int n, const struct mthread *threads)
{
    for (int i = 1; i < n; i++) {
        int v = ids[i], j = i;
        while (j > 0 && threads[ids[j - 1] - 1].wait_seq > threads[v - 1].wait_seq) {
            ids[j] = ids[j - 1];
            j--;
        }
        ids[j] = v;
    }
}

const struct exec_state *exec_build_state(struct execution *ex)
{
    int n = ex->n_threads;
    size_t cap_threads = (size_t)ex->cap_state_threads;
    grow((void **)&ex->state_threads, &cap_threads, (size_t)n, sizeof *ex->state_threads);
    ex->cap_state_threads = (int)cap_threads;
    uint64_t *waits = calloc((size_t)n + 1, sizeof *waits);
    if (!waits)
        abort();
    for (int i = 0; i < n; i++) {
        fill_thread(ex, &ex->threads[i], &ex->state_threads[i], &waits[i]);
        /* A futex word nobody named: show it as an object of its own. */
        if (waits[i] && !sync_model_containing(&ex->sync, waits[i]))
            register_object(ex, SYNC_FUTEX, waits[i]);
    }

    struct sync_model *m = &ex->sync;
    grow((void **)&ex->state_objects, &ex->cap_state_objects, m->n, sizeof *ex->state_objects);
    grow((void **)&ex->state_waiters, &ex->cap_state_waiters, (size_t)n, sizeof *ex->state_waiters);
    /* Each blocked thread waits on one object: the waiter lists partition
     * the blocked threads, so one pool of n ids holds them all, object after
     * object. The object of each thread is looked up once. */
    int *owner = malloc(((size_t)n + 1) * sizeof *owner);
    size_t *start = calloc(m->n + 1, sizeof *start);
    if (!owner || !start)
        abort();
    for (int i = 0; i < n; i++) {
        const struct sync_object *o = waits[i] ? sync_model_containing(m, waits[i]) : NULL;
        owner[i] = o ? (int)(o - m->objs) : -1;
        if (o)
            start[owner[i] + 1]++;
    }
    for (size_t k = 0; k < m->n; k++)
        start[k + 1] += start[k];
    for (size_t k = 0; k < m->n; k++) {
        struct state_object *so = &ex->state_objects[k];
        fill_object(ex, &m->objs[k], so);
        so->waiters = ex->state_waiters + start[k];
        so->n_waiters = 0;
    }
    for (int i = 0; i < n; i++)
        if (owner[i] >= 0) {
            struct state_object *so = &ex->state_objects[owner[i]];
            ex->state_waiters[start[owner[i]] + (size_t)so->n_waiters++] = ex->threads[i].id;
        }
    for (size_t k = 0; k < m->n; k++) {
        struct state_object *so = &ex->state_objects[k];
        sort_by_wait_seq(ex->state_waiters + start[k], so->n_waiters, ex->threads);
        if (so->kind == SYNC_BARRIER)
            so->count = so->n_waiters;
    }
    free(owner);
    free(start);
    free(waits);
    evaluate_watches(ex);
    ex->state = (struct exec_state){
        .step = ex->steps,
        .current = ex->last_thread,
        .n_threads = n,
        .threads = ex->state_threads,
        .n_objects = (int)m->n,
        .objects = ex->state_objects,
        .n_watches = ex->cfg->n_watches,
        .watches = ex->state_watches,
    };
    return &ex->state;
}

void exec_view_free(struct execution *ex)
{
    sync_model_free(&ex->sync);
    heap_map_free(&ex->heap);
    free(ex->state_threads);
    free(ex->state_objects);
    free(ex->state_waiters);
    free(ex->state_watches);
    free(ex->ret_bps);
}
