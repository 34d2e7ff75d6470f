/* c11_threads.c - two threads take turns through C11's <threads.h>.
 *
 * CORRECT.  mtx_lock and cnd_wait are steps of their own, as
 * pthread_mutex_lock and pthread_cond_wait are ("lock m", "cond_wait c");
 * every schedule counts to 6.
 */
#include <assert.h>
#include <stdio.h>
#include <threads.h>

static mtx_t m;
static cnd_t c;
static int count, turn;

static int worker(void *arg)
{
    int me = *(int *)arg;
    for (int k = 0; k < 3; k++) {
        mtx_lock(&m);
        while (turn != me)
            cnd_wait(&c, &m);
        count++;
        turn = 1 - me;
        cnd_broadcast(&c);
        mtx_unlock(&m);
    }
    return 0;
}

int main(void)
{
    mtx_init(&m, mtx_plain);
    cnd_init(&c);
    thrd_t a, b;
    int ia = 0, ib = 1;
    thrd_create(&a, worker, &ia);
    thrd_create(&b, worker, &ib);
    thrd_join(a, NULL);
    thrd_join(b, NULL);
    assert(count == 6);
    printf("count %d\n", count);
    return 0;
}
