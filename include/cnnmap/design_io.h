/* Design files: a design written as JSON (the model and board it was made for, the
 * options, every node's folding and partition, the optimiser's run and the predicted
 * figures), and read back for evaluation or export. Reading re-derives every figure
 * from the model and board, so a hand-edited file is checked, not trusted. */
#ifndef CNNMAP_DESIGN_IO_H
#define CNNMAP_DESIGN_IO_H

#include <cnnmap/design.h>
#include <cnnmap/error.h>
#include <cnnmap/optimise.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the design was found, kept in the file and printed again by `evaluate`. */
typedef struct cm_design_run {
    cm_optimiser optimiser;
    uint64_t seed;
    double time_limit_s; /* the limit the run was given (0: the optimiser's default) */
    cm_optimise_result result;
    int threads;         /* the threads it was given, which fpgaConvNet's latency-driven
                          * flow runs on too (not in the file: the design is the same) */
} cm_design_run;

#define CM_DESIGN_WARNING_MAX 256
#define CM_DESIGN_WARNINGS_CAP 8

/* A remark that changes what a figure means. */
typedef struct cm_design_warning {
    char text[CM_DESIGN_WARNING_MAX];
} cm_design_warning;

/* The design's warnings (printed and in the JSON's "warnings"): layers the model leaves
 * as float that the backend costs at default bit widths, a search the time limit cut
 * short, a heuristic answer. Writes up to cap; returns how many there are. */
int cm_design_warnings(const cm_design *d, const cm_design_run *run, cm_design_warning *out,
                       int cap);

/* Writes the design to `path` through a temporary file renamed into place, so a
 * failure leaves no partial file. */
cm_status cm_design_save(const cm_design *d, const cm_design_run *run, const char *path,
                         cm_error *err);

/* Reads a design file: loads its model and board, rebuilds the HD-graph and applies
 * the recorded foldings and partitions. Unknown or missing nodes and unreadable
 * files are CM_EINPUT; folding values that break constraints are kept (see
 * cm_design_check). */
cm_status cm_design_load(const char *path, cm_design **out, cm_design_run *run, cm_error *err);

/* CM_OK when d meets every constraint; otherwise CM_EINFEASIBLE with the first broken
 * one as "ORIGIN: no feasible design: ... [constraint]", saying whether run's search
 * proved that nothing fits or stopped early. run may be NULL (a design read back). */
cm_status cm_design_verdict(const cm_design *d, const cm_design_run *run, const char *origin,
                            cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
