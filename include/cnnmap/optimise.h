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

/* Same inputs, same design, on any machine: no optimiser's default stops on the clock.
 * rule and anneal stop by their own criterion or after a budget that is a count.
 * anneal's is of moves: each move's bookkeeping can scan the design, so its default
 * budget is CM_OPTIMISE_WORK / nodes moves, from CM_OPTIMISE_MIN_POINTS to
 * CM_OPTIMISE_MAX_POINTS. rule's default is of work, CM_OPTIMISE_RULE_WORK node costings
 * (cm_design_evaluations; about a minute on this project's machine, far more than it
 * uses on torchvision's networks): its steps re-cost one partition each, so from a
 * design of one partition per node (a 10,000-layer chain) a budget of points ran out
 * before every partition had grown. A caller's max_points is a count of design points
 * for both. A time limit is only ever the user's. */
#define CM_OPTIMISE_WORK 1000000000ull
#define CM_OPTIMISE_MIN_POINTS 10000ull
#define CM_OPTIMISE_MAX_POINTS 100000000ull
#define CM_OPTIMISE_RULE_WORK 1000000000ull
/* exact stops after this many GLPK branch-and-bound nodes over all its integer programs
 * (MobileNetV2 a8w6 on a ZCU102, fpgaConvNet, proves its optimum in about 220,000); its
 * time limit without --time-limit is only a safety cap of 600 s. */
#define CM_OPTIMISE_EXACT_NODES 2000000
/* The most threads an optimiser runs on (--threads). */
#define CM_OPTIMISE_MAX_THREADS 64

typedef struct cm_optimise_options {
    cm_optimiser optimiser;
    uint64_t seed;
    double time_limit_s;      /* > 0: the user's cap on the search; 0: none */
    uint64_t max_points;      /* > 0: rule's and anneal's budget of design points; 0: their
                               * defaults (above) */
    bool progress;            /* draw a progress bar on stderr */
    int64_t max_nodes;        /* > 0: exact's node budget; 0: CM_OPTIMISE_EXACT_NODES */
    double enough_s;          /* > 0: exact answers "is there a design of at most this
                               * cost?" (--target-fps): it stops at the first such design
                               * and searches nothing that cannot beat it; 0: optimise */
    int threads;              /* threads anneal's restarts run on (< 1: one); the
                               * design found is the same for any number */
    double gap;               /* > 0: exact stops once its design is proven within this
                               * fraction of the optimum (--gap); 0: proven optimal */
} cm_optimise_options;

/* The number of online cores, within 1 to CM_OPTIMISE_MAX_THREADS (--threads' default). */
int cm_optimise_default_threads(void);

/* The budget of design points anneal runs with on a design of `nodes` nodes (and rule,
 * when the caller gives max_points). */
uint64_t cm_optimise_budget(const cm_optimise_options *o, int nodes);

typedef struct cm_optimise_result {
    uint64_t evaluations;  /* design points costed */
    double time_s;
    bool has_lower_bound;
    double lower_bound_s;
    bool proven_infeasible; /* the optimiser proved that no design fits */
    bool stopped_early;     /* the time limit or the evaluation budget ended the search
                               before its own criterion */
    char note[256];         /* why a bound or a proof is missing, or other remarks */
} cm_optimise_result;

/* Runs the optimiser on the design. CM_EUSAGE for an optimiser this build lacks. The
 * design may end infeasible (cm_design_feasible) when nothing fits. */
cm_status cm_optimise(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                      cm_error *err);

/* The design that reaches `fps` frames a second (throughput at the design's batch) with
 * the fewest DSPs and then the fewest BRAM18, as FINN's target_fps: the optimiser (o,
 * with the throughput or latency objective of the design) runs under a DSP limit found
 * by bisection between 0 and the design's limits (cm_design_limits, e.g. --max-util),
 * then under a BRAM18 limit the same way. Feasible designs under a larger limit include
 * those under a smaller one, so with `exact` (each run after the first a proven
 * decision, cm_optimise_options.enough_s) no design with fewer DSPs, or as many DSPs and
 * fewer BRAM18, reaches fps; with another optimiser the
 * answer is the least that optimiser reaches. The design is left in place with its
 * limits restored. CM_EINFEASIBLE, naming the best reachable rate, when nothing under
 * the full limits reaches fps (the best design is then left in place). r sums the runs
 * (evaluations, time, stopped_early) and its note names the limits found. */
cm_status cm_optimise_target_fps(cm_design *d, const cm_optimise_options *o, double fps,
                                 cm_optimise_result *r, cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
