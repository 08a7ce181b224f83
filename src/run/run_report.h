/* `cnnmap run`'s flow and its JSON object (run --json, cm_api "run"): the model and its
 * inputs read, the batch executed, the output written and digested. The CLI and the API
 * both go through it, so that their figures and messages agree. */
#ifndef CM_RUN_RUN_REPORT_H
#define CM_RUN_RUN_REPORT_H

#include <jansson.h>

#include <cnnmap/run.h>

/* The most --input files a run takes. */
#define CM_RUN_MAX_INPUTS 64

typedef struct cm_run_job {
    /* what to run, set by the caller (the strings are not copied) */
    const char *model;
    const char *inputs[CM_RUN_MAX_INPUTS];
    int n_inputs;
    const char *output_name; /* the tensor written; NULL: the first graph output */
    const char *out;         /* the .npy file written; NULL: none */
    /* filled by the calls below, released by cm_run_job_free */
    cm_runner *runner;
    cm_array *x[CM_RUN_MAX_INPUTS];
    cm_array *y;
    double seconds; /* the batch's execution, measured */
    char digest[65];
} cm_run_job;

/* Reads the model and the input files. */
cm_status cm_run_job_load(cm_run_job *j, cm_error *err);

/* Runs the batch (progress may be NULL), writes j->out when set and digests the output.
 * A shape or type mismatch that does not name the model names the first input file. */
cm_status cm_run_job_execute(cm_run_job *j, cm_run_progress_fn progress, void *user,
                             cm_error *err);

/* The object of run --json after cm_run_job_execute; NULL when memory runs out. */
json_t *cm_run_job_json(const cm_run_job *j);

void cm_run_job_free(cm_run_job *j);

#endif
