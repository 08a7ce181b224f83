/* Overlay design files: creating a design (mapping, and recording where the model and
 * board came from), writing it as JSON (the figures of ov_json.c plus the keys that
 * rebuild it), and reading one back by costing the recorded array and mapping with
 * cm_overlay_cost, without searching. Only the decisions are trusted (the array, each
 * layer's algorithm and dataflow, each format vertex's layout); every figure is
 * computed again, and the search's records (optimal, baselines, time) are kept for
 * printing. */
#include <cnnmap/overlay.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/model.h>

#include "overlay/ov_json.h"
#include "util/json_fields.h"
#include "util/json_file.h"
#include "util/path.h"
#include "util/progress.h"
#include "util/strmap.h"

#define OV_DESIGN_FORMAT "cnnmap-overlay-design"
#define OV_DESIGN_VERSION 1
/* Beyond any dimension a model may hold (README: up to 2^24): an array side above it
 * only adds idle cycles, and refusing it keeps P1 x P2 far from overflow. */
#define OV_SIDE_MAX (INT64_C(1) << 24)
#define OV_DSP_MAX ((INT64_C(1) << 40) - 1) /* the range of a board's DSPs */
#define OV_WINOGRAD_MAX 16                  /* F(m, r): tiles of (m + r - 1)^2 */

void cm_overlay_design_free(cm_overlay_design *d)
{
    if (!d)
        return;
    free(d->model_path);
    free(d->model_file);
    free(d->board_ref);
    cm_graph_free(d->graph);
    cm_overlay_result_free(d->result);
    memset(d, 0, sizeof *d);
}

/* A built-in board is recorded by its name, a board file and the model by absolute
 * path, so that the design file works from any folder. */
static cm_status record_sources(cm_overlay_design *d, const char *model_path,
                                const char *board_ref, cm_error *err)
{
    cm_board builtin;
    d->board_ref = cm_board_builtin(board_ref, &builtin, NULL) == CM_OK ? strdup(builtin.name)
                                                                        : cm_path_absolute(board_ref);
    d->model_path = cm_path_absolute(model_path);
    d->model_file = strdup(model_path);
    return d->board_ref && d->model_path && d->model_file ? CM_OK : cm_error_nomem(err);
}

cm_status cm_overlay_design_create(const char *model_path, const char *board_ref,
                                   const cm_overlay_options *o, cm_overlay_design *out,
                                   cm_error *err)
{
    memset(out, 0, sizeof *out);
    out->options = *o;
    cm_status st = cm_board_resolve(board_ref, &out->board, err);
    if (st == CM_OK)
        st = cm_model_load(model_path, &out->graph, err);
    if (st == CM_OK) {
        double t0 = cm_seconds_now();
        st = cm_overlay_map(out->graph, &out->board, o, &out->result, err);
        out->time_s = cm_seconds_now() - t0;
        if (st != CM_OK && st != CM_EUSAGE)
            cm_error_prefix(err, model_path);
    }
    if (st == CM_OK)
        st = record_sources(out, model_path, board_ref, err);
    if (st != CM_OK)
        cm_overlay_design_free(out);
    return st;
}

/* ---- writing ---- */

