/* signal_during_step.c - a signal arrives while main is about to do an
 * atomic increment.
 *
 * CORRECT.  The worker sends main SIGUSR1 while main is stopped before its
 * `lock xadd`. The kernel runs the handler first; the increment happens
 * afterwards. mdat's trace must say so rather than claim the increment ran
 * in that step. Expected mdat verdict: exit 0, "3 1".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
int counter; volatile int handled; pthread_t mainth;
static void on(int s) { (void)s; handled = 1; }
static void *w(void *a) { (void)a; pthread_kill(mainth, SIGUSR1); return 0; }
int main() { signal(SIGUSR1, on); mainth = pthread_self(); pthread_t t; pthread_create(&t, 0, w, 0);
  for (int i = 0; i < 3; i++) __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);   /* XADD: */
  pthread_join(t, 0); printf("%d %d\n", counter, handled); }
