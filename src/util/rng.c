/* See rng.h. */
#include "util/rng.h"

void cm_rng_seed(cm_rng *r, uint64_t seed)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    r->state = z ? z : 0x2545f4914f6cdd1dull; /* xorshift must not start at 0 */
}

uint64_t cm_rng_next(cm_rng *r)
{
    uint64_t x = r->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    return x * 0x2545f4914f6cdd1dull;
}

uint64_t cm_rng_below(cm_rng *r, uint64_t n)
{
    /* Rejection keeps the draw exactly uniform. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = cm_rng_next(r);
    while (x >= limit);
    return x % n;
}

double cm_rng_unit(cm_rng *r)
{
    return (double)(cm_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}
