/* Hostile submission: reads what is not its own. Files everyone may read
 * outside its sandbox (HOSTILE_TEACHER_FILE, the teacher's 0644 notes;
 * HOSTILE_OTHER_SOURCE, another student's source next to the graded
 * programs), the command line of every other process it can see in /proc
 * (mdat grade's, forked into the sandbox, names the class and the
 * checker: HOSTILE_MARKER is one of its words; its environment is no
 * secret: the program gets it), and a unix socket in the teacher's
 * directory (HOSTILE_SOCKET), to which it would send a line. Tries them
 * all, says which worked, and then aborts: the verdict is then a crash. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int found;

static void got(const char *what, const char *path)
{
    fprintf(stderr, "snooper: %s %s\n", what, path);
    found++;
}

static void must_not_read(const char *path)
{
    int fd = path ? open(path, O_RDONLY) : -1;
    char c;
    if (fd >= 0 && read(fd, &c, 1) == 1)
        got("read", path);
    if (fd >= 0)
        close(fd);
}

/* The command lines of processes that are not ours, when they hold
 * marker (a word of the grader's command line). */
static void must_not_see_others(const char *marker)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t self = getpid();
    while (d && (e = readdir(d)) != NULL) {
        pid_t pid = atoi(e->d_name);
        if (pid <= 0 || pid == self)
            continue;
        const char *files[] = {"cmdline"};
        for (int i = 0; i < 1; i++) {
            char path[64], buf[8192];
            snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, files[i]);
            int fd = open(path, O_RDONLY);
            if (fd < 0)
                continue;
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            for (ssize_t k = 0; k < n; k++)
                if (buf[k] == '\0')
                    buf[k] = ' ';
            buf[n > 0 ? n : 0] = '\0';
            if (marker && strstr(buf, marker)) {
                got("saw the grader's words in", path);
                break;
            }
        }
    }
    if (d)
        closedir(d);
}

static void must_not_connect(const char *path)
{
    if (!path)
        return;
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    if (s >= 0 && connect(s, (struct sockaddr *)&addr, sizeof addr) == 0) {
        static const char line[] = "a line from the snooper\n";
        if (write(s, line, sizeof line - 1) > 0)
            got("connected and wrote to", path);
    }
    if (s >= 0)
        close(s);
}

int main(void)
{
    must_not_read(getenv("HOSTILE_TEACHER_FILE"));
    must_not_read(getenv("HOSTILE_OTHER_SOURCE"));
    must_not_see_others(getenv("HOSTILE_MARKER"));
    must_not_connect(getenv("HOSTILE_SOCKET"));
    if (found)
        abort();
    return 0;
}
