/* Placeholder until the exact optimiser lands: refuses with a usage error. */
#include "optimise/optimisers.h"

cm_status cm_optimise_exact(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                         cm_error *err)
{
    (void)d;
    (void)o;
    (void)r;
    return cm_error_set(err, CM_EUSAGE, "the exact optimiser is not available yet; use --optimiser none");
}
