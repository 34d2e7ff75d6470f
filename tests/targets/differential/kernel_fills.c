/* kernel_fills.c [pread] - one thread read(2)s three bytes from a pipe
 * (with "pread": pread(2)s them from a file) into a buffer another thread
 * looks at without synchronisation: what it sees depends on whether the
 * kernel filled the buffer first.
 *
 * RACY by design, run with --races off (mdat's race detector does not see
 * the kernel's stores); two outcomes: "peeker saw o" and "peeker saw n".
 * dpor once explored one class: the kernel's write into the buffer was
 * part of no step's operation.
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ends[2];
static int use_pread;
static char buffer[8] = "old";
static char seen;

static void *reader(void *arg)
{
    (void)arg;
    ssize_t got = use_pread ? pread(ends[0], buffer, 3, 0) : read(ends[0], buffer, 3);
    (void)got;
    return NULL;
}

static void *peeker(void *arg)
{
    (void)arg;
    seen = buffer[0];
    return NULL;
}

int main(int argc, char **argv)
{
    use_pread = argc > 1 && strcmp(argv[1], "pread") == 0;
    if (use_pread) {
        char name[] = "/tmp/kernel_fills_XXXXXX";
        ends[0] = ends[1] = mkstemp(name);
        if (ends[0] < 0)
            return 2;
        unlink(name);
    } else if (pipe(ends) != 0) {
        return 2;
    }
    if (write(ends[1], "new", 3) != 3)
        return 2;
    pthread_t r, p;
    pthread_create(&r, NULL, reader, NULL);
    pthread_create(&p, NULL, peeker, NULL);
    pthread_join(r, NULL);
    pthread_join(p, NULL);
    printf("peeker saw %c\n", seen);
    return 0;
}
