/* Unit tests for supervisor/sharing: page ownership's books (page_owners),
 * the engine's happens-before clocks (hb_clocks), the mapping list
 * (vma_list) and page sets (page_list). The rules tested are the ones a
 * missed race would come from: a page passes to another thread only when
 * the previous owner's last epoch on it is known to the new one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "supervisor/sharing/hb_clocks.h"
#include "supervisor/sharing/page_list.h"
#include "supervisor/sharing/page_owners.h"
#include "supervisor/sharing/vma_list.h"

enum { CLOSED = 1, READ_ONLY = 2, KEY_T1 = 3, KEY_T2 = 4, KEY_T3 = 5 };
#define DATA 0x555555558000ull
#define PAGE(n) (DATA + (uint64_t)(n) * PAGE_BYTES)

struct world {
    struct page_owners *po;
    struct hb_clocks *hb;
};

static int setup(void **state)
{
    static struct world w;
    w.po = page_owners_new(CLOSED, READ_ONLY);
    w.hb = hb_clocks_new();
    page_owners_track(w.po, PAGE(0), PAGE(64));
    hb_thread_start(w.hb, 1, 0);
    page_owners_set_thread_key(w.po, 1, KEY_T1);
    page_owners_set_thread_key(w.po, 2, KEY_T2);
    page_owners_set_thread_key(w.po, 3, KEY_T3);
    struct page_retag drop[16];
    while (page_owners_take_retags(w.po, drop, 16))
        ;
    *state = &w;
    return 0;
}

static int teardown(void **state)
{
    struct world *w = *state;
    page_owners_free(w->po);
    hb_clocks_free(w->hb);
    return 0;
}

static enum page_touch touch(struct world *w, int thread, uint64_t addr, bool write)
{
    uint64_t page;
    return page_owners_touch(w->po, w->hb, thread, addr, write, &page);
}

/* A thread's release, as the engine makes it (exec_pages.c). */
static void release(struct world *w, int thread, uint64_t object)
{
    uint32_t ended = hb_epoch(w->hb, thread);
    hb_release(w->hb, thread, object);
    page_owners_release(w->po, thread, ended);
}

static void test_first_touch_takes_the_page(void **state)
{
    struct world *w = *state;
    assert_int_equal(touch(w, 1, PAGE(0) + 8, true), TOUCH_NATIVE);
    int owner;
    assert_int_equal(page_owners_state(w->po, PAGE(0), &owner), PAGE_PRIVATE);
    assert_int_equal(owner, 1);
    assert_true(page_owners_native(w->po, 1, PAGE(0) + 100, true));
    assert_false(page_owners_native(w->po, 2, PAGE(0) + 100, false));
    /* The program must give the page T1's key. */
    struct page_retag r;
    assert_true(page_owners_take_retags(w->po, &r, 1) == 1);
    assert_int_equal(r.start, PAGE(0));
    assert_int_equal(r.end, PAGE(1));
    assert_int_equal(r.key, KEY_T1);
}

static void test_unordered_second_touch_conflicts(void **state)
{
    struct world *w = *state;
    hb_thread_start(w->hb, 2, 1);
    assert_int_equal(touch(w, 1, PAGE(1), true), TOUCH_NATIVE);
    /* T2 was made before T1 touched the page, and nothing ordered since. */
    assert_int_equal(touch(w, 2, PAGE(1), false), TOUCH_CONFLICT_READ);
    /* The same by a write: the page must be observed. */
    assert_int_equal(touch(w, 2, PAGE(1), true), TOUCH_CONFLICT);
    /* A conflict changes nothing in the books: the run starts again. */
    int owner;
    assert_int_equal(page_owners_state(w->po, PAGE(1), &owner), PAGE_PRIVATE);
    assert_int_equal(owner, 1);
}

static void test_handover_through_a_release(void **state)
{
    struct world *w = *state;
    hb_thread_start(w->hb, 2, 1);
    assert_int_equal(touch(w, 1, PAGE(2), true), TOUCH_NATIVE);
    release(w, 1, 0x1000);      /* unlock */
    assert_false(page_owners_native(w->po, 1, PAGE(2), true));     /* armed: T1's next touch is noted */
    hb_acquire(w->hb, 2, 0x1000);   /* lock */
    assert_int_equal(touch(w, 2, PAGE(2), true), TOUCH_NATIVE);
    int owner;
    assert_int_equal(page_owners_state(w->po, PAGE(2), &owner), PAGE_PRIVATE);
    assert_int_equal(owner, 2);
}

