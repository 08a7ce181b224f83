/* Verdicts on a period S that need no integer program: a bound that proves no choice
 * of configurations meets the budgets, or a choice that meets them (which proves the
 * opposite). The bisection of phase 1 asks only "is S feasible?", and on networks with
 * many layers (MobileNetV3-Small: 10,000 columns) GLPK needs thousands of
 * branch-and-bound nodes to answer what these settle at once for most probes.
 *
 * The choice is a Lagrangian one: each layer takes the configuration within S of least
 * weighted resources, and the weights of the resources the choice overruns grow until
 * it fits or the rounds are spent. Deterministic: the same space gives the same
 * verdicts and choices on every run. */
#include <math.h>
#include <stdlib.h>

#include "nn2fpga/n2_internal.h"

enum { N2_QUICK_ROUNDS = 40 };

typedef struct use3 {
    double dsp, bram, uram;
} use3;

static bool within(const n2_config *c, int64_t period)
{
    return n2_config_latency(c) <= period;
}

/* Each layer's least DSP, BRAM18 and URAM within S (each from its own configuration)
 * summed; false when a layer has no configuration within S. */
static bool least_use(const n2_space *sp, int64_t period, use3 *least)
{
    *least = (use3){0, 0, 0};
    for (int t = 0; t < sp->n_layers; t++) {
        use3 m = {INFINITY, INFINITY, INFINITY};
        for (int k = sp->first[t]; k < sp->first[t + 1]; k++) {
            const n2_config *c = &sp->cfg[k];
            if (!within(c, period))
                continue;
            m.dsp = fmin(m.dsp, (double)c->dsp);
            m.bram = fmin(m.bram, (double)c->bram);
            m.uram = fmin(m.uram, (double)c->uram_banks);
        }
        if (isinf(m.dsp))
            return false;
        least->dsp += m.dsp;
        least->bram += m.bram;
        least->uram += m.uram;
    }
    return true;
}

static bool fits(use3 u, const n2_budget *b)
{
    return u.dsp <= (double)b->dsp && u.bram <= (double)b->bram && u.uram <= (double)b->uram;
}

/* Each layer's configuration within S of least w-weighted use (the first of equals). */
static use3 weighted_choice(const n2_space *sp, int64_t period, use3 w, int *choice)
{
    use3 total = {0, 0, 0};
    for (int t = 0; t < sp->n_layers; t++) {
        double best = INFINITY;
        for (int k = sp->first[t]; k < sp->first[t + 1]; k++) {
            const n2_config *c = &sp->cfg[k];
            double v = w.dsp * (double)c->dsp + w.bram * (double)c->bram +
                       w.uram * (double)c->uram_banks;
            if (within(c, period) && v < best) {
                best = v;
                choice[t] = k;
            }
        }
        const n2_config *c = &sp->cfg[choice[t]];
        total.dsp += (double)c->dsp;
        total.bram += (double)c->bram;
        total.uram += (double)c->uram_banks;
    }
    return total;
}

/* A resource's weight grows with how far the choice overruns it. */
static double reweigh(double w, double used, int64_t budget)
{
    double cap = budget > 0 ? (double)budget : 0.5;
    return used > cap ? w * fmin(used / cap, 4.0) * 1.5 : w;
}

n2_verdict n2_quick_verdict(const n2_space *sp, const n2_budget *b, int64_t period, int *choice)
{
    use3 least;
    if (!least_use(sp, period, &least) || !fits(least, b))
        return N2_INFEASIBLE;
    /* the phase-2 objective's weights first: each resource over the board's figure */
    use3 w = {1.0 / (double)(b->dsp > 0 ? b->dsp : 1), 1.0 / (double)(b->bram > 0 ? b->bram : 1),
              1.0 / (double)(b->uram > 0 ? b->uram : 1)};
    for (int round = 0; round < N2_QUICK_ROUNDS; round++) {
        use3 u = weighted_choice(sp, period, w, choice);
        if (fits(u, b))
            return N2_FEASIBLE;
        w.dsp = reweigh(w.dsp, u.dsp, b->dsp);
        w.bram = reweigh(w.bram, u.bram, b->bram);
        w.uram = reweigh(w.uram, u.uram, b->uram);
    }
    return N2_UNKNOWN;
}
