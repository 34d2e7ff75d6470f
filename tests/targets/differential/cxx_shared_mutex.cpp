/* cxx_shared_mutex.cpp - std::shared_mutex: a writer updates two fields
 * under a unique lock, a reader reads both under a shared lock.
 *
 * CORRECT; two outcomes: "seen 0 0" and "seen 1 1" (never a mix). For the
 * dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>

static std::shared_mutex rw;
static int first, second, seen[2];

static void writer()
{
    std::unique_lock<std::shared_mutex> g(rw);
    first = 1;
    second = 1;
}

static void reader()
{
    std::shared_lock<std::shared_mutex> g(rw);
    seen[0] = first;
    seen[1] = second;
}

int main()
{
    std::thread a(writer), b(reader);
    a.join();
    b.join();
    std::printf("seen %d %d\n", seen[0], seen[1]);
    return 0;
}
