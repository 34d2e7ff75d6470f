/* foreign_code: modules, names and user frames of a process mdat attached to. */
#include "supervisor/inspect/foreign_code.h"
#include "arch/x86_flow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_insn.h"
#include "supervisor/debuginfo/cxx_names.h"
#include "supervisor/process/tracee.h"

/* How far up the stack the outermost user frame is looked for. */
enum { STACK_SEARCH_BYTES = 1 << 20, STACK_CHUNK = 4096 };

static bool in_system_dir(const char *path)
{
    static const char *const system_dirs[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/"};
    for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++)
        if (strncmp(path, system_dirs[i], strlen(system_dirs[i])) == 0)
            return true;
    return false;
}

static struct foreign_module *module_named(struct foreign_code *fc, const char *path)
{
    for (size_t i = 0; i < fc->n_modules; i++)
        if (strcmp(fc->modules[i].path, path) == 0)
            return &fc->modules[i];
    return NULL;
}

static struct foreign_module *add_module(struct foreign_code *fc, const struct proc_mapping *m)
{
    struct foreign_module *grown = realloc(fc->modules, (fc->n_modules + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    fc->modules = grown;
    struct foreign_module *mod = &fc->modules[fc->n_modules++];
    memset(mod, 0, sizeof *mod);
    snprintf(mod->path, sizeof mod->path, "%s", m->path);
    mod->lo = m->start;
    mod->hi = m->end;
    return mod;
}

/* The user's code of the executable and of the program's own libraries,
 * decided as for a run (site_table_build). */
static void find_user_code(struct foreign_module *mod, x86_decoder **dec)
{
    if (!mod->di || (!mod->is_main && in_system_dir(mod->path)))
        return;
    if (!*dec && !(*dec = x86_decoder_new()))
        return;
    mod->user = calloc(1, sizeof *mod->user);
    if (mod->user)
        site_table_build(mod->user, mod->di, *dec);
}

static void load_module(struct foreign_module *mod, uint64_t offset0_start, const char *exe, x86_decoder **dec)
{
    char err[256];
    const char *slash = strrchr(mod->path, '/');
    mod->base = slash ? slash + 1 : mod->path;
    mod->is_main = strcmp(mod->path, exe) == 0;
    mod->di = debuginfo_load(mod->path, err, sizeof err);
    if (!mod->di)
        return;
    mod->bias = offset0_start - elf_image_base_vaddr(debuginfo_elf(mod->di));
    find_user_code(mod, dec);
}

bool foreign_code_load(pid_t pid, int mem_fd, const char *exe, struct foreign_code *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->pid = pid;
    out->mem_fd = mem_fd;
    if (!proc_maps_read(pid, &out->maps)) {
        snprintf(err, errlen, "cannot read /proc/%d/maps", (int)pid);
        return false;
    }
    /* Each file's mappings are together in the map; the one at offset 0 gives its bias. */
    uint64_t *offset0 = calloc(out->maps.n + 1, sizeof *offset0);
    for (size_t i = 0; offset0 && i < out->maps.n; i++) {
        const struct proc_mapping *m = &out->maps.m[i];
        if (m->path[0] != '/')
            continue;
        struct foreign_module *mod = module_named(out, m->path);
        if (!mod && !(mod = add_module(out, m)))
            break;
        size_t index = (size_t)(mod - out->modules);
        if (m->start < mod->lo)
            mod->lo = m->start;
        if (m->end > mod->hi)
            mod->hi = m->end;
        if (m->offset == 0 && !offset0[index])
            offset0[index] = m->start;
    }
    x86_decoder *dec = NULL;
    for (size_t i = 0; offset0 && i < out->n_modules; i++)
        load_module(&out->modules[i], offset0[i] ? offset0[i] : out->modules[i].lo, exe, &dec);
    if (dec)
        x86_decoder_free(dec);
    free(offset0);
    return true;
}

void foreign_code_free(struct foreign_code *fc)
{
    for (size_t i = 0; i < fc->n_modules; i++) {
        if (fc->modules[i].user) {
            site_table_free(fc->modules[i].user);
            free(fc->modules[i].user);
        }
        if (fc->modules[i].di)
            debuginfo_free(fc->modules[i].di);
    }
    free(fc->modules);
    proc_maps_free(&fc->maps);
    memset(fc, 0, sizeof *fc);
}

/* The same files mapped at the same places (the heap and thread stacks
 * may have moved: those are read from the new maps). */
static bool same_files(const struct proc_maps *a, const struct proc_maps *b)
{
    size_t i = 0, j = 0;
    for (;;) {
        while (i < a->n && a->m[i].path[0] != '/')
            i++;
        while (j < b->n && b->m[j].path[0] != '/')
            j++;
        if (i == a->n || j == b->n)
            return i == a->n && j == b->n;
        if (a->m[i].start != b->m[j].start || a->m[i].end != b->m[j].end || strcmp(a->m[i].path, b->m[j].path) != 0)
            return false;
        i++, j++;
    }
}

bool foreign_code_refresh(struct foreign_code *fc, pid_t pid, int mem_fd, const char *exe, char *err, size_t errlen)
{
    struct proc_maps now;
    if (fc->pid == pid && proc_maps_read(pid, &now)) {
        if (same_files(&now, &fc->maps)) {
            proc_maps_free(&fc->maps);
            fc->maps = now;
            fc->mem_fd = mem_fd;
            return true;
        }
        proc_maps_free(&now);
    }
    foreign_code_free(fc);
    return foreign_code_load(pid, mem_fd, exe, fc, err, errlen);
}

const struct foreign_module *foreign_module_at(const struct foreign_code *fc, uint64_t addr)
{
    for (size_t i = 0; i < fc->n_modules; i++)
        if (addr >= fc->modules[i].lo && addr < fc->modules[i].hi)
            return &fc->modules[i];
    return NULL;
}

const struct foreign_module *foreign_main_module(const struct foreign_code *fc)
{
    for (size_t i = 0; i < fc->n_modules; i++)
        if (fc->modules[i].is_main)
            return &fc->modules[i];
    return NULL;
}

bool foreign_is_user_code(const struct foreign_code *fc, uint64_t pc)
{
    const struct foreign_module *m = foreign_module_at(fc, pc);
    return m && m->user && site_table_is_user(m->user, pc - m->bias);
}

static bool from_system_header(const struct src_loc *loc)
{
    return loc->file && strncmp(loc->file, "/usr/", 5) == 0;
}

bool foreign_code_location(const struct foreign_code *fc, uint64_t pc, struct src_loc *loc)
{
    const struct foreign_module *m = foreign_module_at(fc, pc);
    memset(loc, 0, sizeof *loc);
    if (!m || !m->di || !debuginfo_code_location(m->di, pc - m->bias, loc))
        return false;
    /* Code a system header inlined into the user's function (std::mutex::lock
     * at -O2) stands for the user's line that called it. */
    struct src_loc call;
    if (from_system_header(loc) && m->user && debuginfo_user_call_site(m->di, pc - m->bias, &call))
        *loc = call;
    return true;
}

void foreign_format_code(const struct foreign_code *fc, uint64_t pc, char *buf, size_t len)
{
    const struct foreign_module *m = foreign_module_at(fc, pc);
    struct src_loc loc;
    if (!m)
        snprintf(buf, len, "0x%" PRIx64, pc);
    else if (foreign_code_location(fc, pc, &loc) && loc.line && loc.function && !from_system_header(&loc) &&
             !loc.inlined_into)
        snprintf(buf, len, "%s:%u %s", loc.basename, loc.line, loc.function);
    else if (loc.line || loc.function)
        debuginfo_format_code(m->di, pc - m->bias, buf, len);
    else
        snprintf(buf, len, "%s+0x%" PRIx64, m->base, pc - m->bias);
}

void foreign_function_name(const struct foreign_code *fc, uint64_t pc, char *buf, size_t len)
{
    struct src_loc loc;
    buf[0] = '\0';
    if (foreign_code_location(fc, pc, &loc) && loc.function)
        snprintf(buf, len, "%s", loc.inlined_into ? loc.inlined_into : loc.function);
}

/* ---- data ---- */

static bool read_memory(void *ctx, uint64_t addr, void *buf, size_t n)
{
    const struct foreign_code *fc = ctx;
    return tracee_read(fc->mem_fd, addr, buf, n);
}

void foreign_name_data(const struct foreign_code *fc, uint64_t addr, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < fc->n_modules; i++) {
        const struct foreign_module *m = &fc->modules[i];
        if (!m->user || !debuginfo_has_dwarf(m->di))
            continue;
        struct data_reader rd = {read_memory, (void *)fc, m->bias, NULL, NULL};
        const struct dwarf_type *type;
        if (debuginfo_name_data(m->di, addr, &rd, buf, len, &type))
            return;
    }
    const struct foreign_module *m = foreign_module_at(fc, addr);
    if (!m || !m->di)
        return;
    debuginfo_format_data(m->di, addr - m->bias, buf, len);
    size_t n = strlen(buf);
    if (n && !m->is_main && n + 1 < len)
        snprintf(buf + n, len - n, " (%s)", m->base);
}

size_t foreign_sync_globals(const struct foreign_code *fc, struct sync_global **out)
{
    size_t n = 0;
    *out = NULL;
    for (size_t i = 0; i < fc->n_modules; i++) {
        const struct foreign_module *m = &fc->modules[i];
        const struct sync_global *g;
        size_t k = m->user ? debuginfo_sync_globals(m->di, &g) : 0;
        if (!k)
            continue;
        struct sync_global *grown = realloc(*out, (n + k) * sizeof *grown);
        if (!grown)
            break;
        *out = grown;
        for (size_t j = 0; j < k; j++) {
            grown[n + j] = g[j];
            grown[n + j].addr += m->bias;
        }
        n += k;
    }
    return n;
}

/* ---- frames ---- */

static bool in_system_header(const struct foreign_code *fc, uint64_t pc)
{
    struct src_loc loc;
    return foreign_code_location(fc, pc, &loc) && from_system_header(&loc);
}

/* The target of the call instruction that ends just before ret (call
 * rel32, or call through the GOT: [rip + disp32]); 0 when it is neither. */
static uint64_t call_target(const struct foreign_code *fc, uint64_t ret)
{
    uint8_t b[6];
    if (!tracee_read(fc->mem_fd, ret - sizeof b, b, sizeof b))
        return 0;
    int32_t disp;
    if (b[1] == 0xe8) {
        memcpy(&disp, b + 2, sizeof disp);
        return ret + (uint64_t)(int64_t)disp;
    }
    if (b[0] == 0xff && b[1] == 0x15) {
        memcpy(&disp, b + 2, sizeof disp);
        uint64_t target;
        return tracee_read(fc->mem_fd, ret + (uint64_t)(int64_t)disp, &target, sizeof target) ? target : 0;
    }
    return 0;
}

/* ret follows a call instruction (direct, or through a register or
 * memory): a return address, not a stale code pointer. */
static bool follows_call(const struct foreign_code *fc, uint64_t ret)
{
    uint8_t before[X86_CALL_BEFORE_BYTES];
    return tracee_read(fc->mem_fd, ret - sizeof before, before, sizeof before) && x86_ends_with_call(before);
}

/* The name of the function a call went to: a PLT stub's import, else the
 * symbol at the target ("pthread_mutex_lock"). */
static void callee_name(const struct foreign_code *fc, uint64_t target, char *buf, size_t len)
{
    buf[0] = '\0';
    const struct foreign_module *m = target ? foreign_module_at(fc, target) : NULL;
    if (!m || !m->di)
        return;
    const char *plt = debuginfo_plt_name(m->di, target - m->bias);
    const struct elf_symbol *sym = plt ? NULL : elf_image_function_at(debuginfo_elf(m->di), target - m->bias);
    const char *name = plt ? plt : sym ? sym->name : NULL;
    char demangled[256];
    if (name && cxx_demangle(name, demangled, sizeof demangled))
        cxx_readable_function(demangled, buf, len);     /* "std::thread::join" */
    else if (name)
        snprintf(buf, len, "%s", name);
}

static uint64_t stack_end(const struct foreign_code *fc, uint64_t sp)
{
    const struct proc_mapping *m = proc_maps_find(&fc->maps, sp);
    uint64_t end = m ? m->end : sp + STACK_CHUNK;
    return end - sp > STACK_SEARCH_BYTES ? sp + STACK_SEARCH_BYTES : end;
}

void foreign_find_frames(const struct foreign_code *fc, const struct user_regs_struct *regs, struct foreign_frames *out)
{
    memset(out, 0, sizeof *out);
    bool rip_user = foreign_is_user_code(fc, regs->rip) && !in_system_header(fc, regs->rip);
    uint64_t first_any = 0, last_any = 0, first_user = 0, last_user = 0;
    uint64_t sp = regs->rsp & ~7ull, end = stack_end(fc, sp);
    static uint64_t words[STACK_CHUNK / 8];
    for (uint64_t at = sp; at < end; at += STACK_CHUNK) {
        size_t n = (size_t)((end - at < STACK_CHUNK ? end - at : STACK_CHUNK) / 8);
        if (!tracee_read(fc->mem_fd, at, words, n * 8))
            break;
        for (size_t i = 0; i < n; i++) {
            uint64_t w = words[i];
            if (!foreign_is_user_code(fc, w) || !follows_call(fc, w))
                continue;
            if (!first_any)
                first_any = w;
            last_any = w;
            if (in_system_header(fc, w - 1))
                continue;
            if (!first_user)
                first_user = w;
            last_user = w;
        }
    }
    /* Where only code from system headers calls out (a C++ function at
     * -O2 whose call comes from an inlined std::mutex::lock), that call is
     * still the user's function: "gthr-default.h:749 __gthread_mutex_lock
     * (inlined into lock_both)". */
    if (!first_user)
        first_user = first_any, last_user = last_any;
    out->user_pc = rip_user ? regs->rip : first_user ? first_user - 1 : 0;
    out->start_pc = last_user ? last_user - 1 : out->user_pc;
    if (!rip_user && first_any)
        callee_name(fc, call_target(fc, first_any), out->called, sizeof out->called);
}
