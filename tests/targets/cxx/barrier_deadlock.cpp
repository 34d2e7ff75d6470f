/* barrier_deadlock.cpp - a std::barrier expecting three threads that only
 * two ever reach: both wait forever on sync_point, main joins them.
 * DEADLOCK: mdat must name the barrier sync_point, its phase and the line. */
#include <barrier>
#include <thread>

static std::barrier sync_point(3);
static int part[2];

static void worker(int me)
{
    part[me] = me + 1;
    sync_point.arrive_and_wait();   // WAIT: the third never arrives
    part[me] += part[1 - me];
}

int main()
{
    std::thread a(worker, 0), b(worker, 1);  // BUG: three expected, two started
    a.join();
    b.join();
    return 0;
}
