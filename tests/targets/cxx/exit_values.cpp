/* exit_values.cpp - globals whose destructors exit() runs after main: a
 * std::shared_ptr made by the user's code, a std::vector, a std::string
 * too long for its own buffer (the C++ library allocates it), and a plain
 * count. A worker updates them under a mutex. CORRECT: mdat must find no
 * failure; watched, each reads as a person reads it while main runs, and
 * once exit() has freed what one held it is told as destroyed (or not
 * read), never as what the allocator left there (`use_count -896324164`). */
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

struct settings {
    int width;
};

static std::shared_ptr<settings> current = std::make_shared<settings>(settings{3});
static std::vector<int> items{1, 2, 3};
static std::string title = "a title too long for the string's own buffer";
static int updates;
static std::mutex guard;

static void worker()
{
    std::lock_guard<std::mutex> held(guard);
    current->width++;
    items.push_back(4);
    updates++;
}

int main()
{
    std::thread t(worker);
    t.join();
    return updates == 1 ? 0 : 1;    /* MAIN_END: */
}
