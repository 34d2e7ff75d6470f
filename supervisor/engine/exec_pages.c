/* exec_pages: page ownership in a running execution (see exec_pages.h). */
#include "supervisor/engine/exec_pages.h"
#include "supervisor/engine/exec_engine.h"
#include "supervisor/launch/exec_template.h"
#include "supervisor/process/inject_stub.h"
#include "supervisor/process/page_cache.h"
#include "supervisor/launch/pages_setup.h"
#include "supervisor/process/pkru.h"
#include "supervisor/sharing/hb_clocks.h"
#include "supervisor/sharing/page_owners.h"

#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#ifndef SYS_pkey_mprotect
#define SYS_pkey_mprotect 329
#endif

/* Visible operations on followed pages a run goes on with after it found
 * pages shared unordered, before it stops to run again with them. */
enum { PROBE_STEPS = 4096 };

/* Accesses of library code a run carries out one by one (a single step
 * with every key open each: memcpy over an observed buffer) before it runs
 * again with every access observed, where library code runs natively. */
enum { CARRY_MAX = 20000 };

struct exec_pages {
    const struct pages_image *img;
    struct page_owners *po;
    struct hb_clocks *hb;
    struct vma_list vmas;
    int *slot_of;               /* by thread id: index into img->thread_keys, -1: none */
    int n_slot_of;
    bool slot_used[PAGES_MAX_KEYS];
    uint64_t heap_end;          /* the program break, page-rounded */
    /* Pages two threads shared unordered: to observe next time, or (the
     * second only read) to share for reading next time. */
    struct page_list conflicts, read_conflicts;
    uint64_t steps_after_conflict;  /* visible operations on followed pages since the first */
    uint64_t carried;               /* library accesses carried out */
    int threads_all_open;           /* threads with every key open now (mthread.pkru_opened) */
    /* The thread a resume lets run, for page_cache_keep_next's question. */
    struct resumed {
        const struct page_owners *po;
        int thread;
    } resumed;
    bool out_of_keys, carried_too_many;
};

/* ---------- keys and rights ---------- */

static int key_slot(const struct exec_pages *p, int thread)
{
    return thread > 0 && thread < p->n_slot_of ? p->slot_of[thread] : -1;
}

static void set_slot(struct exec_pages *p, int thread, int slot)
{
    if (thread >= p->n_slot_of) {
        int n = p->n_slot_of ? p->n_slot_of : 16;
        while (n <= thread)
            n *= 2;
        p->slot_of = realloc(p->slot_of, (size_t)n * sizeof *p->slot_of);
        if (!p->slot_of)
            abort();
        for (int i = p->n_slot_of; i < n; i++)
            p->slot_of[i] = -1;
        p->n_slot_of = n;
    }
    p->slot_of[thread] = slot;
}

static uint32_t rights_of(const struct exec_pages *p, int thread)
{
    int slot = key_slot(p, thread);
    return pkru_rights(slot >= 0 ? p->img->thread_keys[slot] : 0,
                       page_owners_reads_shared(p->po, thread) ? p->img->key_read_only : 0);
}

/* Sets t's rights, remembering what they are. */
static bool set_rights(struct mthread *t, uint32_t rights)
{
    if (!pkru_set(t->tid, rights))
        return false;
    t->pkru_now = rights;
    t->pkru_known = true;
    return true;
}

/* t's own rights, as the books give them. */
static bool own_rights(const struct exec_pages *p, struct mthread *t)
{
    return set_rights(t, rights_of(p, t->id));
}

/* Every key open for a while (a call's buffers, pthread_create), counted:
 * while any thread has them, the kernel on its behalf may write anything. */
static bool open_all_keys(struct exec_pages *p, struct mthread *t)
{
    if (!set_rights(t, PKRU_ALL_OPEN))
        return false;
    if (!t->pkru_opened)
        p->threads_all_open++;
    t->pkru_opened = true;
    return true;
}

static void forget_opened(struct exec_pages *p, struct mthread *t)
{
    if (t->pkru_opened)
        p->threads_all_open--;
    t->pkru_opened = false;
}

/* ... and closes again: t gets its own rights back. */
static bool close_opened(struct exec_pages *p, struct mthread *t)
{
    if (!t->pkru_opened)
        return true;
    forget_opened(p, t);
    return own_rights(p, t);
}

/* t's rights as the books say (reading read-shared pages opens and closes
 * with its epochs), before it runs an instruction of its own. */
static bool sync_rights(struct execution *ex, struct mthread *t)
{
    uint32_t want = rights_of(ex->pages, t->id);
    return (t->pkru_known && t->pkru_now == want) || set_rights(t, want);
}

