/* The exact optimiser's search over cuts: a shortest path through the cut positions,
 * where a step from one cut to a later one is a segment (one FPGA configuration)
 * costing its best time plus a reconfiguration. The design checks the folding rules
 * on every edge, those that cross a cut included, so a cut's state is the
 * out-folding of each node whose constrained edge crosses it (for a chain, at most
 * one value), and a step's cost depends on the states at both ends.
 *
 * Step costs are lazy: first a cheap bound per segment (every node at its fastest
 * configuration that fits alone, the least depth, the bandwidth floor), then the
 * segment's integer program without the states (a bound for every pair of states,
 * exact for the pairs its answer agrees with), then the program restricted to one
 * pair. Each round takes the shortest path under the bounds, which is a lower bound
 * on the optimum, and refines its inexact steps; once the path's steps are all exact
 * it is optimal. Another path over exact steps only gives the incumbent.
 *
 * A round's refinements touch only their own segments and read the bounds of the round's
 * start, so they run at once on --threads threads, each program on a copy of the design
 * (ex_evaluate_choice moves its foldings and cuts) with the counters of the round's
 * start; their sums are added in path order. Nothing of this depends on the number of
 * threads, which therefore never changes the answer. */
#include "optimise/exact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "design/design_copy.h"
#include "util/parallel.h"
#include "util/progress.h"

/* Joint folding values across one cut beyond this are refused (a chain has one). */
#define EX_MAX_STATES 65536

/* Segment records beyond this many are not set up (about 1 GiB): the cut graph holds
 * only segments whose least resources fit the board, which is linear in the network
 * for a given board, but a board that holds thousands of tiny layers at once would
 * still make it quadratic. */
#define EX_MAX_SEGMENTS (8 * 1000 * 1000)

/* The set-up of a small cut graph takes milliseconds and gives the bound even after the
 * warm start used up the time: below this many segments it may run into the grace
 * after the deadline (p->setup_grace). */
#define EX_SETUP_GRACE 4096

/* Rounds after which a search that has no design of its own solves the warm start's
 * partitions (warm_steps): the bounds' paths can go on through segments that only
 * their programs show to be slow, a path each round, and then the search never has a
 * design of its own to cut its programs off with (Inception-v3's throughput, FINN,
 * ZCU102: six rounds in 30 s, none of them a whole path of designs). */
#define EX_WARM_ROUNDS 2

typedef struct dp_cut {
    int node;     /* the cut follows this node; -1 for the start */
    int n_src;
    int *src;     /* nodes before the cut with a constrained edge across it */
    int *radix;   /* weight of each source's digit in a state number */
    int n_states;
} dp_cut;

typedef struct dp_ref {
    int s, t;
    ex_sol sol;
} dp_ref;

typedef struct dp_seg {
    ex_segment seg;
    int a, b;            /* cut indices */
    double lb0;          /* cheap bound in seconds, raised by the segments solved inside
                          * it (dominate); INFINITY when it cannot fit */
    double t_fit;        /* least interval in cycles of any choice that fits the board:
                          * the resource floor and each node's fastest fitting alone */
    bool solved;         /* base holds the program without states */
    bool priced;         /* lb0 holds the priced floor (price_steps) */
    ex_sol base;
    uint8_t *s_ok, *t_ok;
    int n_ref, cap_ref;
    dp_ref *ref;
    int n_carry;
    int *carry;          /* pairs of source positions in cuts a and b: same node */
} dp_seg;

typedef struct dp_label {
    double cost;
    int a, s;            /* the step that reached this state */
} dp_label;

typedef struct dp {
    ex_problem *p;
    int n_cuts;
    dp_cut *cut;
    dp_seg **row;        /* per cut a: the segments to cuts a + 1 .. a + n_row[a] */
    int *n_row;          /* segments beyond these cannot fit the board */
    long n_segs;
    bool incomplete;     /* the time limit or EX_MAX_SEGMENTS stopped the set-up */
    bool over_budget;    /* ... and it was EX_MAX_SEGMENTS */
    dp_label **lb, **ub; /* per cut and state */
    double **suffix;     /* per cut and state: least cost (lower bounds) to the end */
    double **suffix_ub;  /* ... and the least cost of designs to the end */
} dp;

typedef struct dp_step {
    dp_seg *sg;
    int s, t;
} dp_step;

/* NULL when the segment cannot fit the board (or was never set up). */
static dp_seg *seg_at(const dp *g, int a, int b)
{
    return b > a && b - a <= g->n_row[a] && g->row[a] ? &g->row[a][b - a - 1] : NULL;
}

static int64_t state_value(const dp *g, int c, int q, int s)
{
    const dp_cut *cut = &g->cut[c];
    const ex_node *en = &g->p->nodes[cut->src[q]];
    return en->out_vals[(s / cut->radix[q]) % en->n_out_vals];
}

/* ---- building the cut graph ---- */

/* A cut carries no folding state: edges that cross it are not constrained (the data
 * goes through off-chip memory between configurations, see cm_design_edge_bad). The
 * state machinery (sources, radices) stays general for models that constrain them. */
static cm_status cut_init(dp *g, int c, int node, cm_error *err)
{
    dp_cut *cut = &g->cut[c];
    cut->node = node;
    cut->src = malloc(sizeof *cut->src);
    cut->radix = malloc(sizeof *cut->radix);
    if (!cut->src || !cut->radix)
        return cm_error_nomem(err);
    cut->n_src = 0;
    cut->n_states = 1;
    return CM_OK;
}

