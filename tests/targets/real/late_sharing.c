/* late_sharing.c - two threads take turns on a locked counter for a long
 * time, and only at their very end both add to a second counter on a page
 * of its own, with relaxed atomics (no lock orders the two first touches).
 *
 * CORRECT (prints "late 2").  With "racy" the two adds are plain ones, a
 * data race (BUG).  Under page ownership that page is found shared only in
 * the last steps: an execution (and a recording that keeps only the last
 * steps) starts over with it observed after it has begun telling those
 * steps (e2e.recording_restart).
 * Usage: late_sharing ROUNDS [racy].
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long counter;
static long rounds = 20000;
static int racy;
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    _Alignas(4096) long late;
} late_page;

static void *worker(void *arg)
{
    (void)arg;
    for (long i = 0; i < rounds; i++) {
        pthread_mutex_lock(&counter_lock);
        counter++;
        pthread_mutex_unlock(&counter_lock);
    }
    if (racy)
        late_page.late++;   /* BUG (racy mode): no lock orders the two adds */
    else
        __atomic_fetch_add(&late_page.late, 1, __ATOMIC_RELAXED);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rounds = atol(argv[1]);
    racy = argc > 2 && argv[2][0] == 'r';
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("late %ld\n", late_page.late);
    return 0;
}
