/* cxx_threads.cpp - C++ std::thread + std::mutex + std::lock_guard counter.
 *
 * CORRECT.  3 std::threads x 3 increments of a global counter, each under a
 * std::lock_guard<std::mutex>; main joins and asserts counter == 9.
 *
 * Expected mdat verdict: exit 0 ("counter = 9") in EVERY schedule.
 */
#include <cassert>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

static const int THREADS = 3;
static const int ROUNDS = 3;

std::mutex counter_mutex;
int counter = 0;

static void incrementer()
{
    for (int i = 0; i < ROUNDS; i++) {
        std::lock_guard<std::mutex> guard(counter_mutex);
        counter = counter + 1;
    }
}

int main()
{
    std::vector<std::thread> threads;
    for (int i = 0; i < THREADS; i++)
        threads.emplace_back(incrementer);
    for (auto &t : threads)
        t.join();
    std::printf("counter = %d\n", counter);
    assert(counter == THREADS * ROUNDS);
    return 0;
}