/* ---------- the execution's books ---------- */

bool exec_pages_begin(struct execution *ex)
{
    const struct pages_image *img = ex->cfg->tmpl ? ex->cfg->tmpl->pages : NULL;
    if (!img || !img->ready) {
        exec_set_error(ex, "page ownership needs the fork server prepared for it");
        return false;
    }
    struct exec_pages *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->img = img;
    p->po = page_owners_new(img->key_closed, img->key_read_only);
    p->hb = hb_clocks_new();
    vma_list_init(&p->vmas);
    vma_list_copy(&p->vmas, &img->vmas);
    for (size_t i = 0; i < img->n_followed; i++)
        page_owners_track(p->po, img->followed[i].start, img->followed[i].end);
    set_slot(p, 1, 0);
    p->slot_used[0] = true;
    page_owners_set_thread_key(p->po, 1, img->thread_keys[0]);
    page_owners_stack(p->po, img->main_stack.start, img->main_stack.end, 1);
    /* Its accesses to its own stack never stop: the stack is known here
     * (names in reports: "stack of T1"). */
    struct mthread *leader = exec_thread_by_id(ex, 1);
    if (leader && !leader->stack_hi) {
        leader->stack_lo = img->main_stack.start;
        leader->stack_hi = img->main_stack.end;
    }

    for (size_t i = 0; i < ex->cfg->n_observed; i++)
        page_owners_observe(p->po, ex->cfg->observed[i]);
    for (size_t i = 0; i < ex->cfg->n_read_shared; i++)
        page_owners_readers(p->po, ex->cfg->read_shared[i]);
    /* The template is tagged so already: nothing to change in the program. */
    struct page_retag drop[64];
    while (page_owners_take_retags(p->po, drop, 64))
        ;
    p->heap_end = img->brk_end;
    hb_thread_start(p->hb, 1, 0);
    ex->pages = p;
    return true;
}

void exec_pages_end(struct execution *ex)
{
    struct exec_pages *p = ex->pages;
    if (!p)
        return;
    struct exec_result *res = ex->res;
    if (p->out_of_keys || p->carried_too_many) {
        res->restart = RESTART_OBSERVE_ALL;
    } else if (p->conflicts.n || p->read_conflicts.n) {
        res->restart = RESTART_OBSERVE_PAGES;
        res->restart_pages = p->conflicts;
        res->restart_read_shared = p->read_conflicts;
        memset(&p->conflicts, 0, sizeof p->conflicts);
        memset(&p->read_conflicts, 0, sizeof p->read_conflicts);
    }
    page_owners_free(p->po);
    hb_clocks_free(p->hb);
    vma_list_free(&p->vmas);
    free(p->slot_of);
    page_list_free(&p->conflicts);
    page_list_free(&p->read_conflicts);
    free(p);
    ex->pages = NULL;
}

static void note_conflict(struct exec_pages *p, uint64_t page, bool only_read)
{
    if (!only_read)
        page_list_add(&p->conflicts, page);
    else if (!page_list_has(&p->conflicts, page))
        page_list_add(&p->read_conflicts, page);
}

static void note_read_conflict(void *ctx, uint64_t page)
{
    note_conflict(ctx, page, true);
}

bool exec_pages_native(struct execution *ex, const struct mthread *t, uint64_t addr, bool write)

{
    return page_owners_native(ex->pages->po, t->id, addr, write);
}

/* ---------- judging a touch ---------- */

/* The operand of in that reaches addr's page, for the step's access. */
static void name_access(struct mthread *t, const struct user_regs_struct *regs, const struct x86_insn *in,
                        uint64_t addr)
{
    t->access_addr = addr;
    t->access_size = 1;
    for (int i = 0; in && i < in->n_mem; i++) {
        uint64_t a = x86_effective_address(in, i, regs);
        if (a >> PAGE_SHIFT_BITS == addr >> PAGE_SHIFT_BITS ||
            (a + in->mem[i].size - 1) >> PAGE_SHIFT_BITS == addr >> PAGE_SHIFT_BITS) {
            t->access_addr = a;
            t->access_size = in->mem[i].size;
            return;
        }
    }
}

