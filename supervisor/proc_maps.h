/* proc_maps: the memory map of a traced process, from /proc/PID/maps. */
#ifndef MDAT_SUPERVISOR_PROC_MAPS_H
#define MDAT_SUPERVISOR_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_mapping {
    uint64_t start, end, offset;
    bool read, write, exec;
    char path[256];             /* "" for anonymous mappings, "[stack]" etc. */
};

struct proc_maps {
    struct proc_mapping *m;
    size_t n;
};

bool proc_maps_read(pid_t pid, struct proc_maps *out);
void proc_maps_free(struct proc_maps *maps);
const struct proc_mapping *proc_maps_find(const struct proc_maps *maps, uint64_t addr);

#endif
