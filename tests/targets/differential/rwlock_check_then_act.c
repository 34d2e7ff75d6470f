/* rwlock_check_then_act.c [write] - two threads each check under the read
 * lock that nobody has claimed a value, then claim it under the write lock.
 *
 * BUGGY with no argument: both may check before either claims, so both
 * claim and the assertion in main fails (claims == 2).
 * CORRECT with "write": the check and the claim are under one write lock;
 * one outcome, "claims 1".
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int claims, whole_write;

static void *claim(void *arg)
{
    (void)arg;
    if (whole_write) {
        pthread_rwlock_wrlock(&rw);
        if (claims == 0)
            claims++;
        pthread_rwlock_unlock(&rw);
        return NULL;
    }
    pthread_rwlock_rdlock(&rw);
    int free_now = claims == 0;
    pthread_rwlock_unlock(&rw);
    if (free_now) {     /* BUG: the check is stale once the read lock is gone */
        pthread_rwlock_wrlock(&rw);
        claims++;
        pthread_rwlock_unlock(&rw);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    whole_write = argc > 1 && strcmp(argv[1], "write") == 0;
    pthread_t a, b;
    pthread_create(&a, NULL, claim, NULL);
    pthread_create(&b, NULL, claim, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("claims %d\n", claims);
    assert(claims == 1);    /* FAILS: both checked before either claimed */
    return 0;
}
