/* atomic_wait.cpp - C++20 std::atomic<int>::wait and notify_one: a
 * consumer waits for the producer's value. CORRECT: mdat must find no
 * failure (the wait is a futex wait mdat models). */
#include <atomic>
#include <cassert>
#include <thread>

static std::atomic<int> mailbox{0};

static void consumer()
{
    mailbox.wait(0);
    assert(mailbox.load() == 42);
}

static void producer()
{
    mailbox.store(42);
    mailbox.notify_one();
}

int main()
{
    std::thread c(consumer), p(producer);
    c.join();
    p.join();
    return 0;
}
