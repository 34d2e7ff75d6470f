/* Hostile submission: forks until it cannot, every child sleeping. */
#include <unistd.h>

int main(void)
{
    for (int i = 0; i < 100000; i++) {
        pid_t pid = fork();
        if (pid < 0)
            break;
        if (pid == 0) {
            sleep(1000);
            _exit(0);
        }
    }
    return 0;
}
