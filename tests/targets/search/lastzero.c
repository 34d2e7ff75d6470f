/* lastzero.c N - the lastzero benchmark of the DPOR literature (Abdulla et
 * al., POPL 2014): an array of N+1 zeros; one reader scans it from the end
 * for the last zero, and N writers each set array[j] = array[j-1] + 1.
 *
 * CORRECT (no assertion), N in 1..16, default 4. The writers' reads and
 * writes form chains the reader's scan cuts anywhere: (N+3) * 2^(N-1)
 * Mazurkiewicz classes, 28, 64, 144, 320, 704 for N = 4..8 (GenMC and
 * Nidhugg, issue 26). Only main's joins block. Without an argument N is
 * -DWRITERS=N at compile time, default 4 (GenMC runs main without
 * arguments: scripts/dpor-bench).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef WRITERS
#define WRITERS 4
#endif

enum { MAX_N = 16 };

static int array[MAX_N + 1];
static int n = WRITERS;
static int id[MAX_N + 1];

static void *reader(void *arg)
{
    (void)arg;
    int i;
    for (i = n; array[i] != 0; i--)
        ;
    return NULL;
}

static void *writer(void *arg)
{
    int j = *(int *)arg;
    array[j] = array[j - 1] + 1;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        n = atoi(argv[1]);
    if (n < 1 || n > MAX_N) {
        fprintf(stderr, "usage: lastzero [N 1..%d]\n", MAX_N);
        return 2;
    }
    pthread_t t[MAX_N + 1];
    pthread_create(&t[0], NULL, reader, NULL);
    for (int j = 1; j <= n; j++) {
        id[j] = j;
        pthread_create(&t[j], NULL, writer, &id[j]);
    }
    for (int j = 0; j <= n; j++)
        pthread_join(t[j], NULL);
    return 0;
}
