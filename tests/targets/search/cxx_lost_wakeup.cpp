/* cxx_lost_wakeup.cpp - a lost wake-up in the style of issue 23's false
 * proof: std::condition_variable, the flag tested once with `if`, the flag
 * set without the mutex and notify_one() called outside it.
 *
 * BUGGY with no argument: the waiter finds the flag clear, the notifier
 * sets it and notifies nobody before the waiter waits, which then waits
 * forever. Expected mdat verdict: deadlock, found by every systematic
 * strategy (dfs and dpor), at -O0 and -O2 (at -O2 libstdc++, not the
 * user's code, calls pthread_cond_signal).
 * CORRECT with the argument "locked": the flag is set under the mutex, so
 * the waiter either sees it or is waiting when notify_one() comes.
 * Expected: no failure, and dpor explores all of its classes.
 */
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

static std::mutex m;
static std::condition_variable cv;
static std::atomic<bool> ready{false};
static bool locked;

static void waiter()
{
    std::unique_lock<std::mutex> lk(m);
    if (!ready.load())
        cv.wait(lk);    /* WAIT: never woken when the notify came first */
}

static void notifier()
{
    if (locked) {
        std::lock_guard<std::mutex> g(m);
        ready.store(true);
    } else {
        ready.store(true);  /* BUG: set without the mutex the waiter tests it under */
    }
    cv.notify_one();
}

int main(int argc, char **argv)
{
    locked = argc > 1 && strcmp(argv[1], "locked") == 0;
    std::thread a(waiter), b(notifier);
    a.join();
    b.join();
    puts("woken");
    return 0;
}
