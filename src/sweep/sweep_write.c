/* A sweep's output files: the JSON object (points, fronts, warnings), the CSV of its
 * points (the same rows the JSON holds) and the choice of format by extension. */
#include <cnnmap/sweep.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sweep/sweep_internal.h"
#include "util/csv.h"
#include "util/json_file.h"
#include "util/strbuf.h"
#include "util/json_build.h"

static json_t *real_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *point_json(const cm_sweep_options *o, const cm_sweep_point *p, bool *ok)
{
    json_t *j = json_object();
    if (!j) {
        *ok = false;
        return NULL;
    }
    cm_json_put(j, "board", json_string(o->boards[p->board].name), ok);
    cm_json_put(j, "backend", json_string(cm_backend_name(o->backends[p->backend])), ok);
    cm_json_put(j, "cap", json_real(p->cap), ok);
    cm_json_put(j, "done", json_boolean(p->done), ok);
    bool figures = p->done && p->built;
    cm_json_put(j, "feasible", figures ? json_boolean(p->feasible) : json_null(), ok);
    cm_json_put(j, "latency_s", figures ? real_or_null(p->latency_s) : json_null(), ok);
    cm_json_put(j, "throughput_fps", figures ? real_or_null(p->throughput_fps) : json_null(), ok);
    cm_json_put(j, "util", figures ? json_real(p->util) : json_null(), ok);
    cm_json_put(j, "dsp", figures ? json_integer(p->used.dsp) : json_null(), ok);
    cm_json_put(j, "bram18", figures ? json_integer(p->used.bram18) : json_null(), ok);
    cm_json_put(j, "lut", figures ? json_integer(p->used.lut) : json_null(), ok);
    cm_json_put(j, "ff", figures ? json_integer(p->used.ff) : json_null(), ok);
    cm_json_put(j, "uram", figures ? json_integer(p->used.uram) : json_null(), ok);
    cm_json_put(j, "partitions", figures ? json_integer(p->partitions) : json_null(), ok);
    cm_json_put(j, "stopped_early", json_boolean(p->stopped_early), ok);
    cm_json_put(j, "on_front", json_boolean(p->on_front), ok);
    cm_json_put(j, "time_s", figures ? json_real(p->time_s) : json_null(), ok);
    cm_json_put(j, "error", p->error[0] ? json_string(p->error) : json_null(), ok);
    return j;
}

json_t *cm_sweep_points_json(const cm_sweep_options *o, const cm_sweep_result *r)
{
    json_t *a = json_array();
    bool ok = a != NULL;
    for (int i = 0; ok && i < r->n_points; i++)
        if (json_array_append_new(a, point_json(o, &r->points[i], &ok)) != 0)
            ok = false;
    if (!ok) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* The fronts, one per board and backend: the indices of its points in the points
 * array, by utilisation ascending (latency then descends). */
static json_t *fronts_json(const cm_sweep_options *o, const cm_sweep_result *r)
{
    json_t *a = json_array();
    bool ok = a != NULL;
    for (int b = 0; ok && b < o->n_boards; b++)
        for (int k = 0; ok && k < o->n_backends; k++) {
            json_t *f = json_object(), *idx = json_array();
            int order[CM_SWEEP_MAX_STEPS];
            int n = cm_sweep_front_order(o, r, b, k, order);
            for (int i = 0; idx && i < n; i++)
                if (json_array_append_new(idx, json_integer(order[i])) != 0)
                    ok = false;
            if (!f) {
                json_decref(idx);
                ok = false;
                break;
            }
            cm_json_put(f, "board", json_string(o->boards[b].name), &ok);
            cm_json_put(f, "backend", json_string(cm_backend_name(o->backends[k])), &ok);
            cm_json_put(f, "points", idx, &ok);
            if (json_array_append_new(a, f) != 0)
                ok = false;
        }
    if (!ok) {
        json_decref(a);
        return NULL;
    }
    return a;
}

json_t *cm_sweep_warnings_json(const cm_sweep_options *o, const cm_sweep_result *r)
{
    char text[CM_SWEEP_WARNING_MAX];
    json_t *a = json_array();
    for (int i = 0; a && cm_sweep_warning(o, r, i, text, sizeof text); i++)
        if (json_array_append_new(a, json_string(text)) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *cm_sweep_json(const cm_sweep_options *o, const cm_sweep_result *r)
{
    json_t *j = json_object();
    if (!j)
        return NULL;
    bool ok = true;
    cm_json_put(j, "format", json_string("cnnmap-sweep"), &ok);
    cm_json_put(j, "version", json_integer(1), &ok);
    cm_json_put(j, "model", json_string(o->model_path), &ok);
    cm_json_put(j, "objective", json_string(o->design.objective == CM_OBJECTIVE_LATENCY ? "latency"
                                                                                 : "throughput"), &ok);
    cm_json_put(j, "batch", json_integer(o->design.objective == CM_OBJECTIVE_LATENCY ? 1 : o->design.batch), &ok);
    cm_json_put(j, "optimiser", json_string(cm_optimiser_name(o->optimiser)), &ok);
    cm_json_put(j, "steps", json_integer(o->steps), &ok);
    cm_json_put(j, "time_limit_s", o->time_limit_s > 0 ? json_real(o->time_limit_s) : json_null(), &ok);
    cm_json_put(j, "stopped_early", json_boolean(r->stopped_early), &ok);
    cm_json_put(j, "points_done", json_integer(r->points_done), &ok);
    cm_json_put(j, "time_s", json_real(r->time_s), &ok);
    cm_json_put(j, "warnings", cm_sweep_warnings_json(o, r), &ok);
    cm_json_put(j, "points", cm_sweep_points_json(o, r), &ok);
    cm_json_put(j, "fronts", fronts_json(o, r), &ok);
    if (!ok) {
        json_decref(j);
        return NULL;
    }
    return j;
}

static cm_status write_csv(const cm_sweep_options *o, const cm_sweep_result *r, const char *path,
                           cm_error *err)
{
    json_t *rows = cm_sweep_points_json(o, r);
    cm_strbuf b = {0};
    if (!rows)
        b.failed = true;
    else
        cm_csv_append_table(&b, rows);
    json_decref(rows);
    return cm_strbuf_write_atomic(&b, path, err);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

cm_status cm_sweep_check_output(const char *path, cm_error *err)
{
    if (ends_with(path, ".json") || ends_with(path, ".csv") || ends_with(path, ".html") ||
        ends_with(path, ".htm"))
        return CM_OK;
    return cm_error_set(err, CM_EUSAGE, "%s: the output's extension must be .json, .csv or .html",
                        path);
}

cm_status cm_sweep_write(const cm_sweep_options *o, const cm_sweep_result *r, const char *path,
                         cm_error *err)
{
    if (ends_with(path, ".json")) {
        json_t *j = cm_sweep_json(o, r);
        cm_status st = cm_json_file_write(path, j, JSON_INDENT(1) | JSON_REAL_PRECISION(10), err);
        json_decref(j);
        return st;
    }
    if (ends_with(path, ".csv"))
        return write_csv(o, r, path, err);
    cm_status st = cm_sweep_check_output(path, err);
    return st == CM_OK ? cm_sweep_write_html(o, r, path, err) : st;
}
