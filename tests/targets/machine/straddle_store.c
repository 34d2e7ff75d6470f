/* straddle_store: CORRECT. Stores and read-modify-writes that straddle a
 * writable page and a read-only one fault as a whole, as x86 does: nothing
 * of them is written in the writable page. A SIGSEGV handler recovers
 * with siglongjmp. Prints "4 faults, nothing written" and exits 0. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf recover;
static volatile int faults;

static void on_segv(int sig)
{
    (void)sig;
    faults++;
    siglongjmp(recover, 1);
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *mem = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED || mprotect(mem + page, (size_t)page, PROT_READ) != 0)
        return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sa.sa_flags = SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);

    volatile uint64_t *across8 = (volatile uint64_t *)(mem + page - 4);
    volatile uint32_t *across4 = (volatile uint32_t *)(mem + page - 2);
    if (sigsetjmp(recover, 1) == 0)
        *across8 = 0x1122334455667788u;         /* a plain store */
    if (sigsetjmp(recover, 1) == 0)
        *across4 = 0xaabbccddu;
    if (sigsetjmp(recover, 1) == 0)
        __asm__ volatile("addq $0x0101, %0" : "+m"(*across8));     /* a read-modify-write */
    if (sigsetjmp(recover, 1) == 0)
        __atomic_fetch_add(across4, 1, __ATOMIC_SEQ_CST);          /* a locked one */
    int written = 0;
    for (long i = 0; i < page; i++)
        written |= mem[i];
    printf("%d faults, %s\n", faults, written ? "SOMETHING WRITTEN" : "nothing written");
    return faults == 4 && !written ? 0 : 1;
}
