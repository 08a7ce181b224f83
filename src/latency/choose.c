/* The choice between fpgaConvNet's two flows on the latency objective: the partitioned
 * (throughput-driven) design that cm_optimise made, and the latency-driven design of one
 * reference architecture with weights reloading. */
#include <math.h>
#include <string.h>

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/latency.h>
#include <cnnmap/optimise.h>

/* what the flow gets when the partitioned search used the whole of the user's limit: its
 * first points */
#define CHOOSE_MIN_LIMIT_S 0.001

/* The partitioned search's bound on its own space: INFINITY when it proved that nothing
 * fits; false when it proved none. */
static bool partitioned_bound(const cm_design_run *run, double *lb)
{
    *lb = run->result.proven_infeasible ? INFINITY : run->result.lower_bound_s;
    return run->result.proven_infeasible || run->result.has_lower_bound;
}

void cm_latency_choose(const cm_design *partitioned, const cm_design_run *run,
                       cm_latency_choice *c)
{
    memset(c, 0, sizeof *c);
    cm_latency_options lo;
    cm_latency_options_init(&lo);
    lo.clock_mhz = cm_design_options_of(partitioned)->clock_mhz;
    lo.search = run->optimiser == CM_OPTIMISER_NONE    ? CM_LATENCY_SEARCH_MINIMAL
                : run->optimiser == CM_OPTIMISER_EXACT ? CM_LATENCY_SEARCH_EXACT
                                                       : CM_LATENCY_SEARCH_RULE;
    /* Only a user's limit is shared with the partitioned search; by default the latency
     * search stops by its own criterion or its evaluation budget, as cm_optimise does. */
    if (run->time_limit_s > 0)
        lo.time_limit_s = fmax(run->time_limit_s - run->result.time_s, CHOOSE_MIN_LIMIT_S);
    lo.threads = run->threads;
    cm_board board = *cm_design_board(partitioned); /* under the partitioned design's caps */
    board.resources = *cm_design_limits(partitioned);
    c->status = cm_latency_optimise(cm_design_graph(partitioned), &board, &lo, &c->ld, &c->err);
    c->partitioned_s = cm_design_feasible(partitioned) ? cm_design_cost(partitioned) : INFINITY;
    c->chose_latency = c->status == CM_OK && c->ld.latency_s < c->partitioned_s;
    double part_lb;
    if (c->status == CM_OK && c->ld.has_lower_bound && partitioned_bound(run, &part_lb)) {
        c->has_lower_bound = true;
        c->lower_bound_s = fmin(part_lb, c->ld.lower_bound_s);
    }
}

void cm_latency_choice_free(cm_latency_choice *c)
{
    cm_latency_design_free(&c->ld);
}
