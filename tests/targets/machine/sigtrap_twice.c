/* sigtrap_twice: CORRECT. A program that handles its own SIGTRAP: it
 * raises it twice and runs an int3 of its own twice, and its handler
 * counts each. Prints "4 traps" and exits 0. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile int traps;

static void on_trap(int sig)
{
    (void)sig;
    traps++;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_trap;
    sigaction(SIGTRAP, &sa, NULL);
    raise(SIGTRAP);
    raise(SIGTRAP);
    __asm__ volatile("int3");
    __asm__ volatile("int3");
    printf("%d traps\n", traps);
    return traps == 4 ? 0 : 1;
}
