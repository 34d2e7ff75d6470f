/* Unit tests for supervisor/detect/race_detector (and vector_clock): the
 * happens-before rules on synthetic step sequences, as the engine would
 * report them. The racy patterns (lost update, a flag without atomics,
 * double-checked init, an unprotected list insert) must be found with both
 * accesses named; the correctly synchronized ones (mutex, spinlock over
 * xchg, C11 atomics, create/join, semaphore, condition variable, barrier,
 * rwlock, futex wake, pipe, thread-local data, a queue hand-over) must not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "supervisor/detect/race_detector.h"
#include "supervisor/sharing/vector_clock.h"
#include "supervisor/code/code_map.h"

/* Addresses of the synthetic program. */
#define COUNTER 0x404040ull
#define DATA 0x404048ull
#define FLAG 0x404050ull
#define INSTANCE 0x404058ull
#define HEAD 0x404060ull
#define LOCK 0x404080ull
#define MUTEX 0x4040c0ull
#define SEM 0x404100ull
#define COND 0x404140ull
#define BARRIER 0x404180ull
#define RWLOCK 0x4041c0ull
#define NODE 0x4052a0ull
#define TLS2 0x7ffff7d8a6f8ull
#define TLS3 0x7ffff758a6f8ull
#define PTHREAD2 0x7ffff7d8a700ull
#define PTHREAD3 0x7ffff758a700ull

struct fixture {
    struct race_detector *d;
    uint64_t step;
    struct race last;
};

static struct fixture fx;

static int setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    fx.d = race_detector_new();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    race_detector_free(fx.d);
    return 0;
}

static struct visible_op op_of(enum visible_kind kind, uint64_t addr, uint8_t size, uint64_t pc)
{
    return (struct visible_op){.kind = kind, .addr = addr, .size = size, .pc = pc, .fn = -1};
}

/* One step; returns whether it raced (the race in fx.last). */
static bool step_full(int thread, struct visible_op op, bool waiting, uint64_t mutex, bool atomic_object)
{
    struct race_step s = {++fx.step, thread, &op, waiting, mutex, atomic_object};
    memset(&fx.last, 0, sizeof fx.last);
    return race_detector_step(fx.d, &s, &fx.last);
}

static bool rd(int t, uint64_t addr, uint64_t pc) { return step_full(t, op_of(VIS_READ, addr, 4, pc), false, 0, false); }
static bool wr(int t, uint64_t addr, uint64_t pc) { return step_full(t, op_of(VIS_WRITE, addr, 4, pc), false, 0, false); }
static bool rd8(int t, uint64_t addr, uint64_t pc) { return step_full(t, op_of(VIS_READ, addr, 8, pc), false, 0, false); }
static bool wr8(int t, uint64_t addr, uint64_t pc) { return step_full(t, op_of(VIS_WRITE, addr, 8, pc), false, 0, false); }

static void call_waiting(int t, enum model_fn fn, uint64_t obj, bool waiting)
{
    struct visible_op op = op_of(VIS_SYNC, obj, 0, 0x401000 + (uint64_t)fn);
    op.fn = (int16_t)fn;
    if (fn == MF_THREAD_JOIN)
        op.kind = VIS_JOIN;
    assert_false(step_full(t, op, waiting, 0, false));
}

static void call(int t, enum model_fn fn, uint64_t obj) { call_waiting(t, fn, obj, false); }
static void resume(int t, bool waiting) { assert_false(step_full(t, op_of(VIS_RESUME, 0, 0, 0), waiting, 0, false)); }

/* T1 creates thread child (its pthread_create step). */
static void spawn(int child)
{
    struct visible_op op = op_of(VIS_SPAWN, 0, 0, 0x401200);
    op.fn = MF_THREAD_CREATE;
    race_detector_thread_created(fx.d, 1, child);
    assert_false(step_full(1, op, false, 0, false));
}

