/* start_signal.cpp - a lost wake-up with std::condition_variable and
 * std::atomic<bool>, in the style of issue 25: a runner waits for the
 * starter's signal, testing the flag once under the mutex; the starter
 * raises the flag without taking the mutex and notifies.
 *
 * BUGGY: if the runner tests `go` (false), then the starter raises it and
 * notifies before the runner waits, the runner waits forever and main
 * waits forever to join it. Expected mdat verdict: deadlock whose cause is
 * the runner waiting on `start_cv`; main waiting in a join is a consequence.
 */
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

static std::mutex start_lock;
static std::condition_variable start_cv;
static std::atomic<bool> go{false};

static void runner()
{
    std::unique_lock<std::mutex> held(start_lock);
    if (!go.load())
        start_cv.wait(held);    /* WAIT: the notify may already have come */
    std::puts("running");
}

static void starter()
{
    go.store(true);             /* BUG: raised without the mutex runner tests it under */
    start_cv.notify_one();
}

int main()
{
    std::thread r(runner);
    std::thread s(starter);
    r.join();                   /* WAIT: main joins a runner that never runs */
    s.join();
    return 0;
}
