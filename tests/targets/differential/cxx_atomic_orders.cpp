/* cxx_atomic_orders.cpp - std::atomic with explicit orders: a publisher
 * fills a plain value and publishes with a release store, a subscriber
 * acquires the flag and reads the value; a relaxed fetch_add counts both.
 *
 * CORRECT; two outcomes: "flag 0 count 2" and "value 7 count 2". mdat runs
 * one step at a time (sequential consistency), so the searches never see a
 * weaker outcome; acquire/release forbids one here anyway. For the dpor/dfs
 * differential (scripts/dpor-vs-dfs).
 */
#include <atomic>
#include <cstdio>
#include <thread>

static std::atomic<bool> published{false};
static std::atomic<int> count{0};
static int value, got = -1;

static void publisher()
{
    value = 7;
    published.store(true, std::memory_order_release);
    count.fetch_add(1, std::memory_order_relaxed);
}

static void subscriber()
{
    if (published.load(std::memory_order_acquire))
        got = value;
    count.fetch_add(1, std::memory_order_relaxed);
}

int main()
{
    std::thread a(publisher), b(subscriber);
    a.join();
    b.join();
    if (got < 0)
        std::printf("flag 0 count %d\n", count.load());
    else
        std::printf("value %d count %d\n", got, count.load());
    return 0;
}
