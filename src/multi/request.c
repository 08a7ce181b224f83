/* The files and options a multi design is mapped from (cm_multi_request): loading and
 * mapping them, recording them in the design file as typed fields, reading them back,
 * and the Markdown report of a design file. A design file is data: every field is read
 * with its type and range checked, and nothing in it is ever handed to an option
 * parser, so a file cannot steer the command that reads it. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <cnnmap/model.h>
#include <cnnmap/multi.h>

#include "multi/multi_internal.h"
#include "util/json_file.h"
#include "util/atomic_file.h"
#include "util/progress.h"

/* A path in a design file longer than this is not a path. */
#define PATH_TEXT_MAX 4096

void cm_multi_request_init(cm_multi_request *q)
{
    memset(q, 0, sizeof *q);
    cm_multi_options_init(&q->options);
}

void cm_multi_request_free(cm_multi_request *q)
{
    free(q->board);
    for (int i = 0; i < q->n_models; i++)
        free(q->model[i]);
    q->board = NULL;
    q->n_models = 0;
}

/* ---- mapping ---- */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

cm_status cm_mt_request_load(const cm_multi_request *q, cm_board *board, cm_graph **g,
                             cm_multi_input *in, cm_error *err)
{
    if (!q->board || q->n_models < 0 || q->n_models > CM_MULTI_MAX_MODELS)
        return cm_error_set(err, CM_EUSAGE, "a board and at most %d models are needed",
                            CM_MULTI_MAX_MODELS);
    cm_status st = cm_board_resolve(q->board, board, err);
    for (int i = 0; i < q->n_models; i++)
        g[i] = NULL;
    for (int i = 0; st == CM_OK && i < q->n_models; i++) {
        st = cm_model_load(q->model[i], &g[i], err);
        in[i] = (cm_multi_input){g[i], base_name(q->model[i]), q->fps[i]};
    }
    if (st != CM_OK)
        cm_mt_graphs_free(g, q->n_models);
    return st;
}

void cm_mt_graphs_free(cm_graph **g, int n)
{
    for (int i = 0; i < n; i++) {
        cm_graph_free(g[i]);
        g[i] = NULL;
    }
}

cm_status cm_multi_map_request(const cm_multi_request *q, cm_multi_result **out, cm_error *err)
{
    double t0 = cm_seconds_now(); /* loading the models counts against the time limit */
    *out = NULL;
    cm_board board;
    cm_graph *g[CM_MULTI_MAX_MODELS];
    cm_multi_input in[CM_MULTI_MAX_MODELS];
    cm_status st = cm_mt_request_load(q, &board, g, in, err);
    if (st != CM_OK)
        return st;
    st = cm_mt_map_since(in, q->n_models, &board, &q->options, t0, out, err);
    cm_mt_graphs_free(g, q->n_models);
    return st;
}

/* ---- the inputs object of a design file ---- */

/* A built-in board by its name, a board file by its absolute path. */
static json_t *board_json(const char *board)
{
    cm_board b;
    if (cm_board_builtin(board, &b, NULL) == CM_OK)
        return json_string(b.name);
    char *abs = realpath(board, NULL);
    json_t *s = json_string(abs ? abs : board);
    free(abs);
    return s;
}

static json_t *inputs_json(const cm_multi_request *q)
{
    const cm_multi_options *o = &q->options;
    json_t *models = json_array();
    for (int i = 0; i < q->n_models; i++) {
        char *abs = realpath(q->model[i], NULL);
        json_t *m = json_pack("{s:s}", "path", abs ? abs : q->model[i]);
        free(abs);
        if (m && q->fps[i] > 0)
            json_object_set_new(m, "target_fps", json_real(q->fps[i]));
        json_array_append_new(models, m);
    }
    json_t *in = json_pack("{s:o, s:o, s:s, s:s, s:f}", "board", board_json(q->board), "models",
                           models, "objective", cm_multi_objective_name(o->objective),
                           "scheduler", o->scheduler == CM_MULTI_ILP ? "ilp" : "list",
                           "time_limit_s",
                           o->time_limit_s > 0 ? o->time_limit_s : CM_MULTI_DEFAULT_TIME_LIMIT_S);
    if (in && o->bandwidth_gbps > 0)
        json_object_set_new(in, "bandwidth_gbps", json_real(o->bandwidth_gbps));
    return in;
}

