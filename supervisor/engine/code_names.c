/* code_names: naming code addresses through the executable's and the
 * libraries' debug info, with the fallbacks debuginfo gives. */
#include "supervisor/engine/code_names.h"
#include "arch/x86_flow.h"
#include "supervisor/engine/exec_core.h"
#include "supervisor/engine/exec_engine.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const debuginfo *exec_module_of(struct execution *ex, uint64_t addr, uint64_t *faddr, const char **lib)
{
    *lib = NULL;
    if (!addr)
        return NULL;
    if (code_map_in_exe(ex->cfg->code, addr)) {
        *faddr = addr - code_map_bias(ex->cfg->code);
        return ex->cfg->exe;
    }
    const debuginfo *di;
    uint64_t bias;
    if (!code_map_library_at(ex->cfg->code, addr, &di, &bias, lib))
        return NULL;
    *faddr = addr - bias;
    return di;
}

void exec_format_code(struct execution *ex, uint64_t addr, char *buf, size_t len)
{
    uint64_t fa;
    const char *lib;
    const debuginfo *di = exec_module_of(ex, addr, &fa, &lib);
    if (!di) {
        snprintf(buf, len, "0x%" PRIx64, addr);
        return;
    }
    debuginfo_format_code(di, fa, buf, len);
    if (!lib)
        return;
    size_t n = strlen(buf);
    if (strncmp(buf, "0x", 2) == 0)
        snprintf(buf, len, "%s+0x%" PRIx64, lib, fa);   /* no symbol: an offset in the file */
    else if (n + 1 < len)
        snprintf(buf + n, len - n, " (%s)", lib);
}

void exec_format_line(struct execution *ex, uint64_t addr, char *buf, size_t len)
{
    buf[0] = '\0';
    uint64_t fa;
    const char *lib;
    const debuginfo *di = exec_module_of(ex, addr, &fa, &lib);
    if (di)
        debuginfo_format_line(di, fa, buf, len);
}

bool exec_code_location(struct execution *ex, uint64_t addr, struct src_loc *loc)
{
    uint64_t fa;
    const char *lib;
    const debuginfo *di = exec_module_of(ex, addr, &fa, &lib);
    return di && debuginfo_code_location(di, fa, loc);
}

void exec_format_function(struct execution *ex, uint64_t addr, char *buf, size_t len)
{
    buf[0] = '\0';
    struct src_loc loc;
    if (exec_code_location(ex, addr, &loc) && loc.function)
        snprintf(buf, len, "%s", loc.function);
}

void exec_format_function_or_addr(struct execution *ex, uint64_t addr, char *buf, size_t len)
{
    exec_format_function(ex, addr, buf, len);
    if (!buf[0])
        snprintf(buf, len, "0x%" PRIx64, addr);
}

/* Code from a system header (a C++ library template compiled into the
 * user's binary, at -O0 a function of its own) is shown at the user's line
 * that led there: the frame-pointer chain from rbp is followed, checking
 * every return address, for at most a few frames. */
static bool in_system_header(struct execution *ex, uint64_t pc)
{
    struct src_loc loc;
    return exec_code_location(ex, pc, &loc) && loc.file && strncmp(loc.file, "/usr/", 5) == 0;
}

/* pc is the user's: in the user's source, or library code inlined into
 * a function of the user's (told at the user's line, "prog.cpp:22
 * consumer (in std::counting_semaphore<4>::acquire)"). */
static bool in_users_frame(struct execution *ex, uint64_t pc)
{
    if (!in_system_header(ex, pc))
        return true;
    uint64_t fa;
    const char *lib;
    const debuginfo *di = exec_module_of(ex, pc, &fa, &lib);
    struct src_loc loc;
    return di == ex->cfg->exe && debuginfo_user_call_site(di, fa, &loc);
}

bool exec_follows_call(struct execution *ex, uint64_t ret)
{
    uint8_t before[X86_CALL_BEFORE_BYTES];
    return tracee_read(ex->mem_fd, ret - sizeof before, before, sizeof before) && x86_ends_with_call(before);
}

/* The stack searched for the user's call when frames cannot be walked. */
enum { USER_FRAME_SEARCH_BYTES = 16384 };

/* The user's jump into a library noted last (a tail call, exec_stops.c),
 * while the callee it entered is still on t's stack: the return address
 * it will return by is still in its slot, at or above rsp. Its frame lies
 * between the slot and rsp, so the jump is the user's innermost place
 * unless a return address into the user's code lies below the slot (the
 * library called the user back). 0: none stands. The slot's address could
 * come to hold the same return address again only by the same call being
 * made again, after which the user's code runs before it can leave again. */
