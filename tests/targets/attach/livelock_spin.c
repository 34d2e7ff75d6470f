/* livelock_spin: BUGGY (never ends). A thread spins on a flag that nobody
 * will ever set (the setter was meant to run first but never is), while
 * main waits to join it. The spin stores nothing and makes no system
 * call: nothing can change what it reads, whatever the schedule.
 * `livelock_spin handle`: a SIGUSR1 handler sets the flag, so the spin
 * ends when that signal comes (then it prints "went").
 * `livelock_spin late`: CORRECT: main sleeps 30 s, then sets the flag. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t go;

static void set_go(int sig)
{
    (void)sig;
    go = 1;
}

static void *spinner(void *arg)
{
    (void)arg;
    while (!go) {
        /* BUG: nobody sets go */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "handle") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = set_go;
        sigaction(SIGUSR1, &sa, NULL);
    }
    pthread_t t;
    pthread_create(&t, NULL, spinner, NULL);
    if (argc > 1 && strcmp(argv[1], "late") == 0) {
        sleep(30);
        go = 1;
    }
    pthread_join(t, NULL);
    puts("went");
    return 0;
}
