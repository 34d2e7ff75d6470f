/* debuginfo_load: times debuginfo_load on one executable, for scripts/bench.
 *
 * usage: debuginfo_load PROGRAM [REPEAT]
 * Loads PROGRAM REPEAT times (default 5) and prints one line:
 *   "<best ms> <median ms> <variables> <types> <line rows> <functions> <sync objects>" */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/debuginfo/dwarf_info.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PROGRAM [REPEAT]\n", argv[0]);
        return 2;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 5;
    if (repeat < 1 || repeat > 1000)
        repeat = 5;
    double *ms = calloc((size_t)repeat, sizeof *ms);
    size_t variables = 0, types = 0, rows = 0, functions = 0, syncs = 0;
    for (int i = 0; i < repeat; i++) {
        char err[256];
        double start = now_ms();
        debuginfo *di = debuginfo_load(argv[1], err, sizeof err);
        ms[i] = now_ms() - start;
        if (!di) {
            fprintf(stderr, "%s: %s\n", argv[1], err);
            return 1;
        }
        /* The counts come from a second, untimed load of the DWARF alone. */
        if (i == 0) {
            const struct sync_global *list;
            syncs = debuginfo_sync_globals(di, &list);
            bool corrupt;
            dwarf_info *dw = dwarf_info_load(debuginfo_elf(di), &corrupt, err, sizeof err);
            if (dw) {
                const struct dwarf_variable *vars;
                variables = dwarf_info_variables(dw, &vars);
                types = dwarf_info_type_count(dw);
                rows = dwarf_info_row_count(dw);
                functions = dwarf_info_function_count(dw);
                dwarf_info_free(dw);
            }
        }
        debuginfo_free(di);
    }
    qsort(ms, (size_t)repeat, sizeof *ms, compare_doubles);
    printf("%.1f %.1f %zu %zu %zu %zu %zu\n", ms[0], ms[repeat / 2], variables, types, rows, functions, syncs);
    free(ms);
    return 0;
}
