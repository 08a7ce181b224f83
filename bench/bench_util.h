/* What the benchmark programs share: a monotonic clock and a comparison for sorting
 * timings (medians). Header-only, since each benchmark is a single-file program. */
#ifndef CM_BENCH_UTIL_H
#define CM_BENCH_UTIL_H

#include <time.h>

static inline double cm_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int cm_bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
