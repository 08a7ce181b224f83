/* The optimisers behind cm_optimise, one file each. Each starts from the design as
 * given (cm_optimise resets it to the resource-minimal design first), leaves the best
 * feasible design it found in place (or the least infeasible one when nothing fits),
 * and may add to r->evaluations the design points it costed outside the design's own
 * counter (cm_design_node_cost_at), and set r->has_lower_bound / r->lower_bound_s. */
#ifndef CM_OPTIMISE_OPTIMISERS_H
#define CM_OPTIMISE_OPTIMISERS_H

#include <cnnmap/optimise.h>

cm_status cm_optimise_rule(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                           cm_error *err);
cm_status cm_optimise_anneal(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                             cm_error *err);
cm_status cm_optimise_brute(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                            cm_error *err);
cm_status cm_optimise_exact(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                            cm_error *err);

/* Every folding at its smallest value, one partition: the resource-minimal design. */
void cm_optimise_reset(cm_design *d);

#endif
