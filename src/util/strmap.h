/* A string-keyed hash map to int, for looking up ONNX tensors and nodes by name.
 * Keys are borrowed: they must outlive the map. */
#ifndef CM_UTIL_STRMAP_H
#define CM_UTIL_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cm_strmap_slot {
    const char *key;
    int value;
} cm_strmap_slot;

typedef struct cm_strmap {
    cm_strmap_slot *slots;
    size_t cap; /* a power of two */
    size_t count;
} cm_strmap;

bool cm_strmap_init(cm_strmap *m, size_t expected);
void cm_strmap_free(cm_strmap *m);

/* Inserts or replaces key -> value; false on out-of-memory. */
bool cm_strmap_put(cm_strmap *m, const char *key, int value);

/* The value for key, or -1 when absent. */
int cm_strmap_get(const cm_strmap *m, const char *key);

#endif
