/* The API's overlay and compare commands, and evaluate's JSON for overlay design
 * files: the requests read with the CLI's ranges and messages, the flows and JSON
 * builders the CLI runs (overlay/ov_flow.h, map/map_json.h). */
#include <limits.h>
#include <string.h>

#include <cnnmap/map.h>
#include <cnnmap/overlay.h>

#include "api/api_internal.h"
#include "map/map_json.h"
#include "overlay/ov_flow.h"

/* A library step's usage mistake carries no command name: the CLI puts it in front. */
static cm_status usage(cm_status st, const char *command, cm_error *err)
{
    if (st == CM_EUSAGE)
        cm_error_prefix(err, command);
    return st;
}

typedef struct overlay_request {
    const char *model, *board, *algorithms, *array, *output;
    cm_overlay_options opt;
} overlay_request;

static cm_status read_overlay(cm_request *req, overlay_request *q, cm_error *err)
{
    cm_overlay_options_default(&q->opt);
    long dsp = (long)q->opt.dsp_limit;
    cm_status st = cm_request_string(req, "model", true, &q->model);
    if (st == CM_OK)
        st = cm_request_string(req, "board", true, &q->board);
    if (st == CM_OK)
        st = cm_request_long(req, "dsp_limit", 0, LONG_MAX, &dsp);
    if (st == CM_OK)
        st = cm_request_string(req, "algorithms", false, &q->algorithms);
    if (st == CM_OK)
        st = cm_request_string(req, "array", false, &q->array);
    if (st == CM_OK)
        st = cm_request_double(req, "time_limit", 1e-3, 1e6, &q->opt.time_limit_s);
    if (st == CM_OK)
        st = cm_request_string(req, "output", false, &q->output);
    if (st == CM_OK)
        st = cm_request_finish(req);
    q->opt.dsp_limit = dsp;
    if (st == CM_OK && q->algorithms)
        st = usage(cm_overlay_parse_algorithms(q->algorithms, &q->opt.algorithms, err), "overlay",
                   err);
    if (st == CM_OK && q->array)
        st = usage(cm_overlay_parse_array(q->array, q->opt.array, err), "overlay", err);
    return st;
}

cm_status cm_api_overlay(cm_request *req, json_t **reply, cm_error *err)
{
    overlay_request q = {0};
    cm_status st = read_overlay(req, &q, err);
    if (st != CM_OK)
        return st;
    cm_overlay_design d;
    st = cm_overlay_design_create(q.model, q.board, &q.opt, &d, err);
    if (st != CM_OK)
        return usage(st, "overlay", err);
    st = cm_overlay_design_reply(&d, q.output, reply, err);
    cm_overlay_design_free(&d);
    return st;
}

cm_status cm_api_evaluate_overlay(const char *path, json_t **reply, cm_error *err)
{
    return cm_overlay_evaluate_json(path, reply, err);
}

/* ---- compare ---- */

typedef struct compare_request {
    const char *model, *board, *objective, *only, *output;
    bool quiet; /* the CLI's --quiet: the API never draws a progress bar */
    cm_map_options o;
} compare_request;

static cm_status parse_compare(compare_request *q, cm_error *err)
{
    if (q->objective && strcmp(q->objective, "latency") == 0)
        q->o.objective = CM_OBJECTIVE_LATENCY;
    else if (q->objective && strcmp(q->objective, "throughput") == 0)
        q->o.objective = CM_OBJECTIVE_THROUGHPUT;
    else if (q->objective)
        return cm_error_set(err, CM_EUSAGE, "compare: unknown objective '%s' (latency or "
                            "throughput)", q->objective);
    if (q->only && cm_map_parse_spaces(q->only, &q->o.spaces, err) != CM_OK) {
        cm_error_prefix(err, "--only");
        cm_error_prefix(err, "compare");
        err->code = CM_EUSAGE;
        return CM_EUSAGE;
    }
    return CM_OK;
}

static cm_status read_compare(cm_request *req, compare_request *q, cm_error *err)
{
    cm_map_options_init(&q->o);
    cm_status st = cm_request_string(req, "model", true, &q->model);
    if (st == CM_OK)
        st = cm_request_string(req, "board", true, &q->board);
    if (st == CM_OK)
        st = cm_request_string(req, "objective", false, &q->objective);
    if (st == CM_OK)
        st = cm_request_int(req, "batch", 1, 1 << 20, &q->o.batch);
    if (st == CM_OK)
        st = cm_request_string(req, "only", false, &q->only);
    if (st == CM_OK)
        st = cm_request_double(req, "time_limit", 0.001, 1e7, &q->o.time_limit_s);
    if (st == CM_OK)
        st = cm_request_string(req, "output", false, &q->output);
    if (st == CM_OK)
        st = cm_request_bool(req, "quiet", &q->quiet);
    if (st == CM_OK)
        st = cm_request_finish(req);
    if (st == CM_OK)
        st = parse_compare(q, err);
    q->o.progress = false;
    return st;
}

/* No architecture fitting is the CLI's exit code 3 after its table: here the error
 * alone, with no reply. */
cm_status cm_api_compare(cm_request *req, json_t **reply, cm_error *err)
{
    compare_request q = {0};
    cm_status st = read_compare(req, &q, err);
    if (st != CM_OK)
        return st;
    cm_map_result r;
    st = cm_map_compare(q.model, q.board, &q.o, q.output, &r, err);
    if (st != CM_OK)
        return st;
    st = cm_map_no_fit(&r, q.model, q.output, err);
    if (st == CM_OK)
        st = cm_api_built(cm_map_result_json(&r), reply, err);
    cm_map_result_free(&r);
    return st;
}