static void test_touch_after_release_is_a_new_epoch(void **state)
{
    struct world *w = *state;
    hb_thread_start(w->hb, 2, 1);
    assert_int_equal(touch(w, 1, PAGE(3), true), TOUCH_NATIVE);
    release(w, 1, 0x1000);
    /* T1 touches the page again after its unlock: T2, which saw only the
     * unlock, does not know that touch. */
    assert_int_equal(touch(w, 1, PAGE(3), true), TOUCH_NATIVE);
    hb_acquire(w->hb, 2, 0x1000);
    assert_int_equal(touch(w, 2, PAGE(3), false), TOUCH_CONFLICT_READ);
}

/* A page observed from the middle of a run (a block on it freed) keeps
 * what its owner did unobserved until then: a thread those uses are not
 * known to conflicts (the run starts again with the page observed from the
 * start); once they are known, its touches are steps. */
static void test_observed_midway_remembers_its_owner(void **state)
{
    struct world *w = *state;
    hb_thread_start(w->hb, 2, 1);
    release(w, 1, hb_exit_object(0));   /* T1 makes T2 */
    assert_int_equal(touch(w, 2, PAGE(8), false), TOUCH_NATIVE);
    page_owners_observe_owned(w->po, w->hb, PAGE(8));
    assert_true(page_owners_unordered(w->po, w->hb, 1, PAGE(8)));
    assert_false(page_owners_unordered(w->po, w->hb, 2, PAGE(8)));
    assert_int_equal(touch(w, 1, PAGE(8), true), TOUCH_CONFLICT);
    assert_int_equal(touch(w, 2, PAGE(8), true), TOUCH_VISIBLE);
    /* T2 ends and T1 joins it: T2's uses happened before. */
    uint32_t last = hb_epoch(w->hb, 2);
    hb_thread_end(w->hb, 2);
    page_owners_thread_end(w->po, 2, last);
    hb_acquire(w->hb, 1, hb_exit_object(2));
    assert_false(page_owners_unordered(w->po, w->hb, 1, PAGE(8)));
    assert_int_equal(touch(w, 1, PAGE(8), true), TOUCH_VISIBLE);
    /* Observed from the start: no owner to remember. */
    page_owners_observe(w->po, PAGE(9));
    assert_int_equal(touch(w, 1, PAGE(9), true), TOUCH_VISIBLE);
}

static void test_readers_share_what_a_writer_handed_on(void **state)
{
    struct world *w = *state;
    /* A run before found T2 and T3 reading this page side by side. */
    page_owners_readers(w->po, PAGE(4));
    assert_int_equal(touch(w, 1, PAGE(4), true), TOUCH_NATIVE);
    release(w, 1, 0);                   /* pthread_create */
    hb_thread_start(w->hb, 2, 1);
    hb_thread_start(w->hb, 3, 1);
    assert_int_equal(touch(w, 2, PAGE(4), false), TOUCH_NATIVE);
    int owner;
    assert_int_equal(page_owners_state(w->po, PAGE(4), &owner), PAGE_READ_SHARED);
    /* T3 reads read-shared pages from its first read of one in an epoch. */
    assert_false(page_owners_native(w->po, 3, PAGE(4), false));
    assert_int_equal(touch(w, 3, PAGE(4), false), TOUCH_NATIVE);
    assert_true(page_owners_native(w->po, 3, PAGE(4), false));
    assert_false(page_owners_native(w->po, 3, PAGE(4), true));
    /* A write while another reader may still read: conflict. */
    assert_int_equal(touch(w, 3, PAGE(4), true), TOUCH_CONFLICT);
    /* Its release closes its reading: a write by a thread that knows the
     * release (and every other reader's) may take the page. */
    release(w, 2, 0x3000);
    release(w, 3, 0x3000);
    assert_false(page_owners_native(w->po, 3, PAGE(4), false));
    hb_acquire(w->hb, 1, 0x3000);
    assert_int_equal(touch(w, 1, PAGE(4), true), TOUCH_NATIVE);
}