static json_t *algorithms_json(unsigned mask)
{
    json_t *a = json_array();
    for (int k = 0; a && k < CM_OVERLAY_CONV_ALGORITHMS; k++)
        if ((mask & (1u << k)) &&
            json_array_append_new(a, json_string(cm_overlay_algorithm_name(k))) != 0) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

/* The rebuilding keys first, then the figures; "board" stays the reference (a name or
 * a file) rather than the board's name, and update_missing keeps it so. */
static json_t *design_file_json(const cm_overlay_design *d)
{
    json_t *report = cm_overlay_report_json(d);
    json_t *o = json_pack("{s:s, s:i, s:s, s:s, s:o, s:b, s:[i, i]}", "format", OV_DESIGN_FORMAT,
                          "version", OV_DESIGN_VERSION, "model_path", d->model_path, "board",
                          d->board_ref, "algorithms", algorithms_json(d->options.algorithms),
                          "array_forced", d->options.array[0] > 0, "winograd", d->options.wino_m,
                          d->options.wino_r);
    return cm_design_json_with_report(o, report);
}

cm_status cm_overlay_design_save(const cm_overlay_design *d, const char *path, cm_error *err)
{
    return cm_design_json_save(path, design_file_json(d), err);
}

/* ---- reading ---- */

typedef struct ov_reader {
    const char *path;
    json_t *root;
    cm_overlay_design *d;
    cm_strmap layers; /* the graph's layer names */
    cm_error *err;
    cm_json_fields f;
} ov_reader;

/* obj[key] of the JSON type `type` ("what" names it for the message), or NULL with the
 * error set. `where` is "" or the entry of an array, e.g. "layers[3]: ". */
static json_t *need(ov_reader *r, json_t *obj, const char *where, const char *key,
                    json_type type, const char *what)
{
    json_t *v = json_object_get(obj, key);
    bool ok = v && (json_typeof(v) == type ||
                    (type == JSON_REAL && json_is_integer(v)) ||
                    (type == JSON_TRUE && json_is_false(v)));
    if (!ok)
        cm_error_set(r->err, CM_EINPUT, v ? "%s: %s\"%s\" must be %s" : "%s: %s\"%s\" (%s) is missing",
                     r->path, where, key, what);
    return ok ? v : NULL;
}

static cm_status need_pair(ov_reader *r, const char *key, int64_t lo, int64_t hi, int out[2])
{
    json_t *v = need(r, r->root, "", key, JSON_ARRAY, "an array of two integers");
    if (!v)
        return CM_EINPUT;
    if (json_array_size(v) != 2)
        return cm_error_set(r->err, CM_EINPUT, "%s: \"%s\" must be an array of two integers",
                            r->path, key);
    int64_t x[2] = {0, 0};
    cm_status st = cm_json_int_value(&r->f, json_array_get(v, 0), "", key, lo, hi, &x[0]);
    if (st == CM_OK)
        st = cm_json_int_value(&r->f, json_array_get(v, 1), "", key, lo, hi, &x[1]);
    out[0] = (int)x[0];
    out[1] = (int)x[1];
    return st;
}

static cm_status check_format(ov_reader *r)
{
    if (!json_is_object(r->root))
        return cm_error_set(r->err, CM_EINPUT, "%s: a design file holds one JSON object", r->path);
    json_t *f = need(r, r->root, "", "format", JSON_STRING, "a string");
    if (!f)
        return CM_EINPUT;
    if (strcmp(json_string_value(f), OV_DESIGN_FORMAT) != 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: not an overlay design file (format '%.64s')",
                            r->path, json_string_value(f));
    int64_t version = 0;
    return cm_json_get_int(&r->f, r->root, "", "version", OV_DESIGN_VERSION, OV_DESIGN_VERSION,
                           &version);
}

static int algorithm_named(const char *name)
{
    for (int a = 0; a < CM_OVERLAY_ALGORITHM_COUNT; a++)
        if (strcmp(cm_overlay_algorithm_name((cm_overlay_algorithm)a), name) == 0)
            return a;
    return -1;
}

static cm_status read_algorithms(ov_reader *r, unsigned *mask)
{
    json_t *a = need(r, r->root, "", "algorithms", JSON_ARRAY, "an array of algorithm names");
    *mask = 0;
    for (size_t k = 0; a && k < json_array_size(a); k++) {
        const char *name = json_string_value(json_array_get(a, k));
        int alg = name ? algorithm_named(name) : -1;
        if (alg < 0 || alg >= CM_OVERLAY_CONV_ALGORITHMS)
            return cm_error_set(r->err, CM_EINPUT, "%s: \"algorithms\": unknown algorithm '%.64s' "
                                "(choose from im2col, kn2row, winograd)", r->path, name ? name : "?");
        *mask |= 1u << alg;
    }
    if (a && *mask == 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: \"algorithms\" must name at least one "
                            "algorithm", r->path);
    return a ? CM_OK : CM_EINPUT;
}

/* The options and the array; a forced shape is kept as the option it was. */
static cm_status read_options(ov_reader *r, int array[2])
{
    cm_overlay_options *o = &r->d->options;
    cm_overlay_options_default(o);
    int wino[2] = {0, 0};
    json_t *forced = need(r, r->root, "", "array_forced", JSON_TRUE, "true or false");
    json_t *time = need(r, r->root, "", "time_limit_s", JSON_REAL, "a number of seconds");
    cm_status st = forced && time ? read_algorithms(r, &o->algorithms) : CM_EINPUT;
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, r->root, "", "dsp_limit", 0, OV_DSP_MAX, &o->dsp_limit);
    if (st == CM_OK)
        st = need_pair(r, "winograd", 1, OV_WINOGRAD_MAX, wino);
    if (st == CM_OK)
        st = need_pair(r, "array", 1, OV_SIDE_MAX, array);
    o->time_limit_s = json_number_value(time);
    if (st == CM_OK && !(o->time_limit_s >= 1e-3 && o->time_limit_s <= 1e6))
        st = cm_error_set(r->err, CM_EINPUT, "%s: \"time_limit_s\" must be a number from 0.001 "
                          "to 1e+06", r->path);
    o->wino_m = wino[0];
    o->wino_r = wino[1];
    if (st == CM_OK && json_is_true(forced))
        memcpy(o->array, array, sizeof o->array);
    return st;
}

