/* semaphore_deadlock.cpp - a std::counting_semaphore released once for two
 * acquires: the consumer's second acquire waits forever on slots, and main
 * joins it. DEADLOCK: mdat must name the semaphore slots, its count 0 and
 * the consumer's line. */
#include <semaphore>
#include <thread>

static std::counting_semaphore<4> slots(0);
static std::binary_semaphore done(0);
static int items[2];

static void producer()
{
    items[0] = 1;
    slots.release();            // BUG: one release for two acquires
    done.release();
}

static void consumer()
{
    slots.acquire();
    slots.acquire();            // WAIT: the second item never comes
    items[1] = items[0];
}

int main()
{
    std::thread p(producer), c(consumer);
    done.acquire();
    p.join();
    c.join();
    return 0;
}