/* Thread t runs its last step and exits. */
static void finish(int t, uint64_t pthread)
{
    race_detector_thread_exited(fx.d, t, pthread);
    assert_false(step_full(t, op_of(VIS_EXIT, 0, 0, 0), false, 0, false));
}

static void start_two_workers(void)
{
    spawn(2);
    spawn(3);
    assert_false(step_full(2, op_of(VIS_START, 0, 0, 0), false, 0, false));
    assert_false(step_full(3, op_of(VIS_START, 0, 0, 0), false, 0, false));
}

/* ---------- vector clocks ---------- */

static void test_vector_clock(void **state)
{
    (void)state;
    struct vector_clock a, b;
    vc_init(&a);
    vc_init(&b);
    vc_set(&a, 1, 3);
    vc_set(&b, 2, 5);
    assert_false(vc_leq(&a, &b));
    assert_int_equal(vc_join(&b, &a), VC_SRC_AHEAD | VC_DST_AHEAD);
    assert_true(vc_leq(&a, &b));
    assert_int_equal(vc_join(&b, &a), VC_DST_AHEAD);
    struct vector_clock c;
    vc_init(&c);
    vc_copy(&c, &a);
    assert_int_equal(vc_join(&c, &b), VC_SRC_AHEAD);
    assert_int_equal(vc_join(&c, &b), 0);
    vc_tick(&c, 300);   /* beyond what b holds */
    assert_int_equal(vc_join(&b, &c), VC_SRC_AHEAD);
    assert_int_equal(vc_join(&c, &a), VC_DST_AHEAD);
    vc_free(&c);
    assert_int_equal(vc_get(&b, 1), 3);
    assert_int_equal(vc_get(&b, 2), 5);
    assert_int_equal(vc_get(&b, 40), 0);
    vc_tick(&a, 40);
    assert_int_equal(vc_get(&a, 40), 1);
    assert_false(vc_leq(&a, &b));
    assert_true(epoch_leq((struct epoch){2, 5}, &b));
    assert_false(epoch_leq((struct epoch){2, 6}, &b));
    assert_true(epoch_leq((struct epoch){0, 9}, &b));
    vc_copy(&b, &a);
    assert_int_equal(vc_get(&b, 2), 0);
    assert_true(vc_leq(&b, &a) && vc_leq(&a, &b));
    vc_free(&a);
    vc_free(&b);
}

/* ---------- racy patterns ---------- */

/* counter++ in two threads: both load, then store (two steps each). */
static void test_lost_update(void **state)
{
    (void)state;
    start_two_workers();
    assert_false(rd(2, COUNTER, 0x401136));
    uint64_t read3 = fx.step + 1;
    assert_false(rd(3, COUNTER, 0x401136));
    assert_true(wr(2, COUNTER, 0x40113f));
    assert_int_equal(fx.last.addr, COUNTER);
    assert_int_equal(fx.last.later.thread, 2);
    assert_true(fx.last.later.write);
    assert_int_equal(fx.last.later.pc, 0x40113f);
    assert_int_equal(fx.last.later.step, fx.step);
    assert_int_equal(fx.last.earlier.thread, 3);
    assert_false(fx.last.earlier.write);
    assert_int_equal(fx.last.earlier.step, read3);
    assert_int_equal(fx.last.earlier.pc, 0x401136);
    /* T3's store races with T2's store (and its load with it). */
    assert_true(wr(3, COUNTER, 0x40113f));
    assert_int_equal(fx.last.earlier.thread, 2);
    assert_true(fx.last.earlier.write);
}

