/* writer_starvation.c - readers that never let the writer in.
 *
 * BUGGY (livelock).  Two readers loop forever, each taking the read side of a
 * hand-made readers-writer lock (a reader count and a writer flag guarded by
 * a mutex) and giving it back; the writer only enters when no reader is
 * inside, checks, gives way with sched_yield and tries again.  Under a
 * schedule where the readers' sections always overlap the writer is starved
 * for ever, and the program never ends even though every thread keeps
 * running: a livelock.  The readers stop only once the writer has written.
 * mdat must report `livelock' (not a timeout, not incomplete).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static int readers_inside;
static int written;
static int shared_value;

static void *reader(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&state_lock);
        readers_inside++;                       /* BUG: readers never wait for a waiting writer */
        int done = written;
        pthread_mutex_unlock(&state_lock);
        int seen = shared_value;
        (void)seen;
        pthread_mutex_lock(&state_lock);
        readers_inside--;
        pthread_mutex_unlock(&state_lock);
        if (done)
            return NULL;
    }
}

static void *writer(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&state_lock);
        if (readers_inside == 0) {
            shared_value = 42;
            written = 1;
            pthread_mutex_unlock(&state_lock);
            return NULL;
        }
        pthread_mutex_unlock(&state_lock);
        sched_yield();
    }
}

int main(void)
{
    pthread_t r1, r2, w;
    pthread_create(&r1, NULL, reader, NULL);
    pthread_create(&r2, NULL, reader, NULL);
    pthread_create(&w, NULL, writer, NULL);
    pthread_join(w, NULL);
    pthread_join(r1, NULL);
    pthread_join(r2, NULL);
    printf("value %d\n", shared_value);
    return 0;
}
