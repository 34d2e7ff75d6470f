/* cxx_atomic_wait.cpp [early] - C++20 std::atomic<int>::wait and
 * notify_one: a waiter blocks until a flag leaves 0, a setter stores 1 and
 * notifies.
 *
 * CORRECT with no argument: one outcome, "flag 1".
 * BUGGY with "early": the setter notifies before it stores; when the waiter
 * blocks between the two, nobody wakes it and the program deadlocks.
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

static std::atomic<int> flag{0};
static bool early;

static void waiter()
{
    flag.wait(0);   /* WAIT: the notify came before the store */
}

static void setter()
{
    if (early) {
        flag.notify_one();  /* BUG: before the store */
        flag.store(1);
        return;
    }
    flag.store(1);
    flag.notify_one();
}

int main(int argc, char **argv)
{
    early = argc > 1 && std::strcmp(argv[1], "early") == 0;
    std::thread a(waiter), b(setter);
    a.join();
    b.join();
    std::printf("flag %d\n", flag.load());
    return 0;
}
