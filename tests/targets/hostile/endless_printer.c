/* endless_printer.c - prints a line of 1023 'x' over and over (forever
 * without an argument; N lines with `endless_printer N`, then an assertion
 * fails).
 *
 * BUGGY (assertion after N lines).  With `mdat run --max-output 1M`, the
 * failure's .stdout holds exactly 1048576 bytes and the report says the
 * output was cut; the program itself runs as it would (its writes succeed). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long lines = argc > 1 ? atol(argv[1]) : -1;
    char line[1024];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    long written = 0;
    for (long i = 0; lines < 0 || i < lines; i++)
        if (puts(line) >= 0)
            written++;
    assert(written != lines); /* BUG: every line was written */
    return 0;
}