/* data = 42; ready = 1 in T2; while (!ready); use(data) in T3. */
static void test_flag_without_atomics(void **state)
{
    (void)state;
    start_two_workers();
    assert_false(wr(2, DATA, 0x401150));
    assert_false(wr(2, FLAG, 0x401157));
    assert_true(rd(3, FLAG, 0x401170));
    assert_int_equal(fx.last.addr, FLAG);
    assert_true(fx.last.earlier.write);
    assert_int_equal(fx.last.earlier.thread, 2);
    assert_false(fx.last.later.write);
    assert_true(rd(3, DATA, 0x401180));
    assert_int_equal(fx.last.earlier.pc, 0x401150);
}

/* if (!instance) { lock; if (!instance) instance = make(); unlock; } use(instance) */
static void test_double_checked_init(void **state)
{
    (void)state;
    start_two_workers();
    assert_false(rd8(2, INSTANCE, 0x401200));
    call(2, MF_MUTEX_LOCK, MUTEX);
    assert_false(rd8(2, INSTANCE, 0x401210));
    assert_false(wr8(2, NODE, 0x401220));            /* the object is made */
    assert_false(wr8(2, INSTANCE, 0x401228));
    call(2, MF_MUTEX_UNLOCK, MUTEX);
    assert_true(rd8(3, INSTANCE, 0x401200));        /* the unlocked first check */
    assert_int_equal(fx.last.earlier.pc, 0x401228);
    assert_int_equal(fx.last.later.pc, 0x401200);
    /* The object it then uses was written without any order either. */
    assert_true(rd8(3, NODE, 0x401240));
}

/* node->next = head; head = node; in two threads without a lock. */
static void test_unprotected_list_insert(void **state)
{
    (void)state;
    start_two_workers();
    assert_false(rd8(2, HEAD, 0x401300));
    assert_false(wr8(2, NODE, 0x401308));
    assert_false(rd8(3, HEAD, 0x401300));
    assert_false(wr8(3, NODE + 64, 0x401308));
    assert_true(wr8(2, HEAD, 0x401310));
    assert_int_equal(fx.last.earlier.thread, 3);
    assert_false(fx.last.earlier.write);
}

/* ---------- race-free patterns ---------- */

static void locked_increment(int t, bool contended)
{
    call_waiting(t, MF_MUTEX_LOCK, MUTEX, contended);
    if (contended)
        resume(t, false);
    assert_false(rd(t, COUNTER, 0x401400));
    assert_false(wr(t, COUNTER, 0x401408));
    call(t, MF_MUTEX_UNLOCK, MUTEX);
}

static void test_mutex(void **state)
{
    (void)state;
    start_two_workers();
    locked_increment(2, false);
    locked_increment(3, false);
    /* T2 waits for the mutex T3 holds: it acquires when its call returns,
     * after T3's unlock (and wake). */
    call(3, MF_MUTEX_LOCK, MUTEX);
    assert_false(rd(3, COUNTER, 0x401400));
    call_waiting(2, MF_MUTEX_LOCK, MUTEX, true);
    assert_false(wr(3, COUNTER, 0x401408));
    race_detector_woke(fx.d, 3, 2, MUTEX);
    call(3, MF_MUTEX_UNLOCK, MUTEX);
    resume(2, false);
    assert_false(rd(2, COUNTER, 0x401400));
    assert_false(wr(2, COUNTER, 0x401408));
    call(2, MF_MUTEX_UNLOCK, MUTEX);
}

/* A lock released over and over by one thread keeps what that thread
 * knows, cheaply, only while it takes in nothing new: T3's write reaches
 * T2 through another lock, then T4 through the first lock, so T4 reads
 * it race-free; and T2 locks again after T3 used the first lock itself. */