enum page_verdict exec_pages_touch(struct execution *ex, struct mthread *t, const struct user_regs_struct *regs,
                                   const struct x86_insn *in, uint64_t addr, bool write)
{
    struct exec_pages *p = ex->pages;
    ex->res->ownership_events++;
    uint64_t rip = regs->rip;
    const struct code_site *site = code_map_site_at(ex->cfg->code, rip);
    bool user = site && code_map_is_user_code(ex->cfg->code, rip);
    uint64_t page;
    enum page_touch touch = page_owners_touch(p->po, p->hb, t->id, addr, write, &page);
    /* A page with blocks the user's code freed changes hands: the new
     * owner would use them natively, unjudged (detect/heap_errors.c). It
     * is observed instead, and this touch is a step. */
    if (touch == TOUCH_NATIVE) {
        uint64_t lo = addr & ~(uint64_t)(PAGE_BYTES - 1);
        if (!user || !heap_map_overlaps(&ex->freed, lo, lo + PAGE_BYTES))
            return PV_GO_ON;
        page_owners_observe(p->po, addr);
    }
    if (!user) {
        /* Library code (a PLT stub, memcpy): its accesses are no steps and
         * share nothing the books count; they are carried out. */
        t->bp_insn = in;
        return PV_CARRY;
    }
    if (touch == TOUCH_CONFLICT || touch == TOUCH_CONFLICT_READ) {
        /* Observed from here on in this run; from the start in the next. */
        note_conflict(p, page, touch == TOUCH_CONFLICT_READ);
        if (touch == TOUCH_CONFLICT_READ) {
            int owner;
            page_owners_state(p->po, page, &owner);
            page_owners_each_taken_by_reading(p->po, owner, note_read_conflict, p);
        }
        page_owners_observe(p->po, page);
    }
    if (p->conflicts.n || p->read_conflicts.n) {
        /* This run is a probe now (it runs again): a long one costs more
         * than running again at once with what it found. */
        if (++p->steps_after_conflict > PROBE_STEPS)
            return PV_RESTART;
    }


    t->op = OP_ACCESS;
    t->site = site;
    t->stop = STOP_FAULT;
    t->bp_insn = &site->insn;
    t->in_call = false;
    t->last_user_pc = rip;
    name_access(t, regs, &site->insn, addr);
    return PV_VISIBLE;
}

static bool insn_writes(const struct x86_insn *in)
{
    return !in || (in->flags & X86_MEM_WRITE);
}

enum page_verdict exec_pages_fault(struct execution *ex, struct mthread *t, uint64_t addr)
{
    struct exec_pages *p = ex->pages;
    bool planted;
    const struct x86_insn *in = code_map_insn_at(ex->cfg->code, ex->mem_fd, t->regs.rip, &planted);
    bool write = insn_writes(in);
    if (!page_owners_native(p->po, t->id, addr, write)) {
        enum page_verdict v = exec_pages_touch(ex, t, &t->regs, in, addr, write);
        if (v != PV_CARRY)
            return v;
        /* Carried out with a single step: the thread is no hang while
         * such stops come, and a run that makes very many of them runs
         * again with every access observed. */
        if (++p->carried > CARRY_MAX) {
            p->carried_too_many = true;
            return PV_RESTART;
        }
        exec_step_progressed(ex);
        return v;
    }

    /* It may touch the page: the program is behind the books. */
    if (page_owners_retags_pending(p->po))
        return PV_GO_ON;
    uint32_t now;
    if (pkru_get(t->tid, &now) && now != rights_of(p, t->id)) {
        /* A signal handler starts with the kernel's default rights. */
        own_rights(p, t);
        return PV_GO_ON;
    }
    if (++t->pages_retries > 3) {
        exec_set_error(ex, "T%d keeps faulting on 0x%llx, which it may touch", t->id, (unsigned long long)addr);
        return PV_RESTART;
    }
    page_owners_refresh(p->po, addr);
    return PV_GO_ON;
}

/* ---------- rights ---------- */

bool exec_pages_open_keys(struct execution *ex, struct mthread *t)
{
    return set_rights(t, PKRU_ALL_OPEN);
}

bool exec_pages_restore_rights(struct execution *ex, struct mthread *t)
{
    uint32_t now;
    uint32_t own = rights_of(ex->pages, t->id);
    return pkru_get(t->tid, &now) && now != own && !t->pkru_opened && set_rights(t, own);
}

bool exec_pages_close_keys(struct execution *ex, struct mthread *t)
{
    return own_rights(ex->pages, t);
}

/* ---------- making the program follow the books ---------- */

struct call_batch {
    struct stub_call calls[STUB_MAX_CALLS];
    size_t n;
    int key;
};

static void count_piece(void *ctx, uint64_t start, uint64_t end, int prot)
{
    (*(size_t *)ctx)++;
}

