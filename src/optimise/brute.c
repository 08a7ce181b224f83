/* The brute-force optimiser (SAMO section IV-B): a depth-first enumeration of every
 * design point, node by node in topological order, each node's three foldings from
 * its valid lists and, when reconfiguration is allowed, a cut or no cut after every
 * node where the backend can cut. Its answer is the optimum of the cost model, so it
 * is the reference the other optimisers are checked against on small networks.
 *
 * Branches that cannot hold a better feasible point are skipped without changing the
 * answer: folding values that break matching or divisibility with an already chosen
 * predecessor are never tried (eqs. 9-10), a partition whose nodes so far already use
 * more of a resource than the board has is abandoned (resources only grow as nodes
 * join it, eq. 6), and so is a branch whose cost so far (closed partitions, the
 * reconfigurations between them and the open partition's slowest node, eq. 3) already
 * reaches the best cost found. A complete point is then put into the design, which
 * decides feasibility (bandwidth, eq. 7, included) and cost: the design model, not a
 * copy of it, is the judge. */
#include "optimise/optimisers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/progress.h"

/* Points per second assumed when deciding whether the space fits in the time limit:
 * the pruned enumeration usually visits far fewer, so the estimate errs on the side
 * of trying. Without a user's limit the space may hold BRUTE_DEFAULT_LIMIT_S worth of
 * points (6e8) and the enumeration then always runs to its end: no default stops on
 * the clock, so the answer does not depend on the machine. */
#define BRUTE_POINTS_PER_S 1e7
#define BRUTE_DEFAULT_LIMIT_S 60.0
/* How many branch visits pass between looks at the clock. */
#define BRUTE_CLOCK_MASK 0xffffu

typedef struct brute_node {
    const int64_t *vals[3];
    int count[3];
    bool intra, inter, divisible, cut_ok;
    const int *pred;
    int n_pred;
} brute_node;

/* The open partition while descending: what its nodes so far use and need. */
typedef struct brute_part {
    cm_resources res;
    double interval; /* slowest node so far, cycles per sample */
    double closed_s; /* time of the partitions before it, reconfigurations included */
} brute_part;

typedef struct brute {
    cm_design *d;
    int n;
    brute_node *nodes;
    int64_t *fold;    /* 3 per node: the point being built */
    int64_t *applied; /* 3 per node: the point the design holds */
    bool *cut;        /* cut after node i in the point being built */
    int *first;       /* scratch for cm_design_set_partitions */
    cm_design_point *best;
    double best_cost;
    bool found;
    double s_per_cycle; /* batch / clock: seconds of a partition per interval cycle */
    double reconf_s;
    cm_resources board;
    uint64_t visits, leaves, cost_evals;
    double start, limit_s, size;
    bool user_limit; /* limit_s is the user's: the enumeration stops there */
    bool timed_out;
    cm_progress progress;
} brute;

static void brute_free(brute *b)
{
    free(b->nodes);
    free(b->fold);
    free(b->applied);
    free(b->cut);
    free(b->first);
    cm_design_point_free(b->best);
}

static void describe_node(brute *b, int i)
{
    brute_node *bn = &b->nodes[i];
    for (int k = 0; k < 3; k++)
        bn->vals[k] = cm_design_fold_values(b->d, i, (cm_fold)k, &bn->count[k]);
    cm_node_info info;
    cm_design_node_info(b->d, i, &info);
    bn->intra = info.matching_intra;
    bn->inter = info.matching_inter;
    bn->divisible = info.divisible_inter;
    bn->cut_ok = cm_design_options_of(b->d)->reconfiguration && cm_design_can_cut_after(b->d, i);
    bn->pred = cm_design_node_preds(b->d, i, &bn->n_pred);
}

static cm_status brute_init(brute *b, cm_design *d, cm_error *err)
{
    b->d = d;
    b->n = cm_design_node_count(d);
    size_t n = (size_t)b->n;
    b->nodes = calloc(n, sizeof *b->nodes);
    b->fold = calloc(3 * n, sizeof *b->fold);
    b->applied = calloc(3 * n, sizeof *b->applied);
    b->cut = calloc(n, sizeof *b->cut);
    b->first = calloc(n, sizeof *b->first);
    b->best = cm_design_point_new(d);
    if (!b->nodes || !b->fold || !b->applied || !b->cut || !b->first || !b->best)
        return cm_error_nomem(err);
    for (int i = 0; i < b->n; i++) {
        describe_node(b, i);
        cm_node_info info;
        cm_design_node_info(d, i, &info);
        b->applied[3 * i] = info.fold_in;
        b->applied[3 * i + 1] = info.fold_out;
        b->applied[3 * i + 2] = info.fold_kernel;
    }
    const cm_design_options *o = cm_design_options_of(d);
    b->s_per_cycle = (double)o->batch / (o->clock_mhz * 1e6);
    b->reconf_s = cm_design_board(d)->reconfiguration_s;
    b->board = *cm_design_limits(d);
    b->best_cost = INFINITY;
    return CM_OK;
}

