/* heidi.c - sample submission: runs into the MEMORY LIMIT.
 *
 * Before doing the account assignment (see alice.c), heidi "caches" the log
 * in 32 MiB blocks that she never frees (writing only the start of each),
 * until malloc fails; then she says so on stderr and aborts. With mdat grade's address-space
 * limit (--max-memory) that happens early and the same way every time.
 * Expected verdict: crash (SIGABRT), with "out of memory after N MiB" from
 * the program's stderr in the details.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (32u << 20)
#define HEADER 4096

int main(void)
{
    size_t total = 0;
    for (;;) {
        char *p = malloc(BLOCK);
        if (!p) {
            fprintf(stderr, "out of memory after %zu MiB\n", total >> 20);
            abort();                    /* BUG: allocates without bound */
        }
        memset(p, 1, HEADER);
        total += BLOCK;
    }
}
