/* exit_cycle.cpp - main locks a mutex, starts a global std::jthread's
 * thread that takes the same mutex, and returns with it still held: exit()
 * runs the jthread's destructor, which joins the worker, which waits for
 * the mutex main's thread holds. BUG: a wait cycle T1 -> T2 -> T1 after
 * main, T1 in exit's destructor with no code of the user's on its stack. */
#include <mutex>
#include <thread>

static std::mutex guard;
static std::jthread worker;

static void take()
{
    std::lock_guard<std::mutex> hold(guard); /* WAIT: main's thread holds it */
}

int main()
{
    guard.lock();
    worker = std::jthread(take);
    return 0; /* guard still held */
}
