/* future_values.cpp - a std::promise a worker keeps and a std::stop_source
 * main stops, as a person reads them in --watch: the future "not ready",
 * then "ready"; the source "stop not requested", then "stop requested".
 * CORRECT: mdat must find no failure. */
#include <future>
#include <stop_token>
#include <thread>

static std::promise<int> answer_promise;
static std::future<int> answer;
static std::stop_source stopper;

static void worker()
{
    answer_promise.set_value(42);
}

int main()
{
    answer = answer_promise.get_future();
    std::thread t(worker);
    int got = answer.get();
    stopper.request_stop();
    t.join();
    return got == 42 && stopper.stop_requested() ? 0 : 1;
}