static void test_handed_on_buffer_read_then_written(void **state)
{
    /* A pipeline stage: the producer fills a buffer and hands it on under
     * a lock; the next stage reads it first, then writes it. */
    struct world *w = *state;
    hb_thread_start(w->hb, 2, 1);
    hb_thread_start(w->hb, 3, 1);
    assert_int_equal(touch(w, 2, PAGE(20), true), TOUCH_NATIVE);
    release(w, 2, 0x4000);
    hb_acquire(w->hb, 3, 0x4000);
    assert_int_equal(touch(w, 3, PAGE(20), false), TOUCH_NATIVE);
    assert_int_equal(touch(w, 3, PAGE(20), true), TOUCH_NATIVE);
    int owner;
    assert_int_equal(page_owners_state(w->po, PAGE(20), &owner), PAGE_PRIVATE);
    assert_int_equal(owner, 3);
}

static void test_write_after_every_reader_joined(void **state)
{
    struct world *w = *state;
    assert_int_equal(touch(w, 1, PAGE(5), true), TOUCH_NATIVE);
    release(w, 1, 0);
    hb_thread_start(w->hb, 2, 1);
    assert_int_equal(touch(w, 2, PAGE(5), false), TOUCH_NATIVE);
    hb_thread_end(w->hb, 2);
    page_owners_thread_end(w->po, 2, hb_epoch(w->hb, 2));
    hb_acquire(w->hb, 1, hb_exit_object(2));    /* pthread_join */
    assert_int_equal(touch(w, 1, PAGE(5), true), TOUCH_NATIVE);
    int owner;
    assert_int_equal(page_owners_state(w->po, PAGE(5), &owner), PAGE_PRIVATE);
    assert_int_equal(owner, 1);
}

static void test_observed_and_stacks(void **state)
{
    struct world *w = *state;
    page_owners_observe(w->po, PAGE(6) + 12);
    assert_int_equal(touch(w, 1, PAGE(6), false), TOUCH_VISIBLE);
    page_owners_stack(w->po, PAGE(100), PAGE(110), 2);
    assert_int_equal(touch(w, 2, PAGE(105), true), TOUCH_NATIVE);
    assert_int_equal(touch(w, 1, PAGE(105), false), TOUCH_VISIBLE);
    assert_true(page_owners_native(w->po, 2, PAGE(109), true));
    /* Memory nobody follows is everybody's. */
    assert_int_equal(touch(w, 1, PAGE(200), true), TOUCH_NATIVE);
    assert_true(page_owners_native(w->po, 3, PAGE(200), true));
}

/* A page to observe that is mapped only later (a heap the allocator maps
 * after the start, memory unmapped and mapped again) is observed from its
 * mapping on: else a rerun meets the same unobserved page again. */
static void test_observed_before_it_is_mapped(void **state)
{
    struct world *w = *state;
    page_owners_observe(w->po, PAGE(300) + 8);
    page_owners_readers(w->po, PAGE(302));
    assert_int_equal(touch(w, 1, PAGE(300), false), TOUCH_NATIVE);    /* not followed yet */
    page_owners_track(w->po, PAGE(300), PAGE(304));
    assert_int_equal(touch(w, 1, PAGE(300), false), TOUCH_VISIBLE);
    assert_false(page_owners_native(w->po, 1, PAGE(300), false));
    assert_int_equal(touch(w, 1, PAGE(301), true), TOUCH_NATIVE);     /* its neighbour is not */
    page_owners_untrack(w->po, PAGE(300), PAGE(304));
    page_owners_track(w->po, PAGE(300), PAGE(304));
    assert_int_equal(touch(w, 2, PAGE(300), true), TOUCH_VISIBLE);
}

static void test_fresh_block(void **state)
{
    struct world *w = *state;
    hb_thread_start(w->hb, 2, 1);
    assert_int_equal(touch(w, 1, PAGE(7), true), TOUCH_NATIVE);
    /* The allocator hands the whole page to T2: what T1 left there is dead. */
    page_owners_fresh(w->po, PAGE(7), 2);
    assert_true(page_owners_native(w->po, 2, PAGE(7), true));
    assert_int_equal(touch(w, 1, PAGE(7), false), TOUCH_CONFLICT_READ);
}

static void test_a_handed_on_page_is_the_readers_whole(void **state)
{
    struct world *w = *state;
    /* A buffer filled by T1 and passed to T2 (nobody else reads it): T2's
     * first read takes it whole, so its later writes stay native. */
    assert_int_equal(touch(w, 1, PAGE(10), true), TOUCH_NATIVE);
    release(w, 1, 0);
    hb_thread_start(w->hb, 2, 1);
    assert_int_equal(touch(w, 2, PAGE(10), false), TOUCH_NATIVE);
    int owner;
    assert_int_equal(page_owners_state(w->po, PAGE(10), &owner), PAGE_PRIVATE);
    assert_int_equal(owner, 2);
    assert_true(page_owners_native(w->po, 2, PAGE(10), true));

}