static void add_piece(void *ctx, uint64_t start, uint64_t end, int prot)
{
    struct call_batch *b = ctx;
    b->calls[b->n++] = (struct stub_call){SYS_pkey_mprotect, {start, end - start, (uint64_t)prot, (uint64_t)b->key}};
}

/* Moves the pending key changes into calls, a call per piece of mapping
 * (a key goes with the rights the pages have), as many as fit. */
static size_t pending_calls(struct exec_pages *p, struct call_batch *b)
{
    b->n = 0;
    struct page_retag r;
    while (page_owners_next_retag(p->po, &r)) {
        size_t pieces = 0;
        vma_list_pieces(&p->vmas, r.start, r.end, count_piece, &pieces);
        if (b->n + pieces > STUB_MAX_CALLS)
            break;
        b->key = r.key;
        vma_list_pieces(&p->vmas, r.start, r.end, add_piece, b);
        page_owners_take_retags(p->po, &r, 1);
    }
    return b->n;
}

/* Sends t through the stub on its way out of its stop: the pending key
 * changes are made before it runs anything of its own. What does not fit
 * in one pass (more than STUB_MAX_CALLS pieces: never seen) waits for the
 * next thread that runs. */
static bool run_stub(struct execution *ex, struct mthread *t)
{
    static struct call_batch batch;
    if (!pending_calls(ex->pages, &batch))
        return true;
    struct stub_request req = {batch.calls, batch.n, STUB_TRAP_ON_FAILURE, 0, 0};

    struct user_regs_struct to_run;
    if (!stub_prepare(ex->mem_fd, &t->regs, &req, &to_run))
        return false;
    t->regs = to_run;
    t->regs_dirty = true;
    return true;
}

/* t can be sent through the stub from where it is stopped: not in the
 * middle of a system call (a seccomp stop of a call the kernel still runs,
 * a clone's event stop), whose result would be lost on the way. There the
 * changes wait for t's next stop: they are others' pages, or more rights
 * for t (releases and mappings happen where t can go through it), so t
 * cannot touch natively what it should not meanwhile. */
static bool can_detour(const struct mthread *t)
{
    return (int64_t)t->regs.orig_rax < 0 || t->at_syscall_exit || t->at_birth;

}

bool exec_pages_before_native(struct execution *ex, struct mthread *t)
{
    if (!t->pkru_opened && !sync_rights(ex, t))
        return false;
    if (!page_owners_retags_pending(ex->pages->po) || !can_detour(t))
        return true;
    return run_stub(ex, t);
}

/* Whether the page carries a key the resumed thread's rights do not let
 * it write: closed (untouched, armed, observed), read-only (read-shared),
 * or another live thread's (its stack, its private pages). Pages of no
 * key (libraries' data, code, the allocator's books) and the thread's own
 * may change. */
static bool unchanged_while_runs(void *ctx, uint64_t page)
{
    const struct resumed *r = ctx;
    int owner;
    switch (page_owners_state(r->po, page, &owner)) {
    case PAGE_UNTOUCHED:
    case PAGE_READ_SHARED:
    case PAGE_OBSERVED:
        return true;
    case PAGE_STACK:
    case PAGE_PRIVATE: {
        int key = page_owners_thread_key(r->po, owner);
        return owner != r->thread && key > 0 && key != page_owners_thread_key(r->po, r->thread);
    }
    case PAGE_UNTRACKED:
        break;
    }
    return false;
}

/* In the program as in the books once no key change waits, a page's key
 * bars the resumed thread from writing it, and the kernel on its behalf
 * (pkeys hold for the kernel's accesses to user memory too). A thread
 * whose keys are all open (in a call handed buffers, in pthread_create;
 * one may wait in the kernel while t runs) could write anything. */
void exec_pages_keep_cache(struct execution *ex, const struct mthread *t)
{
    struct exec_pages *p = ex->pages;
    if (p->threads_all_open > 0 || page_owners_retags_pending(p->po))
        return;
    p->resumed = (struct resumed){p->po, t->id};
    page_cache_keep_next(unchanged_while_runs, &p->resumed);
}

bool exec_pages_before_single_step(struct execution *ex, struct mthread *t)
{
    return t->pkru_opened || sync_rights(ex, t);
}




/* ---------- synchronisation ---------- */

static void release(struct execution *ex, int thread, uint64_t object)
{
    struct exec_pages *p = ex->pages;
    uint32_t ended = hb_epoch(p->hb, thread);
    hb_release(p->hb, thread, object);
    page_owners_release(p->po, thread, ended);
}

static void acquire(struct execution *ex, int thread, uint64_t object)
{
    hb_acquire(ex->pages->hb, thread, object);
}

