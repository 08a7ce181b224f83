/* The optimiser front door: names, dispatch, timing, and the `none` optimiser (the
 * resource-minimal design of SAMO Table V's "init." column). */
#include <cnnmap/optimise.h>

#include <strings.h>
#include <string.h>
#include <unistd.h>

#include "optimise/optimisers.h"
#include "util/progress.h"

static const char *const optimiser_names[CM_OPTIMISER_COUNT] = {
    [CM_OPTIMISER_NONE] = "none",   [CM_OPTIMISER_RULE] = "rule",
    [CM_OPTIMISER_ANNEAL] = "anneal", [CM_OPTIMISER_BRUTE] = "brute",
    [CM_OPTIMISER_EXACT] = "exact",
};

const char *cm_optimiser_name(cm_optimiser o)
{
    return (unsigned)o < CM_OPTIMISER_COUNT ? optimiser_names[o] : "unknown";
}

cm_status cm_optimiser_parse(const char *name, cm_optimiser *out, cm_error *err)
{
    for (int o = 0; o < CM_OPTIMISER_COUNT; o++)
        if (strcasecmp(name, optimiser_names[o]) == 0) {
            *out = (cm_optimiser)o;
            return CM_OK;
        }
    return cm_error_set(err, CM_EUSAGE,
                        "unknown optimiser '%s' (choose rule, anneal, brute, exact or none)", name);
}

uint64_t cm_optimise_budget(const cm_optimise_options *o, int nodes)
{
    if (o->max_points > 0)
        return o->max_points;
    uint64_t budget = CM_OPTIMISE_WORK / (uint64_t)(nodes > 0 ? nodes : 1);
    budget = budget < CM_OPTIMISE_MAX_POINTS ? budget : CM_OPTIMISE_MAX_POINTS;
    return budget > CM_OPTIMISE_MIN_POINTS ? budget : CM_OPTIMISE_MIN_POINTS;
}

int cm_optimise_default_threads(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > CM_OPTIMISE_MAX_THREADS ? CM_OPTIMISE_MAX_THREADS : (int)cores;
}

/* Every folding 1 in one partition; if that does not fit and reconfiguration is
 * allowed, one partition per place the backend can cut. */
void cm_optimise_reset(cm_design *d)
{
    int first = 0;
    cm_design_set_partitions(d, &first, 1, NULL);
    for (int i = 0; i < cm_design_node_count(d); i++) {
        int n;
        const int64_t *in = cm_design_fold_values(d, i, CM_FOLD_IN, &n);
        const int64_t *out = cm_design_fold_values(d, i, CM_FOLD_OUT, &n);
        const int64_t *k = cm_design_fold_values(d, i, CM_FOLD_KERNEL, &n);
        cm_design_set_folding(d, i, in[0], out[0], k[0]);
    }
}

static cm_status optimise_none(cm_design *d, cm_error *err)
{
    (void)err;
    cm_optimise_reset(d);
    if (!cm_design_feasible(d) && cm_design_options_of(d)->reconfiguration)
        cm_design_split_all(d);
    return CM_OK;
}

cm_status cm_optimise(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                      cm_error *err)
{
    memset(r, 0, sizeof *r);
    double start = cm_seconds_now();
    uint64_t evals = cm_design_evaluations(d);
    cm_status st;
    if (o->optimiser != CM_OPTIMISER_NONE)
        cm_optimise_reset(d);
    switch (o->optimiser) {
    case CM_OPTIMISER_NONE:
        st = optimise_none(d, err);
        break;
    case CM_OPTIMISER_RULE:
        st = cm_optimise_rule(d, o, r, err);
        break;
    case CM_OPTIMISER_ANNEAL:
        st = cm_optimise_anneal(d, o, r, err);
        break;
    case CM_OPTIMISER_BRUTE:
        st = cm_optimise_brute(d, o, r, err);
        break;
    case CM_OPTIMISER_EXACT:
        st = cm_optimise_exact(d, o, r, err);
        break;
    default:
        return cm_error_set(err, CM_EUSAGE, "unknown optimiser");
    }
    cm_design_retime(d); /* the figures reported are the design's, not its moves' */
    r->evaluations += cm_design_evaluations(d) - evals;
    r->time_s = cm_seconds_now() - start;
    return st;
}
