/* Searches in ascending arrays of doubles (sorted.h). */
#include "util/sorted.h"

int cm_count_at_most(const double *ascending, int n, double v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (ascending[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
