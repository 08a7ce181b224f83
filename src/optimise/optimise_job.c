/* The streaming backends' `optimise` flow (optimise_job.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/board.h>
#include <cnnmap/model.h>

#include "optimise/optimise_job.h"
#include "util/path.h"
#include "util/progress.h"

cm_status cm_objective_parse(const char *name, cm_objective *out, cm_error *err)
{
    if (strcmp(name, "latency") == 0)
        *out = CM_OBJECTIVE_LATENCY;
    else if (strcmp(name, "throughput") == 0)
        *out = CM_OBJECTIVE_THROUGHPUT;
    else
        return cm_error_set(err, CM_EUSAGE, "unknown objective '%s' (latency or throughput)", name);
    return CM_OK;
}

void cm_optimise_job_init(cm_optimise_job *job)
{
    memset(job, 0, sizeof *job);
    cm_design_options_init(&job->design);
    job->search.optimiser = CM_OPTIMISER_RULE;
    job->search.seed = 1;
    job->search.threads = cm_optimise_default_threads();
    job->start_s = cm_seconds_now();
}

/* Design files record the sources so that they work from any folder: the model's
 * absolute path, a built-in board's name or a board file's absolute path. */
static cm_status name_sources(cm_design *d, const cm_optimise_job *job, const cm_board *board,
                              cm_error *err)
{
    bool builtin = cm_board_builtin(job->board, &(cm_board){0}, NULL) == CM_OK;
    char *model_abs = cm_path_absolute(job->model);
    char *board_abs = builtin ? NULL : cm_path_absolute(job->board);
    cm_status st = cm_design_set_sources(d, model_abs ? model_abs : job->model,
                                         builtin ? board->name : (board_abs ? board_abs : job->board),
                                         err);
    free(model_abs);
    free(board_abs);
    return st;
}

static cm_status build(const cm_optimise_job *job, cm_design **d, cm_error *err)
{
    cm_board board;
    cm_status st = cm_board_resolve(job->board, &board, err);
    if (st != CM_OK)
        return st;
    cm_graph *g = NULL;
    st = cm_model_load(job->model, &g, err);
    if (st != CM_OK)
        return st;
    st = cm_design_create(g, &board, &job->design, d, err);
    if (st != CM_OK) {
        cm_graph_free(g);
        cm_error_prefix(err, job->model);
        return st;
    }
    return name_sources(*d, job, &board, err);
}

/* What reporting a design takes a layer, at most: its table, fpgaConvNet's
 * latency-driven alternative and freeing it all; and each JSON text on top (the report,
 * the design file). Measured on the 10,000-layer FINN chain (30,000 nodes) at a
 * partition a layer, the most rows a design has: 0.4-0.55 s for the whole command with
 * the table; a JSON tree (the API's reply, CSV's table) 0.46 s more; since they are
 * streamed (c053340) and written on two threads (cbe4142), --json adds 0.06-0.2 s and
 * --json -o 0.3-0.4 s, so a streamed text is set aside 0.3 s (at 3e-5 a layer, half
 * again the most measured). With the old 6e-5 for every text `--time-limit 2 --json -o`
 * kept 1.5 s for 0.4 s of output and returned a partition a layer after 0.94 s. */
#define CM_OUTPUT_S_PER_LAYER 3e-5
#define CM_JSON_STREAM_S_PER_LAYER 3e-5
#define CM_JSON_TREE_S_PER_LAYER 6e-5
#define CM_OUTPUT_MAX_SHARE 0.75

/* The search's share of the time limit, which covers the whole command: what loading
 * took is spent, and reporting the design is set aside (at most CM_OUTPUT_MAX_SHARE of
 * the limit), so that a 10,000-layer design's report does not take the command past it. */
static double search_limit(const cm_optimise_job *job, const cm_design *d)
{
    const double limit = job->search.time_limit_s;
    const double per_layer = CM_OUTPUT_S_PER_LAYER +
                             CM_JSON_STREAM_S_PER_LAYER * job->json_streamed +
                             CM_JSON_TREE_S_PER_LAYER * job->json_trees;
    const double report =
        d ? fmin(per_layer * cm_design_graph(d)->n_layers, CM_OUTPUT_MAX_SHARE * limit) : 0.0;
    return fmax(limit - (cm_seconds_now() - job->start_s) - report, 0.001);
}

cm_status cm_optimise_job_run(cm_optimise_job *job, cm_design **d, cm_design_run *run,
                              cm_error *err)
{
    *d = NULL;
    if (job->target_fps > 0)
        job->design.weights_reloading = false;
    cm_status st = build(job, d, err);
    if (job->search.time_limit_s > 0)
        job->search.time_limit_s = search_limit(job, st == CM_OK ? *d : NULL);
    memset(run, 0, sizeof *run);
    run->optimiser = job->search.optimiser;
    run->seed = job->search.seed;
    run->time_limit_s = job->search.time_limit_s;
    run->threads = job->search.threads;
    if (st == CM_OK && job->target_fps > 0)
        st = cm_optimise_target_fps(*d, &job->search, job->target_fps, &run->result, err);
    else if (st == CM_OK)
        st = cm_optimise(*d, &job->search, &run->result, err);
    if (st != CM_OK) {
        cm_design_free(*d);
        *d = NULL;
    }
    return st;
}
