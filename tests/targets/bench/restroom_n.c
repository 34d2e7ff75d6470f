/* restroom_n.c - the unisex restroom with a capacity, sized from the
 * command line: restroom_n MEN WOMEN ROUNDS CAPACITY (default 6 6 10 4).
 *
 * CORRECT.  The benchmark program of scripts/bench ("restroom-12"): many
 * threads, a mutex, a condition variable, a few thousand visible steps.
 * Asserts that nobody of the other gender is inside and that the room is
 * never over capacity.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t room_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t room_changed = PTHREAD_COND_INITIALIZER;
static int inside[2];
static int rounds = 10, capacity = 4;

static void *person(void *arg)
{
    int g = (int)(long)arg;
    for (int r = 0; r < rounds; r++) {
        pthread_mutex_lock(&room_lock);
        while (inside[1 - g] > 0 || inside[g] >= capacity)
            pthread_cond_wait(&room_changed, &room_lock);
        inside[g]++;
        assert(inside[1 - g] == 0 && inside[g] <= capacity);
        pthread_mutex_unlock(&room_lock);

        pthread_mutex_lock(&room_lock);
        inside[g]--;
        pthread_cond_broadcast(&room_changed);
        pthread_mutex_unlock(&room_lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int men = argc > 1 ? atoi(argv[1]) : 6, women = argc > 2 ? atoi(argv[2]) : 6;
    if (argc > 3)
        rounds = atoi(argv[3]);
    if (argc > 4)
        capacity = atoi(argv[4]);
    int n = men + women;
    pthread_t *t = calloc((size_t)n, sizeof *t);
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, person, (void *)(long)(i < men ? 0 : 1));
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    free(t);
    puts("done");
    return 0;
}
