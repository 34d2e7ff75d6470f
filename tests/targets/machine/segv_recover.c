/* segv_recover: CORRECT (race-free). Two threads each try a store into a
 * page the program may not write, and a SIGSEGV handler recovers with
 * siglongjmp: a store that faults writes nothing, so the two are no race.
 * Prints "recovered 2" and exits 0. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static _Thread_local sigjmp_buf recover;
static int recovered;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int *read_only;

static void on_segv(int sig)
{
    (void)sig;
    siglongjmp(recover, 1);
}

static void *try_store(void *arg)
{
    if (sigsetjmp(recover, 1) == 0) {
        read_only[0] = (int)(long)arg;      /* faults: nothing is written */
        return NULL;
    }
    pthread_mutex_lock(&lock);
    recovered++;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    read_only = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (read_only == MAP_FAILED)
        return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sigaction(SIGSEGV, &sa, NULL);
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, try_store, (void *)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("recovered %d\n", recovered);
    return recovered == 2 && read_only[0] == 0 ? 0 : 1;
}
