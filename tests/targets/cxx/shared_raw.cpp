/* shared_raw.cpp - a std::shared_ptr's raw pointer kept past the last
 * reset: main hands a worker `cfg.get()` instead of a copy of the
 * shared_ptr, and drops its own (the only) owner once the worker has
 * started. BUGGY: in the schedules where the reset comes before one of
 * the worker's reads, that read is a use after free of the block
 * make_shared allocated. Expected mdat verdict: a heap error naming the
 * block (new at the make_shared line), who freed it (main, at the reset's
 * line) and who used it after. */
#include <atomic>
#include <cstdio>
#include <memory>
#include <thread>

struct settings {
    int width;
    int height;
};

static std::atomic<bool> started{false};

static void render(const settings *s)
{
    started.store(true);
    int w = s->width;                   /* USE: may read after the reset freed it */
    int h = s->height;                  /* USE2: the same */
    std::printf("%d x %d\n", w, h);    /* PRINT: where -O2 puts both reads */
}

int main()
{
    auto cfg = std::make_shared<settings>(settings{640, 480});   /* ALLOC: */
    std::thread t(render, cfg.get());   /* BUG: a raw pointer, not a copy of cfg */
    while (!started.load())
        ;
    cfg.reset();                        /* FREE: the last owner */
    t.join();
    return 0;
}