/* What a modeled call does to the order of things, taken as it begins:
 * an acquire then sees every release before it (what comes later reaches
 * a waiter through the wake that ends its wait). */
/* A page the user's code updates atomically holds data threads share by
 * design, read with plain loads (an acquire load is a mov): the order of
 * those loads against the updates is what a schedule must vary, and a
 * page that is not observed lets a thread run through them unseen (an
 * atomic decrement and the load that tests the count in one step). The
 * first atomic update of a page it does not observe makes the execution
 * run again with the page observed from the start. */
static void observe_atomics_page(struct exec_pages *p, uint64_t addr)
{
    int owner;
    enum page_state state = page_owners_state(p->po, addr, &owner);
    if (state != PAGE_UNTOUCHED && state != PAGE_PRIVATE && state != PAGE_READ_SHARED)
        return;
    note_conflict(p, addr & ~(uint64_t)(PAGE_BYTES - 1), false);
    page_owners_observe(p->po, addr);
}

void exec_pages_before_step(struct execution *ex, struct mthread *t)
{
    if (t->op == OP_ACCESS && t->site && (t->site->insn.flags & X86_ATOMIC)) {
        observe_atomics_page(ex->pages, t->access_addr);
        acquire(ex, t->id, t->access_addr);
        release(ex, t->id, t->access_addr);
        return;
    }
    if (t->op != OP_CALL)
        return;
    uint64_t obj = t->call_arg[0];
    switch (t->fn) {
    case MF_MUTEX_LOCK:
    case MF_MUTEX_TRYLOCK:
    case MF_MUTEX_TIMEDLOCK:
    case MF_SEM_WAIT:
    case MF_SEM_TRYWAIT:
    case MF_SEM_TIMEDWAIT:
    case MF_RWLOCK_RDLOCK:
    case MF_RWLOCK_WRLOCK:
    case MF_RWLOCK_TRYRDLOCK:
    case MF_RWLOCK_TRYWRLOCK:
    case MF_SPIN_LOCK:
        acquire(ex, t->id, obj);
        break;
    case MF_MUTEX_UNLOCK:
    case MF_SEM_POST:
    case MF_RWLOCK_UNLOCK:
    case MF_SPIN_UNLOCK:
    case MF_COND_SIGNAL:
    case MF_COND_BROADCAST:
        release(ex, t->id, obj);
        break;
    case MF_COND_WAIT:
    case MF_COND_TIMEDWAIT:
        release(ex, t->id, t->call_arg[1]);    /* the mutex it lets go */
        break;
    case MF_BARRIER_WAIT:
        release(ex, t->id, obj);
        acquire(ex, t->id, obj);
        break;
    case MF_THREAD_CREATE:
        /* What the parent did before is the child's past (hb_thread_start
         * takes the epoch this ends). */
        release(ex, t->id, hb_exit_object(0));
        break;

    case MF_THREAD_JOIN: {
        int target = exec_thread_of_pthread(ex, obj);
        if (target && hb_thread_ended(ex->pages->hb, target))
            acquire(ex, t->id, hb_exit_object(target));
        break;
    }
    default:
        break;
    }
}

void exec_pages_woke(struct execution *ex, int waker, int woken, uint64_t word)
{
    if (waker > 0)
        release(ex, waker, word);
    acquire(ex, woken, word);
}

void exec_pages_library_atomic(struct execution *ex, struct mthread *t, uint64_t addr)
{
    acquire(ex, t->id, addr);
    release(ex, t->id, addr);
}

/* ---------- threads and processes ---------- */

bool exec_pages_creating(struct execution *ex, struct mthread *t)
{
    return open_all_keys(ex->pages, t);
}


bool exec_pages_thread_start(struct execution *ex, struct mthread *parent, struct mthread *child)
{
    struct exec_pages *p = ex->pages;
    int slot = -1;
    for (int i = 0; i < p->img->n_thread_keys; i++)
        if (!p->slot_used[i]) {
            slot = i;
            break;
        }
    if (slot < 0) {
        p->out_of_keys = true;
        return false;
    }
    p->slot_used[slot] = true;
    set_slot(p, child->id, slot);
    page_owners_set_thread_key(p->po, child->id, p->img->thread_keys[slot]);
    /* Its stack up to its thread block (glibc keeps it above the stack,
     * in the same mapping). */
    uint64_t hi = child->tls >= child->stack_hi ? child->tls + 4096 : child->stack_hi;
    const struct vma *v = vma_list_find(&p->vmas, child->tls >= child->stack_hi ? child->tls : child->stack_hi - 1);
    if (v && hi > v->end)
        hi = v->end;

    if (child->stack_lo && hi > child->stack_lo)
        page_owners_stack(p->po, child->stack_lo & ~(uint64_t)(PAGE_BYTES - 1), hi, child->id);

    hb_thread_start(p->hb, child->id, parent->id);
    if (!close_opened(p, parent))
        return false;
    /* Its registers: it may go through the stub on its first way out. */
    return tracee_get_regs(child->tid, &child->regs) && own_rights(p, child);
}


