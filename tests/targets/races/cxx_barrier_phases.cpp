// Race-free: three workers fill their own slot, meet at a std::barrier,
// then each reads its neighbours' slots; the barrier's phase word is a
// std::atomic on main's stack, stored with release and loaded with acquire
// inside libstdc++ (plain movs once inlined at -O2).
#include <barrier>
#include <cstdio>
#include <thread>
#include <vector>

int main()
{
    constexpr int workers = 3;
    int slot[workers] = {};
    int seen[workers] = {};
    std::barrier meeting(workers);
    std::vector<std::thread> crew;
    for (int w = 0; w < workers; w++)
        crew.emplace_back([&, w] {
            slot[w] = 10 * (w + 1);
            meeting.arrive_and_wait();
            seen[w] = slot[(w + 1) % workers] + slot[(w + 2) % workers];
            meeting.arrive_and_wait();
        });
    for (auto &t : crew)
        t.join();
    std::printf("%d %d %d\n", seen[0], seen[1], seen[2]);
    return 0;
}
