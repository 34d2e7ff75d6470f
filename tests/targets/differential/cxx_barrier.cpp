/* cxx_barrier.cpp - C++20 std::barrier: two threads each fill their slot,
 * arrive and wait, then read the other's.
 *
 * CORRECT; one outcome, "seen 2 1". For the dpor/dfs differential
 * (scripts/dpor-vs-dfs).
 */
#include <barrier>
#include <cstdio>
#include <thread>

static std::barrier<> meet(2);
static int slot[2], seen[2];

static void phase(int me)
{
    slot[me] = me + 1;
    meet.arrive_and_wait();
    seen[me] = slot[1 - me];
}

int main()
{
    std::thread a(phase, 0), b(phase, 1);
    a.join();
    b.join();
    std::printf("seen %d %d\n", seen[0], seen[1]);
    return 0;
}
