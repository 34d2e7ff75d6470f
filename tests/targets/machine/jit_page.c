/* jit_page: correct. Code made at run time: main maps an anonymous page
 * (PROT_READ|PROT_WRITE|PROT_EXEC), writes a function returning 7 into
 * it, lets a thread call it, then rewrites the same bytes to return 8 and
 * lets the thread call it again. Prints "jit 7 8", natively and under
 * mdat. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int stage, results[2];
static unsigned char *code;

static void emit(int value)
{
    unsigned char f[] = {0xb8, (unsigned char)value, 0, 0, 0, 0xc3};   /* mov eax, value; ret */
    memcpy(code, f, sizeof f);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int round = 0; round < 2; round++) {
        pthread_mutex_lock(&lock);
        while (stage != 2 * round + 1)
            pthread_cond_wait(&changed, &lock);
        results[round] = ((int (*)(void))code)();
        stage++;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    for (int round = 0; round < 2; round++) {
        pthread_mutex_lock(&lock);
        while (stage != 2 * round)
            pthread_cond_wait(&changed, &lock);
        emit(7 + round);
        stage++;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
    pthread_join(t, NULL);
    printf("jit %d %d\n", results[0], results[1]);
    return 0;
}