static cm_status cuts_init(dp *g, cm_error *err)
{
    ex_problem *p = g->p;
    g->cut = calloc((size_t)p->n + 1, sizeof *g->cut);
    if (!g->cut)
        return cm_error_nomem(err);
    cm_status st = cut_init(g, g->n_cuts++, -1, err);
    for (int k = 0; st == CM_OK && k < p->n - 1; k++)
        if (p->d->opt.reconfiguration && cm_design_can_cut_after(p->d, k))
            st = cut_init(g, g->n_cuts++, k, err);
    if (st == CM_OK)
        st = cut_init(g, g->n_cuts++, p->n - 1, err);
    return st;
}

/* The cheap bound: every node at its fastest configuration that fits alone, and some
 * node slower than the bandwidth floor (eq. 7); INFINITY when even the least of every
 * resource over the segment's nodes exceeds the board. *t_fit: the interval without
 * the bandwidth floor (INFINITY when nothing fits). */
static double cheap_bound(const ex_problem *p, const ex_segment *s, double *t_fit)
{
    cm_resources sum = {0};
    double t = 0.0, witness = INFINITY;
    *t_fit = INFINITY;
    for (int i = s->first; i < s->end; i++) {
        const ex_node *en = &p->nodes[i];
        if (en->n_cfg == 0)
            return INFINITY;
        cm_resources_add(&sum, &en->min_fit);
        t = fmax(t, en->fast_alone);
        for (int c = 0; c < en->n_cfg; c++)
            if (en->cfg[c].cycles < witness && ex_bandwidth_ok(p, s, en->cfg[c].cycles))
                witness = en->cfg[c].cycles;
    }
    if (!cm_resources_fit(&sum, &p->d->limits))
        return INFINITY;
    *t_fit = fmax(t, ex_time_floor(p, s, NULL));
    return ex_cost_floor(p, s, fmax(*t_fit, witness)) / p->clock_hz;
}

static cm_status seg_init(dp *g, int a, int b, cm_error *err)
{
    dp_seg *sg = seg_at(g, a, b);
    const dp_cut *ca = &g->cut[a], *cb = &g->cut[b];
    sg->a = a;
    sg->b = b;
    ex_segment_init(g->p, ca->node + 1, cb->node + 1, &sg->seg);
    sg->lb0 = cheap_bound(g->p, &sg->seg, &sg->t_fit);
    if (ca->n_src == 0)
        return CM_OK; /* nothing carried across: no allocation per segment */
    sg->carry = malloc((size_t)(2 * ca->n_src + 1) * sizeof *sg->carry);
    if (!sg->carry)
        return cm_error_nomem(err);
    for (int qa = 0; qa < ca->n_src; qa++)
        for (int qb = 0; qb < cb->n_src; qb++)
            if (ca->src[qa] == cb->src[qb]) {
                sg->carry[2 * sg->n_carry] = qa;
                sg->carry[2 * sg->n_carry++ + 1] = qb;
            }
    return CM_OK;
}

/* How many segments from cut a can fit: adding a node only adds to the least
 * resources, so they are the ones up to the first that cannot. */
static int fitting_row(const dp *g, int a)
{
    const ex_problem *p = g->p;
    cm_resources sum = {0};
    int b = a + 1;
    for (; b < g->n_cuts; b++) {
        for (int i = g->cut[b - 1].node + 1; i <= g->cut[b].node; i++) {
            if (p->nodes[i].n_cfg == 0)
                return b - a - 1;
            cm_resources_add(&sum, &p->nodes[i].min_fit);
        }
        if (!cm_resources_fit(&sum, &p->d->limits))
            break;
    }
    return b - a - 1;
}

static bool setup_late(const dp *g)
{
    double now = cm_seconds_now();
    return now >= g->p->setup_grace || (g->n_segs >= EX_SETUP_GRACE && now >= g->p->deadline);
}

/* Sets up the segments row by row (each costs a pass over the design), stopping at
 * the deadline or the record budget with the graph marked incomplete. */
static cm_status rows_init(dp *g, cm_error *err)
{
    for (int a = 0; a < g->n_cuts - 1; a++) {
        int n = fitting_row(g, a);
        if (n == 0)
            continue;
        /* segments set up cost a pass over the design each: the budget is in passes */
        long long by_work = EX_SETUP_WORK / (g->p->n > 0 ? g->p->n : 1);
        long most = by_work < EX_MAX_SEGMENTS ? (long)by_work : EX_MAX_SEGMENTS;
        if (g->n_segs + n > most || setup_late(g)) {
            g->incomplete = true;
            g->over_budget = g->n_segs + n > most;
            return CM_OK;
        }
        if (!(g->row[a] = calloc((size_t)n, sizeof *g->row[a])))
            return cm_error_nomem(err);
        g->n_row[a] = n;
        g->n_segs += n;
        for (int b = a + 1; b <= a + n; b++) {
            cm_status st = seg_init(g, a, b, err);
            if (st != CM_OK)
                return st;
            if (setup_late(g)) {
                g->incomplete = true;
                g->n_row[a] = b - a; /* the rest of the row is not set up */
                return CM_OK;
            }
        }
    }
    return CM_OK;
}

static cm_status dp_init(dp *g, ex_problem *p, cm_error *err)
{
    memset(g, 0, sizeof *g);
    g->p = p;
    cm_status st = cuts_init(g, err);
    if (st != CM_OK)
        return st;
    int k = g->n_cuts;
    g->row = calloc((size_t)k, sizeof *g->row);
    g->n_row = calloc((size_t)k, sizeof *g->n_row);
    g->lb = calloc((size_t)k, sizeof *g->lb);
    g->ub = calloc((size_t)k, sizeof *g->ub);
    g->suffix = calloc((size_t)k, sizeof *g->suffix);
    g->suffix_ub = calloc((size_t)k, sizeof *g->suffix_ub);
    if (!g->row || !g->n_row || !g->lb || !g->ub || !g->suffix || !g->suffix_ub)
        return cm_error_nomem(err);
    for (int c = 0; c < k; c++) {
        g->lb[c] = malloc((size_t)g->cut[c].n_states * sizeof **g->lb);
        g->ub[c] = malloc((size_t)g->cut[c].n_states * sizeof **g->ub);
        g->suffix[c] = malloc((size_t)g->cut[c].n_states * sizeof **g->suffix);
        g->suffix_ub[c] = malloc((size_t)g->cut[c].n_states * sizeof **g->suffix_ub);
        if (!g->lb[c] || !g->ub[c] || !g->suffix[c] || !g->suffix_ub[c])
            return cm_error_nomem(err);
    }
    return rows_init(g, err);
}

