/* choices: the record of the choices one execution made, in order.
 *
 * A choice is made wherever more than one thread could run the next step,
 * or more waiters could wake than a wake releases. The execution appends
 * each one; a schedule file (explore/schedule.h) stores the list, and the
 * replay strategy follows it. Nothing else is needed to re-execute a run.
 *
 * A long execution makes a choice at nearly every step, so the list is
 * kept packed (choices.c): most choices take one byte, and reading the
 * i-th decodes at most a block of CHOICE_BLOCK. Choices are read with
 * choice_list_at and changed only through the functions below. */
#ifndef MDAT_ENGINE_CHOICES_H
#define MDAT_ENGINE_CHOICES_H

#include <stddef.h>
#include <stdint.h>

#include "supervisor/sharing/page_list.h"

enum choice_kind {
    CHOICE_THREAD = 't',    /* which thread runs the next step */
    CHOICE_WAKE = 'w',      /* which waiter a futex wake releases */
    /* Only in schedule files: a CHOICE_THREAD of thread -T, "commit T's
     * oldest pending store" under --memory-model tso. */
    CHOICE_FLUSH = 'f',
};

struct choice {
    uint64_t step;
    char kind;              /* enum choice_kind */
    int thread;
};

/* How an execution observed memory (engine/exec_pages.h), which its
 * choices only replay under: every access (no page ownership), only the
 * pages shared (from the observed ones on), or every access in a program
 * prepared for ownership (its environment says LD_BIND_NOW). */
enum pages_mode { PAGES_OFF, PAGES_OWN, PAGES_OBSERVE_ALL };

/* Where block k (choices k * CHOICE_BLOCK on) starts: its first byte and
 * the step the choice before it was made at (its deltas start there). */
struct choice_block_start {
    uint64_t step_before;
    size_t byte;
};

#define CHOICE_BLOCK 32

struct choice_list {
    size_t n;                   /* choices held; read-only outside choices.c */
    uint8_t *bytes;
    size_t n_bytes, cap_bytes;
    struct choice_block_start *blocks;
    size_t cap_blocks;
    uint64_t last_step;         /* of choice n - 1, where the next delta starts */
    /* Kept even when the choices are not (exec_config.forget_choices). */
    enum pages_mode pages;
    struct page_list observed;  /* PAGES_OWN: observed from the start */
    struct page_list read_shared;   /* PAGES_OWN: shared for reading from the start */
    /* Threads seen to spin were judged (the at-once livelock verdict,
     * spin_watch.h): a run ends sooner so, and replays only so. Files from
     * before it say nothing: false. */
    bool spins_judged;
};



void choice_list_add(struct choice_list *l, uint64_t step, char kind, int thread);
/* The i-th choice (i < l->n). */
struct choice choice_list_at(const struct choice_list *l, size_t i);
/* Keeps the first n choices (n at most l->n). */
void choice_list_truncate(struct choice_list *l, size_t n);
/* dst (initialised, or zeroed) gets a copy of src's choices. */
void choice_list_copy(struct choice_list *dst, const struct choice_list *src);
/* The same with only src's first n choices, in room for them alone. */
void choice_list_copy_prefix(struct choice_list *dst, const struct choice_list *src, size_t n);
/* dst gets only what src's choices replay under (its pages, its spins),
 * keeping its own choices. */
void choice_list_copy_setting(struct choice_list *dst, const struct choice_list *src);
/* dst (initialised, or zeroed) takes over src's choices and setting;
 * src is left empty: a long list changes hands without a second copy. */
void choice_list_move(struct choice_list *dst, struct choice_list *src);
void choice_list_free(struct choice_list *l);

#endif
