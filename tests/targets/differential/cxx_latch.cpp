/* cxx_latch.cpp - C++20 std::latch: two workers write their part and count
 * the latch down; main waits on it and adds the parts.
 *
 * CORRECT; one outcome, "sum 5". For the dpor/dfs differential
 * (scripts/dpor-vs-dfs).
 */
#include <cstdio>
#include <latch>
#include <thread>

static std::latch done(2);
static int part[2];

static void work(int me)
{
    part[me] = me + 2;
    done.count_down();
}

int main()
{
    std::thread a(work, 0), b(work, 1);
    done.wait();
    std::printf("sum %d\n", part[0] + part[1]);
    a.join();
    b.join();
    return 0;
}
