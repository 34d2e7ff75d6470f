/* fuzz_elf: libFuzzer target for loading an executable's ELF and DWARF
 * (debuginfo_load): whatever the bytes, a program mdat is given is loaded
 * or refused with a message, never a crash or a read out of bounds. The
 * bytes go to a memory file, which debuginfo_load opens by its path. */
#include "supervisor/debuginfo/debuginfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    if (fd < 0)
        fd = memfd_create("mdat-fuzz-elf", 0);
    if (fd < 0 || ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return 0;
    char path[64], err[512] = "";
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    debuginfo *di = debuginfo_load(path, err, sizeof err);
    if (!di && !err[0])
        abort();    /* every refusal says why */
    debuginfo_free(di);
    return 0;
}