static void test_lock_kept_by_one_thread(void **state)
{
    (void)state;
    start_two_workers();
    spawn(4);
    assert_false(step_full(4, op_of(VIS_START, 0, 0, 0), false, 0, false));
    for (int i = 0; i < 5; i++)
        locked_increment(2, false);
    /* T3 writes DATA and hands it to T2 through LOCK. */
    assert_false(wr(3, DATA, 0x401500));
    call(3, MF_MUTEX_LOCK, LOCK);
    call(3, MF_MUTEX_UNLOCK, LOCK);
    call(2, MF_MUTEX_LOCK, LOCK);
    call(2, MF_MUTEX_UNLOCK, LOCK);
    /* T2 passes all it knows on through MUTEX to T4. */
    locked_increment(2, false);
    locked_increment(4, false);
    assert_false(rd(4, DATA, 0x401508));
    /* T3 writes FLAG and unlocks MUTEX itself: T2 must take that in. */
    assert_false(wr(3, FLAG, 0x401510));
    locked_increment(3, false);
    locked_increment(2, false);
    assert_false(rd(2, FLAG, 0x401518));
    /* Nothing orders T4's read of FLAG after T3's write. */
    assert_true(rd(4, FLAG, 0x401520));
}

/* A post adds to what the semaphore knows (it is not the poster's clock
 * then): T2's own post and wait still bring it T3's write. */
static void test_post_keeps_what_others_posted(void **state)
{
    (void)state;
    start_two_workers();
    call(2, MF_SEM_POST, SEM);
    call(2, MF_SEM_WAIT, SEM);
    assert_false(wr(3, DATA, 0x401600));
    call(3, MF_SEM_POST, SEM);
    call(2, MF_SEM_POST, SEM);
    call(2, MF_SEM_WAIT, SEM);
    assert_false(rd(2, DATA, 0x401608));
}

/* The acquire comes at the return: a lock whose call has not returned yet
 * orders nothing, and without the lock the same accesses race. */
static void test_mutex_misused(void **state)
{
    (void)state;
    start_two_workers();
    locked_increment(2, false);
    assert_true(rd(3, COUNTER, 0x401400));
    assert_int_equal(fx.last.earlier.pc, 0x401408);
}

/* while (xchg(&lock, 1)) ; counter++; lock = 0 (a plain store, as
 * __atomic_store_n(.., RELEASE) compiles to). */
static void spin_increment(int t)
{
    struct visible_op x = op_of(VIS_UPDATE, LOCK, 4, 0x401500);
    x.atomic = true;
    assert_false(step_full(t, x, false, 0, false));
    assert_false(rd(t, COUNTER, 0x401510));
    assert_false(wr(t, COUNTER, 0x401518));
    assert_false(wr(t, LOCK, 0x401520));
}

static void test_spinlock_over_xchg(void **state)
{
    (void)state;
    start_two_workers();
    spin_increment(2);
    assert_false(rd(3, LOCK, 0x4014f0));    /* test before test-and-set: a plain load */
    spin_increment(3);
    spin_increment(2);
}

/* atomic_int ready: data = 42; atomic_store(&ready, 1) / while (!atomic_load(&ready)); use(data) */
static void test_c11_atomics(void **state)
{
    (void)state;
    start_two_workers();
    assert_false(wr(2, DATA, 0x401600));
    assert_false(step_full(2, op_of(VIS_WRITE, FLAG, 4, 0x401608), false, 0, true));
    assert_false(step_full(3, op_of(VIS_READ, FLAG, 4, 0x401620), false, 0, true));
    assert_false(rd(3, DATA, 0x401628));
    assert_false(wr(3, DATA, 0x401630));
}

/* An atomic load releases nothing: two readers of a flag are not ordered. */
static void test_atomic_load_is_no_release(void **state)
{
    (void)state;
    start_two_workers();
    assert_false(wr(2, DATA, 0x401600));
    assert_false(step_full(2, op_of(VIS_READ, FLAG, 4, 0x401608), false, 0, true));
    assert_false(step_full(3, op_of(VIS_READ, FLAG, 4, 0x401620), false, 0, true));
    assert_true(rd(3, DATA, 0x401628));
}

