/* The typed getters of an API request (request.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/request.h"

/* The value at key (NULL when absent or null), and the key remembered as known. */
static const json_t *take(cm_request *r, const char *key)
{
    if (r->n_asked < CM_REQUEST_MAX_KEYS)
        r->asked[r->n_asked++] = key;
    const json_t *v = json_object_get(r->obj, key);
    return json_is_null(v) ? NULL : v;
}

/* "COMMAND: KEY needs WHAT, not VALUE" as a usage error. */
static cm_status refuse(cm_request *r, const char *key, const json_t *v, const char *what)
{
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    cm_status st = cm_error_set(r->err, CM_EUSAGE, "%s: %s needs %s, not %.80s", r->command, key,
                                what, text ? text : "that value");
    free(text);
    return st;
}

static cm_status missing(cm_request *r, const char *key)
{
    return cm_error_set(r->err, CM_EUSAGE, "%s: %s is required", r->command, key);
}

cm_status cm_request_string(cm_request *r, const char *key, bool required, const char **out)
{
    const json_t *v = take(r, key);
    if (!v)
        return required ? missing(r, key) : CM_OK;
    if (!json_is_string(v) || json_string_length(v) == 0 ||
        strlen(json_string_value(v)) != json_string_length(v))
        return refuse(r, key, v, "a non-empty string");
    *out = json_string_value(v);
    return CM_OK;
}

cm_status cm_request_long(cm_request *r, const char *key, long lo, long hi, long *out)
{
    const json_t *v = take(r, key);
    if (!v)
        return CM_OK;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        char what[96];
        snprintf(what, sizeof what, "a whole number from %ld to %ld", lo, hi);
        return refuse(r, key, v, what);
    }
    *out = (long)json_integer_value(v);
    return CM_OK;
}

cm_status cm_request_int(cm_request *r, const char *key, int lo, int hi, int *out)
{
    long v = *out;
    cm_status st = cm_request_long(r, key, lo, hi, &v);
    if (st == CM_OK)
        *out = (int)v;
    return st;
}

cm_status cm_request_double(cm_request *r, const char *key, double lo, double hi, double *out)
{
    const json_t *v = take(r, key);
    if (!v)
        return CM_OK;
    double x = json_number_value(v);
    if (!json_is_number(v) || !(x >= lo && x <= hi)) {
        char what[96];
        snprintf(what, sizeof what, "a number from %g to %g", lo, hi);
        return refuse(r, key, v, what);
    }
    *out = x;
    return CM_OK;
}

cm_status cm_request_bool(cm_request *r, const char *key, bool *out)
{
    const json_t *v = take(r, key);
    if (!v)
        return CM_OK;
    if (!json_is_boolean(v))
        return refuse(r, key, v, "true or false");
    *out = json_is_true(v);
    return CM_OK;
}

cm_status cm_request_strings(cm_request *r, const char *key, bool required, const char ***out,
                             int *n)
{
    const json_t *v = take(r, key);
    if (!v)
        return required ? missing(r, key) : CM_OK;
    size_t count = json_is_array(v) ? json_array_size(v) : 1;
    if ((!json_is_array(v) && !json_is_string(v)) || count == 0 || count > 4096)
        return refuse(r, key, v, "a string or a list of strings");
    const char **list = calloc(count, sizeof *list);
    if (!list)
        return cm_error_nomem(r->err);
    for (size_t i = 0; i < count; i++) {
        const json_t *s = json_is_array(v) ? json_array_get(v, i) : v;
        if (!json_is_string(s) || json_string_length(s) == 0) {
            free(list);
            return refuse(r, key, v, "a string or a list of non-empty strings");
        }
        list[i] = json_string_value(s);
    }
    *out = list;
    *n = (int)count;
    return CM_OK;
}

const json_t *cm_request_value(cm_request *r, const char *key)
{
    return take(r, key);
}

cm_status cm_request_finish(cm_request *r)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)r->obj, key, v) {
        bool known = false;
        for (int i = 0; i < r->n_asked && !known; i++)
            known = strcmp(r->asked[i], key) == 0;
        if (!known)
            return cm_error_set(r->err, CM_EUSAGE, "%s: unknown option '%.80s'", r->command, key);
    }
    (void)v;
    return CM_OK;
}
