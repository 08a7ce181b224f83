/* CSV text from JSON rows (see csv.h). The header is collected first, over all rows,
 * because rows of different kinds of layer carry different keys (an activation's
 * "fusable", a convolution's "groups"). */
#include "util/csv.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void column_add(json_t *names, json_t *seen, const char *name)
{
    if (json_object_get(seen, name))
        return;
    json_object_set_new(seen, name, json_true());
    json_array_append_new(names, json_string(name));
}

/* Adds the flattened names of obj's keys, in their order, to names. */
static void collect(json_t *names, json_t *seen, const json_t *obj, const char *prefix)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        char name[256];
        snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", key);
        if (json_is_object(v))
            collect(names, seen, v, name);
        else
            column_add(names, seen, name);
    }
}

/* The value at a flattened name ("resources.dsp"); NULL when absent. A key that
 * itself holds a dot is found before the nested reading. */
static const json_t *lookup(const json_t *obj, const char *name)
{
    const json_t *exact = json_object_get(obj, name);
    if (exact)
        return exact;
    for (const char *dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
        char head[256];
        size_t n = (size_t)(dot - name);
        if (n >= sizeof head)
            return NULL;
        memcpy(head, name, n);
        head[n] = '\0';
        const json_t *inner = json_object_get(obj, head);
        if (json_is_object(inner))
            return lookup(inner, dot + 1);
    }
    return NULL;
}

static void append_field(cm_strbuf *out, const char *text)
{
    if (!strpbrk(text, ",\"\r\n")) {
        cm_strbuf_append(out, text, strlen(text));
        return;
    }
    cm_strbuf_append(out, "\"", 1);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            cm_strbuf_append(out, "\"", 1); /* a quote inside is doubled */
        cm_strbuf_append(out, p, 1);
    }
    cm_strbuf_append(out, "\"", 1);
}

/* A scalar as the JSON output writes it (JSON_REAL_PRECISION(10)); an array of
 * scalars joined by spaces; anything else as compact JSON. */
static void scalar_text(const json_t *v, cm_strbuf *text)
{
    if (json_is_string(v)) {
        cm_strbuf_printf(text, "%s", json_string_value(v));
    } else if (json_is_array(v)) {
        size_t i;
        json_t *item;
        json_array_foreach((json_t *)v, i, item) {
            if (i)
                cm_strbuf_append(text, " ", 1);
            scalar_text(item, text);
        }
    } else if (v && !json_is_null(v)) {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
        if (s)
            cm_strbuf_printf(text, "%s", s);
        else
            text->failed = true;
        free(s);
    }
}

static void append_row(cm_strbuf *out, const json_t *row, const json_t *names)
{
    size_t i;
    json_t *name;
    json_array_foreach((json_t *)names, i, name) {
        if (i)
            cm_strbuf_append(out, ",", 1);
        cm_strbuf text = {0};
        scalar_text(lookup(row, json_string_value(name)), &text);
        bool failed = text.failed; /* take() clears it; an empty field gives NULL too */
        char *s = cm_strbuf_take(&text);
        if (s)
            append_field(out, s);
        else if (failed)
            out->failed = true;
        free(s);
    }
    cm_strbuf_append(out, "\r\n", 2);
}

void cm_csv_append_table(cm_strbuf *out, const json_t *rows)
{
    json_t *names = json_array(), *seen = json_object();
    if (!names || !seen) {
        out->failed = true;
    } else {
        size_t i;
        json_t *row;
        json_array_foreach((json_t *)rows, i, row)
            if (json_is_object(row))
                collect(names, seen, row, "");
        json_t *name;
        json_array_foreach(names, i, name) {
            if (i)
                cm_strbuf_append(out, ",", 1);
            append_field(out, json_string_value(name));
        }
        cm_strbuf_append(out, "\r\n", 2);
        json_array_foreach((json_t *)rows, i, row)
            if (json_is_object(row))
                append_row(out, row, names);
    }
    json_decref(names);
    json_decref(seen);
}