static void test_create_join(void **state)
{
    (void)state;
    assert_false(wr(1, DATA, 0x401700));
    spawn(2);
    assert_false(rd(2, DATA, 0x401710));
    assert_false(wr(2, DATA, 0x401718));
    assert_false(wr(1, COUNTER, 0x401704));
    call_waiting(1, MF_THREAD_JOIN, PTHREAD2, true);
    race_detector_thread_exited(fx.d, 2, PTHREAD2);
    race_detector_woke(fx.d, 2, 1, PTHREAD2);
    assert_false(rd(2, COUNTER + 32, 0x401720));    /* its last step, then it exits */
    resume(1, false);
    assert_false(rd(1, DATA, 0x401730));
    assert_false(wr(1, DATA, 0x401738));
}

/* A join orders only the joined thread; the other one still races. */
static void test_join_orders_only_its_thread(void **state)
{
    (void)state;
    start_two_workers();
    assert_false(wr(2, DATA, 0x401800));
    assert_false(wr(3, COUNTER, 0x401808));
    finish(2, PTHREAD2);
    call(1, MF_THREAD_JOIN, PTHREAD2);
    assert_false(rd(1, DATA, 0x401810));
    assert_true(rd(1, COUNTER, 0x401818));
    assert_int_equal(fx.last.earlier.thread, 3);
}

static void test_semaphore(void **state)
{
    (void)state;
    start_two_workers();
    call_waiting(3, MF_SEM_WAIT, SEM, true);
    assert_false(wr(2, DATA, 0x401900));
    race_detector_woke(fx.d, 2, 3, SEM);
    call(2, MF_SEM_POST, SEM);
    resume(3, false);
    assert_false(rd(3, DATA, 0x401910));
    /* A post that comes before the wait, without any wake. */
    assert_false(wr(3, COUNTER, 0x401920));
    call(3, MF_SEM_POST, SEM);
    call(2, MF_SEM_WAIT, SEM);
    assert_false(wr(2, COUNTER, 0x401928));
}

/* lock; while (!ready) cond_wait; use(data); unlock  /  lock; data = 1; ready = 1; signal; unlock */
static void test_condvar(void **state)
{
    (void)state;
    start_two_workers();
    call(3, MF_MUTEX_LOCK, MUTEX);
    assert_false(rd(3, FLAG, 0x401a00));
    struct visible_op wait = op_of(VIS_SYNC, COND, 0, 0x401a08);
    wait.fn = MF_COND_WAIT;
    assert_false(step_full(3, wait, true, MUTEX, false));
    call(2, MF_MUTEX_LOCK, MUTEX);
    assert_false(wr(2, DATA, 0x401a10));
    assert_false(wr(2, FLAG, 0x401a18));
    race_detector_woke(fx.d, 2, 3, COND);
    call(2, MF_COND_SIGNAL, COND);
    assert_false(wr(2, COUNTER, 0x401a20));         /* still under the mutex */
    resume(3, true);                                /* woken, then waits for the mutex */
    race_detector_woke(fx.d, 2, 3, MUTEX);
    call(2, MF_MUTEX_UNLOCK, MUTEX);
    resume(3, false);
    assert_false(rd(3, FLAG, 0x401a00));
    assert_false(rd(3, DATA, 0x401a28));
    assert_false(rd(3, COUNTER, 0x401a30));
    call(3, MF_MUTEX_UNLOCK, MUTEX);
}

/* The mutex a condition wait releases, when the engine does not say: the
 * one the thread took last. */
static void test_condvar_mutex_unknown(void **state)
{
    (void)state;
    start_two_workers();
    call(3, MF_MUTEX_LOCK, MUTEX);
    assert_false(wr(3, DATA, 0x401b00));
    struct visible_op wait = op_of(VIS_SYNC, COND, 0, 0x401b08);
    wait.fn = MF_COND_WAIT;
    assert_false(step_full(3, wait, true, 0, false));
    call(2, MF_MUTEX_LOCK, MUTEX);
    assert_false(wr(2, DATA, 0x401b10));            /* ordered by the mutex the wait released */
    call(2, MF_COND_SIGNAL, COND);
    call(2, MF_MUTEX_UNLOCK, MUTEX);
    resume(3, false);
    assert_false(rd(3, DATA, 0x401b18));
}

