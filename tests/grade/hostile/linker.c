/* Hostile submission: leaves in its directory what a teacher's tools
 * would follow or choke on once copied out of the sandbox: symbolic links
 * to /etc/passwd, to /root, a results.json pointing into /root, a link in
 * a subdirectory, and a fifo. The copy-out must copy none of them and
 * say what it skipped; the verdict is ok. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
    int r = symlink("/etc/passwd", "passwd") | symlink("/root", "root") |
            symlink("/root/results.json", "results.json");
    mkdir("sub", 0755);
    r |= symlink("/etc/shadow", "sub/shadow");
    r |= mkfifo("fifo", 0644);
    FILE *f = fopen("honest.txt", "w");
    if (f) {
        fputs("a regular file, copied out\n", f);
        fclose(f);
    }
    printf("links made: %s\n", r == 0 ? "all" : "not all");
    return 0;
}
