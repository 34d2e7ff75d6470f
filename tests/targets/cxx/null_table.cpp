/* null_table.cpp - a worker indexes a std::vector through a pointer nobody
 * set. BUGGY: a NULL pointer dereference inside std::vector's operator[]
 * (a function of its own at -O0, inlined at -O2). Expected mdat verdict: a
 * crash located at the user's line that indexed, the header's code
 * beside it, never at stl_vector.h alone. */
#include <thread>
#include <vector>

std::vector<int> *table;   /* (global: no compiler may assume it stays null) */
static int seen;

static void reader()
{
    seen = (*table)[2];     /* CRASH: table was never set */
}

int main()
{
    std::thread t(reader);
    t.join();
    return seen;
}