static void dp_free(dp *g)
{
    int k = g->n_cuts;
    for (int a = 0; g->row && a < k; a++)
        for (int b = a + 1; b < k && seg_at(g, a, b); b++) {
            dp_seg *sg = seg_at(g, a, b);
            free(sg->base.choice);
            free(sg->s_ok);
            free(sg->t_ok);
            free(sg->carry);
            for (int r = 0; r < sg->n_ref; r++)
                free(sg->ref[r].sol.choice);
            free(sg->ref);
        }
    for (int c = 0; c < k; c++) {
        free(g->cut[c].src);
        free(g->cut[c].radix);
        if (g->lb)
            free(g->lb[c]);
        if (g->ub)
            free(g->ub[c]);
        if (g->suffix)
            free(g->suffix[c]);
        if (g->suffix_ub)
            free(g->suffix_ub[c]);
    }
    for (int a = 0; g->row && a < k; a++)
        free(g->row[a]);
    free(g->cut);
    free(g->row);
    free(g->n_row);
    free(g->lb);
    free(g->ub);
    free(g->suffix);
    free(g->suffix_ub);
}

/* ---- step costs ---- */

static bool carry_ok(const dp *g, const dp_seg *sg, int s, int t)
{
    for (int k = 0; k < sg->n_carry; k++)
        if (state_value(g, sg->a, sg->carry[2 * k], s) !=
            state_value(g, sg->b, sg->carry[2 * k + 1], t))
            return false;
    return true;
}

static const dp_ref *find_ref(const dp_seg *sg, int s, int t)
{
    for (int r = 0; r < sg->n_ref; r++)
        if (sg->ref[r].s == s && sg->ref[r].t == t)
            return &sg->ref[r];
    return NULL;
}

/* Bounds on a step's segment time for states s -> t, and the solution behind ub. */
static const ex_sol *step_cost(const dp_seg *sg, int s, int t, double *lb, double *ub)
{
    const dp_ref *r = find_ref(sg, s, t);
    if (r) {
        *lb = r->sol.lb;
        *ub = r->sol.ub;
        return &r->sol;
    }
    if (!sg->solved) {
        *lb = sg->lb0;
        *ub = INFINITY;
        return NULL;
    }
    *lb = sg->base.lb;
    bool fits = sg->s_ok[s] && sg->t_ok[t];
    *ub = fits ? sg->base.ub : INFINITY;
    return fits ? &sg->base : NULL;
}

static void relax(dp_label *to, double cost, int a, int s)
{
    if (cost < to->cost) {
        to->cost = cost;
        to->a = a;
        to->s = s;
    }
}

static void relax_segment(dp *g, dp_seg *sg)
{
    double reconf = sg->a > 0 ? g->p->reconf_s : 0.0;
    const dp_cut *ca = &g->cut[sg->a], *cb = &g->cut[sg->b];
    for (int s = 0; s < ca->n_states; s++) {
        double la = g->lb[sg->a][s].cost, ua = g->ub[sg->a][s].cost;
        if (isinf(la))
            continue;
        for (int t = 0; t < cb->n_states; t++) {
            if (!carry_ok(g, sg, s, t))
                continue;
            double lb, ub;
            step_cost(sg, s, t, &lb, &ub);
            relax(&g->lb[sg->b][t], la + reconf + lb, sg->a, s);
            relax(&g->ub[sg->b][t], ua + reconf + ub, sg->a, s);
        }
    }
}

/* Shortest paths under the lower and the upper step costs. */
static void dp_pass(dp *g)
{
    for (int c = 0; c < g->n_cuts; c++)
        for (int s = 0; s < g->cut[c].n_states; s++)
            g->lb[c][s] = g->ub[c][s] = (dp_label){INFINITY, -1, -1};
    g->lb[0][0].cost = g->ub[0][0].cost = 0.0;
    /* Forward: every step into cut a has been relaxed before a's own steps. */
    for (int a = 0; a < g->n_cuts - 1; a++)
        for (int b = a + 1; b <= a + g->n_row[a]; b++)
            if (!isinf(seg_at(g, a, b)->lb0))
                relax_segment(g, seg_at(g, a, b));
}

/* Least lower-bound cost from each cut state to the end (for the cutoffs), and least
 * cost of designs (for the goals). */
static void suffix_pass(dp *g)
{
    int last = g->n_cuts - 1;
    for (int c = 0; c < g->n_cuts; c++)
        for (int s = 0; s < g->cut[c].n_states; s++)
            g->suffix[c][s] = g->suffix_ub[c][s] = c == last ? 0.0 : INFINITY;
    for (int a = last - 1; a >= 0; a--)
        for (int b = a + 1; b <= a + g->n_row[a]; b++) {
            const dp_seg *sg = seg_at(g, a, b);
            if (isinf(sg->lb0))
                continue;
            double reconf = a > 0 ? g->p->reconf_s : 0.0;
            for (int s = 0; s < g->cut[a].n_states; s++)
                for (int t = 0; t < g->cut[b].n_states; t++) {
                    if (isinf(g->suffix[b][t]) || !carry_ok(g, sg, s, t))
                        continue;
                    double lb, ub;
                    step_cost(sg, s, t, &lb, &ub);
                    g->suffix[a][s] = fmin(g->suffix[a][s], reconf + lb + g->suffix[b][t]);
                    g->suffix_ub[a][s] =
                        fmin(g->suffix_ub[a][s], reconf + ub + g->suffix_ub[b][t]);
                }
        }
}

