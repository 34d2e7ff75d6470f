/* jthread_stop.cpp - C++20 std::jthread with a std::stop_token: a poller
 * counts until main asks it to stop; the jthread's destructor requests the
 * stop and joins. CORRECT: mdat must find no failure. */
#include <atomic>
#include <stop_token>
#include <thread>

static std::atomic<int> polls{0};

static void poller(std::stop_token stop)
{
    while (!stop.stop_requested() && polls.load() < 3)
        polls.fetch_add(1);
}

int main()
{
    std::jthread worker(poller);
    worker.request_stop();
    return 0;
}
