/* Unit tests for supervisor/process/page_cache through tracee.c's memory
 * functions, on a real stopped child: reads are served from the copies
 * until a thread is resumed; the first write to a page reaches the child,
 * later ones wait until something could look (a resume, a read around the
 * copies, the write-back); a page the child may not write still refuses
 * the program's write, and mdat's own (FOLL_FORCE) write is seen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/process/page_cache.h"
#include "supervisor/process/tracee.h"

enum { PAGE = 4096 };

struct child {
    pid_t pid;
    int mem_fd;
    uint8_t *rw;    /* two writable pages */
    uint8_t *ro;    /* one read-only page */
};

static struct child child;

/* The child's memory as it is, around mdat's copies. */
static uint64_t raw_read(const void *addr)
{
    uint64_t v = 0;
    struct iovec local = {&v, sizeof v}, remote = {(void *)addr, sizeof v};
    assert_int_equal(process_vm_readv(child.pid, &local, 1, &remote, 1, 0), sizeof v);
    return v;
}

static void raw_write(void *addr, uint64_t v)
{
    struct iovec local = {&v, sizeof v}, remote = {addr, sizeof v};
    assert_int_equal(process_vm_writev(child.pid, &local, 1, &remote, 1, 0), sizeof v);
}

static int start_child(void **state)
{
    (void)state;
    child.rw = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    child.ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (child.rw == MAP_FAILED || child.ro == MAP_FAILED)
        return -1;
    memset(child.ro, 0x11, PAGE);
    mprotect(child.ro, PAGE, PROT_READ);
    child.pid = fork();
    if (child.pid == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        raise(SIGSTOP);
        for (;;)
            pause();
    }
    int status;
    if (child.pid < 0 || waitpid(child.pid, &status, 0) != child.pid || !WIFSTOPPED(status))
        return -1;
    child.mem_fd = tracee_open_mem(child.pid);
    return child.mem_fd < 0 ? -1 : 0;
}

static int stop_child(void **state)
{
    (void)state;
    page_cache_follow(-1, 0);
    close(child.mem_fd);
    kill(child.pid, SIGKILL);
    waitpid(child.pid, NULL, 0);
    return 0;
}

static void zero_pages(void)
{
    page_cache_follow(-1, 0);
    for (int i = 0; i < 2 * PAGE; i += 8)
        raw_write(child.rw + i, 0);
    page_cache_follow(child.mem_fd, child.pid);
}

static void reads_come_from_the_copy_until_a_resume(void **state)
{
    (void)state;
    zero_pages();
    uint64_t v = 1;
    assert_true(tracee_read_as_program(child.pid, (uint64_t)(uintptr_t)child.rw, &v, sizeof v));
    assert_int_equal(v, 0);
    raw_write(child.rw, 7);     /* as if a thread had run: the copy does not know */
    assert_true(tracee_read(child.mem_fd, (uint64_t)(uintptr_t)child.rw, &v, sizeof v));
    assert_int_equal(v, 0);
    page_cache_forget();        /* what resuming a thread does */
    assert_true(tracee_read_as_program(child.pid, (uint64_t)(uintptr_t)child.rw, &v, sizeof v));
    assert_int_equal(v, 7);
}

static void the_first_write_goes_through_later_ones_wait(void **state)
{
    (void)state;
    zero_pages();
    uint64_t addr = (uint64_t)(uintptr_t)child.rw + 64, v = 5, got = 0;
    assert_true(tracee_read_as_program(child.pid, addr, &got, sizeof got));
    assert_true(tracee_write_as_program(child.pid, addr, &v, sizeof v));
    assert_int_equal(raw_read(child.rw + 64), 5);       /* the page showed itself writable */
    v = 6;
    assert_true(tracee_write_as_program(child.pid, addr, &v, sizeof v));
    assert_int_equal(raw_read(child.rw + 64), 5);       /* held in the copy */
    assert_true(tracee_read(child.mem_fd, addr, &got, sizeof got));
    assert_int_equal(got, 6);                           /* mdat reads what it wrote */
    assert_true(page_cache_write_back());
    assert_int_equal(raw_read(child.rw + 64), 6);
}

