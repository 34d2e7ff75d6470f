/* latch_barrier.cpp - C++20 std::latch and std::barrier: two workers each
 * fill their slot, meet at a barrier, read the other's slot, and count down
 * a latch main waits on. CORRECT: mdat must find no failure. */
#include <barrier>
#include <cassert>
#include <latch>
#include <thread>

static int slots[2];
static std::barrier meet(2);
static std::latch finished(2);

static void phase_worker(int me)
{
    slots[me] = me + 1;
    meet.arrive_and_wait();
    assert(slots[1 - me] == 2 - me);
    finished.count_down();
}

int main()
{
    std::thread a(phase_worker, 0), b(phase_worker, 1);
    finished.wait();
    a.join();
    b.join();
    return 0;
}
