// Target for the take-over's visible steps in C++ at -O2 (tests/e2e/attach.sh
// tui_takeover_cxx): two std::threads take two std::mutex in opposite orders
// after a long sleep; std::mutex::lock, inlined, calls pthread_mutex_lock,
// whose entry the take-over's steps stop at as for C.
#include <cstdio>
#include <mutex>
#include <thread>
#include <unistd.h>

static std::mutex ma, mb;
static long total;

static void forward()
{
    sleep(30);
    std::lock_guard<std::mutex> first(ma);     // CXX_FORWARD_A:
    total++;                                   // CXX_TOTAL:
    std::lock_guard<std::mutex> second(mb);    // CXX_FORWARD_B:
}

static void backward()
{
    sleep(30);
    std::lock_guard<std::mutex> first(mb);     // CXX_BACKWARD_B:
    total--;
    std::lock_guard<std::mutex> second(ma);    // CXX_BACKWARD_A:
}

int main()
{
    std::thread t1(forward), t2(backward);
    t1.join();
    t2.join();
    std::printf("total %ld\n", total);
}
