/* schedule_captions: reading "# caption N: TEXT" lines. */
#include "supervisor/explore/schedule_captions.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "# caption 12: T3 takes the last item" -> 12, "T3 takes the last item". */
static bool parse_caption(const char *line, struct schedule_caption *c)
{
    const char *s = line;
    if (*s++ != '#')
        return false;
    while (*s == ' ' || *s == '\t')
        s++;
    if (strncmp(s, "caption", 7) != 0 || (s[7] != ' ' && s[7] != '\t'))
        return false;
    s += 7;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    char *end;
    unsigned long long step = strtoull(s, &end, 10);
    if (*end != ':')
        return false;
    s = end + 1;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strcspn(s, "\r\n");
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (len == 0)
        return false;
    c->step = step;
    snprintf(c->text, sizeof c->text, "%.*s", (int)len, s);
    return true;
}

void schedule_captions_read(const char *path, struct schedule_captions *out)
{
    out->at = NULL;
    out->n = 0;
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0, room = 0;
    while (getline(&line, &cap, f) > 0) {
        struct schedule_caption c;
        if (!parse_caption(line, &c))
            continue;
        if (out->n == room) {
            room = room ? room * 2 : 16;
            struct schedule_caption *at = realloc(out->at, room * sizeof *at);
            if (!at)
                break;
            out->at = at;
        }
        out->at[out->n++] = c;
    }
    free(line);
    fclose(f);
    /* By step; equal steps keep the file's order (an insertion sort is
     * stable, and a file has few captions). */
    for (size_t i = 1; i < out->n; i++) {
        struct schedule_caption c = out->at[i];
        size_t k = i;
        while (k > 0 && out->at[k - 1].step > c.step) {
            out->at[k] = out->at[k - 1];
            k--;
        }
        out->at[k] = c;
    }
}

void schedule_captions_free(struct schedule_captions *c)
{
    free(c->at);
    c->at = NULL;
    c->n = 0;
}

const struct schedule_caption *schedule_caption_at(const struct schedule_captions *c, uint64_t step)
{
    const struct schedule_caption *found = NULL;
    for (size_t i = 0; i < c->n && c->at[i].step <= step; i++)
        found = &c->at[i];
    return found;
}
