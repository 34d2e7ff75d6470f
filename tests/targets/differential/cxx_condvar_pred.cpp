/* cxx_condvar_pred.cpp [one] - two waiters wait on a std::condition_variable
 * with a predicate (wait(lock, pred), a while loop inside libstdc++); the
 * main thread sets the flag under the mutex and notifies.
 *
 * CORRECT with no argument: notify_all(); one outcome, "woken 2".
 * BUGGY with "one": notify_one(); when both are waiting one is never woken
 * and the program deadlocks.
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

static std::mutex m;
static std::condition_variable cv;
static bool go;
static int woken;

static void waiter()
{
    std::unique_lock<std::mutex> lk(m);
    cv.wait(lk, [] { return go; });     /* WAIT: the one notify woke the other */
    woken++;
}

int main(int argc, char **argv)
{
    bool one = argc > 1 && std::strcmp(argv[1], "one") == 0;
    std::thread a(waiter), b(waiter);
    {
        std::lock_guard<std::mutex> g(m);
        go = true;
    }
    if (one)
        cv.notify_one();    /* BUG: one of two waiters */
    else
        cv.notify_all();
    a.join();
    b.join();
    std::printf("woken %d\n", woken);
    return 0;
}
