/* aligned_release.cpp - the reference count of double_free.cpp on a block
 * of an over-aligned type (alignas(64), a cache line of its own), which
 * C++17 allocates and frees with operator new and delete taking a
 * std::align_val_t. BUGGY: when both decrements come before either
 * re-read, both threads delete the block. Expected mdat verdict: a double
 * free naming the block (new at its line) and the first delete, as for
 * any other block, never a SIGABRT inside std::thread's code. */
#include <atomic>
#include <thread>

struct alignas(64) counter_line {
    long hits;
};

static counter_line *shared_line;
static std::atomic<int> users{2};

static void leave()
{
    users.fetch_sub(1);
    if (users.load() == 0)              /* BUG: should test what fetch_sub returned */
        delete shared_line;             /* FREE: */
}

int main()
{
    shared_line = new counter_line{0};  /* NEW: */
    std::thread a(leave), b(leave);
    a.join();
    b.join();
    return 0;
}
