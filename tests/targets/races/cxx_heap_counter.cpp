/* cxx_heap_counter.cpp - two std::threads increment a counter that main
 * allocated with new, with no lock. BUGGY: the increments race (a lost
 * update when they interleave). In a C++ program the C++ library's
 * constructors allocate before main, so mdat's allocator reserved its
 * region before the program's entry point: its pages must be followed all
 * the same. Expected mdat verdict: race on heap#1 (new at its line), under
 * every strategy. */
#include <cstdio>
#include <thread>

int main()
{
    int *counter = new int(0);          /* ALLOC */
    auto work = [counter] {
        for (int i = 0; i < 3; i++)
            (*counter)++;               /* BUG: no lock */
    };
    std::thread a(work), b(work);
    a.join();
    b.join();
    std::printf("%d\n", *counter);
    delete counter;
    return 0;
}
