/* barrier_plain_race.cpp - a plain int among libstdc++'s atomics: two
 * workers meet at a std::barrier whose completion counts the phases in a
 * plain int, and count their rounds in a std::atomic<int>; main reads the
 * count while they run, without waiting for them.
 *
 * BUGGY: main's read of `phases` and the completion's update of it are not
 * ordered (main neither joined the workers nor took part in the barrier).
 * The update is the user's code run by std::barrier's arrive (inlined into
 * it at -O2), and main's read shares its line with an atomic load: the
 * barrier's and the atomic's own accesses are synchronisation, these two
 * are not. Expected mdat verdict: race on phases, under every build and
 * strategy. */
#include <atomic>
#include <barrier>
#include <cstdio>
#include <thread>

static int phases;
static std::atomic<int> rounds{0};
static auto on_phase = []() noexcept {
    ++phases;   /* UPDATE: plain, from inside std::barrier::arrive */
};
static std::barrier meet(2, on_phase);

static void worker()
{
    rounds.fetch_add(1);
    meet.arrive_and_wait();
}

int main()
{
    std::thread a(worker), b(worker);
    int seen = phases + rounds.load(); /* READ: plain, beside an atomic load */
    a.join();
    b.join();
    std::printf("%d\n", seen);
    return 0;
}
