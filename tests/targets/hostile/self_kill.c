/* self_kill.c - a program that ends itself with SIGKILL: a worker thread
 * sends it to the program's own process (or, given "child", a forked child
 * sends it to its parent).  A SIGKILL leaves no signal-delivery stop for
 * mdat to see: this tells one the program sent from one sent from outside.
 *
 * BUGGY by design.  Expected mdat verdict: crash, "the program was killed
 * by SIGKILL, sent by T2 at self_kill.c:<KILL: line>" (or "sent by a child
 * process of it"), in every schedule, and the replay reproduces it. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *worker(void *arg)
{
    (void)arg;
    kill(getpid(), SIGKILL);   /* KILL: */
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        pid_t parent = getpid();
        if (fork() == 0) {
            kill(parent, SIGKILL);
            _exit(0);
        }
        for (;;)
            pause();
    }
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    puts("not reached");
    return 0;
}
