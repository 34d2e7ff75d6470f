// cxx_deadlock: BUGGY. Two std::threads lock two std::mutexes in opposite
// orders; each waits until both hold their first, so it deadlocks every
// time. Built at -O2: mdat attach -p must report the cycle over the
// std::mutex objects with the user's lines.
#include <atomic>
#include <cstdio>
#include <mutex>
#include <sched.h>
#include <thread>

std::mutex first_mutex, second_mutex;
static std::atomic<int> holding{0};

static void lock_both(std::mutex &a, std::mutex &b)
{
    a.lock();
    holding++;
    while (holding.load() < 2)
        sched_yield();
    b.lock(); // BUG: the other thread takes these in the other order
    b.unlock();
    a.unlock();
}

int main()
{
    std::thread t1(lock_both, std::ref(first_mutex), std::ref(second_mutex));
    std::thread t2(lock_both, std::ref(second_mutex), std::ref(first_mutex));
    t1.join(); // WAIT: main
    t2.join();
    std::puts("done");
    return 0;
}
