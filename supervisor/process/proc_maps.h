/* proc_maps: what mdat reads from /proc: the memory map of a traced
 * process (/proc/PID/maps), and which processes there are. */
#ifndef MDAT_SUPERVISOR_PROC_MAPS_H
#define MDAT_SUPERVISOR_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_mapping {
    uint64_t start, end, offset;
    bool read, write, exec;
    bool shared;                /* MAP_SHARED ('s'), else private */
    char path[256];             /* "" for anonymous mappings, "[stack]" etc. */
};

struct proc_maps {
    struct proc_mapping *m;
    size_t n;
};

bool proc_maps_read(pid_t pid, struct proc_maps *out);
void proc_maps_free(struct proc_maps *maps);
const struct proc_mapping *proc_maps_find(const struct proc_maps *maps, uint64_t addr);

/* Calls visit for every process in /proc (processes come and go meanwhile:
 * a visit may find its files gone). */
void proc_each_process(void (*visit)(pid_t pid, void *ctx), void *ctx);

#endif
