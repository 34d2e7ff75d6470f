/* site_table: a module's breakpoint sites (see site_table.h). */
#include "supervisor/code/site_table.h"
#include "supervisor/debuginfo/eh_frame.h"
#include "supervisor/process/tracee.h"

#include <stdlib.h>
#include <string.h>

/* Runtime-startup code the compiler adds to every executable: it runs before
 * main and after exit, never concurrently, so it gets no breakpoints. */
static bool is_runtime_startup(const char *name)
{
    static const char *const names[] = {
        "_start", "_init", "_fini", "deregister_tm_clones", "register_tm_clones",
        "__do_global_dtors_aux", "frame_dummy", "__libc_csu_init", "__libc_csu_fini",
        "_dl_relocate_static_pie",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

/* A member of a static library (glibc's libc.a names its objects "*.o"),
 * or crtstuff.c, the compiler's crtbegin/crtend. */
static bool is_library_file(const char *file)
{
    size_t n = strlen(file);
    return n == 0 || (n > 2 && strcmp(file + n - 2, ".o") == 0) || strcmp(file, "crtstuff.c") == 0;
}

/* Names with a leading underscore belong to the implementation (C's
 * reserved identifiers), except C++'s mangled _Z names. */
static bool is_reserved_name(const char *name)
{
    return name[0] == '_' && name[1] != 'Z';
}

/* A static program without debug information carries all of libc in its
 * symbol table, and libc's code must not be breakpointed: it runs before
 * the thread pointer is set up, and its locks are modeled at their entry
 * points. The program's own functions are told apart by where the linker
 * put them: right after crt1 and crtbegin (crtstuff.c, whose functions
 * may have no size and so no entry), before the library members pulled in
 * after them. A local function names its file; a global one
 * belongs with the last function before it whose file is known, or with
 * the library when its name is reserved. main is always the program's.
 * own[i] says it of fns[i] (sorted by address). */
static void mark_own_functions(const struct elf_symbol *fns, size_t n, bool *own)
{
    bool after_own = false;     /* the last function of known origin was the program's */
    for (size_t i = 0; i < n; i++) {
        const struct elf_symbol *fn = &fns[i];
        if (fn->file) {
            bool crtbegin = strcmp(fn->file, "crtstuff.c") == 0;
            own[i] = !is_library_file(fn->file);
            after_own = own[i] || crtbegin;
        } else if (is_runtime_startup(fn->name)) {
            own[i] = false;
            after_own = true;   /* crt1 and crtbegin come right before the program's objects */
        } else if (strcmp(fn->name, "main") == 0) {
            own[i] = true;
        } else if (is_reserved_name(fn->name)) {
            own[i] = false;
            after_own = false;
        } else {
            own[i] = after_own;
        }
    }
}

static const struct elf_section *section_containing(const elf_image *img, uint64_t addr)
{
    const struct elf_section *secs;
    size_t n = elf_image_sections(img, &secs);
    for (size_t i = 0; i < n; i++)
        if (secs[i].alloc && secs[i].data && addr >= secs[i].addr && addr < secs[i].addr + secs[i].size)
            return &secs[i];
    return NULL;
}

/* Loads through the GOT or from read-only data are not shared state. */
static bool rip_target_is_constant(const elf_image *img, uint64_t target)
{
    if (elf_image_addr_readonly(img, target))
        return true;
    const struct elf_section *s = section_containing(img, target);
    return s && (strcmp(s->name, ".got") == 0 || strcmp(s->name, ".got.plt") == 0);
}

static void add_site(struct site_table *st, uint64_t vaddr, const struct x86_insn *insn, bool tail_call)
{
    if (st->n_sites == st->cap_sites) {
        st->cap_sites = st->cap_sites ? st->cap_sites * 2 : 1024;
        st->sites = realloc(st->sites, st->cap_sites * sizeof *st->sites);
        if (!st->sites)
            abort();
    }
    st->sites[st->n_sites].vaddr = vaddr;
    st->sites[st->n_sites].insn = *insn;
    st->sites[st->n_sites].library_atomic = false;
    st->sites[st->n_sites].tail_call = tail_call;
    st->n_sites++;
}

/* The function that starts at start keeps rbp as its frame pointer. */
static bool starts_with_frame(const elf_image *img, uint64_t start)
{
    const struct elf_section *s = section_containing(img, start);
    if (!s)
        return false;
    uint64_t off = start - s->addr;
    return x86_is_frame_pointer_prologue(s->data + off, s->size - off);
}

/* Function boundaries where symbols say nothing (a stripped binary): the
 * unwind table's function starts, each function ending where the next
 * begins. */
struct unwind_functions {
    uint64_t *starts;
    size_t n;
};

/* The index of the first function start above addr. */
static size_t starts_after(const struct unwind_functions *uf, uint64_t addr)
{
    size_t a = 0, b = uf->n;
    while (a < b) {
        size_t mid = (a + b) / 2;
        if (uf->starts[mid] <= addr)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

/* [*lo, *hi) of the function around addr by the unwind table; false if none. */
static bool unwind_function_at(const struct unwind_functions *uf, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
    size_t a = starts_after(uf, addr);
    if (a == 0)
        return false;
    *lo = uf->starts[a - 1];
    *hi = a < uf->n ? uf->starts[a] : UINT64_MAX;
    return true;
}

static void add_user_range(struct site_table *st, uint64_t lo, uint64_t hi)
{
    if (st->n_user == st->cap_user) {
        st->cap_user = st->cap_user ? st->cap_user * 2 : 64;
        st->user = realloc(st->user, st->cap_user * sizeof *st->user);
        if (!st->user)
            abort();
    }
    st->user[st->n_user++] = (struct addr_range){lo, hi};
}

/* The first address above addr that is known to start an instruction: a
 * function's start by the symbol table or the unwind table; UINT64_MAX
 * when none is. */
static uint64_t next_known_start(const struct elf_symbol *fns, size_t n_fns, const struct unwind_functions *uf,
                                 uint64_t addr)
{
    uint64_t next = UINT64_MAX;
    size_t a = 0, b = n_fns;
    while (a < b) {
        size_t mid = (a + b) / 2;
        if (fns[mid].addr <= addr)
            a = mid + 1;
        else
            b = mid;
    }
    if (a < n_fns)
        next = fns[a].addr;
    a = starts_after(uf, addr);
    if (a < uf->n && uf->starts[a] < next)
        next = uf->starts[a];
    return next;
}

/* Code mdat cannot see into: counted once per stretch, the first kept. */
static void note_unseen(struct site_table *st, uint64_t vaddr)
{
    if (st->n_unseen++ == 0)
        st->first_unseen = vaddr;
}

/* Where decoding [lo, hi) has got to. */
struct sweep {
    uint64_t addr;
    uint64_t fn_lo, fn_hi;      /* the function being scanned: [1, 0) none yet */
    bool frame_pointer;
    uint64_t resync;            /* the next known instruction start after addr */
};

/* A new function, or none (padding), at s->addr: its extent, whether rbp
 * is its frame pointer. False when it is runtime startup code, skipped. */
static bool enter_function(struct site_table *st, const struct unwind_functions *uf, struct sweep *s)
{
    const elf_image *img = debuginfo_elf(st->di);
    const struct elf_symbol *fn = elf_image_function_at(img, s->addr);
    if (fn && is_runtime_startup(fn->name)) {
        s->addr = fn->addr + fn->size;
        return false;
    }
    if (fn) {
        s->fn_lo = fn->addr;
        s->fn_hi = fn->addr + fn->size;
    } else if (!unwind_function_at(uf, s->addr, &s->fn_lo, &s->fn_hi)) {
        s->fn_lo = s->addr;
        s->fn_hi = s->addr + 1;
    }
    s->frame_pointer = (fn || uf->n) && s->fn_hi > s->fn_lo + 1 ? starts_with_frame(img, s->fn_lo) : false;
    return true;
}

/* A direct jump (or conditional one) out of the function being scanned
 * into code that is not the user's own source: a system header's function
 * compiled into the module (a C++ template), a PLT stub, anything without
 * a line. Sibling calls between the user's functions are left alone: the
 * thread is then in the user's source, which names itself. */
static bool is_tail_call(const struct site_table *st, const struct sweep *s, const struct x86_insn *insn)
{
    if (insn->emulation != X86_EMU_JUMP_REL && insn->emulation != X86_EMU_JCC)
        return false;
    uint64_t target = s->addr + (uint64_t)insn->store_imm;
    if (s->fn_hi <= s->fn_lo + 1 || (target >= s->fn_lo && target < s->fn_hi))
        return false;
    struct src_loc loc;
    if (debuginfo_code_location(st->di, target, &loc) && loc.file && strncmp(loc.file, "/usr/", 5) != 0)
        return false;
    /* The jump itself is the user's: in the user's source, or library code
     * inlined into a function of the user's (std::latch::wait in watcher). */
    return debuginfo_code_location(st->di, s->addr, &loc) && loc.file &&
           (strncmp(loc.file, "/usr/", 5) != 0 || debuginfo_user_call_site(st->di, s->addr, &loc));
}

/* Decodes [lo, hi) linearly and records every instruction that may be
 * visible. A linear sweep only follows real instruction boundaries from a
 * known start: it restarts at every function start (symbols, the unwind
 * table), and where the bytes do not decode, or an instruction would run
 * over the next known start (padding, data), it plants nothing until that
 * start. Bytes inside a function that do not decode, and gathers and
 * scatters (their addresses are a vector register's lanes), are code whose
 * accesses mdat cannot see: counted in n_unseen. Whether rbp is a frame
 * pointer is decided per function, from its symbol, else from the unwind
 * table (uf). */
static void scan_range(struct site_table *st, x86_decoder *dec, uint64_t lo, uint64_t hi,
                       const struct unwind_functions *uf)
{
    add_user_range(st, lo, hi);
    const elf_image *img = debuginfo_elf(st->di);
    const struct elf_symbol *fns;
    size_t n_fns = elf_image_functions(img, &fns);
    struct sweep s = {.addr = lo, .fn_lo = 1, .fn_hi = 0};
    s.resync = next_known_start(fns, n_fns, uf, lo);
    while (s.addr < hi) {
        const struct elf_section *sec = section_containing(img, s.addr);
        if (!sec || !sec->exec) {
            s.addr++;
            continue;
        }
        if (s.addr >= s.resync)
            s.resync = next_known_start(fns, n_fns, uf, s.addr);
        uint64_t end = sec->addr + sec->size < hi ? sec->addr + sec->size : hi;
        if (end > s.resync)
            end = s.resync;     /* an instruction never runs over a known start */
        if ((s.addr < s.fn_lo || s.addr >= s.fn_hi) && !enter_function(st, uf, &s))
            continue;
        struct x86_insn insn;
        if (!x86_decode(dec, sec->data + (s.addr - sec->addr), end - s.addr, s.addr, &insn)) {
            if (s.addr >= s.fn_lo && s.addr < s.fn_hi && s.fn_hi > s.fn_lo + 1)
                note_unseen(st, s.addr);
            s.addr = s.resync < hi ? s.resync : hi;     /* unsure: nothing planted until a known start */
            continue;
        }
        if (insn.flags & X86_MEM_VECTOR_INDEX) {
            note_unseen(st, s.addr);
            s.addr += insn.length;
            continue;
        }
        bool visible = x86_insn_may_be_visible(&insn, s.frame_pointer);
        if (visible && !(insn.flags & X86_ATOMIC) && (insn.flags & X86_MEM_RIP_RELATIVE) &&
            rip_target_is_constant(img, insn.rip_target))
            visible = false;
        if (visible || is_tail_call(st, &s, &insn))
            add_site(st, s.addr, &insn, !visible);
        s.addr += insn.length;
    }
}

static int cmp_range(const void *a, const void *b)
{
    uint64_t x = ((const struct addr_range *)a)->lo, y = ((const struct addr_range *)b)->lo;
    return x < y ? -1 : x > y;
}

static int cmp_site(const void *a, const void *b)
{
    uint64_t x = ((const struct code_site *)a)->vaddr, y = ((const struct code_site *)b)->vaddr;
    return x < y ? -1 : x > y;
}

static void build_patched_sections(struct site_table *st)
{
    const elf_image *img = debuginfo_elf(st->di);
    const struct elf_section *secs;
    size_t n = elf_image_sections(img, &secs);
    st->patched = calloc(n ? n : 1, sizeof *st->patched);
    size_t site = 0;
    for (size_t i = 0; i < n; i++) {
        if (!secs[i].exec || !secs[i].data)
            continue;
        while (site < st->n_sites && st->sites[site].vaddr < secs[i].addr)
            site++;
        if (site >= st->n_sites || st->sites[site].vaddr >= secs[i].addr + secs[i].size)
            continue;
        struct patched_section *p = &st->patched[st->n_patched++];
        p->vaddr = secs[i].addr;
        p->size = secs[i].size;
        p->orig = secs[i].data;
        p->bytes = malloc(p->size);
        if (!p->bytes)
            abort();
        memcpy(p->bytes, p->orig, p->size);
        for (; site < st->n_sites && st->sites[site].vaddr < secs[i].addr + secs[i].size; site++)
            p->bytes[st->sites[site].vaddr - secs[i].addr] = 0xcc;
    }
}

void site_table_build(struct site_table *st, const debuginfo *di, x86_decoder *dec)
{
    memset(st, 0, sizeof *st);
    st->di = di;
    const elf_image *img = debuginfo_elf(di);
    const struct addr_range *ranges;
    size_t n_ranges = debuginfo_cu_ranges(di, &ranges);
    const struct elf_symbol *fns;
    size_t n_fns = elf_image_functions(img, &fns);
    struct unwind_functions uf = {NULL, 0};
    uf.n = eh_frame_function_starts(img, &uf.starts);
    if (n_ranges > 0) {
        for (size_t i = 0; i < n_ranges; i++)
            scan_range(st, dec, ranges[i].lo, ranges[i].hi, &uf);
    } else if (n_fns > 0 && elf_image_has_symtab(img)) {
        bool *own = NULL;
        if (elf_image_is_static(img)) {
            own = calloc(n_fns, sizeof *own);
            if (!own)
                abort();
            mark_own_functions(fns, n_fns, own);
        }
        for (size_t i = 0; i < n_fns; i++) {
            const struct elf_section *s = section_containing(img, fns[i].addr);
            if (s && s->exec && !is_runtime_startup(fns[i].name) && (!own || own[i]))
                scan_range(st, dec, fns[i].addr, fns[i].addr + fns[i].size, &uf);
        }
        free(own);
    } else if (!elf_image_is_static(img)) {
        /* Stripped: the executable's .text is the program's own code. In a
         * static one it is libc's too, with nothing to tell them apart:
         * only system calls are seen there (cmd_run says so). */
        const struct elf_section *secs;
        size_t n = elf_image_sections(img, &secs);
        for (size_t i = 0; i < n; i++)
            if (secs[i].exec && secs[i].data && strcmp(secs[i].name, ".text") == 0)
                scan_range(st, dec, secs[i].addr, secs[i].addr + secs[i].size, &uf);
    }
    free(uf.starts);
    if (st->n_sites > 1)
        qsort(st->sites, st->n_sites, sizeof *st->sites, cmp_site);
    if (st->n_user > 1)
        qsort(st->user, st->n_user, sizeof *st->user, cmp_range);
    build_patched_sections(st);
}

void site_table_build_sync(struct site_table *st, const debuginfo *di, x86_decoder *dec)
{
    memset(st, 0, sizeof *st);
    st->di = di;
    st->sync_only = true;
    const struct elf_section *secs;
    const elf_image *img = debuginfo_elf(di);
    size_t n = elf_image_sections(img, &secs);
    const struct elf_symbol *fns;
    size_t n_fns = elf_image_functions(img, &fns);
    struct unwind_functions uf = {NULL, 0};
    uf.n = eh_frame_function_starts(img, &uf.starts);
    for (size_t i = 0; i < n; i++) {
        if (!secs[i].exec || !secs[i].data)
            continue;
        uint64_t addr = secs[i].addr, end = secs[i].addr + secs[i].size;
        uint64_t resync = next_known_start(fns, n_fns, &uf, addr);
        while (addr < end) {
            if (addr >= resync)
                resync = next_known_start(fns, n_fns, &uf, addr);
            uint64_t stop = end < resync ? end : resync;
            struct x86_insn insn;
            if (!x86_decode(dec, secs[i].data + (addr - secs[i].addr), stop - addr, addr, &insn)) {
                addr = resync;      /* unsure: nothing planted until a known start */
                continue;
            }
            if ((insn.flags & X86_ATOMIC) && insn.n_mem > 0)
                add_site(st, addr, &insn, false);
            addr += insn.length;
        }
    }
    free(uf.starts);
    build_patched_sections(st);
}

/* A compare-and-swap or an exchange with memory: how a runtime's lock, a
 * once flag or a lock-free list changes hands. Atomic arithmetic (thread
 * counts, reference counts) commutes with itself and is left out: two
 * thread ends that count __nptl_nthreads down are no order between them. */
static bool takes_or_hands_over(const struct x86_insn *in)
{
    if (!(in->flags & X86_ATOMIC) || in->n_mem == 0)
        return false;
    return in->emulation == X86_EMU_XCHG || in->emulation == X86_EMU_CMPXCHG || strstr(in->text, "xchg") != NULL;
}

/* The compare-and-swaps and exchanges of one function [lo, hi), decoded from its
 * start: past an instruction that does not decode, where the next one
 * begins is a guess, and an int3 planted on a guess could land inside an
 * instruction the CPU runs. */
static void scan_function_atomics(struct site_table *st, x86_decoder *dec, const struct elf_section *sec, uint64_t lo,
                                  uint64_t hi)
{
    uint64_t addr = lo;
    while (addr < hi) {
        struct x86_insn insn;
        if (!x86_decode(dec, sec->data + (addr - sec->addr), hi - addr, addr, &insn))
            return;
        if (takes_or_hands_over(&insn))
            add_site(st, addr, &insn, false);
        addr += insn.length;
    }
}

void site_table_build_atomics(struct site_table *st, const debuginfo *di, x86_decoder *dec)
{
    memset(st, 0, sizeof *st);
    st->di = di;
    st->sync_only = true;
    const elf_image *img = debuginfo_elf(di);
    uint64_t *starts = NULL;
    size_t n = eh_frame_function_starts(img, &starts);
    for (size_t i = 0; i < n; i++) {
        const struct elf_section *sec = section_containing(img, starts[i]);
        if (!sec || !sec->exec)
            continue;
        uint64_t end = sec->addr + sec->size;
        uint64_t hi = i + 1 < n && starts[i + 1] < end ? starts[i + 1] : end;
        scan_function_atomics(st, dec, sec, starts[i], hi);
    }
    free(starts);
    if (st->n_sites > 1)
        qsort(st->sites, st->n_sites, sizeof *st->sites, cmp_site);
    build_patched_sections(st);
}

/* Function boundaries in a static executable: its symbols (the unwind
 * table's index, .eh_frame_hdr, is not linked into static programs), else
 * the unwind table when there is one. n 0: none known. */
static size_t function_bounds(const elf_image *img, uint64_t **lo, uint64_t **hi)
{
    const struct elf_symbol *fns;
    size_t n_fns = elf_image_functions(img, &fns), n = 0;
    if (n_fns > 0 && elf_image_has_symtab(img)) {
        *lo = malloc(n_fns * sizeof **lo);
        *hi = malloc(n_fns * sizeof **hi);
        if (!*lo || !*hi)
            abort();
        for (size_t i = 0; i < n_fns; i++)
            if (fns[i].size > 0) {
                (*lo)[n] = fns[i].addr;
                (*hi)[n++] = fns[i].addr + fns[i].size;
            }
        return n;
    }
    n = eh_frame_function_starts(img, lo);
    *hi = malloc((n ? n : 1) * sizeof **hi);
    if (!*hi)
        abort();
    for (size_t i = 0; i < n; i++) {
        const struct elf_section *sec = section_containing(img, (*lo)[i]);
        uint64_t end = sec ? sec->addr + sec->size : (*lo)[i];
        (*hi)[i] = i + 1 < n && (*lo)[i + 1] < end ? (*lo)[i + 1] : end;
    }
    return n;
}

bool site_table_add_library_atomics(struct site_table *st, x86_decoder *dec)
{
    const elf_image *img = debuginfo_elf(st->di);
    size_t before = st->n_sites;
    uint64_t *lo = NULL, *hi = NULL;
    size_t n = function_bounds(img, &lo, &hi);
    for (size_t i = 0; i < n; i++) {
        const struct elf_section *sec = section_containing(img, lo[i]);
        if (!sec || !sec->exec || site_table_is_user(st, lo[i]))
            continue;
        uint64_t end = sec->addr + sec->size;
        scan_function_atomics(st, dec, sec, lo[i], hi[i] < end ? hi[i] : end);
    }
    free(lo);
    free(hi);
    for (size_t i = before; i < st->n_sites; i++)
        st->sites[i].library_atomic = true;
    if (st->n_sites > before) {
        qsort(st->sites, st->n_sites, sizeof *st->sites, cmp_site);
        for (size_t i = 0; i < st->n_patched; i++)
            free(st->patched[i].bytes);
        free(st->patched);
        st->patched = NULL;
        st->n_patched = 0;
        build_patched_sections(st);
    }
    return n > 0;
}

void site_table_free(struct site_table *st)
{
    for (size_t i = 0; i < st->n_patched; i++)
        free(st->patched[i].bytes);
    free(st->patched);
    free(st->sites);
    free(st->user);
}

/* A code section as the address space has it, its sites' bytes set as
 * `how` says: read, changed, written, so that whatever the loader wrote
 * there (relocations of a DT_TEXTREL module) stays. */
bool site_table_write(const struct site_table *st, uint64_t bias, int mem_fd, enum site_planting how)
{
    for (size_t i = 0; i < st->n_patched; i++) {
        const struct patched_section *p = &st->patched[i];
        uint8_t *now = malloc(p->size);
        bool ok = now && tracee_read(mem_fd, bias + p->vaddr, now, p->size);
        if (ok) {
            size_t from, to;
            site_table_range(st, p->vaddr, p->vaddr + p->size, &from, &to);
            for (size_t k = from; k < to; k++) {
                size_t off = (size_t)(st->sites[k].vaddr - p->vaddr);
                bool planted = how == SITES_ALL || (how == SITES_ATOMIC && ((st->sites[k].insn.flags & X86_ATOMIC) ||
                                                                             st->sites[k].tail_call));
                now[off] = planted ? 0xcc : p->orig[off];
            }
            ok = tracee_write(mem_fd, bias + p->vaddr, now, p->size);
        }
        free(now);
        if (!ok)
            return false;
    }
    return true;
}

void site_table_refresh(struct site_table *st, uint64_t bias, int mem_fd, x86_decoder *dec)
{
    for (size_t i = 0; i < st->n_patched; i++) {
        const struct patched_section *p = &st->patched[i];
        uint8_t *now = malloc(p->size);
        if (!now || !tracee_read(mem_fd, bias + p->vaddr, now, p->size) || memcmp(now, p->bytes, p->size) == 0) {
            free(now);
            continue;   /* as the file has it, with the int3s: nothing relocated */
        }
        size_t from, to;
        site_table_range(st, p->vaddr, p->vaddr + p->size, &from, &to);
        for (size_t k = from; k < to; k++) {
            struct code_site *site = &st->sites[k];
            size_t off = (size_t)(site->vaddr - p->vaddr);
            uint8_t code[16];
            size_t len = p->size - off < sizeof code ? p->size - off : sizeof code;
            memcpy(code, now + off, len);
            code[0] = p->orig[off];
            struct x86_insn insn;
            if (memcmp(code, site->insn.bytes, site->insn.length) != 0 &&
                x86_decode(dec, code, len, site->vaddr, &insn) && insn.length == site->insn.length)
                site->insn = insn;
        }
        memcpy(p->bytes, now, p->size);
        free(now);
    }
}

void site_table_range(const struct site_table *st, uint64_t lo, uint64_t hi, size_t *from, size_t *to)
{
    size_t a = 0, b = st->n_sites;
    while (a < b) {
        size_t mid = (a + b) / 2;
        if (st->sites[mid].vaddr < lo)
            a = mid + 1;
        else
            b = mid;
    }
    *from = a;
    while (a < st->n_sites && st->sites[a].vaddr < hi)
        a++;
    *to = a;
}

const struct code_site *site_table_lookup(const struct site_table *st, uint64_t vaddr, uint8_t *orig)
{
    size_t lo = 0, hi = st->n_sites;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (st->sites[mid].vaddr == vaddr) {
            for (size_t p = 0; p < st->n_patched; p++)
                if (vaddr >= st->patched[p].vaddr && vaddr < st->patched[p].vaddr + st->patched[p].size)
                    *orig = st->patched[p].orig[vaddr - st->patched[p].vaddr];
            return &st->sites[mid];
        }
        if (st->sites[mid].vaddr < vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

bool site_table_is_user(const struct site_table *st, uint64_t vaddr)
{
    size_t lo = 0, hi = st->n_user;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (vaddr < st->user[mid].lo)
            hi = mid;
        else if (vaddr >= st->user[mid].hi)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}