static uint64_t standing_tail_call(struct execution *ex, const struct mthread *t)
{
    uint64_t ret;
    if (!t->tail_jmp || t->regs.rsp > t->tail_slot || !tracee_read(ex->mem_fd, t->tail_slot, &ret, sizeof ret) ||
        ret != t->tail_ret || !in_users_frame(ex, t->tail_jmp))
        return 0;
    return t->tail_jmp;
}

/* Up to max words of t's stack from rsp into words; how many could be
 * read (the main thread's stack may end sooner than max words above rsp,
 * its top unknown: what can be read of it is taken). *sp: where they
 * begin. */
static size_t read_stack_words(struct execution *ex, const struct mthread *t, uint64_t *words, size_t max,
                               uint64_t *sp)
{
    *sp = t->regs.rsp & ~7ull;
    size_t n = max;
    if (t->stack_hi > *sp && (t->stack_hi - *sp) / 8 < n)
        n = (size_t)((t->stack_hi - *sp) / 8);
    while (n > 0 && !tracee_read(ex->mem_fd, *sp, words, n * 8))
        n /= 2;
    return n;
}

/* The nearest return address on t's stack into user code outside system
 * headers (library code without frame pointers lies in between), or the
 * user's tail call standing nearer; 0 if none. */
static uint64_t search_user_return(struct execution *ex, const struct mthread *t)
{
    static uint64_t words[USER_FRAME_SEARCH_BYTES / 8];
    uint64_t tail = standing_tail_call(ex, t);
    uint64_t sp;
    size_t n = read_stack_words(ex, t, words, sizeof words / 8, &sp);
    for (size_t i = 0; i < n; i++) {
        if (tail && sp + 8 * i >= t->tail_slot)
            return tail;    /* past the callee's frame: the jump was the user's last place */
        if (t->exit_slot && sp + 8 * i >= t->exit_slot)
            return t->exit_call;    /* past exit's handlers: what called exit (none after main) */
        if (code_map_is_user_code(ex->cfg->code, words[i]) && in_users_frame(ex, words[i] - 1) &&
            exec_follows_call(ex, words[i]))
            return words[i] - 1;
    }
    return tail;
}

uint64_t exec_user_return_on_stack(struct execution *ex, const struct mthread *t)
{
    uint64_t call = search_user_return(ex, t);
    return call ? call + 1 : 0;
}

void exec_format_heap_addr(struct execution *ex, const struct heap_block *b, uint64_t addr, char *buf, size_t len)
{
    char site[96];
    exec_format_line(ex, b->site, site, sizeof site);
    char offset[24] = "";
    if (addr != b->addr)
        snprintf(offset, sizeof offset, "+%" PRIu64, addr - b->addr);
    if (site[0])
        snprintf(buf, len, "heap#%u (%s at %s)%s", b->id, b->how, site, offset);
    else
        snprintf(buf, len, "heap#%u%s", b->id, offset);
}

uint64_t exec_user_frame_pc(struct execution *ex, const struct mthread *t, uint64_t pc)
{
    uint64_t frame = t->regs.rbp, at = pc;
    for (int depth = 0; depth < 32 && !in_users_frame(ex, at); depth++) {
        uint64_t link[2];   /* saved rbp, return address */
        if (!frame || !tracee_read(ex->mem_fd, frame, link, sizeof link) ||
            !code_map_is_user_code(ex->cfg->code, link[1]) ||
            (t->tail_jmp && frame + 8 >= t->tail_slot) || (t->exit_slot && frame + 8 >= t->exit_slot)) {
            /* (A frame at or past a tail call's or exit's slot: the search
             * decides which is nearer; above exit's slot, after main
             * returned, lie only stale words of the frames main had.) */
            uint64_t found = search_user_return(ex, t);
            return found ? found : pc;
        }
        at = link[1] - 1;   /* the call instruction */
        frame = link[0];
    }
    return in_users_frame(ex, at) ? at : pc;
}

bool exec_is_users_place(struct execution *ex, uint64_t pc)
{
    return in_users_frame(ex, pc);
}

/* How far above rsp a frame of the runtime's own code may lie. */
enum { RUNTIME_FRAME_BYTES = 65536 };