static double least(const double *v, int n)
{
    double m = INFINITY;
    for (int i = 0; i < n; i++)
        m = fmin(m, v[i]);
    return m;
}

/* What a path through a step costs besides its segment: the best prefix to its start
 * (labels), the reconfiguration, and the best suffix from its end. `any` takes the best
 * over all states (for the program without states). */
static double rest_of(const dp *g, dp_label *const *labels, double *const *suffix,
                      const dp_seg *sg, int s, int t, bool any)
{
    const dp_cut *ca = &g->cut[sg->a], *cb = &g->cut[sg->b];
    double before = labels[sg->a][s].cost, after = suffix[sg->b][t];
    if (any) {
        before = INFINITY;
        for (int i = 0; i < ca->n_states; i++)
            before = fmin(before, labels[sg->a][i].cost);
        after = least(suffix[sg->b], cb->n_states);
    }
    return before + (sg->a > 0 ? g->p->reconf_s : 0.0) + after;
}

/* What is left of a path's cost `total` for a step's segment: any path through it costs
 * at least rest_of under the lower bounds. */
static double share_of(const dp *g, const dp_seg *sg, int s, int t, bool any, double total)
{
    return isinf(total) ? INFINITY : total - rest_of(g, g->lb, g->suffix, sg, s, t, any);
}

/* The time a step's segment must beat to improve on the incumbent. */
static double cutoff_for(const dp *g, const dp_seg *sg, int s, int t, bool any)
{
    return share_of(g, sg, s, t, any, fmin(g->ub[g->n_cuts - 1][0].cost, g->p->warm_ub));
}

/* What the search needs of a step's program (ex_goal): a bound at which every path
 * through the step costs at least the incumbent less the gap, so that the path no
 * longer keeps the search from stopping. The incumbent is the search's or the one the
 * program's own design makes with the best designs around its segment. Without a gap
 * asked for there is none (the cutoff row already stops the program at its bound). A
 * program on a segment much shorter than its path (a partition beside a
 * reconfiguration) went on to its own gap, long after its path's had closed. */
static void goal_for(const dp *g, const dp_seg *sg, int s, int t, bool any, ex_goal *goal)
{
    *goal = (ex_goal){0};
    if (!(g->p->gap > 0))
        return;
    goal->gap = g->p->gap;
    goal->total_ub = fmin(g->ub[g->n_cuts - 1][0].cost, g->p->warm_ub);
    goal->rest_lb = rest_of(g, g->lb, g->suffix, sg, s, t, any);
    goal->rest_ub = rest_of(g, g->ub, g->suffix_ub, sg, s, t, any);
}

/* The steps of the path ending at the last cut, first step first; returns the count. */
static int backtrack(const dp *g, dp_label *const *labels, dp_step *steps)
{
    int n = 0, b = g->n_cuts - 1, t = 0;
    while (b > 0) {
        const dp_label *l = &labels[b][t];
        steps[n++] = (dp_step){seg_at(g, l->a, b), l->s, t};
        b = l->a;
        t = l->s;
    }
    for (int i = 0; i < n / 2; i++) {
        dp_step x = steps[i];
        steps[i] = steps[n - 1 - i];
        steps[n - 1 - i] = x;
    }
    return n;
}

/* ---- refinement ---- */

static cm_status sol_alloc(ex_sol *sol, const ex_segment *s, cm_error *err)
{
    sol->choice = calloc((size_t)(s->end - s->first), sizeof *sol->choice);
    return sol->choice ? CM_OK : cm_error_nomem(err);
}

/* Solves the segment's program into sol. A branching segment is first solved without
 * its first frame (a quick bound, often within the gap wanted), and with it only when a
 * path's gap rests on that bound: then the loose answer's design is kept unless the new
 * search ends with a better one (the time limit or the cutoff can stop it first), and
 * its bound unless the new one is higher. */
static cm_status solve_into(ex_problem *solver, const ex_segment *seg, const uint8_t *allowed,
                            bool frame, double cutoff, ex_sol *sol, cm_error *err)
{
    const int n = seg->end - seg->first;
    const bool again = frame && (sol->loose || sol->at_goal) && !sol->cut_off && !isinf(sol->ub);
    int *keep = again ? malloc((size_t)n * sizeof *keep) : NULL;
    if (again && !keep)
        return cm_error_nomem(err);
    const double old_lb = sol->lb, old_ub = sol->ub, old_t_lb = sol->t_lb;
    if (keep)
        memcpy(keep, sol->choice, (size_t)n * sizeof *keep);
    cm_status st = ex_solve_segment(solver, seg, allowed, frame, again, cutoff, sol, err);
    sol->t_lb = fmax(sol->t_lb, old_t_lb); /* a lower cutoff may have hidden levels */
    if (st == CM_OK && keep) {
        if (sol->cut_off || !(sol->ub <= old_ub)) {
            memcpy(sol->choice, keep, (size_t)n * sizeof *keep);
            sol->ub = old_ub;
            sol->cut_off = false;
        }
        sol->lb = fmin(fmax(sol->lb, old_lb), sol->ub);
    }
    free(keep);
    return st;
}

