/* reads_lock.c MODE - reads and a lock, with counts of classes derived by hand.
 *
 * CORRECT.  MODE "reads": T1 writes x once, T2 and T3 read it once each,
 * without a lock (a race by design: --races off).  The two reads commute;
 * each read falls before or after the write: 2 x 2 = 4 classes.
 *
 * MODE "lock": T1 writes x and T2 reads it, each inside lock(m) ... unlock(m).
 * Calls on m conflict with each other.  Which critical section comes first
 * is the only choice: a lock call that would block is no step of its own
 * (dpor does not run a thread whose lock is held; issue 26), so the second
 * thread takes m once the first has let it go: 2 classes.  (Before issue
 * 26 the blocked attempt and its wake-up were steps: 4.)
 *
 * The steps of main (creates, joins, exit) and the threads' starts conflict
 * with nothing here: they change no count.
 */
#include <pthread.h>
#include <string.h>

int x;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int locked;

static void *writer(void *arg)
{
    (void)arg;
    if (locked)
        pthread_mutex_lock(&m);
    x = 1;
    if (locked)
        pthread_mutex_unlock(&m);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    if (locked)
        pthread_mutex_lock(&m);
    int seen = x;
    if (locked)
        pthread_mutex_unlock(&m);
    return (void *)(long)seen;
}

int main(int argc, char **argv)
{
    locked = argc > 1 && strcmp(argv[1], "lock") == 0;
    pthread_t w, r1, r2;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r1, NULL, reader, NULL);
    if (!locked)
        pthread_create(&r2, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r1, NULL);
    if (!locked)
        pthread_join(r2, NULL);
    return 0;
}
