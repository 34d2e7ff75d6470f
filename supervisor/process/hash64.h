/* hash64: the 64-bit finaliser (splitmix64's) the supervisor's state and
 * memory hashes are built from: good avalanche, cheap, the same on every
 * machine. Here, in the lowest layer that hashes, so that the engine's
 * livelock states and the process's memory digest share one. */
#ifndef MDAT_PROCESS_HASH64_H
#define MDAT_PROCESS_HASH64_H

#include <stdint.h>

static inline uint64_t hash64_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

#endif