static void test_barrier(void **state)
{
    (void)state;
    start_two_workers();
    assert_false(wr(2, DATA, 0x401c00));
    assert_false(wr(3, COUNTER, 0x401c08));
    call_waiting(2, MF_BARRIER_WAIT, BARRIER, true);
    race_detector_woke(fx.d, 3, 2, BARRIER);
    call(3, MF_BARRIER_WAIT, BARRIER);              /* the last to arrive */
    assert_false(rd(3, DATA, 0x401c10));
    resume(2, false);
    assert_false(rd(2, COUNTER, 0x401c18));
    /* The next round: what T3 writes before it arrives again is not seen
     * by T2's reads before T2 arrives. */
    assert_false(wr(3, DATA, 0x401c20));
    assert_true(rd(2, DATA, 0x401c28));
}

static void test_rwlock(void **state)
{
    (void)state;
    start_two_workers();
    call(2, MF_RWLOCK_WRLOCK, RWLOCK);
    assert_false(wr(2, DATA, 0x401d00));
    call(2, MF_RWLOCK_UNLOCK, RWLOCK);
    call(3, MF_RWLOCK_RDLOCK, RWLOCK);
    call(2, MF_RWLOCK_RDLOCK, RWLOCK);
    assert_false(rd(3, DATA, 0x401d10));
    assert_false(rd(2, DATA, 0x401d10));            /* readers together: fine */
    call(2, MF_RWLOCK_UNLOCK, RWLOCK);
    call(3, MF_RWLOCK_UNLOCK, RWLOCK);
    call(2, MF_RWLOCK_WRLOCK, RWLOCK);              /* after both readers */
    assert_false(wr(2, DATA, 0x401d20));
    call(2, MF_RWLOCK_UNLOCK, RWLOCK);
    /* Writing under a read lock: readers do not order each other. */
    call(2, MF_RWLOCK_RDLOCK, RWLOCK);
    call(3, MF_RWLOCK_RDLOCK, RWLOCK);
    assert_false(wr(2, COUNTER, 0x401d30));
    call(2, MF_RWLOCK_UNLOCK, RWLOCK);
    assert_true(wr(3, COUNTER, 0x401d30));
}

/* A hand-written futex: the waker's store before its wake is ordered
 * before the woken thread's reads, though both sit in one step. */
static void test_futex_wake(void **state)
{
    (void)state;
    start_two_workers();
    /* T3 loads the flag atomically, then sleeps in FUTEX_WAIT. */
    assert_false(step_full(3, op_of(VIS_READ, FLAG, 4, 0x401e00), true, 0, true));
    race_detector_woke(fx.d, 2, 3, FLAG);          /* during the step of T2's store, after it */
    assert_false(wr(2, DATA, 0x401e10));
    resume(3, false);
    assert_false(rd(3, DATA, 0x401e20));
    assert_false(wr(3, DATA, 0x401e28));
}

static void test_pipe(void **state)
{
    (void)state;
    start_two_workers();
    uint64_t fd = (1ull << 63) | 5;
    assert_false(step_full(3, op_of(VIS_IO, fd, 0, 0x401f00), true, 0, false));    /* read: empty pipe */
    assert_false(wr(2, DATA, 0x401f10));
    assert_false(step_full(2, op_of(VIS_IO, fd, 0, 0x401f18), false, 0, false));   /* write */
    resume(3, false);
    assert_false(rd(3, DATA, 0x401f20));
}

/* Each thread's own copy of a thread-local, and adjacent bytes of one
 * array written by different threads, never race. */
