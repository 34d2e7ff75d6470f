/* A ring buffer of ints used by at most two threads; pop of an empty
 * ring gives -1, push to a full one -1. */
#ifndef LC_RING_H
#define LC_RING_H
struct ring;
struct ring *ring_new(void);
int ring_push(struct ring *r, int value);
int ring_pop(struct ring *r);
#endif