/* Loads the board and the model the file names. */
static cm_status load_sources(ov_reader *r)
{
    cm_overlay_design *d = r->d;
    json_t *model = need(r, r->root, "", "model_path", JSON_STRING, "a string");
    json_t *board = model ? need(r, r->root, "", "board", JSON_STRING, "a string") : NULL;
    if (!board)
        return CM_EINPUT;
    d->model_path = strdup(json_string_value(model));
    d->board_ref = strdup(json_string_value(board));
    d->model_file = cm_path_beside(r->path, json_string_value(model));
    if (!d->model_path || !d->board_ref || !d->model_file)
        return cm_error_nomem(r->err);
    cm_status st = cm_board_resolve(d->board_ref, &d->board, r->err);
    if (st == CM_OK)
        st = cm_model_load(d->model_file, &d->graph, r->err);
    if (st != CM_OK)
        return cm_design_source_error(r->err, r->path, st);
    if (!cm_strmap_init(&r->layers, (size_t)d->graph->n_layers))
        return cm_error_nomem(r->err);
    for (int i = d->graph->n_layers - 1; i >= 0; i--) /* the first of equal names wins */
        if (!cm_strmap_put(&r->layers, d->graph->layers[i].name, i))
            return cm_error_nomem(r->err);
    return CM_OK;
}

static cm_status layer_named(ov_reader *r, json_t *e, const char *where, const char *key, int *out)
{
    json_t *v = need(r, e, where, key, JSON_STRING, "a layer name");
    if (!v)
        return CM_EINPUT;
    *out = cm_strmap_get(&r->layers, json_string_value(v));
    if (*out < 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: %s\"%s\": unknown layer '%.128s' (the model "
                            "has no such layer)", r->path, where, key, json_string_value(v));
    return CM_OK;
}

static cm_status read_dataflow(ov_reader *r, json_t *e, const char *where, cm_overlay_dataflow *df)
{
    json_t *v = json_object_get(e, "dataflow");
    *df = CM_OVERLAY_NO_DATAFLOW;
    if (json_is_null(v))
        return CM_OK;
    for (int f = CM_OVERLAY_NS; f <= CM_OVERLAY_IS; f++)
        if (json_is_string(v) && strcmp(json_string_value(v), cm_overlay_dataflow_name(f)) == 0) {
            *df = (cm_overlay_dataflow)f;
            return CM_OK;
        }
    return cm_error_set(r->err, CM_EINPUT, "%s: %s\"dataflow\" must be NS, WS, IS or null "
                        "(a layer off the array)", r->path, where);
}