static void test_untrack_forgets(void **state)
{
    struct world *w = *state;
    assert_int_equal(touch(w, 1, PAGE(8), true), TOUCH_NATIVE);
    page_owners_untrack(w->po, PAGE(8), PAGE(9));
    int owner;
    assert_int_equal(page_owners_state(w->po, PAGE(8), &owner), PAGE_UNTRACKED);
    page_owners_track(w->po, PAGE(8), PAGE(9));
    assert_int_equal(page_owners_state(w->po, PAGE(8), &owner), PAGE_UNTOUCHED);
}

static void test_retags_coalesce_in_order(void **state)
{
    struct world *w = *state;
    for (int i = 10; i < 14; i++)
        touch(w, 1, PAGE(i), true);
    release(w, 1, 0x2000);
    struct page_retag r[8];
    size_t n = page_owners_take_retags(w->po, r, 8);
    assert_int_equal(n, 2);
    assert_int_equal(r[0].start, PAGE(10));
    assert_int_equal(r[0].end, PAGE(14));
    assert_int_equal(r[0].key, KEY_T1);
    assert_int_equal(r[1].start, PAGE(10));
    assert_int_equal(r[1].end, PAGE(14));
    assert_int_equal(r[1].key, CLOSED);
}

static void test_many_pages(void **state)
{
    struct world *w = *state;
    /* Grow the table well past its first size, then forget half. */
    page_owners_track(w->po, PAGE(1000), PAGE(11000));
    for (int i = 1000; i < 11000; i++)
        assert_int_equal(touch(w, 1 + i % 3, PAGE(i), true), TOUCH_NATIVE);
    page_owners_untrack(w->po, PAGE(1000), PAGE(6000));
    int owner;
    for (int i = 6000; i < 11000; i += 97) {
        assert_int_equal(page_owners_state(w->po, PAGE(i), &owner), PAGE_PRIVATE);
        assert_int_equal(owner, 1 + i % 3);
    }
    assert_int_equal(page_owners_state(w->po, PAGE(5999), &owner), PAGE_UNTRACKED);
}

static void test_vma_list(void **state)
{
    struct vma_list l;
    vma_list_init(&l);
    vma_list_set(&l, 0x10000, 0x20000, PROT_READ | PROT_WRITE, false);
    vma_list_set(&l, 0x14000, 0x15000, PROT_NONE, true);
    vma_list_remove(&l, 0x18000, 0x19000);
    assert_int_equal(l.n, 4);
    assert_int_equal(vma_list_find(&l, 0x14800)->prot, PROT_NONE);
    assert_null(vma_list_find(&l, 0x18800));
    assert_int_equal(vma_list_find(&l, 0x1f000)->prot, PROT_READ | PROT_WRITE);
    vma_list_free(&l);
}

static void test_page_list(void **state)
{
    struct page_list l = {0};
    assert_true(page_list_add(&l, 0x5000 + 17));
    assert_true(page_list_add(&l, 0x3000));
    assert_false(page_list_add(&l, 0x5fff));
    assert_int_equal(l.n, 2);
    assert_int_equal(l.at[0], 0x3000);
    assert_true(page_list_has(&l, 0x5123));
    assert_false(page_list_has(&l, 0x4000));
    page_list_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_first_touch_takes_the_page, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unordered_second_touch_conflicts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_handover_through_a_release, setup, teardown),
        cmocka_unit_test_setup_teardown(test_touch_after_release_is_a_new_epoch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readers_share_what_a_writer_handed_on, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_after_every_reader_joined, setup, teardown),
        cmocka_unit_test_setup_teardown(test_handed_on_buffer_read_then_written, setup, teardown),

        cmocka_unit_test_setup_teardown(test_observed_and_stacks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_observed_before_it_is_mapped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_observed_midway_remembers_its_owner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fresh_block, setup, teardown),

        cmocka_unit_test_setup_teardown(test_untrack_forgets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retags_coalesce_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_handed_on_page_is_the_readers_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_pages, setup, teardown),
        cmocka_unit_test(test_vma_list),
        cmocka_unit_test(test_page_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
