/* `optimise` on a streaming backend (fpgaConvNet, FINN, hls4ml) as one library call,
 * for the CLI and the API alike: the board and model resolved, the design built and
 * named after its sources, and the optimiser (or the --target-fps search) run within
 * what is left of the command's time limit. */
#ifndef CM_OPTIMISE_OPTIMISE_JOB_H
#define CM_OPTIMISE_OPTIMISE_JOB_H

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/optimise.h>

typedef struct cm_optimise_job {
    const char *model, *board; /* a model file; a built-in board's name or a board file */
    cm_design_options design;
    cm_optimise_options search; /* time_limit_s: the whole command's, loading included */
    double target_fps;          /* > 0: the least design reaching it (cm_optimise_target_fps) */
    double start_s;             /* cm_seconds_now() when the command began */
    int json_streamed;          /* JSON texts written after the search a node at a time
                                   (the CLI's report, a design file) and */
    int json_trees;             /* those built whole first (the API's reply, the tree
                                   behind CSV): each is set aside time under a limit */
} cm_optimise_job;

/* "latency" or "throughput" (every backend's --objective); CM_EUSAGE otherwise. */
cm_status cm_objective_parse(const char *name, cm_objective *out, cm_error *err);

/* The CLI's defaults: cm_design_options_init's, optimiser rule, seed 1, no time limit,
 * as many threads as online cores, no target; start_s now. */
void cm_optimise_job_init(cm_optimise_job *job);

/* Builds and optimises the design. On success *d is the design (the caller frees it)
 * and *run how it was found; it may still break a constraint (cm_design_verdict). A
 * target rate turns the latency-driven flow off (it would trade resources for
 * latency). On failure *d is NULL: the board's, the model's (prefixed with the model)
 * or the optimiser's error, CM_EINFEASIBLE when no design reaches the target rate. */
cm_status cm_optimise_job_run(cm_optimise_job *job, cm_design **d, cm_design_run *run,
                              cm_error *err);

#endif
