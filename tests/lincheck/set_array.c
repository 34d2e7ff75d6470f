/* A sorted-array set whose add and remove take a lock and whose contains
 * does not: it scans the array with atomic loads, so there is no data race
 * and it looks linearizable, but a remove shifting the elements left while
 * contains scans can move a present element behind the scan, and contains
 * answers 0 for an element that was there all along. lincheck must find
 * it (tests/e2e/lincheck.sh). */
#include <pthread.h>
#include <stdlib.h>
#include "set.h"

enum { SET_CAPACITY = 16 };

struct set {
    pthread_mutex_t lock;
    int count;
    int items[SET_CAPACITY];
};

struct set *set_new(void)
{
    struct set *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    return s;
}

static int load(const int *p)
{
    return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static void store(int *p, int v)
{
    __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}

int set_add(struct set *s, int x)
{
    pthread_mutex_lock(&s->lock);
    int n = load(&s->count), i = 0;
    while (i < n && load(&s->items[i]) < x)
        i++;
    int added = (i == n || load(&s->items[i]) != x) && n < SET_CAPACITY;
    if (added) {
        for (int j = n; j > i; j--)
            store(&s->items[j], load(&s->items[j - 1]));
        store(&s->items[i], x);
        store(&s->count, n + 1);
    }
    pthread_mutex_unlock(&s->lock);
    return added;
}

int set_remove(struct set *s, int x)
{
    pthread_mutex_lock(&s->lock);
    int n = load(&s->count), i = 0;
    while (i < n && load(&s->items[i]) != x)
        i++;
    int removed = i < n;
    if (removed) {
        for (int j = i; j + 1 < n; j++)
            store(&s->items[j], load(&s->items[j + 1]));
        store(&s->count, n - 1);
    }
    pthread_mutex_unlock(&s->lock);
    return removed;
}

int set_contains(struct set *s, int x)
{
    for (int i = 0; i < load(&s->count); i++)
        if (load(&s->items[i]) == x)
            return 1;
    return 0;
}
