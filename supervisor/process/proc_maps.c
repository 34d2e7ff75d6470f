/* proc_maps: parsing /proc/PID/maps. */
#include "supervisor/process/proc_maps.h"

#include <dirent.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool proc_maps_read(pid_t pid, struct proc_maps *out)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "re");
    out->m = NULL;
    out->n = 0;
    if (!f)
        return false;
    size_t cap = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        struct proc_mapping pm = {0};
        char perms[8] = "";
        int name_at = 0;
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &pm.start, &pm.end, perms,
                   &pm.offset, &name_at) < 4)
            continue;
        pm.read = perms[0] == 'r';
        pm.write = perms[1] == 'w';
        pm.exec = perms[2] == 'x';
        pm.shared = perms[3] == 's';
        if (name_at > 0) {
            snprintf(pm.path, sizeof pm.path, "%s", line + name_at);
            pm.path[strcspn(pm.path, "\n")] = '\0';
        }
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            struct proc_mapping *grown = realloc(out->m, cap * sizeof *grown);
            if (!grown) {
                fclose(f);
                proc_maps_free(out);
                return false;
            }
            out->m = grown;
        }
        out->m[out->n++] = pm;
    }
    /* A map read in part is not the map: a mapping missed could be one a
     * caller must not take for private memory (page_cache.c). */
    bool whole = !ferror(f);
    fclose(f);
    if (!whole)
        proc_maps_free(out);
    return whole && out->n > 0;
}

void proc_maps_free(struct proc_maps *maps)
{
    free(maps->m);
    maps->m = NULL;
    maps->n = 0;
}

const struct proc_mapping *proc_maps_find(const struct proc_maps *maps, uint64_t addr)
{
    size_t lo = 0, hi = maps->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (addr < maps->m[mid].start)
            hi = mid;
        else if (addr >= maps->m[mid].end)
            lo = mid + 1;
        else
            return &maps->m[mid];
    }
    return NULL;
}

void proc_each_process(void (*visit)(pid_t pid, void *ctx), void *ctx)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
            visit((pid_t)atoi(e->d_name), ctx);
    closedir(d);
}
