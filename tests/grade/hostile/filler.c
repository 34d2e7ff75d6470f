/* Hostile submission: fills the disk (files of 1 MiB in the working
 * directory and /tmp) until writing fails. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    static char mib[1 << 20];
    memset(mib, 'x', sizeof mib);
    for (int i = 0; i < 4096; i++) {
        char path[64];
        snprintf(path, sizeof path, "%s/fill-%d", i % 2 ? "/tmp" : ".", i);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            return 0;
        ssize_t n = write(fd, mib, sizeof mib);
        close(fd);
        if (n != (ssize_t)sizeof mib)
            return 0;
    }
    return 0;
}
