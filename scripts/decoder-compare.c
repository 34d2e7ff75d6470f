/* decoder-compare: capstone 4 against Zydis 4 on real code, the measurement
 * behind mdat's choice of decoder (docs/architecture.md, "The decoder").
 *
 * For each ELF file named, objdump -d -w (GNU binutils) gives the reference:
 * every instruction start and length objdump found (lines it calls "(bad)"
 * are left out). Each decoder is asked for the instruction at each of those
 * starts, with the bytes that follow it, and counted as agreeing (decoded,
 * same length), failing (cannot decode) or wrong (another length). A linear
 * sweep as mdat's breakpoint planting does (on failure one byte on) then
 * counts the sweep's positions that are not objdump's instruction starts:
 * each is a place where mdat would have planted an int3 inside an
 * instruction. --speed FILE times a linear sweep of FILE's bytes as objdump
 * saw them (instructions per second, best of 5) with capstone's detail on
 * (what mdat used), Zydis's full decode, and Zydis's decode without
 * operands.
 *
 * Built and run by scripts/decoder-compare (needs libcapstone-dev and
 * libzydis-dev: a measurement, not part of mdat's build). */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <Zydis/Zydis.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ref {
    uint64_t addr;
    uint8_t len;
    char mnemonic[24];
};

struct image {
    uint64_t lo, hi;            /* bytes[addr - lo], known[] says which are */
    uint8_t *bytes;
    bool *known;
    struct ref *refs;
    size_t n_refs, cap_refs;
};

static void add_ref(struct image *im, uint64_t addr, uint8_t len, const char *mnemonic)
{
    if (im->n_refs == im->cap_refs) {
        im->cap_refs = im->cap_refs ? im->cap_refs * 2 : 65536;
        im->refs = realloc(im->refs, im->cap_refs * sizeof *im->refs);
    }
    struct ref *r = &im->refs[im->n_refs++];
    r->addr = addr;
    r->len = len;
    snprintf(r->mnemonic, sizeof r->mnemonic, "%s", mnemonic);
}

static void put_byte(struct image *im, uint64_t addr, uint8_t b)
{
    if (!im->bytes) {
        im->lo = addr;
        im->hi = addr + 1;
        im->bytes = calloc(1, 1);
        im->known = calloc(1, 1);
    }
    if (addr < im->lo)
        return;     /* objdump goes upwards within a file */
    if (addr >= im->hi) {
        uint64_t hi = addr + 1 + (addr - im->lo) / 2;
        im->bytes = realloc(im->bytes, hi - im->lo);
        im->known = realloc(im->known, hi - im->lo);
        memset(im->known + (im->hi - im->lo), 0, hi - im->hi);
        im->hi = hi;
    }
    im->bytes[addr - im->lo] = b;
    im->known[addr - im->lo] = true;
}

/* "  1139:\t55                   \tpush   rbp" */
static bool read_objdump(const char *path, struct image *im)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "objdump -d -w -M intel '%s' 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return false;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, p) > 0) {
        char *colon = strchr(line, ':');
        if (!colon || colon[1] != '\t')
            continue;
        char *end;
        uint64_t addr = strtoull(line, &end, 16);
        if (end != colon)
            continue;
        char *bytes = colon + 2, *tab = strchr(bytes, '\t');
        uint8_t len = 0;
        for (char *c = bytes; (!tab || c < tab) && *c && *c != '\n';) {
            if (c[0] == ' ') {
                c++;
                continue;
            }
            unsigned v;
            if (sscanf(c, "%2x", &v) != 1)
                break;
            put_byte(im, addr + len, (uint8_t)v);
            len++;
            c += 2;
        }
        char mnemonic[24] = "";
        if (tab)
            sscanf(tab + 1, "%23s", mnemonic);
        /* "(bad)", and the bytes objdump shows after a prefix it did not join */
        if (len && tab && strncmp(tab + 1, "(bad)", 5) != 0 && mnemonic[0] && strchr(mnemonic, '(') == NULL)
            add_ref(im, addr, len, mnemonic);
    }
    free(line);
    return pclose(p) == 0 && im->n_refs > 0;
}

static size_t bytes_at(const struct image *im, uint64_t addr, const uint8_t **code)
{
    if (addr < im->lo || addr >= im->hi)
        return 0;
    size_t n = 0;
    while (n < 15 && addr + n < im->hi && im->known[addr + n - im->lo])
        n++;
    *code = im->bytes + (addr - im->lo);
    return n;
}

enum verdict { AGREES, FAILS, WRONG_LENGTH };

struct decoders {
    csh cs;
    cs_insn *cs_insn;
    ZydisDecoder zy;
};

static int capstone_length(struct decoders *d, const uint8_t *code, size_t n, uint64_t addr)
{
    const uint8_t *c = code;
    uint64_t a = addr;
    return cs_disasm_iter(d->cs, &c, &n, &a, d->cs_insn) ? (int)d->cs_insn->size : -1;
}

static int zydis_length(struct decoders *d, const uint8_t *code, size_t n)
{
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->zy, code, n, &in, ops)) ? in.length : -1;
}

struct tally {
    size_t verdict[3];
    size_t sweep_positions, sweep_inside;   /* positions a linear sweep decodes at; not objdump starts */
    /* a few mnemonics of each kind of disagreement, for the table */
    char examples[2][256];
};

