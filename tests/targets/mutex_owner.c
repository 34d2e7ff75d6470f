/* mutex_owner: correct. Two threads each lock and unlock an error-checking
 * mutex; glibc decides such an unlock by comparing the lock's owner with
 * the TID it caches in the thread's own block. Every execution is a fork
 * of mdat's template: if the child kept the template's cached TID, the
 * main thread's unlock would fail with EPERM and the owner would be the
 * template's. Prints "owner ok". The owner is read by libc's memcpy, not
 * as a step: a TID differs from run to run, and traces are compared. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t lock;
static void *(*volatile copy)(void *, const void *, size_t) = memcpy;

static void *locker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    int owner;
    copy(&owner, &lock.__data.__owner, sizeof owner);
    pid_t self = (pid_t)syscall(SYS_gettid);
    int unlocked = pthread_mutex_unlock(&lock);
    if (owner != self || unlocked != 0) {
        fprintf(stderr, "owner %d, thread %d, unlock %d\n", owner, (int)self, unlocked);
        abort();
    }
    return NULL;
}

int main(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&lock, &attr);
    pthread_t t;
    pthread_create(&t, NULL, locker, NULL);
    locker(NULL);
    pthread_join(t, NULL);
    printf("owner ok\n");
    return 0;
}