static bool has_value(const int64_t *vals, int count, int64_t v)
{
    for (int i = 0; i < count; i++)
        if (vals[i] == v)
            return true;
    return false;
}

/* Choices of channel-in folding: one when an inter-matching predecessor fixes it. */
static double in_choices(const brute *b, int i)
{
    const brute_node *bn = &b->nodes[i];
    for (int k = 0; k < bn->n_pred; k++)
        if (b->nodes[bn->pred[k]].inter)
            return 1.0;
    return bn->count[0];
}

/* The number of design points left once intra matching and inter matching are
 * applied (an upper bound: divisibility and resources cut it further). */
static double space_size(const brute *b)
{
    double size = 1.0;
    for (int i = 0; i < b->n; i++) {
        const brute_node *bn = &b->nodes[i];
        double io;
        if (bn->intra) {
            io = 0;
            for (int v = 0; v < bn->count[0]; v++)
                io += has_value(bn->vals[1], bn->count[1], bn->vals[0][v]);
            if (in_choices(b, i) < bn->count[0])
                io = io > 0 ? 1 : 0;
        } else {
            io = in_choices(b, i) * bn->count[1];
        }
        size *= io * bn->count[2] * (bn->cut_ok && i + 1 < b->n ? 2.0 : 1.0);
    }
    return size;
}

static bool edge_ok(const brute_node *from, int64_t out, int64_t in)
{
    if (from->inter && out != in)
        return false;
    if (from->divisible) {
        int64_t hi = out > in ? out : in, lo = out > in ? in : out;
        return lo > 0 && hi % lo == 0;
    }
    return true;
}

static bool in_ok(const brute *b, int i, int64_t in)
{
    const brute_node *bn = &b->nodes[i];
    for (int k = 0; k < bn->n_pred; k++) {
        int u = bn->pred[k];
        if (!edge_ok(&b->nodes[u], b->fold[3 * u + 1], in))
            return false;
    }
    return true;
}

static bool fits(const cm_resources *r, const cm_resources *max)
{
    return r->dsp <= max->dsp && r->bram18 <= max->bram18 && r->uram <= max->uram &&
           r->lut <= max->lut && r->ff <= max->ff;
}

/* Puts the point being built into the design, touching only what differs. */
static void apply_point(brute *b)
{
    for (int i = 0; i < b->n; i++) {
        int64_t *f = &b->fold[3 * i], *a = &b->applied[3 * i];
        if (f[0] != a[0] || f[1] != a[1] || f[2] != a[2]) {
            cm_design_set_folding(b->d, i, f[0], f[1], f[2]);
            a[0] = f[0], a[1] = f[1], a[2] = f[2];
        }
    }
    int count = 1;
    b->first[0] = 0;
    for (int i = 0; i + 1 < b->n; i++)
        if (b->cut[i])
            b->first[count++] = i + 1;
    bool same = count == cm_design_partition_count(b->d);
    for (int p = 1; same && p < count; p++)
        same = cm_design_partition_first(b->d, p) == b->first[p];
    if (!same)
        cm_design_set_partitions(b->d, b->first, count, NULL);
}

static void leaf(brute *b)
{
    b->leaves++;
    apply_point(b);
    if (!cm_design_feasible(b->d))
        return;
    double c = cm_design_cost(b->d);
    if (c < b->best_cost) {
        b->best_cost = c;
        b->found = true;
        cm_design_point_capture(b->d, b->best);
    }
}

static bool out_of_time(brute *b)
{
    if ((++b->visits & BRUTE_CLOCK_MASK) != 0 || b->timed_out)
        return b->timed_out;
    double t = cm_seconds_now() - b->start;
    if (b->user_limit && t > b->limit_s)
        b->timed_out = true;
    char detail[64];
    snprintf(detail, sizeof detail, "%.3g points", (double)b->leaves);
    cm_progress_update(&b->progress, fmax(t / b->limit_s, (double)b->leaves / b->size), detail);
    return b->timed_out;
}

static void descend(brute *b, int i, const brute_part *part);

/* Node i has its folding: decide the cut after it (cut first: partitions are then
 * small and fit, so good points come early and bound the rest), then go on. */
