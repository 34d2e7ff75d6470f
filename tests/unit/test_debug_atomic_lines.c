/* Unit tests for supervisor/debuginfo/atomic_lines: which source lines call
 * an atomic operation (their plain movs are that operation's accesses), and
 * which only look as if they did. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/debuginfo/atomic_lines.h"

static void test_calls_found(void **state)
{
    (void)state;
    assert_true(atomic_lines_text_calls_atomic("    atomic_store_explicit(&b->ready, 1, memory_order_release);"));
    assert_true(atomic_lines_text_calls_atomic("while (!atomic_load_explicit(&box->ready, memory_order_acquire))"));
    assert_true(atomic_lines_text_calls_atomic("int v = atomic_load (&x);"));
    assert_true(atomic_lines_text_calls_atomic("old = atomic_fetch_add(&hits, 1);"));
    assert_true(atomic_lines_text_calls_atomic("if (atomic_compare_exchange_weak(&top, &old, n)) break;"));
    assert_true(atomic_lines_text_calls_atomic("while (atomic_flag_test_and_set(&lock)) ;"));
    assert_true(atomic_lines_text_calls_atomic("__atomic_store_n(&flag, 1, __ATOMIC_RELEASE);"));
    assert_true(atomic_lines_text_calls_atomic("v = __sync_fetch_and_add(&c, 1);"));
    assert_true(atomic_lines_text_calls_atomic("__c11_atomic_load(&x, 2);"));
}

static void test_lookalikes_ignored(void **state)
{
    (void)state;
    assert_false(atomic_lines_text_calls_atomic("counter++;"));
    assert_false(atomic_lines_text_calls_atomic("atomic_int ready;"));                 /* a type, no call */
    assert_false(atomic_lines_text_calls_atomic("my_atomic_load(&x);"));              /* another name */
    assert_false(atomic_lines_text_calls_atomic("x = 1; // atomic_store(&y, 1);"));   /* a comment */
    assert_false(atomic_lines_text_calls_atomic("x = 1; /* atomic_store(&y) */"));
    assert_false(atomic_lines_text_calls_atomic("puts(\"atomic_load(&x)\");"));      /* a string */
    assert_false(atomic_lines_text_calls_atomic("atomic_(x);"));                       /* the prefix alone */
    assert_true(atomic_lines_text_calls_atomic("/* c */ atomic_store(&y, 1);"));      /* after a comment */
}

static void test_lines_of_a_file(void **state)
{
    (void)state;
    char path[] = "/tmp/mdat-atomic-lines-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("#include <stdatomic.h>\nint x;\natomic_int y;\nvoid f(void) { atomic_store(&y, 1); }\nvoid g(void) { x = 2; }", f);
    fclose(f);
    struct atomic_lines *al = atomic_lines_new();
    assert_false(atomic_lines_calls_atomic(al, path, 2));
    assert_false(atomic_lines_calls_atomic(al, path, 3));
    assert_true(atomic_lines_calls_atomic(al, path, 4));
    assert_false(atomic_lines_calls_atomic(al, path, 5));  /* the last line, without a newline */
    assert_false(atomic_lines_calls_atomic(al, path, 6));  /* past the end */
    assert_false(atomic_lines_calls_atomic(al, path, 0));
    assert_false(atomic_lines_calls_atomic(al, "/nonexistent/file.c", 1));
    atomic_lines_free(al);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_found),
        cmocka_unit_test(test_lookalikes_ignored),
        cmocka_unit_test(test_lines_of_a_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
