/* The exact optimiser: the optimal design under the cost model, with a lower bound.
 * Partitions are separate FPGA configurations, so the objective (eq. 3) separates
 * over segments of the network; exact_ilp.c finds each segment's best folding with an
 * integer program, exact_dp.c combines segments over the cut positions, and this file
 * runs the two, applies the answer to the design, checks that the design agrees, and
 * explains infeasibility or an open gap. */
#include "optimise/exact.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "util/progress.h"

/* Without --time-limit the node budget ends the search; this cap only guards what the
 * budget does not count (GLPK's root relaxations), far above what it takes. */
#define EX_DEFAULT_TIME_LIMIT_S 600.0
/* A small cut graph may finish its set-up this fraction of the limit (or at least
 * EX_SETUP_GRACE_MIN_S) past the deadline, so that a bound comes with the answer while
 * the command keeps within 10% of any limit of a second or more. */
#define EX_SETUP_GRACE_FRACTION 0.03
#define EX_SETUP_GRACE_MIN_S 0.05
/* The warm start's share of a time limit: setting up the cut graph after it is not
 * interruptible (0.2 s on a 10,000-layer FINN chain), and rule needs under a second on
 * any of issue 17's networks. */
#define EX_WARM_SHARE 0.8

static const char *const res_names[EX_RESOURCES] = {"DSP", "BRAM18", "URAM", "LUT", "FF"};

/* A node no configuration of which fits the board: names it and the resource its
 * nearest-fitting configuration exceeds most. */
static bool explain_node(const ex_problem *p, char *note, size_t size)
{
    const cm_design *d = p->d;
    for (int i = 0; i < p->n; i++) {
        const ex_node *en = &p->nodes[i];
        if (en->n_cfg > 0)
            continue;
        /* A resource that every folding exceeds, or else the one the folding nearest
         * to fitting exceeds most. */
        int worst = -1;
        for (int k = 0; k < EX_RESOURCES && worst < 0; k++)
            if (ex_res_kind(&en->min_res, k) > ex_res_kind(&d->limits, k))
                worst = k;
        bool single = worst >= 0;
        double most = -1.0;
        for (int k = 0; k < EX_RESOURCES && !single; k++) {
            int64_t need = ex_res_kind(&en->closest, k), have = ex_res_kind(&d->limits, k);
            double ratio = have > 0 ? (double)need / (double)have : need > 0 ? INFINITY : 0.0;
            if (ratio > most) {
                most = ratio;
                worst = k;
            }
        }
        const char *layer = d->graph->layers[d->hd.nodes[i].layer].name, *node = d->hd.nodes[i].name;
        long long have = (long long)ex_res_kind(&d->limits, worst);
        if (single)
            snprintf(note, size,
                     "infeasibility proven: layer %s (node %s) needs at least %lld %s in any "
                     "folding, %s has %lld",
                     layer, node, (long long)ex_res_kind(&en->min_res, worst), res_names[worst],
                     d->board.display_name, have);
        else
            snprintf(note, size,
                     "infeasibility proven: layer %s (node %s) fits in no folding; the nearest "
                     "needs %lld %s, %s has %lld",
                     layer, node, (long long)ex_res_kind(&en->closest, worst), res_names[worst],
                     d->board.display_name, have);
        return true;
    }
    return false;
}

/* The first run of nodes that cannot be cut apart whose least resources exceed the
 * board (with reconfiguration off, the whole network). */
static bool explain_group(const ex_problem *p, char *note, size_t size)
{
    const cm_design *d = p->d;
    int first = 0;
    for (int i = 0; i < p->n; i++) {
        if (i < p->n - 1 && d->opt.reconfiguration && cm_design_can_cut_after(d, i))
            ; /* the group ends here */
        else if (i < p->n - 1)
            continue;
        for (int k = 0; k < EX_RESOURCES; k++) {
            int64_t need = 0, have = ex_res_kind(&d->limits, k);
            for (int j = first; j <= i; j++)
                need += ex_res_kind(&p->nodes[j].min_fit, k);
            if (need > have) {
                snprintf(note, size,
                         "infeasibility proven: nodes %s to %s%s need at least %lld %s "
                         "together, %s has %lld",
                         d->hd.nodes[first].name, d->hd.nodes[i].name,
                         d->opt.reconfiguration ? " (no cut allowed between them)" : "",
                         (long long)need, res_names[k], d->board.display_name, (long long)have);
                return true;
            }
        }
        first = i + 1;
    }
    return false;
}

static void explain_infeasible(const ex_problem *p, char *note, size_t size)
{
    if (!explain_node(p, note, size) && !explain_group(p, note, size))
        snprintf(note, size,
                 "infeasibility proven: no folding and partitioning meets the resource, "
                 "bandwidth and folding-matching constraints together");
}

/* The resource-minimal design, split at every allowed cut when reconfiguring. */
static void leave_minimal(cm_design *d)
{
    cm_optimise_reset(d);
    if (d->opt.reconfiguration)
        cm_design_split_all(d);
}

/* Puts the search's answer into the design and checks that the design agrees. */
static cm_status apply_result(ex_problem *p, const ex_result *res, cm_error *err)
{
    cm_design *d = p->d;
    cm_status st = cm_design_set_partitions(d, res->first, res->n_parts, err);
    if (st != CM_OK)
        return st;
    for (int i = 0; i < p->n; i++) {
        const ex_config *c = &p->nodes[i].cfg[res->choice[i]];
        cm_design_set_folding(d, i, c->in, c->out, c->kernel);
    }
    double cost = cm_design_cost(d);
    if (!cm_design_feasible(d) || !(fabs(cost - res->ub) <= 1e-9 * res->ub))
        return cm_error_set(err, CM_EINTERNAL,
                            "the exact optimiser's design (%s) costs %.12g s, its search %.12g s",
                            cm_design_feasible(d) ? "feasible" : "infeasible", cost, res->ub);
    return CM_OK;
}

