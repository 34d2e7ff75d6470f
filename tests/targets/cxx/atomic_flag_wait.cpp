/* atomic_flag_wait.cpp - C++20 std::atomic<bool>::wait whose setter forgets
 * notify_one: libstdc++ parks a bool's waiter on a proxy word of its own
 * waiter pool, not on ready itself. DEADLOCK when the waiter sleeps before
 * the store: mdat must name the atomic ready, its value and the line. */
#include <atomic>
#include <thread>

static std::atomic<bool> ready{false};
static std::atomic<int> acks{0};
static int payload;

static void waiter()
{
    ready.wait(false);          // WAIT: no notify ever comes
    payload++;
    acks.fetch_add(1);
    acks.notify_one();
}

static void setter()
{
    payload = 42;
    ready.store(true);          // BUG: no ready.notify_one()
}

int main()
{
    std::thread w(waiter), s(setter);
    acks.wait(0);               // WAIT: main waits for the waiter's ack
    w.join();
    s.join();
    return 0;
}
