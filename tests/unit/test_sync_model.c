/* Unit tests for the pieces behind the sync-object view: the registry of
 * objects (supervisor/sync_model), the heap blocks that name unnamed memory
 * (supervisor/heap_map), and the reading of glibc's objects
 * (supervisor/glibc_sync), the latter on real objects of this very process
 * read through /proc/self/mem, as the supervisor reads a tracee's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>

#include <cmocka.h>

#include "supervisor/model/glibc_sync.h"
#include "supervisor/process/heap_map.h"
#include "supervisor/model/sync_model.h"

/* ---- registry ---- */

static void registry_keeps_first_seen_order_and_finds_by_address(void **unused)
{
    struct sync_model m;
    sync_model_init(&m);
    sync_model_add(&m, SYNC_SEMAPHORE, 0x5000, "items");
    sync_model_add(&m, SYNC_MUTEX, 0x1000, "lock");
    sync_model_add(&m, SYNC_CONDVAR, 0x3000, "ready");
    assert_int_equal(m.n, 3);
    assert_string_equal(m.objs[0].name, "items");      /* order of discovery */
    assert_string_equal(m.objs[1].name, "lock");
    assert_string_equal(m.objs[2].name, "ready");

    assert_ptr_equal(sync_model_get(&m, 0x1000), &m.objs[1]);
    assert_null(sync_model_get(&m, 0x1004));
    /* A futex word inside an object belongs to it: a condvar is 48 bytes. */
    assert_ptr_equal(sync_model_containing(&m, 0x3000 + 47), &m.objs[2]);
    assert_null(sync_model_containing(&m, 0x3000 + 48));
    assert_null(sync_model_containing(&m, 0xfff));
    assert_ptr_equal(sync_model_containing(&m, 0x5000 + 31), &m.objs[0]);

    /* Adding again finds the same object and keeps its name; a plain futex
     * word takes the kind it turns out to be. */
    assert_ptr_equal(sync_model_add(&m, SYNC_MUTEX, 0x1000, "other"), &m.objs[1]);
    assert_string_equal(m.objs[1].name, "lock");
    struct sync_object *word = sync_model_add(&m, SYNC_FUTEX, 0x7000, "flag");
    assert_int_equal(word->kind, SYNC_FUTEX);
    assert_int_equal(sync_model_add(&m, SYNC_MUTEX, 0x7000, "x")->kind, SYNC_MUTEX);
    assert_int_equal(sync_model_add(&m, SYNC_SEMAPHORE, 0x7000, "x")->kind, SYNC_MUTEX);

    /* Many objects in any order stay findable. */
    for (uint64_t i = 0; i < 500; i++)
        sync_model_add(&m, SYNC_MUTEX, 0x100000 + ((i * 7919) % 500) * 64, "m");
    assert_int_equal(m.n, 504);
    for (uint64_t i = 0; i < 500; i++) {
        const struct sync_object *o = sync_model_containing(&m, 0x100000 + i * 64 + 8);
        assert_non_null(o);
        assert_int_equal(o->addr, 0x100000 + i * 64);
    }
    sync_model_free(&m);
}

/* ---- heap blocks ---- */

static void heap_blocks_are_numbered_found_and_forgotten(void **unused)
{
    struct heap_map h;
    heap_map_init(&h);
    assert_int_equal(heap_map_add(&h, 0x2000, 16, "malloc", 0x401000), 1);
    assert_int_equal(heap_map_add(&h, 0x1000, 64, "calloc", 0x401010), 2);
    assert_int_equal(heap_map_add(&h, 0x3000, 0, "malloc", 0x401020), 3);
    const struct heap_block *b = heap_map_find(&h, 0x1000 + 63);
    assert_non_null(b);
    assert_int_equal(b->id, 2);
    assert_string_equal(b->how, "calloc");
    assert_null(heap_map_find(&h, 0x1000 + 64));
    assert_null(heap_map_find(&h, 0x2010));
    assert_int_equal(heap_map_find(&h, 0x3000)->id, 3);    /* malloc(0) still has an address */
    assert_null(heap_map_find(&h, 0x3001));

    assert_true(heap_map_remove(&h, 0x2000, NULL));
    assert_false(heap_map_remove(&h, 0x2000, NULL));
    assert_false(heap_map_remove(&h, 0x1008, NULL));               /* only by its start */
    assert_null(heap_map_find(&h, 0x2000));

    /* A block freed behind mdat's back is replaced by what overlaps it. */
    assert_int_equal(heap_map_add(&h, 0x1020, 64, "malloc", 0x401030), 4);
    assert_null(heap_map_find(&h, 0x1000));
    assert_int_equal(heap_map_find(&h, 0x1020 + 63)->id, 4);
    assert_int_equal(h.n, 2);
    heap_map_free(&h);
}