void exec_pages_thread_end(struct execution *ex, struct mthread *t)
{
    struct exec_pages *p = ex->pages;
    hb_thread_end(p->hb, t->id);
    if (t->ctid)
        release(ex, t->id, t->ctid);
    page_owners_thread_end(p->po, t->id, hb_epoch(p->hb, t->id));
    forget_opened(p, t);
    int slot = key_slot(p, t->id);
    if (slot >= 0)
        p->slot_used[slot] = false;
    set_slot(p, t->id, -1);
}

void exec_pages_allocated(struct execution *ex, struct mthread *t, uint64_t addr, uint64_t size)
{
    /* The pages wholly inside the block: the allocator ordered whoever
     * used them before (and freed them) before this. The block's edges
     * share pages with other blocks and headers: they stay as they are. */
    uint64_t first = (addr + PAGE_BYTES - 1) & ~(uint64_t)(PAGE_BYTES - 1);
    uint64_t end = (addr + size) & ~(uint64_t)(PAGE_BYTES - 1);
    for (uint64_t page = first; page < end; page += PAGE_BYTES)
        page_owners_fresh(ex->pages->po, page, t->id);
}

void exec_pages_freeing(struct execution *ex, struct mthread *t, uint64_t addr, uint64_t size)
{
    struct exec_pages *p = ex->pages;
    uint64_t end = addr + (size ? size : 1);
    for (uint64_t page = addr & ~(uint64_t)(PAGE_BYTES - 1); page < end; page += PAGE_BYTES)
        if (page_owners_unordered(p->po, p->hb, t->id, page)) {
            note_conflict(p, page, false);
            page_owners_observe(p->po, page);
        }
}

void exec_pages_freed(struct execution *ex, struct mthread *t, uint64_t addr, uint64_t size)
{
    struct exec_pages *p = ex->pages;
    uint64_t end = addr + (size ? size : 1);
    for (uint64_t page = addr & ~(uint64_t)(PAGE_BYTES - 1); page < end; page += PAGE_BYTES) {
        int owner;
        if (page_owners_state(p->po, page, &owner) == PAGE_PRIVATE)
            page_owners_observe_owned(p->po, p->hb, page);
    }
}

void exec_pages_child(struct execution *ex, pid_t child)

{
    pkru_set(child, PKRU_ALL_OPEN);
}

/* ---------- system calls ---------- */

/* The buffer [addr, addr + len) lies in pages t may touch natively. */
static bool buffer_native(struct execution *ex, const struct mthread *t, uint64_t addr, uint64_t len, bool write)
{
    if (len > 64 * PAGE_BYTES)
        return false;
    for (uint64_t a = addr & ~(uint64_t)(PAGE_BYTES - 1); a < addr + len; a += PAGE_BYTES)
        if (!page_owners_native(ex->pages->po, t->id, a, write))
            return false;
    return true;
}

/* The memory a call reaches through its arguments, for the calls whose
 * buffers are known (the rest run with every key open): each one is
 * (argument holding the address, its length: a constant, or the argument
 * holding it when negative, as -1 - index). */
struct call_buffers {
    long nr;
    struct { int addr_arg; long len; bool write; } buf[3];
};

static const struct call_buffers known_buffers[] = {
    {SYS_read, {{1, -1 - 2, true}}},
    {SYS_pread64, {{1, -1 - 2, true}}},
    {SYS_write, {{1, -1 - 2, false}}},
    {SYS_pwrite64, {{1, -1 - 2, false}}},
    {SYS_rt_sigprocmask, {{1, 8, false}, {2, 8, true}}},
    {SYS_rt_sigaction, {{1, 152, false}, {2, 152, true}}},
    {SYS_sigaltstack, {{0, 24, false}, {1, 24, true}}},
    {SYS_clock_gettime, {{1, 16, true}}},
    {SYS_gettimeofday, {{0, 16, true}, {1, 8, true}}},
    {SYS_fstat, {{1, 144, true}}},
    {SYS_newfstatat, {{2, 144, true}}},
    {SYS_getrandom, {{0, -1 - 1, true}}},
    {SYS_sched_getaffinity, {{2, -1 - 1, true}}},
    {SYS_pipe2, {{0, 8, true}}},
    {SYS_pipe, {{0, 8, true}}},
    {SYS_wait4, {{1, 4, true}, {3, 144, true}}},
    {SYS_prlimit64, {{2, 16, false}, {3, 16, true}}},
    {SYS_getrlimit, {{1, 16, true}}},
    {SYS_uname, {{0, 390, true}}},
    {SYS_sysinfo, {{0, 112, true}}},
};

