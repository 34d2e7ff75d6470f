/* hb_clocks: the happens-before order the engine itself keeps, for the
 * page owners (page_owners.h) to decide whether a page may pass from one
 * thread to another without any of its accesses being a step.
 *
 * A vector clock per thread and per synchronisation object (a mutex, a
 * futex word, an atomic's address, a thread's end). The engine reports
 * the edges it is sure of: a release (an unlock, a post, a wake, a
 * thread's creation or end) joins the thread's clock into the object's and
 * starts a new epoch of the thread; an acquire joins the object's clock
 * into the thread's. Missing an edge is safe (a page then looks shared and
 * is observed); inventing one is not, so only real synchronisation goes
 * here. What the race detector makes of the same events is its own
 * business (detect/race_detector.c). Thread ids are mdat's (1, 2, ...). */
#ifndef MDAT_SHARING_HB_CLOCKS_H
#define MDAT_SHARING_HB_CLOCKS_H

#include <stdbool.h>
#include <stdint.h>

struct hb_clocks;

struct hb_clocks *hb_clocks_new(void);
void hb_clocks_free(struct hb_clocks *hb);

/* A new thread: it knows what its parent knew (parent 0: the first
 * thread). The parent's creation is a release: its own epoch moves on. */
void hb_thread_start(struct hb_clocks *hb, int child, int parent);
/* The thread can do nothing more: its last epoch is final, and whoever
 * learns of its end (a join) acquires it through hb_exit_object(thread). */
void hb_thread_end(struct hb_clocks *hb, int thread);
bool hb_thread_ended(const struct hb_clocks *hb, int thread);
/* The object standing for the end of a thread (its pthread_join). */
uint64_t hb_exit_object(int thread);

/* thread publishes all it knows on object, then starts a new epoch. */
void hb_release(struct hb_clocks *hb, int thread, uint64_t object);
/* thread learns all that was published on object. */
void hb_acquire(struct hb_clocks *hb, int thread, uint64_t object);

/* The epoch thread is in now: what its accesses since its last release
 * are numbered. */
uint32_t hb_epoch(const struct hb_clocks *hb, int thread);
/* thread knows that other's epoch `epoch` is over: everything other did
 * in it happened before what thread does next. */
bool hb_knows(const struct hb_clocks *hb, int thread, int other, uint32_t epoch);
/* The highest thread id seen. */
int hb_max_thread(const struct hb_clocks *hb);

#endif