/* Which states at either end the base answer agrees with. */
static void mark_base_states(dp *g, dp_seg *sg)
{
    const ex_problem *p = g->p;
    const ex_segment *s = &sg->seg;
    const dp_cut *ca = &g->cut[sg->a], *cb = &g->cut[sg->b];
    for (int st = 0; st < ca->n_states; st++) {
        bool ok = true;
        for (int q = 0; q < ca->n_src && ok; q++) {
            const cm_hd_node *hn = &p->d->hd.nodes[ca->src[q]];
            for (int k = 0; k < hn->n_succ && ok; k++) {
                int v = hn->succ[k];
                if (v >= s->first && v < s->end)
                    ok = ex_compatible(p->nodes[ca->src[q]].flags, state_value(g, sg->a, q, st),
                                       p->nodes[v].cfg[sg->base.choice[v - s->first]].in);
            }
        }
        sg->s_ok[st] = ok;
    }
    for (int st = 0; st < cb->n_states; st++) {
        bool ok = true;
        for (int q = 0; q < cb->n_src && ok; q++) {
            int u = cb->src[q];
            if (u >= s->first)
                ok = state_value(g, sg->b, q, st) == p->nodes[u].cfg[sg->base.choice[u - s->first]].out;
        }
        sg->t_ok[st] = ok;
    }
}

static cm_status solve_base(dp *g, ex_problem *solver, dp_seg *sg, bool frame, double cutoff,
                            cm_error *err)
{
    cm_status st = sg->base.choice ? CM_OK : sol_alloc(&sg->base, &sg->seg, err);
    if (st != CM_OK)
        return st;
    if (!sg->s_ok)
        sg->s_ok = calloc((size_t)g->cut[sg->a].n_states, 1);
    if (!sg->t_ok)
        sg->t_ok = calloc((size_t)g->cut[sg->b].n_states, 1);
    if (!sg->s_ok || !sg->t_ok)
        return cm_error_nomem(err);
    st = solve_into(solver, &sg->seg, NULL, frame, cutoff, &sg->base, err);
    if (st != CM_OK)
        return st;
    sg->base.lb = fmax(sg->base.lb, sg->lb0);
    sg->solved = true;
    if (!isinf(sg->base.ub))
        mark_base_states(g, sg);
    return CM_OK;
}

/* The configurations left when the states at both ends are fixed. */
static void restrict_configs(const dp *g, const dp_seg *sg, int s, int t, uint8_t *allowed,
                             const int *off)
{
    const ex_problem *p = g->p;
    const ex_segment *seg = &sg->seg;
    const dp_cut *ca = &g->cut[sg->a], *cb = &g->cut[sg->b];
    for (int q = 0; q < ca->n_src; q++) {
        const cm_hd_node *hn = &p->d->hd.nodes[ca->src[q]];
        int64_t a = state_value(g, sg->a, q, s);
        for (int k = 0; k < hn->n_succ; k++) {
            int v = hn->succ[k];
            if (v < seg->first || v >= seg->end)
                continue;
            for (int c = 0; c < p->nodes[v].n_cfg; c++)
                if (!ex_compatible(p->nodes[ca->src[q]].flags, a, p->nodes[v].cfg[c].in))
                    allowed[off[v - seg->first] + c] = 0;
        }
    }
    for (int q = 0; q < cb->n_src; q++) {
        int u = cb->src[q];
        if (u < seg->first)
            continue;
        int64_t b = state_value(g, sg->b, q, t);
        for (int c = 0; c < p->nodes[u].n_cfg; c++)
            if (p->nodes[u].cfg[c].out != b)
                allowed[off[u - seg->first] + c] = 0;
    }
}

static cm_status add_ref(dp_seg *sg, int s, int t, ex_sol **out, cm_error *err)
{
    if (sg->n_ref == sg->cap_ref) {
        int cap = sg->cap_ref ? 2 * sg->cap_ref : 4;
        dp_ref *r = realloc(sg->ref, (size_t)cap * sizeof *r);
        if (!r)
            return cm_error_nomem(err);
        sg->ref = r;
        sg->cap_ref = cap;
    }
    dp_ref *r = &sg->ref[sg->n_ref];
    *r = (dp_ref){.s = s, .t = t};
    cm_status st = sol_alloc(&r->sol, &sg->seg, err);
    if (st == CM_OK)
        sg->n_ref++;
    else
        free(r->sol.choice);
    *out = &r->sol;
    return st;
}

/* Solves the segment for one pair of states, into a new entry or (after a cutoff
 * that no longer holds) over the old one. */
static cm_status solve_pair(dp *g, ex_problem *solver, dp_seg *sg, int s, int t, bool frame,
                            double cutoff, cm_error *err)
{
    const ex_problem *p = g->p;
    int len = sg->seg.end - sg->seg.first;
    int off[len + 1];
    off[0] = 0;
    for (int i = 0; i < len; i++)
        off[i + 1] = off[i] + p->nodes[sg->seg.first + i].n_cfg;
    uint8_t *allowed = malloc((size_t)off[len] + 1);
    if (!allowed)
        return cm_error_nomem(err);
    memset(allowed, 1, (size_t)off[len] + 1);
    restrict_configs(g, sg, s, t, allowed, off);
    dp_ref *old = (dp_ref *)find_ref(sg, s, t);
    ex_sol *sol = old ? &old->sol : NULL;
    cm_status st = old ? CM_OK : add_ref(sg, s, t, &sol, err);
    if (st == CM_OK) {
        st = solve_into(solver, &sg->seg, allowed, frame, cutoff, sol, err);
        sol->lb = fmax(sol->lb, sg->base.lb);
    }
    free(allowed);
    return st;
}

/* Whether a step's next program is its segment's, for any states at its ends (else the
 * one for its own pair of states). */