static bool call_buffers_native(struct execution *ex, const struct mthread *t, long nr)
{
    const uint64_t *a = t->pages_args;
    for (size_t i = 0; i < sizeof known_buffers / sizeof *known_buffers; i++) {
        const struct call_buffers *c = &known_buffers[i];
        if (c->nr != nr)
            continue;
        for (int k = 0; k < 3 && (c->buf[k].addr_arg || c->buf[k].len); k++) {
            uint64_t addr = a[c->buf[k].addr_arg];
            uint64_t len = c->buf[k].len >= 0 ? (uint64_t)c->buf[k].len : a[-1 - c->buf[k].len];
            if (addr && len && !buffer_native(ex, t, addr, len, c->buf[k].write))
                return false;
        }
        return true;
    }
    return false;
}

bool exec_pages_syscall_entry(struct execution *ex, struct mthread *t)

{
    long nr = (long)t->regs.orig_rax;
    t->pages_nr = nr;
    t->pages_args[0] = t->regs.rdi;
    t->pages_args[1] = t->regs.rsi;
    t->pages_args[2] = t->regs.rdx;
    t->pages_args[3] = t->regs.r10;
    t->pages_args[4] = t->regs.r8;
    t->pages_args[5] = t->regs.r9;
    if (!pages_syscall_traced(nr))
        return false;   /* stopped for mdat's other reasons only */
    ex->res->ownership_events++;
    if (pages_syscall_changes_mappings(nr))
        return true;
    /* Buffers the thread may touch natively (on its stack, mostly) need
     * nothing: the kernel reaches them with the thread's own rights. */
    if (call_buffers_native(ex, t, nr))
        return false;

    /* The kernel reaches the call's memory with the thread's rights: every
     * key open until the call is over. */
    return open_all_keys(ex->pages, t);
}

static void follow_new_mapping(struct exec_pages *p, uint64_t start, uint64_t len, int prot, int flags)
{
    uint64_t end = (start + len + PAGE_BYTES - 1) & ~(uint64_t)(PAGE_BYTES - 1);
    bool shared = (flags & MAP_SHARED) || (flags & MAP_TYPE) == MAP_SHARED_VALIDATE;
    vma_list_set(&p->vmas, start, end, prot, shared);
    /* Shared with other processes, or not writable (nobody's stores to
     * race with): not followed, until it is made writable. */
    if (shared || !(prot & PROT_WRITE))
        page_owners_untrack(p->po, start, end);
    else
        page_owners_track(p->po, start, end);
}

void exec_pages_syscall_exit(struct execution *ex, struct mthread *t)
{
    struct exec_pages *p = ex->pages;
    ex->res->ownership_events++;
    close_opened(p, t);
    int64_t rv = (int64_t)t->regs.rax;
    const uint64_t *a = t->pages_args;
    if (rv < 0 && rv > -4096)
        return;     /* it failed: nothing changed */
    switch (t->pages_nr) {
    case SYS_mmap:
        follow_new_mapping(p, (uint64_t)rv, a[1], (int)a[2], (int)a[3]);
        break;
    case SYS_munmap:
        vma_list_remove(&p->vmas, a[0], a[0] + a[1]);
        page_owners_untrack(p->po, a[0], a[0] + a[1]);
        break;
    case SYS_mprotect: {
        uint64_t end = (a[0] + a[1] + PAGE_BYTES - 1) & ~(uint64_t)(PAGE_BYTES - 1);
        /* The rights change; each page keeps its key. Private memory
         * made writable is followed from here on. */
        const struct vma *v = vma_list_find(&p->vmas, a[0]);
        bool shared = v && v->shared;
        if (v)
            vma_list_set(&p->vmas, a[0], end, (int)a[2], shared);
        int owner;
        if (v && ((int)a[2] & PROT_WRITE) && !shared &&
            page_owners_state(p->po, a[0], &owner) == PAGE_UNTRACKED)
            page_owners_track(p->po, a[0], end);

        break;
    }
    case SYS_mremap: {
        /* The pages move with their keys; what they held is the caller's
         * now, as far as the books go: followed afresh. */
        const struct vma *v = vma_list_find(&p->vmas, a[0]);
        int prot = v ? v->prot : PROT_READ | PROT_WRITE;
        int flags = v && v->shared ? MAP_SHARED : MAP_PRIVATE;
        vma_list_remove(&p->vmas, a[0], a[0] + a[1]);
        page_owners_untrack(p->po, a[0], a[0] + a[1]);
        follow_new_mapping(p, (uint64_t)rv, a[2], prot, flags);

        break;
    }
    case SYS_brk: {
        /* The heap [brk start, rv): what it grew by is followed, what it
         * gave back forgotten. */
        uint64_t end = ((uint64_t)rv + PAGE_BYTES - 1) & ~(uint64_t)(PAGE_BYTES - 1);
        if (end > p->heap_end)
            follow_new_mapping(p, p->heap_end, end - p->heap_end, PROT_READ | PROT_WRITE, MAP_PRIVATE);
        else if (end < p->heap_end) {
            vma_list_remove(&p->vmas, end, p->heap_end);
            page_owners_untrack(p->po, end, p->heap_end);
        }
        p->heap_end = end;
        break;
    }
    default:
        break;
    }
}

