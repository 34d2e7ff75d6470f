/* shared_readers.cpp - std::shared_mutex: two readers and a writer of a
 * pair that must stay equal. CORRECT: mdat must find no failure. */
#include <cassert>
#include <mutex>
#include <shared_mutex>
#include <thread>

static std::shared_mutex pair_lock;
static int left_half, right_half;

static void reader()
{
    for (int i = 0; i < 2; i++) {
        std::shared_lock<std::shared_mutex> seen(pair_lock);
        assert(left_half == right_half);
    }
}

static void writer()
{
    for (int i = 0; i < 2; i++) {
        std::unique_lock<std::shared_mutex> owned(pair_lock);
        left_half++;
        right_half++;
    }
}

int main()
{
    std::thread r1(reader), r2(reader), w(writer);
    r1.join();
    r2.join();
    w.join();
    return left_half == 2 ? 0 : 1;
}
