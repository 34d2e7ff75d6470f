/* A set of ints: add and remove give 1 when they changed the set. */
#ifndef LC_SET_H
#define LC_SET_H
struct set;
struct set *set_new(void);
int set_add(struct set *s, int x);
int set_remove(struct set *s, int x);
int set_contains(struct set *s, int x);
#endif
