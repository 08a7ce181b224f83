/* Small allocation helpers the overlay modules share. */
#include "overlay/ov_util.h"

#include <stdlib.h>

void *cm_ov_grow(void *items, int *cap, int n, size_t size, int initial)
{
    if (n < *cap)
        return items;
    int grown_cap = *cap ? 2 * *cap : initial;
    void *grown = realloc(items, (size_t)grown_cap * size);
    if (grown)
        *cap = grown_cap;
    return grown;
}

void *cm_ov_calloc(int n, size_t size)
{
    return calloc((size_t)(n > 0 ? n : 1), size);
}