/* ---------- a long native run ---------- */

/* Instructions followed to see what a long run reads. */
enum { SPIN_FOLLOW = 4096 };

/* Records the pages in reads the thread may read natively (its own, the
 * read-shared): those another thread could change only if it ran. */
static void note_reads(struct exec_pages *p, const struct mthread *t, const struct x86_insn *in,
                       struct page_list *reads)
{
    for (int i = 0; i < in->n_mem; i++) {
        if (!in->mem[i].read)
            continue;
        uint64_t addr = x86_effective_address(in, i, &t->regs);
        int owner;
        enum page_state st = page_owners_state(p->po, addr, &owner);
        if (st == PAGE_PRIVATE || st == PAGE_READ_SHARED)
            page_list_add(reads, addr);
    }
}

enum spin_verdict exec_pages_spin(
struct execution *ex, struct mthread *t, int *status)
{
    struct exec_pages *p = ex->pages;
    uint64_t saved = ex->deadline_ns;
    ex->deadline_ns = monotonic_ns() + 1000000000ull;
    enum spin_verdict v = SPIN_LOST;
    if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) != 0 || exec_wait_thread(ex, t->tid, status) <= 0)
        goto out;
    v = SPIN_STOPPED;
    if (!WIFSTOPPED(*status) || stop_event(*status) != PTRACE_EVENT_STOP)
        goto out;       /* something else stopped it first */
    struct page_list reads = {0};
    uint64_t first_rip = 0;
    bool looped = false;
    for (int i = 0; i < SPIN_FOLLOW; i++) {
        if (!tracee_get_regs(t->tid, &t->regs))
            break;
        if (i == 0)
            first_rip = t->regs.rip;
        else if (t->regs.rip == first_rip)
            looped = true;
        bool planted;
        const struct x86_insn *in = code_map_insn_at(ex->cfg->code, ex->mem_fd, t->regs.rip, &planted);
        /* A single step there would run mdat's int3, not the instruction,
         * and go on from its second byte; resumed, the thread stops at the
         * breakpoint as it would have. */
        if (!in || planted || (in->flags & X86_SYSCALL))
            break;
        note_reads(p, t, in, &reads);
        /* A second for each single step, not for all of them: a loaded
         * machine may take that long to run 4,096. */
        ex->deadline_ns = monotonic_ns() + 1000000000ull;
        if (!tracee_step(t->tid, 0) || exec_wait_thread(ex, t->tid, status) <= 0) {
            page_list_free(&reads);
            v = SPIN_LOST;
            goto out;
        }
        ex->res->stops_by_reason[STOP_REASON_PAGES]++;
        if (!WIFSTOPPED(*status) || WSTOPSIG(*status) != SIGTRAP || stop_event(*status) != 0) {
            page_list_free(&reads);
            goto out;   /* a fault, a signal: it stopped on its own */
        }
    }
    tracee_get_regs(t->tid, &t->regs);
    t->stop = STOP_PLAIN;
    v = SPIN_NONE;
    if (looped && reads.n) {
        for (size_t i = 0; i < reads.n; i++)
            note_conflict(p, reads.at[i], false);
        v = SPIN_RESTART;
    }
    page_list_free(&reads);
out:
    ex->deadline_ns = saved;
    return v;
}
