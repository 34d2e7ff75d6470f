/* Hostile submission: reads what it must not (secrets, other students'
 * work); crashes if any of it can be read, so its verdict says so. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void must_not_read(const char *path)
{
    int fd = open(path, O_RDONLY);
    char c;
    if (fd >= 0 && read(fd, &c, 1) == 1) {
        fprintf(stderr, "read %s\n", path);
        abort();
    }
    if (fd >= 0)
        close(fd);
}

int main(void)
{
    must_not_read("/etc/shadow");
    const char *home = getenv("HOSTILE_SECRET");
    if (home)
        must_not_read(home);
    const char *other = getenv("HOSTILE_OTHER");
    if (other)
        must_not_read(other);
    return 0;
}
