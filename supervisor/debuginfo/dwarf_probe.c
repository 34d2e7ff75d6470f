/* dwarf_probe: libdwarf's riskiest reading of a file, in a child process
 * (see dwarf_probe.h). The child reads what dwarf_info.c reads first and
 * where libdwarf 20210528 is known to free twice: the range and location
 * lists, and every unit's header with its unit DIE. It never writes
 * anything the parent sees: its only answer is how it ended. */
#include "supervisor/debuginfo/dwarf_probe.h"
#include "supervisor/debuginfo/error_text.h"

#include <errno.h>
#include <fcntl.h>
#include <libdwarf.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Reading a large program's headers takes milliseconds; one that loops is
 * as corrupt as one that crashes. */
enum { PROBE_LIMIT_MS = 20000 };

static void read_in_child(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        _exit(0);
    Dwarf_Debug dbg = NULL;
    Dwarf_Error error = NULL;
    if (dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &dbg, &error) != DW_DLV_OK)
        _exit(0);   /* an error libdwarf reports: dwarf_info.c says it */
    Dwarf_Unsigned count = 0;
    dwarf_load_rnglists(dbg, &count, &error);
    dwarf_load_loclists(dbg, &count, &error);
    for (;;) {
        Dwarf_Unsigned header_length, type_offset, next_offset;
        Dwarf_Half version, address_size, length_size, extension_size, unit_type;
        Dwarf_Off abbrev_offset;
        Dwarf_Sig8 signature;
        if (dwarf_next_cu_header_d(dbg, 1, &header_length, &version, &abbrev_offset, &address_size, &length_size,
                                   &extension_size, &signature, &type_offset, &next_offset, &unit_type,
                                   &error) != DW_DLV_OK)
            break;
        Dwarf_Die cu_die = NULL;
        if (dwarf_siblingof_b(dbg, NULL, 1, &cu_die, &error) == DW_DLV_OK)
            dwarf_dealloc_die(cu_die);
    }
    dwarf_finish(dbg, &error);
    _exit(0);
}

/* Waits for the child up to PROBE_LIMIT_MS; kills it after. */
static bool wait_child(pid_t child, int *status)
{
    for (int waited_ms = 0;; waited_ms++) {
        pid_t got = waitpid(child, status, WNOHANG);
        if (got == child)
            return true;
        if (got < 0 && errno != EINTR)
            return false;
        if (waited_ms >= PROBE_LIMIT_MS) {
            kill(child, SIGKILL);
            waitpid(child, status, 0);
            return true;
        }
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

bool dwarf_probe_survives(const char *path, char *err, size_t errlen)
{
    fflush(NULL);   /* nothing buffered is written twice */
    pid_t child = fork();
    if (child < 0)
        return true;
    if (child == 0) {
        /* Only the exit status counts: libdwarf's complaints and a
         * sanitizer's report stay out of mdat's output. */
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        read_in_child(path);
    }
    int status = 0;
    if (!wait_child(child, &status))
        return true;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    if (WIFSIGNALED(status)) {
        const char *name = sigabbrev_np(WTERMSIG(status));
        error_text(err, errlen, "libdwarf dies reading its unit headers or range lists, by SIG%s",
                   name ? name : "?");
    } else {
        error_text(err, errlen, "libdwarf fails reading its unit headers or range lists (status %d)",
                   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    return false;
}