static void test_thread_local_and_bytes(void **state)
{
    (void)state;
    start_two_workers();
    assert_false(wr(2, TLS2, 0x402000));
    assert_false(wr(3, TLS3, 0x402000));
    assert_false(rd(2, TLS2, 0x402008));
    assert_false(step_full(2, op_of(VIS_WRITE, DATA, 1, 0x402010), false, 0, false));
    assert_false(step_full(3, op_of(VIS_WRITE, DATA + 1, 1, 0x402010), false, 0, false));
    assert_true(step_full(3, op_of(VIS_WRITE, DATA, 2, 0x402018), false, 0, false));
    assert_int_equal(fx.last.addr, DATA);
}

/* A node made by T2, pushed under the queue's mutex, popped and used and
 * freed by T3; its memory then made again by T2. */
static void test_queue_hand_over(void **state)
{
    (void)state;
    start_two_workers();
    for (int round = 0; round < 3; round++) {
        assert_false(wr8(2, NODE, 0x402100));       /* node->value = ... */
        call(2, MF_MUTEX_LOCK, MUTEX);
        assert_false(rd8(2, HEAD, 0x402108));
        assert_false(wr8(2, NODE + 8, 0x402110));
        assert_false(wr8(2, HEAD, 0x402118));
        call(2, MF_MUTEX_UNLOCK, MUTEX);
        call(3, MF_MUTEX_LOCK, MUTEX);
        assert_false(rd8(3, HEAD, 0x402120));
        assert_false(rd8(3, NODE + 8, 0x402128));
        assert_false(wr8(3, HEAD, 0x402130));
        call(3, MF_MUTEX_UNLOCK, MUTEX);
        assert_false(rd8(3, NODE, 0x402138));       /* used outside the lock: it is T3's now */
        assert_false(wr8(3, NODE, 0x402140));
        race_detector_forget(fx.d, NODE, 16);       /* free(node) */
    }
}

/* Reads by several threads at once are remembered each: a write ordered
 * after only one of them still races with the other. */
static void test_concurrent_reads(void **state)
{
    (void)state;
    start_two_workers();
    assert_false(rd(2, DATA, 0x402200));
    assert_false(rd(3, DATA, 0x402208));
    finish(2, PTHREAD2);
    call(1, MF_THREAD_JOIN, PTHREAD2);
    assert_true(wr(1, DATA, 0x402210));
    assert_int_equal(fx.last.earlier.thread, 3);
    assert_int_equal(fx.last.earlier.pc, 0x402208);
    finish(3, PTHREAD3);
    call(1, MF_THREAD_JOIN, PTHREAD3);
    assert_false(wr(1, DATA, 0x402218));
}

/* A new execution forgets the last one's accesses and clocks. */
static void test_begin_forgets(void **state)
{
    (void)state;
    start_two_workers();
    assert_false(wr(2, DATA, 0x402300));
    race_detector_begin(fx.d);
    fx.step = 0;
    start_two_workers();
    assert_false(wr(3, DATA, 0x402308));
    assert_true(race_detector_memory(fx.d) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_clock),
        cmocka_unit_test_setup_teardown(test_lost_update, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flag_without_atomics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_double_checked_init, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unprotected_list_insert, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mutex, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_kept_by_one_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_post_keeps_what_others_posted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mutex_misused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spinlock_over_xchg, setup, teardown),
        cmocka_unit_test_setup_teardown(test_c11_atomics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_atomic_load_is_no_release, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_join, setup, teardown),
        cmocka_unit_test_setup_teardown(test_join_orders_only_its_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_semaphore, setup, teardown),
        cmocka_unit_test_setup_teardown(test_condvar, setup, teardown),
        cmocka_unit_test_setup_teardown(test_condvar_mutex_unknown, setup, teardown),
        cmocka_unit_test_setup_teardown(test_barrier, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rwlock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_futex_wake, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pipe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_thread_local_and_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_hand_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_reads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_begin_forgets, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
