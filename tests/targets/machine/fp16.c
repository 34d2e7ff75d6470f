/* fp16: correct. Half-precision arithmetic with AVX512-FP16 (_Float16,
 * which gcc -O3 -march=native turns into vmovw, vfmadd...ph and friends
 * on a CPU that has it): four threads each compute the dot product of
 * their quarter of two shared arrays in half precision and add it into a
 * total under a lock. Prints the total, natively and under mdat alike.
 * Exits 77 (a skip for CTest) on a CPU without AVX512-FP16, before any
 * such instruction runs: only the functions marked for it use it. */
#include <cpuid.h>
#include <pthread.h>
#include <stdio.h>

enum { N = 1024, THREADS = 4, SLICE = N / THREADS };

#define FP16 __attribute__((target("avx512fp16,avx512vl,avx512bw"), noinline))

_Float16 xs[N], ys[N];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static float total;

FP16 static void fill(void)
{
    for (int i = 0; i < N; i++) {
        xs[i] = (_Float16)((i % 13) * 0.25f);
        ys[i] = (_Float16)((i % 7) - 3);
    }
}

FP16 static float dot(int lo, int hi)
{
    _Float16 sum = 0;
    for (int i = lo; i < hi; i++)
        sum += xs[i] * ys[i];
    return (float)sum;
}

static void *work(void *arg)
{
    int t = (int)(long)arg;
    float part = dot(t * SLICE, (t + 1) * SLICE);
    pthread_mutex_lock(&lock);
    total += part;
    pthread_mutex_unlock(&lock);
    return NULL;
}

static int has_avx512fp16(void)
{
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 23));
}

int main(void)
{
    if (!has_avx512fp16()) {
        printf("skipped: this CPU has no AVX512-FP16\n");
        return 77;
    }
    fill();
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, work, (void *)(long)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    printf("total %.2f\n", total);
    return 0;
}
