/* self_modifying: correct. The program rewrites one of its own functions
 * while it runs: answer() returns 1 until main makes its page writable
 * and executable (mprotect) and patches its first instruction to return
 * 42 instead. A thread calls answer() before and after, in steps mdat
 * schedules, and prints both results: "before 1 after 42", natively and
 * under mdat (running ahead decodes the code in memory, not in the file). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int results[2];
static volatile int patched;

__attribute__((noinline, noclone)) int answer(void)
{
    return 1;
}

static void *worker(void *arg)
{
    (void)arg;
    int seen = 0;
    for (int round = 0; round < 2; round++) {
        for (;;) {
            pthread_mutex_lock(&lock);
            seen = patched;
            pthread_mutex_unlock(&lock);
            if (seen == round)
                break;
            usleep(1000);
        }
        results[round] = answer();
        pthread_mutex_lock(&lock);
        patched = round + 10;   /* done with this round */
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

static void wait_for(int value)
{
    for (;;) {
        pthread_mutex_lock(&lock);
        int seen = patched;
        pthread_mutex_unlock(&lock);
        if (seen == value)
            return;
        usleep(1000);
    }
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    wait_for(10);                          /* answer() ran once */
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t fn = (uintptr_t)answer, start = fn & ~(uintptr_t)(page - 1);
    if (mprotect((void *)start, (size_t)page * 2, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
        perror("mprotect");
        return 1;
    }
    static const unsigned char ret42[] = {0xb8, 42, 0, 0, 0, 0xc3};   /* mov eax, 42; ret */
    memcpy((void *)fn, ret42, sizeof ret42);
    mprotect((void *)start, (size_t)page * 2, PROT_READ | PROT_EXEC);
    pthread_mutex_lock(&lock);
    patched = 1;
    pthread_mutex_unlock(&lock);
    pthread_join(t, NULL);
    printf("before %d after %d\n", results[0], results[1]);
    return 0;
}
