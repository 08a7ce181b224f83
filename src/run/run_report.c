/* The run command's flow and JSON (run_report.h). */
#include <string.h>

#include "run/run_report.h"
#include "util/progress.h"

cm_status cm_run_job_load(cm_run_job *j, cm_error *err)
{
    cm_status st = cm_runner_load(j->model, &j->runner, err);
    for (int k = 0; k < j->n_inputs && st == CM_OK; k++)
        st = cm_array_load_npy(j->inputs[k], &j->x[k], err);
    return st;
}

cm_status cm_run_job_execute(cm_run_job *j, cm_run_progress_fn progress, void *user,
                             cm_error *err)
{
    double start = cm_seconds_now();
    cm_status st = cm_runner_run_batch(j->runner, (const cm_array *const *)j->x, j->n_inputs,
                                       j->output_name, &j->y, progress, user, err);
    j->seconds = cm_seconds_now() - start;
    /* Shape and type mismatches are the input file's fault: name it. */
    if (st == CM_EINPUT && strncmp(err->message, j->model, strlen(j->model)) != 0)
        cm_error_prefix(err, j->inputs[0]);
    if (st == CM_OK && j->out)
        st = cm_array_save_npy(j->out, j->y, err);
    if (st == CM_OK)
        st = cm_array_sha256(j->y, j->digest, err);
    return st;
}

static json_t *dims_json(const cm_array *a)
{
    json_t *j = json_array();
    for (int k = 0; k < a->rank; k++)
        json_array_append_new(j, json_integer(a->dims[k]));
    return j;
}

json_t *cm_run_job_json(const cm_run_job *j)
{
    return json_pack("{s:s, s:o, s:o, s:s, s:f, s:s}", "model", j->model, "input_shape",
                     dims_json(j->x[0]), "output_shape", dims_json(j->y), "output_dtype",
                     cm_dtype_name(j->y->dtype), "time_s", j->seconds, "output_sha256",
                     j->digest);
}

void cm_run_job_free(cm_run_job *j)
{
    cm_array_free(j->y);
    j->y = NULL;
    for (int k = 0; k < j->n_inputs; k++) {
        cm_array_free(j->x[k]);
        j->x[k] = NULL;
    }
    cm_runner_free(j->runner);
    j->runner = NULL;
}