static cm_status read_row(ov_reader *r, json_t *e, size_t k, cm_overlay_layer *row)
{
    char where[48];
    snprintf(where, sizeof where, "layers[%zu]: ", k);
    if (!json_is_object(e))
        return cm_error_set(r->err, CM_EINPUT, "%s: %smust be an object", r->path, where);
    cm_status st = layer_named(r, e, where, "name", &row->layer);
    if (st != CM_OK)
        return st;
    /* From here the layer's name says which entry it is. */
    snprintf(where, sizeof where, "layer %.32s: ", r->d->graph->layers[row->layer].name);
    json_t *alg = need(r, e, where, "algorithm", JSON_STRING, "an algorithm name");
    int a = alg ? algorithm_named(json_string_value(alg)) : -1;
    if (alg && a < 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: %s\"algorithm\": unknown algorithm '%.64s' "
                            "(im2col, kn2row, winograd, pool or eltwise)", r->path, where,
                            json_string_value(alg));
    row->algorithm = (cm_overlay_algorithm)a;
    return alg ? read_dataflow(r, e, where, &row->dataflow) : CM_EINPUT;
}

static int named_in(const char *const *names, int n, const char *name)
{
    for (int k = 0; name && k < n; k++)
        if (strcmp(names[k], name) == 0)
            return k;
    return -1;
}

static cm_status format_subject(ov_reader *r, json_t *e, const char *where, cm_overlay_format *f)
{
    const cm_graph *g = r->d->graph;
    if (f->vertex != CM_OVERLAY_INPUT_VERTEX)
        return layer_named(r, e, where, "name", &f->index);
    json_t *v = need(r, e, where, "name", JSON_STRING, "a graph input's name");
    for (f->index = 0; v && f->index < g->n_inputs; f->index++)
        if (strcmp(g->inputs[f->index].name, json_string_value(v)) == 0)
            return CM_OK;
    return v ? cm_error_set(r->err, CM_EINPUT, "%s: %s\"name\": unknown graph input '%.128s'",
                            r->path, where, json_string_value(v))
             : CM_EINPUT;
}

static cm_status read_format(ov_reader *r, json_t *e, size_t k, cm_overlay_format *f)
{
    static const char *const vertices[] = {"input", "store", "concat"};
    static const char *const layouts[] = {"tensor", "toeplitz", "winograd"};
    char where[48];
    snprintf(where, sizeof where, "formats[%zu]: ", k);
    if (!json_is_object(e))
        return cm_error_set(r->err, CM_EINPUT, "%s: %smust be an object", r->path, where);
    int v = named_in(vertices, 3, json_string_value(json_object_get(e, "vertex")));
    int l = named_in(layouts, 3, json_string_value(json_object_get(e, "layout")));
    if (v < 0 || l < 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: %s\"%s\" must be %s", r->path, where,
                            v < 0 ? "vertex" : "layout",
                            v < 0 ? "input, store or concat" : "tensor, toeplitz or winograd");
    f->vertex = (cm_overlay_vertex)v;
    f->layout = (cm_overlay_layout)l;
    f->reader = -1;
    cm_status st = format_subject(r, e, where, f);
    if (st == CM_OK && f->layout != CM_OVERLAY_TENSOR)
        st = layer_named(r, e, where, "reader", &f->reader);
    return st;
}

static cm_status read_list(ov_reader *r, const char *key, void **items, size_t size, int *n)
{
    json_t *a = need(r, r->root, "", key, JSON_ARRAY, "an array");
    if (!a)
        return CM_EINPUT;
    *items = calloc(json_array_size(a) + 1, size);
    if (!*items)
        return cm_error_nomem(r->err);
    cm_status st = CM_OK;
    for (size_t k = 0; st == CM_OK && k < json_array_size(a); k++, (*n)++)
        st = size == sizeof(cm_overlay_layer)
                 ? read_row(r, json_array_get(a, k), k, (cm_overlay_layer *)*items + k)
                 : read_format(r, json_array_get(a, k), k, (cm_overlay_format *)*items + k);
    return st;
}

/* Costs the recorded array and mapping; every entry is read before anything is costed,
 * so that a malformed file is bad input even when it also breaks a constraint. */
