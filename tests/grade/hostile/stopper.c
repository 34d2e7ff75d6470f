/* Hostile submission: stops its parent (mdat) with SIGSTOP. */
#include <signal.h>
#include <unistd.h>

int main(void)
{
    kill(getppid(), SIGSTOP);
    return 0;
}
