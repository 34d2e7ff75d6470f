/* output_checker.c - an MDAT-style mutual-exclusion log, without mutual exclusion.
 *
 * BUGGY.  Two threads x two rounds each print "enter N" before and "exit N"
 * after a critical section (N = thread number 1 or 2), one write(2) per line
 * so lines never mix.  The critical section is NOT protected by any lock
 * (that is the bug), so in some schedules the log shows
 *     enter 1
 *     enter 2        <- second thread inside the critical section
 * and check_mutex_log.sh (reads the log on stdin) exits 1 with a one-line
 * message.  In other schedules the log alternates correctly and the checker
 * exits 0.  The program itself always exits 0.
 *
 * Expected mdat verdict (with the output checker, e.g.
 * --check-output tests/targets/check_mutex_log.sh): OUTPUT CHECK FAILED in
 * some schedules, pass in others.  BUG line: the unprotected critical
 * section.  Without a checker: exit 0 always.
 * Natively: the log is usually well-formed.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define THREADS 2
#define ROUNDS 2

int in_critical = 0;                 /* shared state touched inside the critical section */
int visits = 0;

static void log_line(const char *what, int id)
{
    char line[32];
    int n = snprintf(line, sizeof line, "%s %d\n", what, id);
    (void)!write(1, line, (size_t)n);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < ROUNDS; i++) {
        log_line("enter", id);
        in_critical = in_critical + 1;   /* BUG: critical section without any lock */
        visits = visits + 1;
        in_critical = in_critical - 1;
        log_line("exit", id);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return 0;
}
