/* vector_loops: correct. Built with -O3 -march=native (tests/targets/
 * CMakeLists.txt), so that gcc vectorizes every loop with the widest
 * vectors this CPU has (SSE, AVX2 or AVX-512 loads, stores and
 * arithmetic on the shared arrays). Four threads each work on their
 * quarter of the arrays: an axpy, a sum, a copy, a fill and a search,
 * then add their results into the totals under a lock. Prints the totals,
 * the same natively and under mdat, with or without running ahead. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { N = 4096, THREADS = 4, SLICE = N / THREADS };

int a[N], b[N], c[N], copy[N];
float x[N], y[N];
unsigned char bytes[N];
char text[THREADS][SLICE];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long long total_sum;
static double total_axpy;
static long total_len;

static void *work(void *arg)
{
    int t = (int)(long)arg, lo = t * SLICE, hi = lo + SLICE;
    for (int i = lo; i < hi; i++)
        c[i] = 3 * a[i] + b[i];
    for (int i = lo; i < hi; i++)
        y[i] = 2.5f * x[i] + y[i];
    long long sum = 0;
    for (int i = lo; i < hi; i++)
        sum += c[i];
    double axpy = 0;
    for (int i = lo; i < hi; i++)
        axpy += y[i];
    memcpy(copy + lo, c + lo, SLICE * sizeof c[0]);
    memset(bytes + lo, t + 1, SLICE);
    size_t len = strlen(text[t]);
    pthread_mutex_lock(&lock);
    total_sum += sum;
    total_axpy += axpy;
    total_len += (long)len;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        a[i] = i * 7 - 1000;
        b[i] = (i * 13) % 101;
        x[i] = (float)(i % 17) * 0.25f;
        y[i] = (float)(i % 5);
    }
    for (int t = 0; t < THREADS; t++) {
        memset(text[t], 'a' + t, (size_t)(100 + 37 * t));
        text[t][100 + 37 * t] = '\0';
    }
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, work, (void *)(long)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    long long copied = 0, filled = 0;
    for (int i = 0; i < N; i++) {
        copied += copy[i];
        filled += bytes[i];
    }
    printf("sum %lld axpy %.2f copied %lld filled %lld len %ld\n", total_sum, total_axpy, copied, filled, total_len);
    return 0;
}
