/* The checked JSON builders of json_build.h. */
#include "util/json_build.h"

void cm_json_put(json_t *o, const char *key, json_t *v, bool *ok)
{
    /* set_new takes v even when it fails, and fails on a NULL o or v. */
    if (json_object_set_new(o, key, v) != 0)
        *ok = false;
}

void cm_json_append(json_t *a, json_t *v, bool *ok)
{
    if (json_array_append_new(a, v) != 0)
        *ok = false;
}

json_t *cm_json_finish(json_t *o, bool ok)
{
    if (ok)
        return o;
    json_decref(o);
    return NULL;
}