static bool refines_base(const dp_step *x)
{
    const dp_seg *sg = x->sg;
    return !sg->solved || sg->base.cut_off ||
           (!find_ref(sg, x->s, x->t) && sg->s_ok[x->s] && sg->t_ok[x->t]);
}

/* Whether a step's next program has the first frame: a chain's always (its depth is a
 * sum), a branching segment's once it was solved without (solve_into), unless that
 * program was cut off. */
static bool refines_with_frame(const dp_step *x)
{
    const dp_seg *sg = x->sg;
    if (sg->seg.chain)
        return true;
    if (refines_base(x))
        return sg->solved && !(sg->base.loose && sg->base.cut_off);
    const dp_ref *old = find_ref(sg, x->s, x->t);
    return old ? !(old->sol.loose && old->sol.cut_off) : sg->solved && !sg->base.loose;
}

/* Whether an inexact step can be refined: not when its program ran out of time (with
 * its first frame: a loose answer can be solved again with it, and one that stopped at
 * its goal with a higher goal, once a better incumbent has raised it). */
static bool refinable(const dp_step *x)
{
    const dp_seg *sg = x->sg;
    if (!sg->solved || sg->base.cut_off)
        return true;
    const dp_ref *r = find_ref(sg, x->s, x->t);
    if (r)
        return r->sol.cut_off || r->sol.loose || r->sol.at_goal;
    return !(sg->s_ok[x->s] && sg->t_ok[x->t]) || sg->base.loose || sg->base.at_goal;
}

/* Refines one refinable step, solving its program with `solver` (the search's problem
 * on a design of its own, design/design_copy.h). It writes only to the step's segment,
 * so the steps of one path can be refined at once. */
static cm_status refine(dp *g, ex_problem *solver, const dp_step *x, cm_error *err)
{
    dp_seg *sg = x->sg;
    const bool base = refines_base(x), frame = refines_with_frame(x);
    goal_for(g, sg, x->s, x->t, base, &solver->goal);
    if (base)
        return solve_base(g, solver, sg, frame, cutoff_for(g, sg, x->s, x->t, true), err);
    return solve_pair(g, solver, sg, x->s, x->t, frame, cutoff_for(g, sg, x->s, x->t, false),
                      err);
}

/* ---- refining a path's steps on several threads ---- */

/* One step to refine in a round, with the problem it is solved under: the search's,
 * on its lane's design, with the counters as they were when the round began. */
typedef struct dp_task {
    dp_step step;
    ex_problem p;
    cm_status st;
    cm_error err;
} dp_task;

typedef struct dp_round {
    dp *g;
    dp_task *tasks;
    cm_design *lane[CM_OPTIMISE_MAX_THREADS]; /* per lane, copied on first use */
} dp_round;

static void refine_task(void *ctx, int t, int lane)
{
    dp_round *r = ctx;
    dp_task *k = &r->tasks[t];
    k->p = *r->g->p;
    k->p.ilps = 0;
    k->p.evaluations = 0;
    k->p.budget_hit = false;
    k->st = CM_OK;
    if (cm_seconds_now() >= k->p.deadline) /* only the user's clock, never the budget */
        return;
    if (!r->lane[lane])
        k->st = cm_design_copy_new(r->g->p->d, &r->lane[lane], &k->err);
    k->p.d = r->lane[lane];
    if (k->st == CM_OK)
        k->st = refine(r->g, &k->p, &k->step, &k->err);
}

/* GLPK keeps an environment per thread (Debian's is built with thread-local storage):
 * a thread started for a round frees its own before it ends. */
static void glpk_thread_end(void)
{
    glp_free_env();
}

/* Raises a bound of segment x (seconds) to v: a bound the segment's own program has not
 * shown, from a segment inside it (dominate) or its priced floor (price_row). */
static void raise_bound(dp_seg *x, double v)
{
    x->lb0 = fmax(x->lb0, v);
    if (!x->solved)
        return;
    x->base.lb = fmin(fmax(x->base.lb, v), x->base.ub);
    for (int r = 0; r < x->n_ref; r++)
        x->ref[r].sol.lb = fmin(fmax(x->ref[r].sol.lb, v), x->ref[r].sol.ub);
}

/* A solved segment bounds every segment that holds it, whose design keeps a design of
 * it: the same nodes at the same foldings, within the board, on the same edges. Its
 * interval is no shorter (the maximum over more nodes), so any such segment takes at
 * least batch times the segment's least interval; one that begins where it does also
 * has every one of its nodes timed alike (the same producers, the same off-chip input),
 * and its last output comes no earlier (a node's last output never precedes its
 * producers'), so it costs at least the segment's bound. That holds only where the
 * segment's bandwidth row (eq. 7) is void, since a part of a design need not keep it:
 * when no choice that fits the board is fast enough to break it. Without this, each
 * round's shortest path moved to segments that only had their cheap bounds, a program
 * each (Inception-v3's throughput, FINN, U250: 140 to 160 programs in 30 s, 1.8%). */
static void dominate(dp *g, const dp_seg *sg)
{
    const ex_problem *p = g->p;
    if (!sg->solved || !(sg->base.lb > 0) || isinf(sg->t_fit) ||
        !ex_bandwidth_ok(p, &sg->seg, sg->t_fit))
        return;
    const double interval_s = p->batch * fmax(sg->base.t_lb, sg->t_fit) / p->clock_hz;
    for (int a = sg->a; a >= 0; a--) {
        for (int b = sg->b; b <= a + g->n_row[a]; b++) {
            dp_seg *x = seg_at(g, a, b);
            if (x == sg || !x || isinf(x->lb0))
                continue;
            raise_bound(x, a == sg->a ? sg->base.lb : interval_s);
        }
    }
}

/* Refines the round's steps on the search's threads, then adds up what they did in
 * task order: the same sums, and the first error, whatever the number of threads. */
