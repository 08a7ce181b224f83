/* Searches in ascending arrays of doubles: the staircases the exact optimisers keep
 * (each value with the least resources of any point no larger) are read by how many of
 * their values lie at or below a level. */
#ifndef CM_UTIL_SORTED_H
#define CM_UTIL_SORTED_H

/* How many of the n ascending values are at most v (the index of the first above it). */
int cm_count_at_most(const double *ascending, int n, double v);

#endif
