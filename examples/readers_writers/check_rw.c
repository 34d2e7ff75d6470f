/* check_rw.c - output checker for the readers/writers programs.
 *
 * Reads the log on stdin: lines "enter R N", "exit R N", "enter W N" and
 * "exit W N" (a reader or writer number N starts or stops using the shared
 * data); other lines are ignored.  The log is valid when a writer is only
 * ever inside alone: no reader or other writer enters while a writer is
 * inside, and no writer enters while anybody is inside.  Readers may
 * overlap with each other.
 *
 * Exit status 0 when valid; otherwise one line on stdout describing the
 * first violation (with its log line number) and exit status 1.
 *
 *   ./rw | ./check_rw
 *   mdat run --check ./check_rw ./rw
 */
#include <stdio.h>
#include <string.h>

int main(void)
{
    char line[256], what[16], role[4];
    int id, lineno = 0;
    int readers = 0, writers = 0;       /* inside now */

    while (fgets(line, sizeof line, stdin)) {
        lineno++;
        if (sscanf(line, "%15s %3s %d", what, role, &id) != 3)
            continue;
        int enter = strcmp(what, "enter") == 0;
        if (!enter && strcmp(what, "exit") != 0)
            continue;
        if (strcmp(role, "R") == 0) {
            if (enter && writers > 0) {
                printf("log line %d: reader %d enters while a writer is inside\n", lineno, id);
                return 1;
            }
            readers += enter ? 1 : -1;
        } else if (strcmp(role, "W") == 0) {
            if (enter && (writers > 0 || readers > 0)) {
                printf("log line %d: writer %d enters while %d reader(s) and %d writer(s) are inside\n",
                       lineno, id, readers, writers);
                return 1;
            }
            writers += enter ? 1 : -1;
        }
        if (readers < 0 || writers < 0) {
            printf("log line %d: %s %d leaves but was not inside\n", lineno,
                   strcmp(role, "R") == 0 ? "reader" : "writer", id);
            return 1;
        }
    }
    if (readers || writers) {
        printf("log ended with %d reader(s) and %d writer(s) inside\n", readers, writers);
        return 1;
    }
    return 0;
}