/* ---- glibc's objects, read like a tracee's ---- */

static int self_mem(void)
{
    int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    return fd;
}

static void mutexes_show_holder_type_and_count(void **unused)
{
    int fd = self_mem();
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_t rec, plain = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_init(&rec, &attr);
    struct glibc_mutex m;

    assert_true(glibc_read_mutex(fd, (uint64_t)(uintptr_t)&plain, &m));
    assert_false(m.locked);
    assert_int_equal(m.owner_tid, 0);
    assert_string_equal(m.type, "normal");
    pthread_mutex_lock(&plain);
    assert_true(glibc_read_mutex(fd, (uint64_t)(uintptr_t)&plain, &m));
    assert_true(m.locked);
    assert_int_equal(m.owner_tid, gettid());
    pthread_mutex_unlock(&plain);

    pthread_mutex_lock(&rec);
    pthread_mutex_lock(&rec);
    assert_true(glibc_read_mutex(fd, (uint64_t)(uintptr_t)&rec, &m));
    assert_string_equal(m.type, "recursive");
    assert_int_equal(m.count, 2);
    assert_int_equal(m.owner_tid, gettid());
    pthread_mutex_unlock(&rec);
    pthread_mutex_unlock(&rec);

    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_t checked;
    pthread_mutex_init(&checked, &attr);
    assert_true(glibc_read_mutex(fd, (uint64_t)(uintptr_t)&checked, &m));
    assert_string_equal(m.type, "errorcheck");
    assert_false(glibc_read_mutex(fd, 0x10, &m));             /* unmapped */
    close(fd);
}

static void semaphores_barriers_rwlocks_spinlocks(void **unused)
{
    int fd = self_mem();
    sem_t s;
    sem_init(&s, 0, 3);
    int64_t v;
    assert_true(glibc_read_sem(fd, (uint64_t)(uintptr_t)&s, &v));
    assert_int_equal(v, 3);
    sem_wait(&s);
    assert_true(glibc_read_sem(fd, (uint64_t)(uintptr_t)&s, &v));
    assert_int_equal(v, 2);

    pthread_barrier_t b;
    pthread_barrier_init(&b, NULL, 4);
    int limit;
    assert_true(glibc_read_barrier_limit(fd, (uint64_t)(uintptr_t)&b, &limit));
    assert_int_equal(limit, 4);

    pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
    struct glibc_rwlock r;
    pthread_rwlock_rdlock(&rw);
    pthread_rwlock_rdlock(&rw);
    assert_true(glibc_read_rwlock(fd, (uint64_t)(uintptr_t)&rw, &r));
    assert_int_equal(r.readers, 2);
    assert_int_equal(r.writer_tid, 0);
    pthread_rwlock_unlock(&rw);
    pthread_rwlock_unlock(&rw);
    pthread_rwlock_wrlock(&rw);
    assert_true(glibc_read_rwlock(fd, (uint64_t)(uintptr_t)&rw, &r));
    assert_int_equal(r.readers, 0);
    assert_int_equal(r.writer_tid, gettid());
    pthread_rwlock_unlock(&rw);

    pthread_spinlock_t spin;
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    bool locked = true;
    assert_true(glibc_read_spinlock(fd, (uint64_t)(uintptr_t)&spin, &locked));
    assert_false(locked);
    pthread_spin_lock(&spin);
    assert_true(glibc_read_spinlock(fd, (uint64_t)(uintptr_t)&spin, &locked));
    assert_true(locked);
    pthread_spin_unlock(&spin);
    assert_int_equal(glibc_sync_size(SYNC_MUTEX), sizeof(pthread_mutex_t));
    assert_int_equal(glibc_sync_size(SYNC_CONDVAR), sizeof(pthread_cond_t));
    assert_int_equal(glibc_sync_size(SYNC_SEMAPHORE), sizeof(sem_t));
    assert_int_equal(glibc_sync_size(SYNC_BARRIER), sizeof(pthread_barrier_t));
    assert_int_equal(glibc_sync_size(SYNC_RWLOCK), sizeof(pthread_rwlock_t));
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_keeps_first_seen_order_and_finds_by_address),
        cmocka_unit_test(heap_blocks_are_numbered_found_and_forgotten),
        cmocka_unit_test(mutexes_show_holder_type_and_count),
        cmocka_unit_test(semaphores_barriers_rwlocks_spinlocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
