/* Optimisers: they search a design's folding and partitioning (SAMO eq. 5) and leave
 * the best design found in place. `none` keeps the resource-minimal design, cut into
 * one partition per node group only when one partition does not fit. */
#ifndef CNNMAP_OPTIMISE_H
#define CNNMAP_OPTIMISE_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/design.h>
#include <cnnmap/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cm_optimiser {
    CM_OPTIMISER_NONE,
    CM_OPTIMISER_RULE,
    CM_OPTIMISER_ANNEAL,
    CM_OPTIMISER_BRUTE,
    CM_OPTIMISER_EXACT,
    CM_OPTIMISER_COUNT
} cm_optimiser;

const char *cm_optimiser_name(cm_optimiser o);
cm_status cm_optimiser_parse(const char *name, cm_optimiser *out, cm_error *err);

/* rule's time limit when none is given (also what fpgaConvNet's two flows share) */
#define CM_RULE_DEFAULT_TIME_LIMIT_S 60.0

typedef struct cm_optimise_options {
    cm_optimiser optimiser;
    uint64_t seed;
    double time_limit_s; /* 0: the optimiser's default */
    bool progress;       /* draw a progress bar on stderr */
} cm_optimise_options;

typedef struct cm_optimise_result {
    uint64_t evaluations;  /* design points costed */
    double time_s;
    bool has_lower_bound;
    double lower_bound_s;
    bool proven_infeasible; /* the optimiser proved that no design fits */
    bool stopped_early;     /* the time limit ended the search before its own criterion */
    char note[256];         /* why a bound or a proof is missing, or other remarks */
} cm_optimise_result;

/* Runs the optimiser on the design. CM_EUSAGE for an optimiser this build lacks. The
 * design may end infeasible (cm_design_feasible) when nothing fits. */
cm_status cm_optimise(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                      cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
