/* The API's executor and simulator commands: run and simulate. */
#include <stdlib.h>
#include <string.h>

#include <cnnmap/simulate.h>

#include "api/api_internal.h"
#include "run/run_report.h"
#include "sim/sim_json.h"

/* The request into the job: "model", "input" (one path or a list), "output" (the
 * tensor) and "output_file" (-o; absent: only the digest). */
static cm_status run_request(cm_request *req, cm_run_job *j, cm_error *err)
{
    const char **inputs = NULL;
    int n = 0;
    cm_status st = cm_request_string(req, "model", true, &j->model);
    if (st == CM_OK)
        st = cm_request_strings(req, "input", true, &inputs, &n);
    if (st == CM_OK)
        st = cm_request_string(req, "output", false, &j->output_name);
    if (st == CM_OK)
        st = cm_request_string(req, "output_file", false, &j->out);
    if (st == CM_OK)
        st = cm_request_finish(req);
    if (st == CM_OK && n > CM_RUN_MAX_INPUTS)
        st = cm_error_set(err, CM_EUSAGE, "run: at most %d inputs", CM_RUN_MAX_INPUTS);
    for (int k = 0; k < n && st == CM_OK; k++)
        j->inputs[k] = inputs[k];
    if (st == CM_OK)
        j->n_inputs = n;
    free(inputs);
    return st;
}

cm_status cm_api_run(cm_request *req, json_t **reply, cm_error *err)
{
    cm_run_job j;
    memset(&j, 0, sizeof j);
    cm_status st = run_request(req, &j, err);
    if (st == CM_OK)
        st = cm_run_job_load(&j, err);
    if (st == CM_OK)
        st = cm_run_job_execute(&j, NULL, NULL, err);
    if (st == CM_OK)
        st = cm_api_built(cm_run_job_json(&j), reply, err);
    cm_run_job_free(&j);
    return st;
}

/* The request's options, with the CLI's defaults and ranges. */
static cm_status simulate_request(cm_request *req, const char **design, const char **output,
                                  cm_sim_options *o, cm_error *err)
{
    const char *fifo = NULL;
    cm_sim_options_init(o);
    o->time_limit_s = CM_SIM_DEFAULT_TIME_LIMIT_S;
    cm_status st = cm_request_string(req, "design", true, design);
    if (st == CM_OK)
        st = cm_request_int(req, "frames", 1, 1000000, &o->frames);
    if (st == CM_OK)
        st = cm_request_string(req, "fifo_depths", false, &fifo);
    if (st == CM_OK)
        st = cm_request_double(req, "time_limit", 0.001, 1e7, &o->time_limit_s);
    if (st == CM_OK)
        st = cm_request_string(req, "output", false, output);
    if (st == CM_OK)
        st = cm_request_finish(req);
    if (st == CM_OK && fifo) {
        if (strcmp(fifo, "design") == 0)
            o->fifo = CM_SIM_FIFO_DESIGN;
        else if (strcmp(fifo, "auto") == 0)
            o->fifo = CM_SIM_FIFO_AUTO;
        else
            st = cm_error_set(err, CM_EUSAGE,
                              "simulate: unknown fifo_depths '%.80s' (design or auto)", fifo);
    }
    return st;
}

cm_status cm_api_simulate(cm_request *req, json_t **reply, cm_error *err)
{
    const char *design = NULL, *output = NULL;
    cm_sim_options o;
    cm_status st = simulate_request(req, &design, &output, &o, err);
    cm_sim_result r;
    if (st == CM_OK)
        st = cm_sim_design_file(design, &o, output, &r, err);
    if (st != CM_OK)
        return st;
    /* a deadlock or a cut run is the CLI's exit 3: its line, no reply */
    st = cm_sim_verdict(design, &r, output != NULL, err);
    if (st == CM_OK)
        st = cm_api_built(cm_sim_result_json(&r), reply, err);
    cm_sim_result_free(&r);
    return st;
}