static cm_status cost_mapping(ov_reader *r)
{
    cm_overlay_design *d = r->d;
    cm_overlay_layer *rows = NULL;
    cm_overlay_format *formats = NULL;
    int n_rows = 0, n_formats = 0, array[2] = {0, 0};
    cm_status st = read_options(r, array);
    cm_overlay_options opt = d->options; /* costed on the recorded array, forced or not */
    memcpy(opt.array, array, sizeof opt.array);
    if (st == CM_OK)
        st = load_sources(r);
    if (st == CM_OK)
        st = read_list(r, "layers", (void **)&rows, sizeof *rows, &n_rows);
    if (st == CM_OK)
        st = read_list(r, "formats", (void **)&formats, sizeof *formats, &n_formats);
    if (st == CM_OK && (st = cm_overlay_cost(d->graph, &d->board, &opt, rows, n_rows, formats,
                                             n_formats, &d->result, r->err)) != CM_OK)
        cm_error_prefix(r->err, r->path);
    free(rows);
    free(formats);
    return st;
}

static cm_status read_baselines(ov_reader *r, cm_overlay_result *res)
{
    static const char *const keys[] = {"im2col", "kn2row", "winograd", "greedy"};
    json_t *b = need(r, r->root, "", "baselines", JSON_OBJECT, "an object");
    for (int k = 0; b && k < 4; k++) {
        json_t *v = json_object_get(b, keys[k]);
        cm_overlay_baseline *out = k < 3 ? &res->baselines[k] : &res->greedy;
        if (v && !json_is_null(v) && !json_is_number(v))
            return cm_error_set(r->err, CM_EINPUT, "%s: baselines: \"%s\" must be a number of "
                                "seconds or null", r->path, keys[k]);
        out->present = json_is_number(v);
        out->latency_s = json_number_value(v);
    }
    return b ? CM_OK : CM_EINPUT;
}

/* The search's records, for printing only. A mapping that no longer costs what the
 * search found (edited by hand, or the model or board changed) is not called optimal. */
static cm_status read_records(ov_reader *r)
{
    cm_overlay_result *res = r->d->result;
    json_t *optimal = need(r, r->root, "", "optimal", JSON_TRUE, "true or false");
    json_t *stopped = need(r, r->root, "", "stopped_early", JSON_TRUE, "true or false");
    json_t *time = need(r, r->root, "", "time_s", JSON_REAL, "a number of seconds");
    json_t *latency = need(r, r->root, "", "latency_s", JSON_REAL, "a number of seconds");
    cm_status st = optimal && stopped && time && latency ? read_baselines(r, res) : CM_EINPUT;
    if (st != CM_OK)
        return st;
    const char *reason = json_string_value(json_object_get(r->root, "not_optimal_reason"));
    res->optimal = json_is_true(optimal);
    snprintf(res->not_optimal_reason, sizeof res->not_optimal_reason, "%s", reason ? reason : "");
    res->stopped_early = json_is_true(stopped);
    res->time_limit_s = r->d->options.time_limit_s;
    r->d->time_s = json_number_value(time);
    double was = json_number_value(latency);
    if (was != res->latency_s) {
        res->optimal = false;
        snprintf(res->not_optimal_reason, sizeof res->not_optimal_reason,
                 "the mapping is not the one the search found: it costs %.6g ms, the search's "
                 "%.6g ms (edited by hand, or the model or board changed); the baselines are the "
                 "search's", res->latency_s * 1e3, was * 1e3);
    }
    return CM_OK;
}

cm_status cm_overlay_design_load(const char *path, cm_overlay_design *out, cm_error *err)
{
    memset(out, 0, sizeof *out);
    ov_reader r = {.path = path, .d = out, .err = err, .f = {.path = path, .err = err}};
    cm_status st = cm_json_file_read(path, &r.root, err);
    if (st == CM_OK)
        st = check_format(&r);
    if (st == CM_OK)
        st = cost_mapping(&r);
    if (st == CM_OK)
        st = read_records(&r);
    json_decref(r.root);
    cm_strmap_free(&r.layers);
    if (st != CM_OK)
        cm_overlay_design_free(out);
    return st;
}

bool cm_overlay_is_design_file(const char *path)
{
    json_t *root = cm_json_load_path(path, 0, NULL);
    const char *format = json_string_value(json_object_get(root, "format"));
    bool yes = format && strcmp(format, OV_DESIGN_FORMAT) == 0;
    json_decref(root);
    return yes;
}