static void note_example(char *examples, const char *mnemonic)
{
    if (strstr(examples, mnemonic) || strlen(examples) + strlen(mnemonic) + 2 >= 200)
        return;
    if (examples[0])
        strcat(examples, " ");
    strcat(examples, mnemonic);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool is_start(const uint64_t *starts, size_t n, uint64_t addr)
{
    return bsearch(&addr, starts, n, sizeof *starts, cmp_u64) != NULL;
}

/* A linear sweep over each run of known bytes, as site_table.c's scan:
 * decoded positions that are not objdump's starts are where an int3 would
 * land inside an instruction. */
static void sweep(struct decoders *d, const struct image *im, const uint64_t *starts, bool use_zydis,
                  struct tally *t)
{
    uint64_t addr = im->lo;
    while (addr < im->hi) {
        const uint8_t *code;
        size_t n = bytes_at(im, addr, &code);
        if (n == 0) {
            addr++;
            continue;
        }
        int len = use_zydis ? zydis_length(d, code, n) : capstone_length(d, code, n, addr);
        if (len <= 0) {
            addr++;
            continue;
        }
        t->sweep_positions++;
        t->sweep_inside += !is_start(starts, im->n_refs, addr);
        addr += (uint64_t)len;
    }
}

static void compare_file(struct decoders *d, const char *path)
{
    struct image im = {0};
    if (!read_objdump(path, &im)) {
        fprintf(stderr, "decoder-compare: objdump found no code in %s\n", path);
        exit(2);
    }
    struct tally t[2] = {{{0}}};
    for (size_t i = 0; i < im.n_refs; i++) {
        const uint8_t *code;
        size_t n = bytes_at(&im, im.refs[i].addr, &code);
        int len[2] = {capstone_length(d, code, n, im.refs[i].addr), zydis_length(d, code, n)};
        for (int k = 0; k < 2; k++) {
            enum verdict v = len[k] < 0 ? FAILS : len[k] != im.refs[i].len ? WRONG_LENGTH : AGREES;
            t[k].verdict[v]++;
            if (v != AGREES)
                note_example(t[k].examples[v - 1], im.refs[i].mnemonic);
        }
    }
    uint64_t *starts = malloc(im.n_refs * sizeof *starts);
    for (size_t i = 0; i < im.n_refs; i++)
        starts[i] = im.refs[i].addr;
    qsort(starts, im.n_refs, sizeof *starts, cmp_u64);
    for (int k = 0; k < 2; k++)
        sweep(d, &im, starts, k == 1, &t[k]);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (int k = 0; k < 2; k++) {
        printf("%-28s %-13s %9zu %9zu %7zu %7zu %7zu   fails: %s%s%s\n", base, k ? "zydis-4.0.0" : "capstone-4.0.2",
               im.n_refs, t[k].verdict[AGREES], t[k].verdict[FAILS], t[k].verdict[WRONG_LENGTH], t[k].sweep_inside,
               t[k].examples[0][0] ? t[k].examples[0] : "-", t[k].examples[1][0] ? "  wrong length: " : "",
               t[k].examples[1]);
    }
    free(starts);
    free(im.refs);
    free(im.bytes);
    free(im.known);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

enum speed_mode { CAPSTONE_DETAIL, ZYDIS_FULL, ZYDIS_NO_OPERANDS };

static size_t sweep_for_speed(struct decoders *d, const struct image *im, enum speed_mode mode)
{
    size_t decoded = 0;
    uint64_t addr = im->lo;
    ZydisDecoderContext ctx;
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    while (addr < im->hi) {
        const uint8_t *code;
        size_t n = bytes_at(im, addr, &code);
        int len = -1;
        if (n && mode == CAPSTONE_DETAIL)
            len = capstone_length(d, code, n, addr);
        else if (n && mode == ZYDIS_FULL && ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->zy, code, n, &in, ops)))
            len = in.length;
        else if (n && mode == ZYDIS_NO_OPERANDS &&
                 ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d->zy, &ctx, code, n, &in)))
            len = in.length;
        if (len <= 0) {
            addr++;
            continue;
        }
        decoded++;
        addr += (uint64_t)len;
    }
    return decoded;
}

static void speed(struct decoders *d, const char *path)
{
    struct image im = {0};
    if (!read_objdump(path, &im)) {
        fprintf(stderr, "decoder-compare: objdump found no code in %s\n", path);
        exit(2);
    }
    static const char *const names[] = {"capstone-4.0.2 (detail on)", "zydis-4.0.0 (full)",
                                        "zydis-4.0.0 (no operands)"};
    for (int mode = 0; mode < 3; mode++) {
        double best = 1e9;
        size_t n = 0;
        for (int run = 0; run < 5; run++) {
            double t0 = now();
            n = sweep_for_speed(d, &im, (enum speed_mode)mode);
            double dt = now() - t0;
            if (dt < best)
                best = dt;
        }
        printf("%-28s %-28s %9zu insns %8.1f ms %6.2f M insns/s\n", strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
               names[mode], n, best * 1e3, n / best / 1e6);
    }
}

int main(int argc, char **argv)
{
    struct decoders d;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &d.cs) != CS_ERR_OK)
        return 2;
    cs_option(d.cs, CS_OPT_DETAIL, CS_OPT_ON);
    d.cs_insn = cs_malloc(d.cs);
    if (!ZYAN_SUCCESS(ZydisDecoderInit(&d.zy, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
        return 2;
    if (argc >= 3 && strcmp(argv[1], "--speed") == 0) {
        for (int i = 2; i < argc; i++)
            speed(&d, argv[i]);
        return 0;
    }
    printf("%-28s %-13s %9s %9s %7s %7s %7s\n", "file", "decoder", "objdump", "agree", "fail", "len!=",
           "inside");
    for (int i = 1; i < argc; i++)
        compare_file(&d, argv[i]);
    return 0;
}
