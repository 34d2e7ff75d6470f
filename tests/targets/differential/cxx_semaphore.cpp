/* cxx_semaphore.cpp - C++20 std::binary_semaphore hand-off: a producer
 * writes a value and releases, the consumer acquires and reads it; a
 * second semaphore sends an answer back.
 *
 * CORRECT; one outcome, "answer 8". For the dpor/dfs differential
 * (scripts/dpor-vs-dfs).
 */
#include <cstdio>
#include <semaphore>
#include <thread>

static std::binary_semaphore to_consumer(0), to_producer(0);
static int value, answer;

static void producer()
{
    value = 4;
    to_consumer.release();
    to_producer.acquire();
    std::printf("answer %d\n", answer);
}

static void consumer()
{
    to_consumer.acquire();
    answer = value * 2;
    to_producer.release();
}

int main()
{
    std::thread a(producer), b(consumer);
    a.join();
    b.join();
    return 0;
}
