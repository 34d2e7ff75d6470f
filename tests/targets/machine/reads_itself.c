/* reads_itself: correct. The program reads its own machine code: a
 * checksum of the bytes of tally(), a function whose stores mdat has
 * breakpoints on, computed by the program's own loop (byte loads mdat
 * carries out) before and after two threads run tally() under a lock.
 * Prints the checksum and the count, the same natively and under mdat:
 * mdat shows the program its code as the compiler wrote it, not its own
 * int3s. (A read of code inside a library, memcmp(tally, ...), would
 * see them: README, "Known limits".) */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long count;

__attribute__((noinline)) void tally(void)
{
    pthread_mutex_lock(&lock);
    count += 1;
    pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) void end_of_tally(void)
{
}

static unsigned checksum(void)
{
    const volatile unsigned char *p = (const volatile unsigned char *)tally;
    const volatile unsigned char *end = (const volatile unsigned char *)end_of_tally;
    unsigned sum = 0;
    if (end <= p || end - p > 4096)
        end = p + 64;
    for (; p < end; p++)
        sum = sum * 31 + *p;
    return sum;
}

static void *worker(void *arg)
{
    for (int i = 0; i < 100; i++)
        tally();
    return arg;
}

int main(void)
{
    unsigned before = checksum();
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("code %08x %08x count %ld\n", before, checksum(), count);
    return 0;
}
