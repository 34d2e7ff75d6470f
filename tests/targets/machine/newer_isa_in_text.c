/* newer_isa_in_text: correct. The program's code holds instructions of
 * extensions this CPU may lack (AVX512-FP16, AMX), in functions it calls
 * only when the CPU has them, laid out between functions it always calls
 * (gcc keeps the order of the file). mdat decodes every instruction of
 * the program to place its breakpoints: a decoder that does not know
 * these must not put an int3 inside an instruction after them (the CPU
 * would then run something else: a SIGILL or a crash under mdat only).
 * Four threads call the plain functions around them; prints the count,
 * natively and under mdat alike. */
#include <cpuid.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
long before_count, after_count;
_Float16 halves[64];
float floats[64];

__attribute__((noinline)) void before(void)
{
    pthread_mutex_lock(&lock);
    before_count++;
    pthread_mutex_unlock(&lock);
}

__attribute__((target("avx512fp16,avx512vl,avx512bw"), noinline)) void half_math(void)
{
    for (int i = 0; i < 64; i++)
        halves[i] = halves[i] * (_Float16)1.5f + (_Float16)floats[i];
}

struct tile_config {
    unsigned char palette, start;
    unsigned char reserved[14];
    unsigned short colsb[16];
    unsigned char rows[16];
} __attribute__((packed));

__attribute__((target("amx-tile,amx-int8"), noinline)) void tile_math(signed char *a, signed char *b, int *c)
{
    struct tile_config cfg = {.palette = 1};
    for (int i = 0; i < 3; i++) {
        cfg.colsb[i] = 64;
        cfg.rows[i] = 16;
    }
    _tile_loadconfig(&cfg);
    _tile_loadd(1, a, 64);
    _tile_loadd(2, b, 64);
    _tile_zero(0);
    _tile_dpbssd(0, 1, 2);
    _tile_stored(0, c, 64);
    _tile_release();
}

__attribute__((noinline)) void after(void)
{
    pthread_mutex_lock(&lock);
    after_count++;
    pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
    for (int i = 0; i < 50; i++) {
        before();
        after();
    }
    return arg;
}

int main(void)
{
    unsigned a, b, c, d;
    /* AMX needs the kernel's permission as well: only FP16 is tried. */
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 23)))
        half_math();
    pthread_t th[4];
    for (int t = 0; t < 4; t++)
        pthread_create(&th[t], NULL, worker, NULL);
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
    printf("before %ld after %ld\n", before_count, after_count);
    return 0;
}