static cm_status refine_all(dp_round *r, int n, cm_error *err)
{
    ex_problem *p = r->g->p;
    int64_t start = p->bb_nodes;
    cm_parallel_run(n, p->threads, refine_task, r, glpk_thread_end);
    cm_status st = CM_OK;
    for (int t = 0; t < n; t++) {
        const dp_task *k = &r->tasks[t];
        p->bb_nodes += k->p.bb_nodes - start;
        p->ilps += k->p.ilps;
        p->evaluations += k->p.evaluations;
        p->budget_hit |= k->p.budget_hit;
        if (st == CM_OK && k->st != CM_OK) {
            st = k->st;
            *err = k->err;
        }
    }
    for (int t = 0; t < n && st == CM_OK; t++)
        dominate(r->g, r->tasks[t].step.sg);
    return st;
}

static void round_free(dp_round *r)
{
    for (int l = 0; l < CM_OPTIMISE_MAX_THREADS; l++)
        if (r->lane[l]) {
            r->g->p->evaluations += cm_design_evaluations(r->lane[l]);
            cm_design_copy_free(r->lane[l]);
        }
    free(r->tasks);
}

static int seg_nodes(const dp_task *k)
{
    return k->step.sg->seg.end - k->step.sg->seg.first;
}

/* Leaves steps to the next round whose programs are the ones with the first frame after
 * a quick one (the long kind), so that their goals (goal_for) rest on the other steps'
 * new bounds, not the old ones: every such step while another step of the path has only
 * its cheap bound (MobileNetV3-Small's latency, hls4ml, U250: a 55-node program beside a
 * segment not yet solved ran the whole 30 s, which the next round's bound of 256 ms on
 * that segment would have ended at once), else the largest step when the others are
 * small beside it: they end soon (ResNet-18, FINN, ZCU102: a 73-node program whose goal
 * was 8.45 ms beside a 13-node one, 8.23 ms once that one was solved). Returns the
 * count left. */
static int defer_long(dp_task *tasks, int count)
{
    if (count < 2)
        return count;
    bool fresh = false; /* a step with only its cheap bound */
    for (int i = 0; i < count; i++)
        fresh |= !tasks[i].step.sg->solved;
    if (fresh) {
        int kept = 0;
        for (int i = 0; i < count; i++) {
            const dp_step *x = &tasks[i].step;
            if (!(x->sg->solved && refines_with_frame(x)))
                tasks[kept++] = tasks[i];
        }
        return kept;
    }
    int largest = 0, others = 0;
    for (int i = 1; i < count; i++)
        if (seg_nodes(&tasks[i]) > seg_nodes(&tasks[largest]))
            largest = i;
    for (int i = 0; i < count; i++)
        others += i == largest ? 0 : seg_nodes(&tasks[i]);
    const dp_step *x = &tasks[largest].step;
    if (4 * others >= seg_nodes(&tasks[largest]) || !x->sg->solved || !refines_with_frame(x))
        return count;
    for (int i = largest; i + 1 < count; i++)
        tasks[i] = tasks[i + 1];
    return count - 1;
}

/* The inexact steps of the path to refine this round: every one that can be; *stuck
 * when none can (each ran out of time, or was solved only within --gap: a path of
 * those alone is within the gap, so then one ran out of time). */
static int round_steps(const dp_step *steps, int n, dp_task *tasks, bool *stuck)
{
    int count = 0;
    bool open = false;
    for (int i = 0; i < n; i++) {
        double lb, ub;
        step_cost(steps[i].sg, steps[i].s, steps[i].t, &lb, &ub);
        if (!(ub > lb))
            continue;
        if (refinable(&steps[i]))
            tasks[count++].step = steps[i];
        else
            open = true;
    }
    /* a step solved only within the gap (or stopped) leaves the others to refine */
    *stuck = count == 0 && open;
    return defer_long(tasks, count);
}

/* ---- the search ---- */

static cm_status take_result(dp *g, ex_result *res, cm_error *err)
{
    dp_step steps[g->n_cuts];
    int n = backtrack(g, g->ub, steps);
    res->n_parts = n;
    res->first = malloc((size_t)n * sizeof *res->first);
    res->choice = malloc((size_t)g->p->n * sizeof *res->choice);
    if (!res->first || !res->choice)
        return cm_error_nomem(err);
    for (int i = 0; i < n; i++) {
        const ex_segment *s = &steps[i].sg->seg;
        double lb, ub;
        const ex_sol *sol = step_cost(steps[i].sg, steps[i].s, steps[i].t, &lb, &ub);
        res->first[i] = s->first;
        memcpy(&res->choice[s->first], sol->choice, (size_t)(s->end - s->first) * sizeof *sol->choice);
    }
    return CM_OK;
}

static void show_progress(const ex_problem *p, cm_progress *bar, const ex_result *res)
{
    char detail[96];
    snprintf(detail, sizeof detail, "bound %.4g ms, best %.4g ms, %d programs", res->lb * 1e3,
             res->ub * 1e3, p->ilps);
    cm_progress_update(bar, isinf(res->ub) || res->ub <= 0 ? 0.0 : res->lb / res->ub, detail);
}

/* The steps of the warm start's partitions (the rule optimiser's cuts) still to refine;
 * none when one is not a step of the cut graph. */
