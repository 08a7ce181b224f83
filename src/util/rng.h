/* A small seeded random-number generator (splitmix64 to seed, xorshift64* to draw):
 * the same seed gives the same sequence on every machine, so searches are
 * reproducible byte for byte. Not for cryptography. */
#ifndef CM_UTIL_RNG_H
#define CM_UTIL_RNG_H

#include <stdint.h>

typedef struct cm_rng {
    uint64_t state;
} cm_rng;

void cm_rng_seed(cm_rng *r, uint64_t seed);
uint64_t cm_rng_next(cm_rng *r);
/* Uniform in [0, n) for n >= 1. */
uint64_t cm_rng_below(cm_rng *r, uint64_t n);
/* Uniform in [0, 1). */
double cm_rng_unit(cm_rng *r);

#endif
