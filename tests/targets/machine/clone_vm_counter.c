/* clone_vm_counter: BUGGY. Two children made with raw clone(CLONE_VM) (not
 * threads: no CLONE_THREAD, each its own process sharing the memory) add
 * to one counter without synchronisation: an update can be lost. mdat must
 * find it (a race or the assertion), or refuse the program with a clear
 * message; never "no failure". Natively it usually prints "counter 200". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <assert.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

enum { ROUNDS = 100, STACK = 64 * 1024 };

static volatile int counter;

static int add(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++)
        counter = counter + 1;      /* BUG: unsynchronised read and write */
    return 0;
}

int main(void)
{
    char *stacks[2];
    pid_t kids[2];
    for (int i = 0; i < 2; i++) {
        stacks[i] = malloc(STACK);
        kids[i] = clone(add, stacks[i] + STACK, CLONE_VM | SIGCHLD, NULL);
        if (kids[i] < 0)
            return 2;
    }
    for (int i = 0; i < 2; i++)
        waitpid(kids[i], NULL, 0);
    printf("counter %d\n", counter);
    assert(counter == 2 * ROUNDS);  /* FAILS: when an update was lost */
    return 0;
}
