/* rng: the deterministic random numbers behind every strategy decision.
 * splitmix64 seeds xoshiro256**; the same seed gives the same stream on every
 * machine, which is what makes a seed a complete description of a run. */
#ifndef MDAT_SUPERVISOR_RNG_H
#define MDAT_SUPERVISOR_RNG_H

#include <stdint.h>

struct rng {
    uint64_t s[4];
};

static inline uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static inline void rng_seed(struct rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static inline uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform in [0, n), n > 0, without modulo bias. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = rng_next(r);
    while (x >= limit);
    return x % n;
}

/* The seed of execution `index` of a batch whose base seed is `seed`. */
static inline uint64_t execution_seed(uint64_t seed, uint64_t index)
{
    uint64_t x = seed ^ (index * 0xd1b54a32d192ed03u);
    return splitmix64(&x);
}

#endif
