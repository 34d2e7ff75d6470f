/* own_lib_user.c - two threads bump a counter that lives in the program's
 * own shared library (own_lib.c).
 *
 * BUGGY (assertion).  The lost update happens inside the library: mdat must
 * put breakpoints in the program's own libraries, as in the executable, to
 * find it (before, only the executable was scanned and no schedule failed).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

void bump(void);
int count_value(void);

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++)
        bump();
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert(count_value() == 6);                 /* FAILS: an update was lost */
    printf("count %d\n", count_value());
    return 0;
}
