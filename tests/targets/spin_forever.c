/* spin_forever.c - a thread spins in an empty infinite loop.
 *
 * BUGGY (never terminates).  The spinner thread executes `for (;;) { }`,
 * which at -O0 compiles to a single `jmp` to itself: no memory access, no
 * syscall, so mdat never gets a visible operation from it.  main waits in
 * pthread_join forever.
 *
 * Expected mdat verdict: TIMEOUT / HANG (watchdog), naming the spinner thread
 * at the line marked BUG - mdat itself must not hang.  Not a deadlock: the
 * spinner is runnable.
 * Natively: hangs (check with `timeout 2`).
 */
#include <pthread.h>
#include <stdio.h>

int started = 0;

static void *spinner(void *arg)
{
    (void)arg;
    started = 1;
    for (;;) { }                     /* BUG: pure register loop, never ends */
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, spinner, NULL);
    pthread_join(t, NULL);
    printf("unreachable\n");
    return 0;
}
