/* Unit tests for proc_stat: the fields of a stat line are counted from the
 * command name's last ')', whatever the name holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/process/proc_stat.h"

/* A name with spaces and both parentheses, as a program may give itself:
 * a reader that splits at the first ')' or at spaces reads other fields. */
static void name_with_parentheses(void **state)
{
    (void)state;
    char old[17] = "";
    prctl(PR_GET_NAME, old);
    assert_int_equal(prctl(PR_SET_NAME, "a) R 1 (b"), 0);
    struct proc_stat st;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    bool ok = proc_stat_read(getpid(), tid, &st);
    prctl(PR_SET_NAME, old);
    assert_true(ok);
    assert_string_equal(st.comm, "a) R 1 (b");
    assert_int_equal(st.state, 'R');    /* this thread, reading */
    assert_int_equal(st.ppid, getppid());
    assert_true(st.processor >= 0);
    assert_true(st.processor < 4096);
}

static pid_t sleeper_tid;

static void *sleeper(void *arg)
{
    (void)arg;
    __atomic_store_n(&sleeper_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
    pause();
    return NULL;
}

/* Another thread, asleep: its state is its own, not the reader's. */
static void another_thread(void **state)
{
    (void)state;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, sleeper, NULL), 0);
    struct proc_stat st = {0};
    for (int tries = 0; tries < 400 && st.state != 'S'; tries++) {
        usleep(5000);
        pid_t tid = __atomic_load_n(&sleeper_tid, __ATOMIC_ACQUIRE);
        if (tid)
            assert_true(proc_stat_read(getpid(), tid, &st));
    }
    assert_int_equal(st.state, 'S');
    pthread_cancel(t);
    pthread_join(t, NULL);
}

static void gone(void **state)
{
    (void)state;
    struct proc_stat st;
    errno = 0;
    assert_false(proc_stat_read(getpid(), 0x7ffffff0, &st));
    assert_true(errno == ENOENT || errno == ESRCH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(name_with_parentheses),
        cmocka_unit_test(another_thread),
        cmocka_unit_test(gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
