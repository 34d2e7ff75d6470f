/* sync_values.cpp - the C++ library's sync objects and handles as a
 * person reads them in --watch: a reader waits on a
 * std::condition_variable_any under a std::shared_lock until a writer,
 * which takes a std::counting_semaphore token and a std::atomic_flag,
 * has added a row under the std::shared_mutex. CORRECT: mdat must find no
 * failure; table_lock reads "free", "writer T3", "1 reader";
 * table_changed "nobody waits", "waiting T2"; busy false or true; tokens
 * 2 or 1; never libstdc++'s or glibc's members. */
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <semaphore>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

static std::shared_mutex table_lock;
static std::condition_variable_any table_changed;
static std::atomic_flag busy = ATOMIC_FLAG_INIT;
static std::counting_semaphore<8> tokens(2);
static std::unique_ptr<int> owned_count;
static std::shared_ptr<std::string> label;
static std::vector<int> rows;
static int version;

static void writer()
{
    tokens.acquire();
    while (busy.test_and_set())
        ;
    {
        std::unique_lock<std::shared_mutex> w(table_lock);
        rows.push_back(3);
        version++;
    }
    table_changed.notify_all();
    busy.clear();
    tokens.release();
}

static void reader()
{
    std::shared_lock<std::shared_mutex> r(table_lock);
    table_changed.wait(r, [] { return version > 0; });
}

int main()
{
    owned_count = std::make_unique<int>(7);
    label = std::make_shared<std::string>("hello");
    std::shared_ptr<std::string> copy = label;
    std::thread a(reader), b(writer);
    a.join();
    b.join();
    return rows.size() == 1 && *owned_count == 7 ? 0 : 1;
}
