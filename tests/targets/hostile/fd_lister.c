/* fd_lister.c - prints every descriptor it has open (from /proc/self/fd)
 * other than the one that reads the directory.
 *
 * CORRECT when only 0, 1 and 2 are open: prints "fds: 0 1 2" and exits 0;
 * any other descriptor (one of mdat's, or of the shell that ran mdat) is
 * printed too and the exit status is 1 (a failure with --fail-on-exit). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 2;
    int own = dirfd(d), extra = 0;
    printf("fds:");
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        int fd = atoi(e->d_name);
        if (fd == own)
            continue;
        printf(" %d", fd);
        extra += fd > 2;
    }
    printf("\n");
    closedir(d);
    return extra ? 1 : 0;
}