/* `ub` is the cost of the design kept: the search's or the warm start's. */
static void report(const ex_problem *p, const ex_result *res, double ub, cm_optimise_result *r)
{
    r->evaluations += p->evaluations;
    r->stopped_early = res->timed_out;
    if (res->no_bound) {
        snprintf(r->note, sizeof r->note, "%s%s", res->why,
                 isinf(ub) ? "; no feasible design was found" : "; the design is the rule "
                 "optimiser's");
        return;
    }
    if (isinf(res->lb)) {
        r->proven_infeasible = true;
        explain_infeasible(p, r->note, sizeof r->note);
        return;
    }
    r->has_lower_bound = true;
    r->lower_bound_s = res->lb;
    if (isinf(ub))
        snprintf(r->note, sizeof r->note, "%s before any feasible design was found", res->why);
    else if (res->timed_out)
        snprintf(r->note, sizeof r->note, "%s; the gap is %.3g%%", res->why,
                 100.0 * (ub / res->lb - 1.0));
    else if (fmin(ub, p->warm_ub) > res->lb * (1 + 1e-12))
        snprintf(r->note, sizeof r->note,
                 "within the gap asked for (%.3g%%): %d integer programs; the gap is %.3g%%",
                 100.0 * p->gap, p->ilps, 100.0 * (ub / res->lb - 1.0));
    else
        snprintf(r->note, sizeof r->note, "optimal: %d integer programs", p->ilps);
}

/* The time limit came while the nodes' configurations were listed (exact_model.c). */
static void stopped_in_init(const ex_problem *p, ex_result *res)
{
    res->lb = 0.0;
    res->ub = INFINITY;
    res->timed_out = res->no_bound = true;
    snprintf(res->why, sizeof res->why,
             "the time limit stopped the exact optimiser while it listed the nodes' "
             "configurations (%d nodes)", p->n);
}

/* The rule optimiser's design, when feasible, is a warm start: its cost cuts the
 * segment programs off from the first round, and it is the answer if the time limit
 * comes before the search finds anything better (a 10,000-layer chain: rule's 145
 * partitions in 2 s, where exact alone was still setting up its cut graph at 5 s and
 * answered with a partition per layer). rule stops at EX_WARM_SHARE of the limit. */
static cm_design_point *warm_start(cm_design *d, const cm_optimise_options *o,
                                   cm_optimise_result *r, double *cost, cm_error *err)
{
    *cost = INFINITY;
    cm_optimise_options ro = *o;
    ro.progress = false;
    if (ro.time_limit_s > 0) /* the rest sets up the cut graph, for a bound */
        ro.time_limit_s *= EX_WARM_SHARE;
    cm_optimise_result rr = {0};
    if (cm_optimise_rule(d, &ro, &rr, err) != CM_OK)
        return NULL;
    r->evaluations += rr.evaluations;
    if (!cm_design_feasible(d))
        return NULL;
    *cost = cm_design_cost(d);
    return cm_design_point_new(d);
}

cm_status cm_optimise_exact(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                            cm_error *err)
{
    double limit = o->time_limit_s > 0 ? o->time_limit_s : EX_DEFAULT_TIME_LIMIT_S;
    double deadline = cm_seconds_now() + limit, warm_cost;
    cm_design_point *warm = warm_start(d, o, r, &warm_cost, err);
    if (warm && o->enough_s > 0 && warm_cost <= o->enough_s) { /* the decision is made */
        snprintf(r->note, sizeof r->note, "the rule optimiser's design costs at most %.6g s",
                 o->enough_s);
        cm_design_point_free(warm);
        return CM_OK;
    }
    cm_optimise_reset(d);
    ex_problem p;
    ex_result res = {0};
    cm_status st = ex_problem_init(
        &p, d, deadline, deadline + fmax(EX_SETUP_GRACE_FRACTION * limit, EX_SETUP_GRACE_MIN_S), err);
    p.progress = o->progress;
    p.threads = o->threads;
    p.gap = o->gap > 0 ? o->gap : 0.0;
    p.bb_budget = o->max_nodes > 0 ? o->max_nodes : CM_OPTIMISE_EXACT_NODES;
    /* a hair above, so that the search may still find a design of equal cost */
    p.warm_ub = warm ? warm_cost * (1 + 1e-9) : INFINITY;
    p.warm = warm; /* its cuts, for a search that finds no design of its own */
    if (o->enough_s > 0) { /* nothing costing more than enough_s is of use */
        p.warm_ub = fmin(p.warm_ub, o->enough_s * (1 + 1e-9));
        p.enough_s = o->enough_s;
    }
    if (st == CM_OK && p.init_stopped)
        stopped_in_init(&p, &res);
    else if (st == CM_OK)
        st = ex_search(&p, &res, err);
    bool use_warm = st == CM_OK && warm && !(res.ub <= warm_cost);
    if (st == CM_OK) {
        report(&p, &res, use_warm ? warm_cost : res.ub, r);
        if (use_warm)
            cm_design_point_restore(d, warm);
        else if (isinf(res.ub))
            leave_minimal(d);
        else
            st = apply_result(&p, &res, err);
        /* The bound and the cost agree to rounding when the gap is closed. */
        if (st == CM_OK && r->has_lower_bound && cm_design_feasible(d))
            r->lower_bound_s = fmin(r->lower_bound_s, cm_design_cost(d));
    }
    /* The search re-partitions the design as it goes: never leave that behind. */
    if (st != CM_OK)
        leave_minimal(d);
    cm_design_point_free(warm);
    ex_result_free(&res);
    ex_problem_free(&p);
    return st;
}
