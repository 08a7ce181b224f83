/* The exact search's view of one cut vector (exact_cut.c), shared with its driver
 * (exact.c): the conv steps of every group, the conv blocks they run on, relaxed
 * (value, resources) lists per step from which lower bounds on any assignment of the
 * unassigned blocks follow, and the design points (candidates) of one block.
 *
 * Values: a step whose group has no other conv step carries the group's whole time in
 * seconds (fold passes and accumulation included); a step of a group with several conv
 * steps carries its interval II and depth in cycles. Non-conv steps enter as lower
 * bounds: the most streams the rule of evaluate.c can give their block. */
#ifndef CM_LATENCY_EXACT_INTERNAL_H
#define CM_LATENCY_EXACT_INTERNAL_H

#include "latency/latency_internal.h"
#include "platform/res_staircase.h"

/* The points of one step as a staircase: every design point of the step's block that
 * fits the board has a step with a value no larger and resources no larger. */
typedef struct cm_lx_list {
    bool built;
    cm_res_staircase steps;
    double min_depth; /* steps of several-conv groups: the least depth, cycles */
} cm_lx_list;

typedef struct cm_lx_step {
    int group, layer, block; /* block: index into the cut's conv blocks */
    bool single;             /* its group's only conv step */
    int n_fins, fins[CM_LAT_MAX_FIN]; /* the f_in it may take, ascending */
    cm_lx_list list;
    double val, depth;       /* at its block's assigned candidate */
} cm_lx_step;

typedef struct cm_lx_group {
    int first, n;            /* its conv steps */
    double mem_ii, nc_ii, nc_depth; /* unfolded: memory interval, non-conv bounds (cycles) */
} cm_lx_group;

typedef struct cm_lx_block {
    int b;                   /* arch block */
    int n_steps, *steps;
    cm_lat_size z;           /* channels: the least any bank size gives */
    int *nbp, n_nbp, *mbp, n_mbp;
    cm_resources *base;      /* per (N, m) at z and bank 0, NULL until needed */
    cm_resources minres;     /* no point of the block takes less */
    int choice;              /* assigned candidate, -1 when unassigned */
    int N, m, bank;
    cm_resources res;
} cm_lx_block;

/* The candidates of one block: every (N, m) at the breakpoints and, per (N, m), the
 * smallest bank of each f_in vector its layers can get, that fit the board alone. */
typedef struct cm_lx_cands {
    int n, cap, n_steps;
    int *N, *m, *bank;
    cm_resources *res;
    double *val, *dep; /* n x n_steps */
} cm_lx_cands;

typedef struct cm_lx_cut {
    const cm_lat_net *net;
    const cm_lat_machine *mach;
    const cm_lat_arch *a;
    int n_steps, n_groups, n_blocks;
    cm_lx_step *steps;
    cm_lx_group *groups;
    cm_lx_block *blocks;
    int *streams;            /* per arch block: the most streams the rule gives it */
    double weights_s;        /* every weight loaded once (several subgraphs) */
    cm_resources used;       /* assigned blocks */
    cm_resources unassigned; /* the least the unassigned blocks take */
} cm_lx_cut;

cm_status cm_lx_cut_init(const cm_lat_net *net, const cm_lat_machine *m, const cm_lat_arch *a,
                         double weights_s, cm_lx_cut *x, cm_error *err);
void cm_lx_cut_free(cm_lx_cut *x);
/* A lower bound on the latency of every point with the assigned blocks' candidates
 * (INFINITY: none fits); stops adding groups once it reaches `limit`. */
cm_status cm_lx_bound(cm_lx_cut *x, double limit, double *bound, cm_error *err);
cm_status cm_lx_candidates(cm_lx_cut *x, int blk, cm_lx_cands *c, cm_error *err);
void cm_lx_cands_free(cm_lx_cands *c);
void cm_lx_assign(cm_lx_cut *x, int blk, const cm_lx_cands *c, int i);
void cm_lx_unassign(cm_lx_cut *x, int blk);

#endif
