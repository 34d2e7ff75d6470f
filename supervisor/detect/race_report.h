/* race_report: a race in words, and which races a run has told already.
 *
 * Owns the wording of a race ("race on counter: T2 writes at c.c:9 in
 * worker (step 14), T3 read at c.c:9 in worker (step 11), with no
 * synchronization between them"), the --races modes, and the set of pairs
 * of source places already reported, kept in memory that forked workers
 * share so that a run tells each pair once whatever -j is. Finding races is
 * race_detector.c's job; naming addresses is the listener's. */
#ifndef MDAT_DETECT_RACE_REPORT_H
#define MDAT_DETECT_RACE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --races: a race ends the execution as a failure, is printed as a warning
 * (each pair of places once per run) while the run goes on, or is not
 * looked for; or (fail-at-end, mdat grade's default) the first race is
 * kept and the execution goes on to its end, where the exit status and the
 * checker judge it too: a race that nothing else failed is its failure,
 * and one that also went wrong otherwise is told with it (exec_result's
 * raced). */
enum race_mode { RACES_OFF, RACES_WARN, RACES_FAIL, RACES_FAIL_AT_END };

/* "off", "warn", "fail", "fail-at-end". */
const char *race_mode_name(enum race_mode mode);
/* false for anything else. */
bool race_mode_from_name(const char *name, enum race_mode *mode);

/* One side of a race, named. */
struct race_place {
    int thread;
    bool write;
    uint64_t step;
    char line[96];          /* "counter.c:9", "" when unknown */
    char function[96];      /* "worker", "" when unknown */
    uint64_t pc;            /* shown when there is neither line nor function */
};

/* The one-line message of a race on object between two accesses. */
void race_report_message(const char *object, const struct race_place *earlier, const struct race_place *later,
                         char *buf, size_t len);
/* "counter.c:9 worker": how a place is told apart from others (for the
 * pairs already reported). */
void race_place_key(const struct race_place *p, char *buf, size_t len);

/* Pairs of places reported so far, in either order. */
struct race_seen;

/* shared: in memory that processes forked from now on share. */
struct race_seen *race_seen_new(bool shared);
void race_seen_free(struct race_seen *s);
/* True the first time the pair {a, b} is seen (then never again). */
bool race_seen_first(struct race_seen *s, const char *a, const char *b);

#endif
