/* use_after_free.cpp - a worker reads a buffer main may already have
 * deleted: main frees it once it has set `published`, without waiting for
 * the worker. BUGGY: in the schedules where main's delete comes before the
 * worker's read, the read is a use after free. Expected mdat verdict: a
 * heap error naming the block (new at its line), who freed it and where. */
#include <atomic>
#include <cstdio>
#include <thread>

static std::atomic<int *> shared_buf{nullptr};

static void reader()
{
    int *buf = shared_buf.load();
    if (buf)
        std::printf("%d\n", buf[0]);    /* BUG: may read after main deleted it */
}

int main()
{
    int *buf = new int[4]{7, 8, 9, 10};
    shared_buf.store(buf);
    std::thread t(reader);
    delete[] buf;                       /* FREE: main does not wait for the reader */
    t.join();
    return 0;
}
