/* The API's multi command and evaluate's JSON for multi design files: the request read
 * with the CLI's ranges and messages, the flow and JSON builder the CLI runs
 * (multi/multi_flow.h, multi/multi_json.h). */
#include <stdlib.h>

#include <cnnmap/multi.h>

#include "api/api_internal.h"
#include "multi/multi_flow.h"
#include "multi/multi_json.h"
#include "util/progress.h"

typedef struct multi_request {
    const char *board, *objective, *scheduler, *output, *report;
    const char **models;
    int n_models;
} multi_request;

static cm_status read_keys(cm_request *req, multi_request *k, cm_multi_options *o)
{
    cm_status st = cm_request_strings(req, "model", true, &k->models, &k->n_models);
    if (st == CM_OK)
        st = cm_request_string(req, "board", true, &k->board);
    if (st == CM_OK)
        st = cm_request_string(req, "objective", false, &k->objective);
    if (st == CM_OK)
        st = cm_request_double(req, "bandwidth", 1e-6, 1e6, &o->bandwidth_gbps);
    if (st == CM_OK)
        st = cm_request_string(req, "scheduler", false, &k->scheduler);
    if (st == CM_OK)
        st = cm_request_string(req, "report_md", false, &k->report);
    if (st == CM_OK)
        st = cm_request_double(req, "time_limit", 1e-3, 1e6, &o->time_limit_s);
    if (st == CM_OK)
        st = cm_request_string(req, "output", false, &k->output);
    return st == CM_OK ? cm_request_finish(req) : st;
}

/* The values into q as the CLI's options would set them, in the CLI's order of
 * checks. */
static cm_status build_request(const multi_request *k, cm_multi_request *q, cm_error *err)
{
    cm_status st = cm_multi_request_set_board(q, k->board, err);
    for (int i = 0; i < k->n_models && st == CM_OK; i++)
        st = cm_multi_request_add_model(q, k->models[i], err);
    if (st == CM_OK && k->objective)
        st = cm_multi_parse_objective(k->objective, &q->options.objective, err);
    if (st == CM_OK && k->scheduler)
        st = cm_multi_parse_scheduler(k->scheduler, &q->options.scheduler, err);
    if (st == CM_OK)
        st = cm_multi_request_check(q, err);
    return st;
}

static cm_status run(const multi_request *k, cm_multi_request *q, json_t **reply, cm_error *err)
{
    cm_status st = build_request(k, q, err);
    cm_multi_result *r = NULL;
    double t0 = cm_seconds_now();
    if (st == CM_OK)
        st = cm_multi_map_request(q, &r, err);
    if (st == CM_EUSAGE)
        cm_error_prefix(err, "multi");
    double time_s = cm_seconds_now() - t0;
    if (st == CM_OK)
        st = cm_multi_save_outputs(r, q, k->output, k->report, err);
    if (st == CM_OK)
        st = cm_api_built(cm_multi_result_json(r, time_s), reply, err);
    cm_multi_result_free(r);
    return st;
}

cm_status cm_api_multi(cm_request *req, json_t **reply, cm_error *err)
{
    multi_request k = {0};
    cm_multi_request q;
    cm_multi_request_init(&q);
    cm_status st = read_keys(req, &k, &q.options);
    if (st == CM_OK)
        st = run(&k, &q, reply, err);
    free(k.models);
    cm_multi_request_free(&q);
    return st;
}

cm_status cm_api_evaluate_multi(const char *path, json_t **reply, cm_error *err)
{
    cm_multi_result *r = NULL;
    double t0 = cm_seconds_now();
    cm_status st = cm_multi_design_load(path, &r, err);
    if (st == CM_OK)
        st = cm_api_built(cm_multi_result_json(r, cm_seconds_now() - t0), reply, err);
    cm_multi_result_free(r);
    return st;
}
