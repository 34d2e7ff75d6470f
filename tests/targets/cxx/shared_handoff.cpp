/* shared_handoff.cpp - a std::shared_ptr handed from main to a worker
 * through a mutex-guarded slot; both drop their copies. CORRECT: the use
 * count is atomic, the last owner frees; mdat must find no failure. */
#include <cassert>
#include <memory>
#include <mutex>
#include <thread>

struct parcel {
    int weight;
};

static std::mutex slot_lock;
static std::shared_ptr<parcel> slot;

static void courier()
{
    std::shared_ptr<parcel> mine;
    {
        std::lock_guard<std::mutex> held(slot_lock);
        mine = slot;
    }
    if (mine)
        assert(mine->weight == 5);
}

int main()
{
    {
        std::lock_guard<std::mutex> held(slot_lock);
        slot = std::make_shared<parcel>(parcel{5});
    }
    std::thread t(courier);
    {
        std::lock_guard<std::mutex> held(slot_lock);
        slot.reset();
    }
    t.join();
    return 0;
}