char *cm_multi_design_json_inputs(const cm_multi_result *r, const cm_multi_request *q)
{
    char *text = cm_multi_design_json(r);
    if (!text || !q)
        return text;
    json_t *o = json_loads(text, 0, NULL), *in = inputs_json(q);
    free(text);
    text = NULL;
    if (o && in && json_object_set_new(o, "inputs", in) == 0) {
        in = NULL;
        text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    }
    json_decref(in);
    json_decref(o);
    return text;
}

/* ---- reading the inputs back ---- */

typedef struct reader {
    const char *path;  /* the design file, for messages */
    char dir[PATH_TEXT_MAX];
    cm_error *err;
} reader;

static cm_status bad(const reader *rd, const char *field, const char *what)
{
    return cm_error_set(rd->err, CM_EINPUT, "%s: inputs.%s %s", rd->path, field, what);
}

/* A non-empty path without NUL bytes; relative ones from the design file's folder. */
static cm_status read_path(const reader *rd, const json_t *v, const char *field, char **out)
{
    const char *s = json_string_value(v);
    size_t len = s ? json_string_length(v) : 0;
    if (!s || len == 0 || len != strlen(s) || len >= PATH_TEXT_MAX)
        return bad(rd, field, "must be a file path (a non-empty string)");
    bool rel = s[0] != '/' && rd->dir[0];
    size_t need = (rel ? strlen(rd->dir) + 1 : 0) + len + 1;
    if (!(*out = malloc(need)))
        return cm_error_nomem(rd->err);
    snprintf(*out, need, "%s%s%s", rel ? rd->dir : "", rel ? "/" : "", s);
    return CM_OK;
}

/* An optional number in [lo, hi]; *out keeps its value when absent. */
static cm_status read_number(const reader *rd, const json_t *in, const char *key, double lo,
                             double hi, double *out)
{
    const json_t *v = json_object_get(in, key);
    if (!v)
        return CM_OK;
    double x = json_number_value(v);
    if (!json_is_number(v) || !isfinite(x) || x < lo || x > hi) {
        char what[96];
        snprintf(what, sizeof what, "must be a number from %g to %g", lo, hi);
        return bad(rd, key, what);
    }
    *out = x;
    return CM_OK;
}

/* One of two words; *first says whether it is the first. */
static cm_status read_choice(const reader *rd, const json_t *in, const char *key, const char *a,
                             const char *b, bool *first)
{
    const char *s = json_string_value(json_object_get(in, key));
    if (!s || (strcmp(s, a) != 0 && strcmp(s, b) != 0)) {
        char what[64];
        snprintf(what, sizeof what, "must be \"%s\" or \"%s\"", a, b);
        return bad(rd, key, what);
    }
    *first = strcmp(s, a) == 0;
    return CM_OK;
}

static cm_status read_model(const reader *rd, const json_t *m, int i, cm_multi_request *q)
{
    char field[48];
    snprintf(field, sizeof field, "models[%d]", i);
    if (!json_is_object(m))
        return bad(rd, field, "must be an object with a \"path\"");
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)m, key, v)
        if (strcmp(key, "path") != 0 && strcmp(key, "target_fps") != 0)
            return bad(rd, field, "has a key other than \"path\" and \"target_fps\"");
    snprintf(field, sizeof field, "models[%d].path", i);
    cm_status st = read_path(rd, json_object_get(m, "path"), field, &q->model[i]);
    if (st != CM_OK)
        return st;
    q->n_models = i + 1;
    /* 0 is how a target is left out; frame rates beyond a million are not targets. */
    snprintf(field, sizeof field, "models[%d].target_fps", i);
    const json_t *fps = json_object_get(m, "target_fps");
    double x = json_number_value(fps);
    if (fps && (!json_is_number(fps) || !isfinite(x) || x < 0 || x > 1e6))
        return bad(rd, field, "must be a frame rate from 0 to 1e+06");
    q->fps[i] = fps ? x : 0.0;
    return CM_OK;
}

