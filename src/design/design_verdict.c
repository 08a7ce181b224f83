/* A design's verdict as one line: the first constraint it breaks, said the way every
 * command says it (the CLI's error line, the API's error), whoever found it. */
#include <cnnmap/design_io.h>

cm_status cm_design_verdict(const cm_design *d, const cm_design_run *run, const char *origin,
                            cm_error *err)
{
    cm_violation v[4];
    int n = cm_design_check(d, v, 4);
    if (n == 0)
        return CM_OK;
    bool proven = run && run->result.proven_infeasible;
    /* A search the time limit cut short proves nothing: say which it was. */
    bool early = run && run->result.stopped_early && !proven;
    return cm_error_set(err, CM_EINFEASIBLE, "%s: no feasible design%s: %s [%s]%s", origin,
                        proven ? " (proven: no design fits)"
                               : early ? " found before the time limit stopped the search" : "",
                        v[0].message, cm_constraint_name(v[0].constraint),
                        n > 1 ? " (and further violations; see the tables)" : "");
}
