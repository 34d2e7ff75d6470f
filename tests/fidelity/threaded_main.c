/* threaded_main: the threaded variant of scripts/fidelity. Three csmith
 * programs, each compiled on its own with -Dmain=csmith_main_K and
 * -Dprintf=fidelity_printf (their functions and globals are static, so they
 * share nothing), run in three threads while two more threads lock and
 * unlock one mutex around a shared counter. Each computation prints into
 * its thread's own buffer, and main prints the buffers in order after
 * joining every thread: the output is the same in every schedule and
 * natively, which is what scripts/fidelity compares.
 *
 * What this file leaves to others: the computations (csmith) and the
 * comparison (scripts/fidelity). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

enum { PROGRAMS = 3, LOCKERS = 2, ROUNDS = 100, OUT_SIZE = 4096 };

int csmith_main_0(int argc, char *argv[]);
int csmith_main_1(int argc, char *argv[]);
int csmith_main_2(int argc, char *argv[]);
static int (*const computations[PROGRAMS])(int, char *[]) = {csmith_main_0, csmith_main_1, csmith_main_2};

static char outputs[PROGRAMS][OUT_SIZE];
static size_t output_len[PROGRAMS];
static _Thread_local int my_slot = -1;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

int fidelity_printf(const char *format, ...)
{
    if (my_slot < 0)
        return 0;
    size_t room = OUT_SIZE - output_len[my_slot];
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(outputs[my_slot] + output_len[my_slot], room, format, ap);
    va_end(ap);
    if (n > 0)
        output_len[my_slot] += (size_t)n < room ? (size_t)n : room - 1;
    return n;
}

static void *compute(void *arg)
{
    my_slot = (int)(long)arg;
    char name[] = "csmith";
    char *argv[] = {name, NULL};
    computations[my_slot](1, argv);
    return NULL;
}

static void *lock_and_count(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t threads[PROGRAMS + LOCKERS];
    for (long i = 0; i < PROGRAMS + LOCKERS; i++)
        pthread_create(&threads[i], NULL, i < PROGRAMS ? compute : lock_and_count, (void *)i);
    for (int i = 0; i < PROGRAMS + LOCKERS; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < PROGRAMS; i++)
        printf("program %d: %s", i, outputs[i]);
    printf("counter = %ld\n", counter);
    return 0;
}
