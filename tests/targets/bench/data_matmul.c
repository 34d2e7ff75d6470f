/* Benchmark (scripts/bench): C = A x B for 256x256 doubles, 4 threads each
 * computing a quarter of C's rows; main checks the trace of C. Correct;
 * "racy": each thread also adds to a shared counter of rows done without
 * a lock (RACY). Prints the trace. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define N 256
#define THREADS 4

static double a[N][N], b[N][N], c[N][N];
static int racy;
static long rows_done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    long id = (long)arg;
    for (int i = (int)id * (N / THREADS); i < (int)(id + 1) * (N / THREADS); i++) {
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < N; k++)
                s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
    }
    if (racy) {
        rows_done += N / THREADS;   /* RACY: */
    } else {
        pthread_mutex_lock(&lock);
        rows_done += N / THREADS;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    racy = argc > 1 && strcmp(argv[1], "racy") == 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[i][j] = (i + j) % 5;
            b[i][j] = (i == j) + (j % 3);
        }
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    double trace = 0;
    for (int i = 0; i < N; i++)
        trace += c[i][i];
    printf("trace %.0f rows %ld\n", trace, rows_done);
    return 0;
}
