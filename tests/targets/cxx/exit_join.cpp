/* exit_join.cpp - a global std::jthread whose thread waits for a flag
 * nobody sets: main returns, exit() runs the jthread's destructor, which
 * asks the thread to stop (it does not look) and joins it. BUG: deadlock
 * after main, with no code of the user's on the main thread's stack. */
#include <atomic>
#include <stop_token>
#include <thread>

static std::atomic<bool> go{false};

static void waiter(std::stop_token)
{
    go.wait(false); /* WAIT: nobody sets go; the stop request is not looked at */
}

static std::jthread worker(waiter);

int main()
{
    return 0;
}
