/* tui_source: the source files `mdat attach` shows, read once and kept.
 *
 * Lines come ready to lay out: tabs expanded to 8-column stops, carriage
 * returns dropped, other control characters shown as '?'. A file that
 * cannot be read is remembered with the reason, so a missing file costs
 * one attempt, not one per redraw. */
#ifndef MDAT_UI_TUI_SOURCE_H
#define MDAT_UI_TUI_SOURCE_H

#include <limits.h>
#include <stdbool.h>

struct tui_source {
    char path[PATH_MAX];
    const char *name;           /* base name, inside path */
    bool ok;
    char error[160];            /* why it could not be read, when !ok */
    char **lines;               /* line n is lines[n - 1] */
    int n_lines;
};

enum { TUI_SOURCE_CACHE = 8 };

struct tui_source_cache {
    struct tui_source *files[TUI_SOURCE_CACHE];
    int n;
    int next_evict;
};

/* The file at path, loaded on first use (never NULL; see ->ok). */
const struct tui_source *tui_source_get(struct tui_source_cache *c, const char *path);
void tui_source_cache_free(struct tui_source_cache *c);

#endif