static void a_read_around_the_copies_sees_the_writes(void **state)
{
    (void)state;
    zero_pages();
    uint64_t addr = (uint64_t)(uintptr_t)child.rw + 128;
    const char first[8] = "abc", second[8] = "xyz";
    char text[16];
    assert_true(tracee_read_as_program(child.pid, addr, text, 8));
    assert_true(tracee_write_as_program(child.pid, addr, first, sizeof first));
    assert_true(tracee_write_as_program(child.pid, addr, second, sizeof second));
    tracee_read_string(child.mem_fd, addr, text, sizeof text);
    assert_string_equal(text, "xyz");
}

static void a_read_only_page_refuses_the_program_not_mdat(void **state)
{
    (void)state;
    zero_pages();
    uint64_t addr = (uint64_t)(uintptr_t)child.ro, v = 0;
    assert_true(tracee_read_as_program(child.pid, addr, &v, sizeof v));
    assert_int_equal(v, 0x1111111111111111ull);
    uint64_t w = 2;
    assert_false(tracee_write_as_program(child.pid, addr, &w, sizeof w));
    assert_false(tracee_write_as_program(child.pid, addr, &w, sizeof w));
    assert_true(tracee_read_as_program(child.pid, addr, &v, sizeof v));
    assert_int_equal(v, 0x1111111111111111ull);
    assert_true(tracee_write(child.mem_fd, addr, &w, sizeof w));   /* as an int3 is planted */
    assert_true(tracee_read_as_program(child.pid, addr, &v, sizeof v));
    assert_int_equal(v, 2);
    assert_int_equal(raw_read(child.ro), 2);
}

static void a_read_across_two_pages(void **state)
{
    (void)state;
    zero_pages();
    raw_write(child.rw + PAGE - 8, 0x0807060504030201ull);
    raw_write(child.rw + PAGE, 0x100f0e0d0c0b0a09ull);
    page_cache_forget();
    uint8_t bytes[16];
    assert_true(tracee_read_as_program(child.pid, (uint64_t)(uintptr_t)child.rw + PAGE - 8, bytes, sizeof bytes));
    for (int i = 0; i < 16; i++)
        assert_int_equal(bytes[i], i + 1);
}

static void page_zero_and_other_processes_are_not_served(void **state)
{
    (void)state;
    zero_pages();
    uint64_t v;
    assert_false(tracee_read_as_program(child.pid, 8, &v, sizeof v));
    assert_false(page_cache_read(-1, child.pid + 1, (uint64_t)(uintptr_t)child.rw, &v, sizeof v));
    assert_false(page_cache_read(child.mem_fd + 100, -1, (uint64_t)(uintptr_t)child.rw, &v, sizeof v));
}

static void a_write_elsewhere_forgets_the_copies(void **state)
{
    (void)state;
    zero_pages();
    uint64_t addr = (uint64_t)(uintptr_t)child.rw, v = 0, w = 9;
    assert_true(tracee_read_as_program(child.pid, addr, &v, sizeof v));
    raw_write(child.rw, 3);
    /* A vfork child shares the memory: its writes go through its own handle. */
    page_cache_wrote(-1, child.pid + 1, addr + 8, &w, sizeof w, true);
    assert_true(tracee_read_as_program(child.pid, addr, &v, sizeof v));
    assert_int_equal(v, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_come_from_the_copy_until_a_resume),
        cmocka_unit_test(the_first_write_goes_through_later_ones_wait),
        cmocka_unit_test(a_read_around_the_copies_sees_the_writes),
        cmocka_unit_test(a_read_only_page_refuses_the_program_not_mdat),
        cmocka_unit_test(a_read_across_two_pages),
        cmocka_unit_test(page_zero_and_other_processes_are_not_served),
        cmocka_unit_test(a_write_elsewhere_forgets_the_copies),
    };
    return cmocka_run_group_tests(tests, start_child, stop_child);
}
