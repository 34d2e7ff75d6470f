/* fuzz_schedule: libFuzzer target for the schedule file reader
 * (schedule_read_stream): any bytes are read or refused with a message,
 * never a crash, a leak or a read out of bounds; what is read is written
 * back and read again to the same choices. */
#include "supervisor/explore/schedule.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static bool same_choice(struct choice a, struct choice b)
{
    return a.step == b.step && a.kind == b.kind && a.thread == b.thread;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    struct schedule s;
    char err[512];
    bool ok = schedule_read_stream(f, "fuzz.sched", &s, err, sizeof err);
    fclose(f);
    if (!ok) {
        if (!err[0])
            abort();    /* every refusal says why */
        return 0;
    }
    static int fd = -1;
    if (fd < 0)
        fd = memfd_create("mdat-fuzz-schedule", 0);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (fd >= 0 && schedule_write(&s, path, err, sizeof err)) {
        struct schedule again;
        FILE *back = fopen(path, "r");
        if (!back || !schedule_read_stream(back, path, &again, err, sizeof err) || again.choices.n != s.choices.n)
            abort();    /* what mdat writes it reads back */
        for (size_t i = 0; i < s.choices.n; i++)
            if (!same_choice(choice_list_at(&again.choices, i), choice_list_at(&s.choices, i)))
                abort();
        fclose(back);
        schedule_free(&again);
    }
    schedule_free(&s);
    return 0;
}
