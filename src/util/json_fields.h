/* Typed fields of a design file's JSON: the getters every design-file reader uses, so
 * that a wrong or missing field gives the same one-line message (naming the file, the
 * entry and the key) whichever kind of design the file holds. */
#ifndef CM_UTIL_JSON_FIELDS_H
#define CM_UTIL_JSON_FIELDS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cnnmap/error.h>

/* How a reader's messages name a field. `where` below is the entry holding it:
 * quoted, a prefix such as "" or "layer NAME: " (PATH: layer NAME: "key" must be ...);
 * dotted, a path such as "" or "networks[2]" (PATH: networks[2].key must be ...). */
typedef struct cm_json_fields {
    const char *path; /* the design file, first in every message */
    cm_error *err;
    bool dotted;
    bool missing; /* an absent key "is missing" rather than "must be" what it should */
} cm_json_fields;

/* obj[key], NULL when absent; *st is CM_OK unless the key is absent and the reader
 * says so (f->missing). */
json_t *cm_json_get_value(const cm_json_fields *f, const json_t *obj, const char *where,
                          const char *key, cm_status *st);

/* Each getter checks obj[key] and, on success only, writes *out; otherwise CM_EINPUT
 * with the message set. obj may be NULL (every key is then absent). */
cm_status cm_json_get_int(const cm_json_fields *f, const json_t *obj, const char *where,
                          const char *key, int64_t lo, int64_t hi, int64_t *out);
cm_status cm_json_get_int32(const cm_json_fields *f, const json_t *obj, const char *where,
                            const char *key, int lo, int hi, int *out);
/* A value already taken from its object (an array's entry): NULL is not an integer. */
cm_status cm_json_int_value(const cm_json_fields *f, const json_t *v, const char *where,
                            const char *key, int64_t lo, int64_t hi, int64_t *out);
/* hi infinite and lo 0 is "a non-negative number". */
cm_status cm_json_get_number(const cm_json_fields *f, const json_t *obj, const char *where,
                             const char *key, double lo, double hi, double *out);
cm_status cm_json_get_bool(const cm_json_fields *f, const json_t *obj, const char *where,
                           const char *key, bool *out);
/* max 0: any string; otherwise a non-empty one without NUL bytes, shorter than max. */
cm_status cm_json_get_string(const cm_json_fields *f, const json_t *obj, const char *where,
                             const char *key, size_t max, const char **out);
cm_status cm_json_get_object(const cm_json_fields *f, const json_t *obj, const char *where,
                             const char *key, json_t **out);
/* min 0 and max SIZE_MAX: any array. */
cm_status cm_json_get_array(const cm_json_fields *f, const json_t *obj, const char *where,
                            const char *key, size_t min, size_t max, json_t **out);

#endif
