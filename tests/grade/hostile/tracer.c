/* Hostile submission: ptrace-attaches to its parent (mdat) and keeps it. */
#include <sys/ptrace.h>
#include <unistd.h>

int main(void)
{
    ptrace(PTRACE_ATTACH, getppid(), 0, 0);
    sleep(1000);
    return 0;
}
