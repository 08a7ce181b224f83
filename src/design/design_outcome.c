/* The end of a streaming design's command (design_outcome.h). */
#include "design/design_outcome.h"

bool cm_design_compares_latency(const cm_design *d)
{
    const cm_design_options *o = cm_design_options_of(d);
    return o->backend == CM_BACKEND_FPGACONVNET && o->objective == CM_OBJECTIVE_LATENCY &&
           o->weights_reloading;
}

bool cm_design_outcome_writable(const cm_design *d, bool chose_latency)
{
    cm_violation v;
    return chose_latency || cm_design_check(d, &v, 1) == 0;
}

cm_status cm_design_outcome_status(const cm_design *d, const cm_design_run *run,
                                   const char *origin, bool chose_latency, cm_error *err)
{
    return chose_latency ? CM_OK : cm_design_verdict(d, run, origin, err);
}
