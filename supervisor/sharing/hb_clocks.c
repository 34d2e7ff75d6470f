/* hb_clocks: vector clocks per thread (dense, by id) and per object
 * (open addressing by the object's address). See hb_clocks.h. */
#include "supervisor/sharing/hb_clocks.h"
#include "supervisor/sharing/vector_clock.h"

#include <stdlib.h>
#include <string.h>

struct hb_thread {
    struct vector_clock vc;
    bool started, ended;
};

struct hb_object {
    uint64_t key;           /* 0: empty slot */
    struct vector_clock vc;
};

struct hb_clocks {
    struct hb_thread *threads;      /* index = thread id */
    int n_threads;
    struct hb_object *objects;
    size_t cap_objects, n_objects;  /* cap: a power of two */
};

/* Above any user address: the ends of threads are objects of their own. */
uint64_t hb_exit_object(int thread)
{
    return (1ull << 62) | (uint64_t)(unsigned)thread;
}

struct hb_clocks *hb_clocks_new(void)
{
    struct hb_clocks *hb = calloc(1, sizeof *hb);
    if (!hb)
        abort();
    return hb;
}

void hb_clocks_free(struct hb_clocks *hb)
{
    if (!hb)
        return;
    for (int i = 0; i < hb->n_threads; i++)
        vc_free(&hb->threads[i].vc);
    for (size_t i = 0; i < hb->cap_objects; i++)
        vc_free(&hb->objects[i].vc);
    free(hb->threads);
    free(hb->objects);
    free(hb);
}

static struct hb_thread *thread_of(struct hb_clocks *hb, int id)
{
    if (id >= hb->n_threads) {
        int n = hb->n_threads ? hb->n_threads : 8;
        while (n <= id)
            n *= 2;
        struct hb_thread *t = realloc(hb->threads, (size_t)n * sizeof *t);
        if (!t)
            abort();
        memset(t + hb->n_threads, 0, (size_t)(n - hb->n_threads) * sizeof *t);
        hb->threads = t;
        hb->n_threads = n;
    }
    return &hb->threads[id];
}

static size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static void grow_objects(struct hb_clocks *hb)
{
    size_t cap = hb->cap_objects ? hb->cap_objects * 2 : 64;
    struct hb_object *o = calloc(cap, sizeof *o);
    if (!o)
        abort();
    for (size_t i = 0; i < hb->cap_objects; i++) {
        if (!hb->objects[i].key)
            continue;
        size_t s = slot_of(hb->objects[i].key, cap);
        while (o[s].key)
            s = (s + 1) & (cap - 1);
        o[s] = hb->objects[i];
    }
    free(hb->objects);
    hb->objects = o;
    hb->cap_objects = cap;
}

/* The object's clock; NULL when it has none and create is false. */
static struct vector_clock *object_clock(struct hb_clocks *hb, uint64_t key, bool create)
{
    if (key == 0)
        key = 1;    /* 0 marks an empty slot */
    if (hb->cap_objects) {
        for (size_t s = slot_of(key, hb->cap_objects);; s = (s + 1) & (hb->cap_objects - 1)) {
            if (hb->objects[s].key == key)
                return &hb->objects[s].vc;
            if (!hb->objects[s].key)
                break;
        }
    }
    if (!create)
        return NULL;
    if ((hb->n_objects + 1) * 2 > hb->cap_objects)
        grow_objects(hb);
    size_t s = slot_of(key, hb->cap_objects);
    while (hb->objects[s].key)
        s = (s + 1) & (hb->cap_objects - 1);
    hb->objects[s].key = key;
    vc_init(&hb->objects[s].vc);
    hb->n_objects++;
    return &hb->objects[s].vc;
}

void hb_thread_start(struct hb_clocks *hb, int child, int parent)
{
    struct hb_thread *c = thread_of(hb, child);
    if (parent > 0 && parent < hb->n_threads && hb->threads[parent].started) {
        vc_copy(&c->vc, &hb->threads[parent].vc);
        vc_tick(&hb->threads[parent].vc, (uint32_t)parent);
    }
    vc_set(&c->vc, (uint32_t)child, 1);
    c->started = true;
    c->ended = false;
}

void hb_thread_end(struct hb_clocks *hb, int thread)
{
    struct hb_thread *t = thread_of(hb, thread);
    if (t->ended)
        return;
    vc_join(object_clock(hb, hb_exit_object(thread), true), &t->vc);
    t->ended = true;
}

bool hb_thread_ended(const struct hb_clocks *hb, int thread)
{
    return thread > 0 && thread < hb->n_threads && hb->threads[thread].ended;
}

void hb_release(struct hb_clocks *hb, int thread, uint64_t object)
{
    struct hb_thread *t = thread_of(hb, thread);
    vc_join(object_clock(hb, object, true), &t->vc);
    vc_tick(&t->vc, (uint32_t)thread);
}

void hb_acquire(struct hb_clocks *hb, int thread, uint64_t object)
{
    const struct vector_clock *o = object_clock(hb, object, false);
    if (o)
        vc_join(&thread_of(hb, thread)->vc, o);
}

uint32_t hb_epoch(const struct hb_clocks *hb, int thread)
{
    return thread > 0 && thread < hb->n_threads ? vc_get(&hb->threads[thread].vc, (uint32_t)thread) : 0;
}

bool hb_knows(const struct hb_clocks *hb, int thread, int other, uint32_t epoch)
{
    if (thread <= 0 || thread >= hb->n_threads)
        return false;
    return vc_get(&hb->threads[thread].vc, (uint32_t)other) >= epoch;
}

int hb_max_thread(const struct hb_clocks *hb)
{
    for (int i = hb->n_threads - 1; i > 0; i--)
        if (hb->threads[i].started)
            return i;
    return 0;
}
