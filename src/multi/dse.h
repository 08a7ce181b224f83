/* The state of one design-space exploration (dse.c), shared with the cyclic scheduling
 * of a joint point (cyclic.c) and the public entry point that fills the result
 * (multi.c). */
#ifndef CM_MULTI_DSE_H
#define CM_MULTI_DSE_H

#include "multi/multi_internal.h"

/* One feasible joint design point. */
typedef struct cm_mt_cand {
    int index;       /* order of enumeration; its engines at cand_idx[index * n] */
    double bound;    /* fluid bound on its objective */
    double alone;    /* its objective if every engine had B_mem to itself */
} cm_mt_cand;

typedef struct cm_mt_dse {
    const cm_multi_options *o;
    const cm_board *board;
    cm_multi_result *r;
    int n;
    double bandwidth;            /* B_mem, bytes per second */
    double *norm, *cap;          /* the goal's arrays */
    cm_mt_goal goal;
    double *u, *c, *f;           /* scratch per network */
    cm_mt_cand *cands;
    int *cand_idx;
    int n_cands, cap_cands;
    bool best_set;
    double best_value;
    int *best_idx;
    cm_multi_schedule best;
    int ilp_smallest;            /* ILP: fewest executions of a period seen (refusals) */
    bool ilp_fits;             /* ILP: some period was small enough for it */
    int *twin;                   /* per network: the previous one it is interchangeable
                                  * with (same front, same goal), or -1 */
    double deadline;             /* cm_seconds_now() at which the exploration stops */
    uint64_t work, work_budget;  /* scheduled executions so far, and the most allowed */
    bool stopped;                /* the deadline or the budget stopped it */
} cm_mt_dse;

/* Fills d->twin. */
void cm_mt_find_twins(cm_mt_dse *d);
/* Whether the time limit has come or the work budget is spent (and records that). */
bool cm_mt_out_of_time(cm_mt_dse *d);

cm_status cm_mt_enumerate(cm_mt_dse *d, cm_error *err);
cm_status cm_mt_explore(cm_mt_dse *d, cm_error *err);
/* Takes schedule s (leaving it empty) as the best when its value beats d's. */
void cm_mt_keep_best(cm_mt_dse *d, const int *idx, double value, cm_multi_schedule *s);
cm_status cm_mt_schedule_point(cm_mt_dse *d, const int *idx, cm_error *err);

/* Cyclic schedules of one point: one per candidate repetition vector; keeps the best
 * in d when it beats what d holds. */
cm_status cm_mt_cyclic(cm_mt_dse *d, const int *idx, cm_error *err);

#endif
