/* cxx_condvar.cpp - C++ producer/consumer with std::condition_variable and
 * std::atomic.
 *
 * RACE-FREE.  The slot is written and read only under the mutex; the wait
 * and the notify live inside libstdc++ (not the user's code), and the
 * std::atomic<int> `produced` is read without the lock.
 * Expected mdat verdict: no failure, no race, "sum = 15".
 */
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

static std::mutex m;
static std::condition_variable changed;
static int slot;
static bool full;
static std::atomic<int> produced{0};

static void producer()
{
    for (int i = 1; i <= 5; i++) {
        std::unique_lock<std::mutex> guard(m);
        changed.wait(guard, [] { return !full; });
        slot = i;
        full = true;
        produced.fetch_add(1);
        changed.notify_all();
    }
}

int main()
{
    std::thread t(producer);
    int sum = 0;
    for (int i = 0; i < 5; i++) {
        std::unique_lock<std::mutex> guard(m);
        changed.wait(guard, [] { return full; });
        sum += slot;
        full = false;
        changed.notify_all();
    }
    t.join();
    std::printf("sum = %d (%d produced)\n", sum, produced.load());
    return 0;
}
