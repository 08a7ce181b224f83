/* Typed fields of a design file's JSON (json_fields.h): one check and one message per
 * type, the field named in the reader's style. */
#include "util/json_fields.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static cm_status wrong(const cm_json_fields *f, const char *where, const char *key,
                       const char *what)
{
    if (f->dotted)
        return cm_error_set(f->err, CM_EINPUT, "%s: %.150s%s%.40s %s", f->path, where,
                            *where ? "." : "", key, what);
    return cm_error_set(f->err, CM_EINPUT, "%s: %s\"%s\" %s", f->path, where, key, what);
}

json_t *cm_json_get_value(const cm_json_fields *f, const json_t *obj, const char *where,
                          const char *key, cm_status *st)
{
    json_t *v = json_object_get(obj, key);
    *st = v || !f->missing ? CM_OK : wrong(f, where, key, "is missing");
    return v;
}

cm_status cm_json_int_value(const cm_json_fields *f, const json_t *v, const char *where,
                            const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    if (json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi) {
        *out = json_integer_value(v);
        return CM_OK;
    }
    char what[96];
    snprintf(what, sizeof what, "must be an integer from %lld to %lld", (long long)lo,
             (long long)hi);
    return wrong(f, where, key, what);
}

cm_status cm_json_get_int(const cm_json_fields *f, const json_t *obj, const char *where,
                          const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    cm_status st;
    const json_t *v = cm_json_get_value(f, obj, where, key, &st);
    return st == CM_OK ? cm_json_int_value(f, v, where, key, lo, hi, out) : st;
}

cm_status cm_json_get_int32(const cm_json_fields *f, const json_t *obj, const char *where,
                            const char *key, int lo, int hi, int *out)
{
    int64_t v = 0;
    cm_status st = cm_json_get_int(f, obj, where, key, lo, hi, &v);
    if (st == CM_OK)
        *out = (int)v;
    return st;
}

cm_status cm_json_get_number(const cm_json_fields *f, const json_t *obj, const char *where,
                             const char *key, double lo, double hi, double *out)
{
    cm_status st;
    const json_t *v = cm_json_get_value(f, obj, where, key, &st);
    double x = json_number_value(v);
    if (st != CM_OK)
        return st;
    if (json_is_number(v) && isfinite(x) && x >= lo && x <= hi) {
        *out = x;
        return CM_OK;
    }
    char what[96];
    if (lo == 0 && isinf(hi))
        snprintf(what, sizeof what, "must be a non-negative number");
    else
        snprintf(what, sizeof what, "must be a number from %g to %g", lo, hi);
    return wrong(f, where, key, what);
}

cm_status cm_json_get_bool(const cm_json_fields *f, const json_t *obj, const char *where,
                           const char *key, bool *out)
{
    cm_status st;
    const json_t *v = cm_json_get_value(f, obj, where, key, &st);
    if (st != CM_OK)
        return st;
    if (!json_is_boolean(v))
        return wrong(f, where, key, "must be true or false");
    *out = json_is_true(v);
    return CM_OK;
}

cm_status cm_json_get_string(const cm_json_fields *f, const json_t *obj, const char *where,
                             const char *key, size_t max, const char **out)
{
    cm_status st;
    const json_t *v = cm_json_get_value(f, obj, where, key, &st);
    const char *s = json_string_value(v);
    if (st != CM_OK)
        return st;
    size_t len = s ? json_string_length(v) : 0;
    if (s && (max == 0 || (len > 0 && len == strlen(s) && len < max))) {
        *out = s;
        return CM_OK;
    }
    return wrong(f, where, key, max == 0 ? "must be a string" : "must be a non-empty string");
}

cm_status cm_json_get_object(const cm_json_fields *f, const json_t *obj, const char *where,
                             const char *key, json_t **out)
{
    cm_status st;
    const json_t *v = cm_json_get_value(f, obj, where, key, &st);
    if (st != CM_OK)
        return st;
    if (!json_is_object(v))
        return wrong(f, where, key, "must be an object");
    *out = (json_t *)v; /* jansson's getters are const-blind: the caller owns obj */
    return CM_OK;
}

/* A quoted-style reader words a bound of 0 entries as "at most". */
cm_status cm_json_get_array(const cm_json_fields *f, const json_t *obj, const char *where,
                            const char *key, size_t min, size_t max, json_t **out)
{
    cm_status st;
    const json_t *v = cm_json_get_value(f, obj, where, key, &st);
    size_t n = json_array_size(v);
    if (st != CM_OK)
        return st;
    if (json_is_array(v) && n >= min && n <= max) {
        *out = (json_t *)v;
        return CM_OK;
    }
    char what[96];
    if (min == 0 && max == SIZE_MAX)
        snprintf(what, sizeof what, "must be an array");
    else if (min == 0 && !f->dotted)
        snprintf(what, sizeof what, "must be an array of at most %zu entries", max);
    else
        snprintf(what, sizeof what, "must be an array of %zu to %zu entries", min, max);
    return wrong(f, where, key, what);
}
