/* Hostile submission: a daemon (setsid, fork) meant to outlive grading. */
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            execlp("sleep", "sleep", "4242", (char *)NULL);
            _exit(1);
        }
        _exit(0);
    }
    return 0;
}
