/* cxx_mutex_counter.cpp [unlocked] - two std::threads increment a counter
 * under a std::mutex (std::lock_guard).
 *
 * CORRECT with no argument: one outcome, "counter 2".
 * BUGGY with "unlocked": the increment skips the mutex; mdat reports the
 * data race on the counter (and, with --races off, "counter 1" can be an
 * outcome). For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

static std::mutex m;
static int counter;
static bool unlocked;

static void increment()
{
    if (unlocked) {
        counter = counter + 1;  /* BUG: no lock */
        return;
    }
    std::lock_guard<std::mutex> g(m);
    counter = counter + 1;
}

int main(int argc, char **argv)
{
    unlocked = argc > 1 && std::strcmp(argv[1], "unlocked") == 0;
    std::thread a(increment), b(increment);
    a.join();
    b.join();
    std::printf("counter %d\n", counter);
    return 0;
}