static void after_node(brute *b, int i, const brute_part *part)
{
    if (i + 1 == b->n) {
        leaf(b);
        return;
    }
    if (b->nodes[i].cut_ok) {
        brute_part next = {.closed_s = part->closed_s + part->interval * b->s_per_cycle + b->reconf_s};
        if (next.closed_s < b->best_cost) {
            b->cut[i] = true;
            descend(b, i + 1, &next);
        }
    }
    b->cut[i] = false;
    descend(b, i + 1, part);
}

/* Tries one full folding of node i on top of the open partition. */
static void try_folding(brute *b, int i, const brute_part *part, int64_t in, int64_t out,
                        int64_t kernel)
{
    double cycles;
    brute_part next = *part;
    cm_resources res;
    cm_design_node_cost_at(b->d, i, in, out, kernel, &cycles, NULL, &res);
    b->cost_evals++;
    cm_resources_add(&next.res, &res);
    if (!fits(&next.res, &b->board))
        return;
    if (cycles > next.interval)
        next.interval = cycles;
    if (next.closed_s + next.interval * b->s_per_cycle >= b->best_cost)
        return;
    b->fold[3 * i] = in;
    b->fold[3 * i + 1] = out;
    b->fold[3 * i + 2] = kernel;
    after_node(b, i, &next);
}

/* Every consistent folding of node i, most parallel first so that fast designs are
 * found early and bound the search. */
static void descend(brute *b, int i, const brute_part *part)
{
    if (out_of_time(b))
        return;
    const brute_node *bn = &b->nodes[i];
    for (int a = bn->count[0] - 1; a >= 0; a--) {
        int64_t in = bn->vals[0][a];
        if (!in_ok(b, i, in))
            continue;
        for (int c = bn->count[1] - 1; c >= 0; c--) {
            int64_t out = bn->vals[1][c];
            if (bn->intra && out != in)
                continue;
            for (int k = bn->count[2] - 1; k >= 0; k--)
                try_folding(b, i, part, in, out, bn->vals[2][k]);
        }
    }
}

static cm_status refuse(const brute *b, cm_error *err)
{
    /* a 10,000-layer chain's count is past a double's range */
    if (isinf(b->size))
        return cm_error_set(err, CM_EUSAGE,
                            "the design space has more than 1e308 points, too many for brute "
                            "force; use --optimiser exact or anneal");
    return cm_error_set(err, CM_EUSAGE,
                        "the design space has %.3g points; brute force would take about %.3g s "
                        "at %.0e points/s, over the %.3g s limit; use --optimiser exact or anneal",
                        b->size, b->size / BRUTE_POINTS_PER_S, BRUTE_POINTS_PER_S, b->limit_s);
}

/* Leaves the best point in the design, or the resource-minimal design (split where
 * the backend can cut, as `none` does) when no point fits. */
static void finish(brute *b, cm_optimise_result *r)
{
    r->evaluations += b->cost_evals;
    if (b->found) {
        cm_design_point_restore(b->d, b->best);
        if (!b->timed_out) {
            r->has_lower_bound = true;
            r->lower_bound_s = b->best_cost;
        }
    } else {
        cm_optimise_reset(b->d);
        if (cm_design_options_of(b->d)->reconfiguration)
            cm_design_split_all(b->d);
        r->proven_infeasible = !b->timed_out;
    }
    r->stopped_early = b->timed_out;
    if (b->timed_out)
        snprintf(r->note, sizeof r->note,
                 "time limit reached after %.3g of at most %.3g points; not proven optimal",
                 (double)b->leaves, b->size);
    else
        snprintf(r->note, sizeof r->note, "exhaustive: %.3g complete points costed of %.3g",
                 (double)b->leaves, b->size);
}

cm_status cm_optimise_brute(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                            cm_error *err)
{
    brute b = {0};
    cm_status st = brute_init(&b, d, err);
    if (st == CM_OK) {
        b.start = cm_seconds_now();
        b.user_limit = o->time_limit_s > 0;
        b.limit_s = b.user_limit ? o->time_limit_s : BRUTE_DEFAULT_LIMIT_S;
        b.size = space_size(&b);
        if (b.size > BRUTE_POINTS_PER_S * b.limit_s)
            st = refuse(&b, err);
    }
    if (st == CM_OK) {
        cm_progress_init(&b.progress, o->progress, "brute");
        brute_part root = {0};
        descend(&b, 0, &root);
        cm_progress_done(&b.progress);
        finish(&b, r);
    }
    brute_free(&b);
    return st;
}
