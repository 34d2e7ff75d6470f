/* latch_deadlock.cpp - a std::latch that never reaches zero: main waits for
 * three count-downs but starts only two workers, and a third thread waits on
 * the same latch. DEADLOCK: mdat must name the latch start_line, its count
 * and its waiters. */
#include <latch>
#include <thread>

static std::latch start_line(3);
static int work[2];

static void worker(int me)
{
    work[me] = me + 1;
    start_line.count_down();
}

static void watcher()
{
    start_line.wait();
}

int main()
{
    std::thread a(worker, 0), b(worker, 1), w(watcher);
    start_line.wait();
    a.join();
    b.join();
    w.join();
    return 0;
}
