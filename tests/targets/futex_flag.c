/* futex_flag.c - a one-shot event built directly on the futex system call.
 *
 * CORRECT.  The waiter sleeps on the word `ready` until main sets it and
 * wakes it; the classic check-then-wait race is closed by FUTEX_WAIT's own
 * compare. Exists so that tests can check how mdat shows a hand-written
 * futex word: the waiter is "waiting-futex" on `ready`.
 * Expected mdat verdict: exit 0 in every schedule, "value = 42".
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int ready;
int value;

static void *waiter(void *arg)
{
    (void)arg;
    while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) == 0)
        syscall(SYS_futex, &ready, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);   /* FUTEX_WAIT: */
    printf("value = %d\n", value);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    value = 42;
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &ready, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    pthread_join(t, NULL);
    return 0;
}
