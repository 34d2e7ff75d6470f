/* protections.c - a thread writes into a string literal, or reads a page
 * the program made inaccessible.
 *
 * BUGGY.  `./protections rodata` writes through a pointer to read-only data
 * (line marked RODATA), `./protections guard` reads a PROT_NONE page (line
 * marked GUARD). Both die of SIGSEGV in every schedule, under mdat too: mdat
 * performs plain loads and stores itself to save a single-step, with the
 * program's own page rights, so a forbidden access still faults.
 * Expected mdat verdict: crash (SIGSEGV) at the marked line.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

char *volatile message = "read-only";
volatile int *volatile guarded;

static void *write_rodata(void *arg)
{
    (void)arg;
    message[0] = 'R';                           /* RODATA: */
    return NULL;
}

static void *read_guard(void *arg)
{
    (void)arg;
    printf("%d\n", *guarded);                   /* GUARD: */
    return NULL;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "rodata";
    guarded = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pthread_t t;
    pthread_create(&t, NULL, strcmp(which, "guard") == 0 ? read_guard : write_rodata, NULL);
    pthread_join(t, NULL);
    puts(message);
    return 0;
}