static cm_status read_models(const reader *rd, const json_t *models, cm_multi_request *q)
{
    size_t n = json_array_size(models);
    if (!json_is_array(models) || n < 2 || n > CM_MULTI_MAX_MODELS) {
        char what[64];
        snprintf(what, sizeof what, "must be an array of 2 to %d models", CM_MULTI_MAX_MODELS);
        return bad(rd, "models", what);
    }
    for (size_t i = 0; i < n; i++) {
        cm_status st = read_model(rd, json_array_get(models, i), (int)i, q);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

static cm_status read_inputs(const reader *rd, const json_t *in, cm_multi_request *q)
{
    static const char *const keys[] = {"board", "models", "objective", "scheduler",
                                       "bandwidth_gbps", "time_limit_s"};
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)in, key, v) {
        size_t k = 0;
        while (k < sizeof keys / sizeof *keys && strcmp(key, keys[k]) != 0)
            k++;
        if (k == sizeof keys / sizeof *keys)
            return cm_error_set(rd->err, CM_EINPUT, "%s: inputs has an unknown key \"%.64s\"",
                                rd->path, key);
    }
    cm_multi_options *o = &q->options;
    bool fps = true, list = true;
    const json_t *board = json_object_get(in, "board");
    cm_board b;
    cm_status st;
    if (json_is_string(board) && cm_board_builtin(json_string_value(board), &b, NULL) == CM_OK)
        st = (q->board = strdup(b.name)) ? CM_OK : cm_error_nomem(rd->err);
    else
        st = read_path(rd, board, "board", &q->board);
    if (st == CM_OK)
        st = read_models(rd, json_object_get(in, "models"), q);
    if (st == CM_OK)
        st = read_choice(rd, in, "objective", "fps", "throughput", &fps);
    if (st == CM_OK)
        st = read_choice(rd, in, "scheduler", "list", "ilp", &list);
    if (st == CM_OK)
        st = read_number(rd, in, "bandwidth_gbps", 1e-6, 1e6, &o->bandwidth_gbps);
    if (st == CM_OK)
        st = read_number(rd, in, "time_limit_s", 1e-3, 1e6, &o->time_limit_s);
    o->objective = fps ? CM_MULTI_FPS : CM_MULTI_THROUGHPUT;
    o->scheduler = list ? CM_MULTI_LIST : CM_MULTI_ILP;
    return st;
}

cm_status cm_multi_request_read(const char *design_path, cm_multi_request *q, cm_error *err)
{
    cm_multi_request_init(q);
    reader rd = {design_path, "", err};
    const char *slash = strrchr(design_path, '/');
    if (slash && (size_t)(slash - design_path) < sizeof rd.dir)
        snprintf(rd.dir, sizeof rd.dir, "%.*s", (int)(slash - design_path), design_path);
    if (slash == design_path)
        snprintf(rd.dir, sizeof rd.dir, "/");
    json_error_t jerr;
    json_t *root = cm_json_load_path(design_path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return cm_error_set(err, CM_EINPUT, "%s: not a readable JSON file (line %d: %s)",
                            design_path, jerr.line, jerr.text);
    const json_t *in = json_object_get(root, "inputs");
    cm_status st;
    if (json_is_array(in))
        st = cm_error_set(err, CM_EINPUT, "%s: inputs is a list of command-line words from "
                          "an older cnnmap, which is no longer read; write the design again "
                          "with 'cnnmap multi -o'", design_path);
    else if (!json_is_object(in))
        st = cm_error_set(err, CM_EINPUT, "%s: a multi design file without its inputs "
                          "(write it again with 'cnnmap multi -o')", design_path);
    else
        st = read_inputs(&rd, in, q);
    json_decref(root);
    if (st != CM_OK)
        cm_multi_request_free(q);
    return st;
}

/* ---- the report of a design file ---- */

/* A version 1 file records no design points: its inputs are mapped again. */
static cm_status map_inputs(const char *design_path, cm_multi_result **r, cm_error *err)
{
    cm_multi_request q;
    cm_status st = cm_multi_request_read(design_path, &q, err);
    if (st != CM_OK)
        return st;
    st = cm_multi_map_request(&q, r, err);
    cm_multi_request_free(&q);
    if (st != CM_OK) {
        /* The files and options came from the design file, so it is the bad input. */
        cm_error_prefix(err, design_path);
        if (st == CM_EUSAGE && err)
            err->code = CM_EINPUT;
        return st == CM_EUSAGE ? CM_EINPUT : st;
    }
    return CM_OK;
}

static bool version_1(const char *design_path)
{
    json_t *root = cm_json_load_path(design_path, 0, NULL);
    const json_t *v = json_object_get(root, "version");
    bool old = json_is_integer(v) && json_integer_value(v) == 1;
    json_decref(root);
    return old;
}

cm_status cm_multi_export_report_md(const char *design_path, const char *out_path,
                                    cm_error *err)
{
    cm_multi_result *r = NULL;
    cm_status st = version_1(design_path) ? map_inputs(design_path, &r, err)
                                          : cm_multi_design_load(design_path, &r, err);
    if (st != CM_OK)
        return st;
    char *md = cm_multi_report_md(r);
    cm_multi_result_free(r);
    if (!md)
        return cm_error_nomem(err);
    st = cm_write_file_atomic(out_path, md, strlen(md), err);
    free(md);
    return st;
}