void exec_runtime_function(struct execution *ex, const struct mthread *t, uint64_t pc, char *buf, size_t len)
{
    /* Code compiled without frame pointers (-O2) is one function with
     * what it inlined, or calls others whose frames cannot be walked:
     * its own function is named then. The chain is followed only while
     * it stays on the stack and returns into the program's code. */
    uint64_t frame = t->regs.rbp, at = pc, sp = t->regs.rsp;
    /* (rbp is pc's frame only when pc is where t stands.) */
    for (int depth = 0; depth < 32 && pc == t->regs.rip; depth++) {
        uint64_t link[2];   /* saved rbp, return address */
        if (frame < sp || frame - sp > RUNTIME_FRAME_BYTES || (t->exit_slot && frame + 8 >= t->exit_slot) ||
            !tracee_read(ex->mem_fd, frame, link, sizeof link) || !code_map_in_exe(ex->cfg->code, link[1]) ||
            !exec_follows_call(ex, link[1]))
            break;
        at = link[1] - 1;
        sp = frame + sizeof link;   /* (a leaf's frame may be at rsp itself; a caller's lies above) */
        frame = link[0];
    }
    struct src_loc loc;
    buf[0] = '\0';
    if (exec_code_location(ex, at, &loc) && (loc.inlined_into || loc.function))
        snprintf(buf, len, "%s", loc.inlined_into ? loc.inlined_into : loc.function);
    else
        exec_format_function_or_addr(ex, at, buf, len);
}

uint64_t exec_user_pc(struct execution *ex, const struct mthread *t)
{
    if (t->op == OP_START && t->id != 1 && t->start_routine)
        return t->start_routine;    /* not run yet: where it will begin */
    if (t->in_call && t->call_site)
        return t->call_site - 1;    /* the call instruction, not the line after */
    if (t->in_call && t->call_program)
        return t->call_program - 1;
    if (t->regs.rip && code_map_is_user_code(ex->cfg->code, t->regs.rip))
        return t->regs.rip;
    return t->last_user_pc ? t->last_user_pc : t->regs.rip;
}

/* The stack searched for the user's call into a library. */
enum { CALL_SEARCH_BYTES = 4096 };

uint64_t exec_program_return_on_stack(struct execution *ex, const struct mthread *t)
{
    uint64_t words[CALL_SEARCH_BYTES / 8];
    uint64_t sp;
    size_t n = read_stack_words(ex, t, words, sizeof words / 8, &sp);
    for (size_t i = 0; i < n; i++) {
        if (t->exit_slot && sp + 8 * i >= t->exit_slot)
            break;  /* (above exit's frame: stale words of main's) */
        if (code_map_in_exe(ex->cfg->code, words[i]) && exec_follows_call(ex, words[i]))
            return words[i];
    }
    return 0;
}

const char *exec_library_call(struct execution *ex, const struct mthread *t, uint64_t *call_pc)
{
    uint64_t words[CALL_SEARCH_BYTES / 8];
    uint64_t sp;
    size_t n = read_stack_words(ex, t, words, sizeof words / 8, &sp);
    for (size_t i = 0; i < n; i++) {
        uint64_t ret = words[i];
        uint8_t call[5];
        if (!code_map_is_user_code(ex->cfg->code, ret) || !tracee_read(ex->mem_fd, ret - 5, call, sizeof call) ||
            call[0] != 0xe8)
            continue;
        int32_t disp;
        memcpy(&disp, call + 1, sizeof disp);
        uint64_t faddr;
        const char *lib;
        const debuginfo *di = exec_module_of(ex, ret + (uint64_t)(int64_t)disp, &faddr, &lib);
        const char *name = di ? debuginfo_plt_name(di, faddr) : NULL;
        if (name) {
            *call_pc = ret - 5;
            return name;
        }
    }
    return NULL;
}

bool exec_library_callee(struct execution *ex, const struct mthread *t, uint64_t place, char *buf, size_t len)
{
    /* call rel32 ending at place (its return address place + 1), or a
     * tail call's jmp rel32 starting at it. */
    uint8_t insn[5];
    bool jumped = place && place == t->tail_jmp;
    uint64_t at = jumped ? place : place + 1 - sizeof insn;
    if (!place || !tracee_read(ex->mem_fd, at, insn, sizeof insn))
        return false;
    exec_breakpoint_orig(ex, at, &insn[0]);   /* (a tail call's jump is one of mdat's stops) */
    if (insn[0] != (jumped ? 0xe9 : 0xe8))
        return false;
    int32_t disp;
    memcpy(&disp, insn + 1, sizeof disp);
    uint64_t faddr;
    const char *lib;
    const debuginfo *di = exec_module_of(ex, at + sizeof insn + (uint64_t)(int64_t)disp, &faddr, &lib);
    return di && debuginfo_library_callee(di, faddr, buf, len);
}
