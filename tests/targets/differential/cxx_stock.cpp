// cxx_stock.cpp - the C++ form of stock_check_take.c: two std::thread
// buyers, a std::atomic<int> stock of 3, a std::mutex around the count of
// sales (std::scoped_lock), two rounds each.
//
// CORRECT by default (compare_exchange_strong); one outcome:
// "sold 3 left 0". "racy": load, then fetch_sub in a second atomic step:
// FAILURE exit status 1 in some interleavings ("left -1"). Built -O2 it was
// issue 23's false proof (dpor: "exact: all 16 classes", one outcome).
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

namespace {

std::atomic<int> stock{3};
std::mutex sales_lock;
int sold = 0;
bool racy = false;

bool take_one()
{
    if (racy) {
        if (stock.load() <= 0)
            return false;
        stock.fetch_sub(1);
        return true;
    }
    int seen = stock.load();
    while (seen > 0 && !stock.compare_exchange_strong(seen, seen - 1)) {
    }
    return seen > 0;
}

void buyer()
{
    for (int round = 0; round < 2; round++) {
        if (take_one()) {
            std::scoped_lock guard(sales_lock);
            ++sold;
        }
    }
}

}  // namespace

int main(int argc, char **argv)
{
    racy = argc > 1 && std::strcmp(argv[1], "racy") == 0;
    std::thread first(buyer), second(buyer);
    first.join();
    second.join();
    int left = stock.load();
    std::printf("sold %d left %d\n", sold, left);
    return left < 0 ? 1 : 0;
}
