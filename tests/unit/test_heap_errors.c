/* Unit tests for supervisor/detect/heap_errors: use after free and double
 * free judged on a synthetic heap. The program's memory is a file read at
 * the address as offset (what tracee_read does with /proc/PID/mem); the
 * tests write into it what glibc writes into a chunk when it frees it
 * (the tcache link and key) and when it hands it out again (the key
 * cleared, the new holder's data), and check that a verdict is given only
 * while the freed block is still as its free left it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/detect/heap_errors.h"
#include "supervisor/engine/exec_core.h"
#include "supervisor/process/heap_map.h"

enum { MEMORY = 0x4000 };
#define BLOCK 0x1010ull     /* a 24-byte block in a 32-byte chunk */

struct fixture {
    struct execution ex;
    struct exec_config cfg;
    struct exec_result res;
    struct heap_errors *h;
    struct exec_listener l;
    struct heap_block block;
};

static void poke(struct fixture *f, uint64_t addr, uint64_t value)
{
    assert_int_equal(pwrite(f->ex.mem_fd, &value, sizeof value, (off_t)addr), sizeof value);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    f->ex.mem_fd = dup(fileno(tmp));
    fclose(tmp);
    assert_int_equal(ftruncate(f->ex.mem_fd, MEMORY), 0);
    f->ex.cfg = &f->cfg;
    f->ex.res = &f->res;
    f->h = heap_errors_new();
    f->l = heap_errors_hooks(f->h);
    f->l.ops->begin(f->l.self, &f->ex);
    f->block = (struct heap_block){.addr = BLOCK, .size = 24, .id = 1, .how = "malloc"};
    poke(f, BLOCK - 8, 0x21);                   /* the chunk's size, in use */
    f->l.ops->allocated(f->l.self, 1, BLOCK, 24);
    poke(f, BLOCK, 7);                          /* the program's data */
    poke(f, BLOCK + 8, 8);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    heap_errors_free(f->h);
    close(f->ex.mem_fd);
    free(f);
    return 0;
}

/* T`thread` frees the block as glibc's tcache does (its link, its key),
 * in the step after those run so far. */
static void free_block(struct fixture *f, int thread, uint64_t key)
{
    assert_true(f->l.ops->freeing(f->l.self, &f->ex, thread, BLOCK, &f->block, 0, &f->res));
    poke(f, BLOCK, 0x55550000deadull);
    poke(f, BLOCK + 8, key);
    f->l.ops->freed(f->l.self, &f->ex, thread, &f->block, 0);
}

/* glibc hands the block out again inside a call mdat does not follow. */
static void hand_out_unseen(struct fixture *f)
{
    poke(f, BLOCK + 8, 0);                      /* tcache_get clears the key */
    poke(f, BLOCK, 0x6261);                     /* strdup("ab") */
}

static bool read_at(struct fixture *f, int thread, uint64_t addr)
{
    struct visible_op op = {.kind = VIS_READ, .size = 4, .fn = -1, .addr = addr, .pc = 0};
    return f->l.ops->before_step(f->l.self, &f->ex, thread, &op, &f->res);
}

static void double_free_named(void **state)
{
    struct fixture *f = *state;
    free_block(f, 2, 0x1234567890abcdefull);
    f->ex.steps += 3;
    assert_false(f->l.ops->freeing(f->l.self, &f->ex, 3, BLOCK, NULL, 0, &f->res));
    assert_int_equal(f->res.kind, FAIL_HEAP);
    assert_int_equal(f->res.thread, 3);
    assert_non_null(strstr(f->res.message, "double free: T3 frees heap#1, but T2 freed it at step 1"));
}

static void use_after_free_named(void **state)
{
    struct fixture *f = *state;
    assert_true(read_at(f, 3, BLOCK + 4));     /* before the free: a use */
    free_block(f, 2, 0x1234567890abcdefull);
    assert_false(read_at(f, 3, BLOCK + 4));
    assert_non_null(strstr(f->res.message, "use after free: T3 reads heap#1+4, but T2 freed it at step 1"));
    memset(&f->res, 0, sizeof f->res);
    assert_true(read_at(f, 3, BLOCK + 24));    /* past the block: not it */
}

/* Handed out again where mdat does not see it, then used and freed by its
 * new holder: neither is an error. */
static void handed_out_unseen_is_no_error(void **state)
{
    struct fixture *f = *state;
    free_block(f, 2, 0x1234567890abcdefull);
    hand_out_unseen(f);
    assert_true(read_at(f, 3, BLOCK));
    assert_true(f->l.ops->freeing(f->l.self, &f->ex, 3, BLOCK, NULL, 0, &f->res));
    /* That free was the new holder's: the block is forgotten, even once
     * its bytes look freed again. */
    poke(f, BLOCK, 0x55550000deadull);
    poke(f, BLOCK + 8, 0x1234567890abcdefull);
    assert_true(read_at(f, 3, BLOCK));
    assert_int_equal(f->res.kind, FAIL_NONE);
}

/* Handed out again through a call mdat follows: new data. */
static void allocated_again_is_no_error(void **state)
{
    struct fixture *f = *state;
    free_block(f, 2, 0x1234567890abcdefull);
    f->l.ops->allocated(f->l.self, 3, BLOCK, 24);
    assert_true(read_at(f, 3, BLOCK));
    assert_true(f->l.ops->freeing(f->l.self, &f->ex, 3, BLOCK, &f->block, 0, &f->res));
}

/* The freeing thread's end moves its cache to the arena: the link changes,
 * the key stays, and the block is still judged. A block it had been
 * handed again (the key cleared) is not taken for a freed one. */
static void thread_end_keeps_judging(void **state)
{
    struct fixture *f = *state;
    free_block(f, 2, 0x1234567890abcdefull);
    poke(f, BLOCK, 0x55550000beefull);          /* the fastbin's link */
    f->l.ops->thread_exited(f->l.self, 2, 0);
    assert_false(f->l.ops->freeing(f->l.self, &f->ex, 3, BLOCK, NULL, 0, &f->res));
    assert_int_equal(f->res.kind, FAIL_HEAP);
}

static void thread_end_after_reuse(void **state)
{
    struct fixture *f = *state;
    free_block(f, 2, 0x1234567890abcdefull);
    hand_out_unseen(f);
    f->l.ops->thread_exited(f->l.self, 2, 0);
    assert_true(f->l.ops->freeing(f->l.self, &f->ex, 3, BLOCK, NULL, 0, &f->res));
    assert_int_equal(f->res.kind, FAIL_NONE);
}

/* Each execution starts with nothing freed. */
static void begin_forgets(void **state)
{
    struct fixture *f = *state;
    free_block(f, 2, 0x1234567890abcdefull);
    f->l.ops->begin(f->l.self, &f->ex);
    assert_true(read_at(f, 3, BLOCK));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(double_free_named, setup, teardown),
        cmocka_unit_test_setup_teardown(use_after_free_named, setup, teardown),
        cmocka_unit_test_setup_teardown(handed_out_unseen_is_no_error, setup, teardown),
        cmocka_unit_test_setup_teardown(allocated_again_is_no_error, setup, teardown),
        cmocka_unit_test_setup_teardown(thread_end_keeps_judging, setup, teardown),
        cmocka_unit_test_setup_teardown(thread_end_after_reuse, setup, teardown),
        cmocka_unit_test_setup_teardown(begin_forgets, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
