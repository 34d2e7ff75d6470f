// cxx_race.cpp - two std::threads bump a plain int.
//
// BUGGY (race; with --races off, an assertion in some schedules): hits++
// is a load and a store, and nothing orders the two threads' increments.
#include <cassert>
#include <thread>

static int hits;

int main()
{
    auto bump = [] {
        for (int k = 0; k < 3; k++)
            hits++; /* BUG: not atomic, not locked */
    };
    std::thread a(bump), b(bump);
    a.join();
    b.join();
    assert(hits == 6); /* FAILS: an increment was lost */
    return 0;
}
