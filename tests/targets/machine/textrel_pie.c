/* textrel_pie: correct. Built as a position-independent executable from
 * code that is not position independent (-fno-pic -mcmodel=large: every
 * address of a global is a 64-bit immediate in the code), linked with
 * -z notext: a DT_TEXTREL executable, whose code the dynamic loader
 * relocates in memory at start. Two threads add to a counter through such
 * addresses under a lock; prints "counter 2000 table 42". mdat must use
 * the relocated instructions (its breakpoints and running ahead), not the
 * file's, natively and under mdat alike. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int table[4] = {40, 41, 42, 43};

static int lookup(int i)
{
    return table[i];
}

static void *worker(void *arg)
{
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return arg;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("counter %ld table %d\n", counter, lookup(2));
    return 0;
}
