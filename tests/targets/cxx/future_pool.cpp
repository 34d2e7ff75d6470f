/* future_pool.cpp - a small thread pool: workers take std::packaged_task
 * jobs from a queue guarded by a std::mutex and std::condition_variable;
 * main waits on the std::futures. CORRECT: mdat must find no failure. */
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

static std::mutex jobs_lock;
static std::condition_variable jobs_ready;
static std::deque<std::packaged_task<int()>> jobs;
static bool closing;

static void pool_worker()
{
    for (;;) {
        std::packaged_task<int()> job;
        {
            std::unique_lock<std::mutex> held(jobs_lock);
            jobs_ready.wait(held, [] { return closing || !jobs.empty(); });
            if (jobs.empty())
                return;
            job = std::move(jobs.front());
            jobs.pop_front();
        }
        job();
    }
}

static std::future<int> submit(int n)
{
    std::packaged_task<int()> job([n] { return n * n; });
    std::future<int> result = job.get_future();
    {
        std::lock_guard<std::mutex> held(jobs_lock);
        jobs.push_back(std::move(job));
    }
    jobs_ready.notify_one();
    return result;
}

int main()
{
    std::thread a(pool_worker), b(pool_worker);
    std::future<int> two = submit(2), three = submit(3);
    int sum = two.get() + three.get();
    {
        std::lock_guard<std::mutex> held(jobs_lock);
        closing = true;
    }
    jobs_ready.notify_all();
    a.join();
    b.join();
    std::printf("%d\n", sum);
    return sum == 13 ? 0 : 1;
}
