/* double_free.cpp - a hand-made reference count: each thread drops its
 * reference, then reads the count again to decide whether it was the last.
 * BUGGY: when both decrements come before either re-read, both threads see
 * 0 and the block is deleted twice. Expected mdat verdict: a double free
 * naming the block (new at its line) and the first delete. */
#include <atomic>
#include <thread>

struct block {
    int payload;
};

static block *owned;
static std::atomic<int> refs{2};

static void release()
{
    refs.fetch_sub(1);
    if (refs.load() == 0)               /* BUG: should test what fetch_sub returned */
        delete owned;
}

int main()
{
    owned = new block{1};
    std::thread a(release), b(release);
    a.join();
    b.join();
    return 0;
}