static int warm_steps(const dp *g, dp_task *tasks)
{
    const ex_problem *p = g->p;
    const int *first = NULL;
    const int n_warm = p->warm ? cm_design_point_partitions(p->warm, &first) : 0;
    int n = 0, a = 0;
    for (int k = 0; k < n_warm; k++) {
        const int end = k + 1 < n_warm ? first[k + 1] : p->n;
        int b = a + 1;
        while (b < g->n_cuts && g->cut[b].node + 1 < end)
            b++;
        dp_seg *sg = b < g->n_cuts && g->cut[b].node + 1 == end ? seg_at(g, a, b) : NULL;
        if (!sg || isinf(sg->lb0) || g->cut[a].n_states != 1 || g->cut[b].n_states != 1)
            return 0;
        const dp_step x = {sg, 0, 0};
        double lb, ub;
        step_cost(sg, 0, 0, &lb, &ub);
        if (ub > lb && refinable(&x))
            tasks[n++].step = x;
        a = b;
    }
    return n;
}

/* Raises the bound of every segment from cut a to its priced floor (ex_priced_floors):
 * the whole row at once costs about what its longest segment does. True when one of
 * them rose. */
static cm_status price_row(dp *g, int a, bool *raised, cm_error *err)
{
    const ex_problem *p = g->p;
    const int first = g->cut[a].node + 1, end = seg_at(g, a, a + g->n_row[a])->seg.end;
    double *floor = malloc((size_t)(end - first) * sizeof *floor);
    if (!floor)
        return cm_error_nomem(err);
    cm_status st = ex_priced_floors(p, first, end, floor, err);
    for (int b = a + 1; st == CM_OK && b <= a + g->n_row[a]; b++) {
        dp_seg *x = seg_at(g, a, b);
        x->priced = true;
        if (isinf(x->lb0))
            continue;
        const double v =
            ((p->batch - 1) * x->t_fit + floor[x->seg.end - 1 - first]) / p->clock_hz;
        if (v > x->lb0 * (1 + EX_PRICE_RISE)) {
            raise_bound(x, v);
            *raised = true;
        }
    }
    free(floor);
    return st;
}

/* Prices the rows of the path's steps that only have their cheap bounds: a few
 * milliseconds a row where a program takes tens. True (*raised) when a bound rose, so
 * that the path is found again before any program runs. */
static cm_status price_steps(dp *g, const dp_step *steps, int n, bool *raised, cm_error *err)
{
    *raised = false;
    cm_status st = CM_OK;
    for (int i = 0; st == CM_OK && i < n; i++)
        if (!steps[i].sg->solved && !steps[i].sg->priced)
            st = price_row(g, steps[i].sg->a, raised, err);
    return st;
}

/* Rounds of shortest path and refinement until the bound meets the incumbent. */
static cm_status search_loop(dp *g, ex_result *res, cm_error *err)
{
    ex_problem *p = g->p;
    dp_step steps[g->n_cuts];
    cm_progress bar;
    cm_progress_init(&bar, p->progress, "exact");
    dp_round round = {.g = g, .tasks = calloc((size_t)g->n_cuts, sizeof *round.tasks)};
    cm_status st = round.tasks ? CM_OK : cm_error_nomem(err);
    bool stuck = false;
    int rounds = 0;
    while (st == CM_OK) {
        dp_pass(g);
        res->lb = g->lb[g->n_cuts - 1][0].cost;
        res->ub = g->ub[g->n_cuts - 1][0].cost;
        show_progress(p, &bar, res);
        if (isinf(res->lb) || fmin(res->ub, p->warm_ub) <= res->lb * (1 + fmax(p->gap, 1e-12)))
            break;
        if (p->enough_s > 0 && res->ub <= p->enough_s)
            break;
        /* stuck: a program on the path ran out of time (every solved program gives
         * the segment's cost, branching or not, once solved with its first frame) */
        if (stuck || ex_out_of_work(p)) {
            res->timed_out = true;
            break;
        }
        int n = backtrack(g, g->lb, steps);
        bool raised;
        st = price_steps(g, steps, n, &raised, err);
        if (st != CM_OK || raised)
            continue;
        if (++rounds == EX_WARM_ROUNDS && isinf(res->ub)) {
            /* no path of the bounds' has been solved whole yet: the warm start's cuts
             * give the search a design of its own */
            suffix_pass(g);
            const int w = warm_steps(g, round.tasks);
            if (w > 0) {
                st = refine_all(&round, w, err);
                continue;
            }
        }
        suffix_pass(g);
        st = refine_all(&round, round_steps(steps, n, round.tasks, &stuck), err);
    }
    round_free(&round);
    cm_progress_done(&bar);
    return st;
}

cm_status ex_search(ex_problem *p, ex_result *res, cm_error *err)
{
    memset(res, 0, sizeof *res);
    dp g;
    cm_status st = dp_init(&g, p, err);
    if (st == CM_OK && g.incomplete) {
        /* Paths over part of the segments bound nothing: no answer and no bound. */
        res->lb = 0.0;
        res->ub = INFINITY;
        res->timed_out = res->no_bound = true;
        snprintf(res->why, sizeof res->why,
                 "the %s stopped the exact optimiser while it set up its cut graph (%ld "
                 "segments)", g.over_budget ? "set-up budget" : "time limit",
                 g.n_segs);
        dp_free(&g);
        return CM_OK;
    }
    if (st == CM_OK)
        st = search_loop(&g, res, err);
    if (st == CM_OK && !isinf(res->ub))
        st = take_result(&g, res, err);
    if (st == CM_OK && res->timed_out && (p->budget_hit || p->bb_nodes >= p->bb_budget))
        snprintf(res->why, sizeof res->why,
                 "the budget of %lld branch-and-bound nodes stopped the search after %d "
                 "integer programs", (long long)p->bb_budget, p->ilps);
    else if (st == CM_OK && res->timed_out)
        snprintf(res->why, sizeof res->why,
                 "the time limit stopped the search after %d integer programs", p->ilps);
    dp_free(&g);
    return st;
}

void ex_result_free(ex_result *res)
{
    free(res->first);
    free(res->choice);
    res->first = res->choice = NULL;
}
