/* Small allocation helpers the overlay modules share. */
#ifndef CM_OVERLAY_OV_UTIL_H
#define CM_OVERLAY_OV_UTIL_H

#include <stddef.h>

/* Room for one more item in an array of n items of `size` bytes with capacity *cap:
 * the array itself when there is room, else a reallocated one of double the capacity
 * (`initial` the first time), or NULL when out of memory (the old array is kept). */
void *cm_ov_grow(void *items, int *cap, int n, size_t size, int initial);

/* A zeroed array of n items (at least one, so that n == 0 is not a failure). */
void *cm_ov_calloc(int n, size_t size);

#endif
