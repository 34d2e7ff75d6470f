// cxx_async.cpp - std::async, std::future, std::atomic and std::mutex.
//
// CORRECT.  Two std::async tasks count words into a std::atomic and a
// mutex-protected std::map; three std::threads bump a std::atomic<int>.
// Every schedule passes the assert and nothing races.
#include <atomic>
#include <cassert>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

static std::atomic<long> words{0};
static std::mutex map_mutex;
static std::map<std::string, int> freq;

static int count_words(const std::vector<std::string> &part)
{
    for (const auto &w : part) {
        words.fetch_add(1, std::memory_order_relaxed);
        std::lock_guard<std::mutex> g(map_mutex);
        freq[w]++;
    }
    return (int)part.size();
}

int main()
{
    std::vector<std::string> a{"the", "cat", "sat"}, b{"on", "the", "mat"};
    auto f1 = std::async(std::launch::async, count_words, std::cref(a));
    auto f2 = std::async(std::launch::async, [&] { return count_words(b); });
    int n = f1.get() + f2.get();
    std::atomic<int> ticks{0};
    std::vector<std::thread> ts;
    for (int i = 0; i < 3; i++)
        ts.emplace_back([&ticks] {
            for (int k = 0; k < 5; k++)
                ticks++;
        });
    for (auto &t : ts)
        t.join();
    assert(n == 6 && words == 6 && freq["the"] == 2 && ticks == 15);
    return 0;
}
