/* The least resources at which a block can reach a figure (an interval in cycles, a
 * time in seconds): its design points sorted by the figure, each with the componentwise
 * least resources of every point at or below it. A bound on any choice of the block
 * then costs one binary search: the exact optimisers ask it of every node or step for
 * every level they try (src/optimise/exact_model.c, src/latency/exact_cut.c). */
#ifndef CM_PLATFORM_RES_STAIRCASE_H
#define CM_PLATFORM_RES_STAIRCASE_H

#include <cnnmap/board.h>
#include <cnnmap/error.h>

/* One design point: its figure and its resources. */
typedef struct cm_res_point {
    double val;
    cm_resources res;
} cm_res_point;

typedef struct cm_res_staircase {
    int n;               /* distinct figures */
    double *val;         /* ascending */
    cm_resources *least; /* per figure, the least of every point at most that figure */
} cm_res_staircase;

/* Builds s from n points (sorted here, in place). */
cm_status cm_res_staircase_build(cm_res_staircase *s, cm_res_point *points, int n, cm_error *err);
void cm_res_staircase_free(cm_res_staircase *s);

/* The least resources of a point whose figure is at most v; NULL when none is. */
const cm_resources *cm_res_staircase_at_most(const cm_res_staircase *s, double v);

/* The index of the least figure whose resources fit r, -1 when none does. */
int cm_res_staircase_first_fitting(const cm_res_staircase *s, const cm_resources *r);

#endif
