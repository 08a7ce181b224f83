/* The rule-based optimiser (SAMO section IV-D, Algorithm 2). Per partition, it
 * repeatedly gives the slowest node the next larger folding (by the product of its
 * three folding factors) among those that keep the design feasible, preferring, among
 * the first two products that work, the one with the smallest average resource use.
 * It then merges neighbouring partitions where SAMO's heuristics say a merge may pay:
 * a partition that runs for less than a reconfiguration, one that is memory-bound,
 * or one whose slowest node is fully unrolled; each merged partition is re-optimised
 * from the resource-minimal folding and the merge kept only if the cost improves. */
#include "optimise/optimisers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

typedef struct candidate {
    int64_t f[3];
    int64_t product;
} candidate;

typedef struct rule_search {
    cm_design *d;
    cm_design_point *before, *best;
    candidate **sorted; /* per node, built on first use: its foldings by product */
    size_t *n_sorted;
    uint64_t tried;
    double deadline;    /* cm_seconds_now() at which to stop growing; 0: none */
} rule_search;

static int by_product(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->product != y->product)
        return x->product < y->product ? -1 : 1;
    for (int k = 0; k < 3; k++)
        if (x->f[k] != y->f[k])
            return x->f[k] < y->f[k] ? -1 : 1;
    return 0;
}

/* SAMO's tie-breaker: the mean of DSP, BRAM, LUT and FF use over the board's. */
static double average_use(const cm_design *d, int p)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    const cm_resources *have = &cm_design_board(d)->resources;
    double sum = 0;
    int terms = 0;
    const int64_t used[4] = {info.res.dsp, info.res.bram18, info.res.lut, info.res.ff};
    const int64_t max[4] = {have->dsp, have->bram18, have->lut, have->ff};
    for (int k = 0; k < 4; k++)
        if (max[k] > 0) {
            sum += (double)used[k] / (double)max[k];
            terms++;
        }
    return terms ? sum / terms : 0.0;
}

/* Every folding of `node` (intra-matched ones only where required), ascending by
 * product; sorted once per node, since only the starting point moves. */
static const candidate *sorted_foldings(rule_search *s, int node, size_t *count)
{
    if (s->sorted[node]) {
        *count = s->n_sorted[node];
        return s->sorted[node];
    }
    cm_node_info n;
    cm_design_node_info(s->d, node, &n);
    int c[3];
    const int64_t *v[3];
    for (int k = 0; k < 3; k++)
        v[k] = cm_design_fold_values(s->d, node, (cm_fold)k, &c[k]);
    candidate *all = malloc((size_t)c[0] * (size_t)c[1] * (size_t)c[2] * sizeof *all);
    if (!all)
        return NULL;
    size_t m = 0;
    for (int a = 0; a < c[0]; a++)
        for (int b = 0; b < c[1]; b++) {
            if (n.matching_intra && v[0][a] != v[1][b])
                continue;
            for (int k = 0; k < c[2]; k++)
                all[m++] = (candidate){{v[0][a], v[1][b], v[2][k]}, v[0][a] * v[1][b] * v[2][k]};
        }
    qsort(all, m, sizeof *all, by_product);
    s->sorted[node] = all;
    *count = s->n_sorted[node] = m;
    return all;
}

/* The foldings of `node` with a larger product than its current one, ascending. */
static const candidate *larger_foldings(rule_search *s, int node, size_t *count)
{
    size_t m;
    const candidate *all = sorted_foldings(s, node, &m);
    *count = 0;
    if (!all)
        return NULL;
    cm_node_info n;
    cm_design_node_info(s->d, node, &n);
    int64_t now = n.fold_in * n.fold_out * n.fold_kernel;
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (all[mid].product > now)
            hi = mid;
        else
            lo = mid + 1;
    }
    *count = m - lo;
    return all + lo;
}

static bool apply(cm_design *d, int node, const int64_t f[3])
{
    return cm_design_set_fold_propagate(d, node, CM_FOLD_IN, f[0]) &&
           cm_design_set_fold_propagate(d, node, CM_FOLD_OUT, f[1]) &&
           cm_design_set_fold_propagate(d, node, CM_FOLD_KERNEL, f[2]);
}

static int violations(const cm_design *d)
{
    return cm_design_violation_count(d);
}

static bool acceptable(const cm_design *d, int allowed)
{
    return violations(d) <= allowed;
}

/* One step on partition p: returns false when its slowest node cannot grow. A step
 * must keep a feasible design feasible; in a design that does not fit yet (other
 * partitions still too big), it must not add violations. */
static bool grow_slowest(rule_search *s, int p)
{
    cm_partition_info info;
    cm_design_partition_info(s->d, p, &info);
    int node = info.slowest_node;
    size_t count;
    const candidate *cands = larger_foldings(s, node, &count);
    cm_design_point_capture(s->d, s->before);
    int allowed = violations(s->d);
    int64_t first_product = 0;
    double best_use = 0;
    bool found = false;
    for (size_t i = 0; i < count; i++) {
        const candidate *c = &cands[i];
        /* SAMO stops once feasible steps of two distinct products have been seen. */
        if (found && c->product != first_product && cands[i - 1].product != c->product &&
            cands[i - 1].product != first_product)
            break;
        s->tried++;
        if (apply(s->d, node, c->f) && acceptable(s->d, allowed)) {
            double use = average_use(s->d, p);
            if (!found || use < best_use) {
                best_use = use;
                cm_design_point_capture(s->d, s->best);
            }
            if (!found)
                first_product = c->product;
            found = true;
        }
        cm_design_point_restore(s->d, s->before);
    }
    if (found)
        cm_design_point_restore(s->d, s->best);
    return found;
}

static void optimise_partition(rule_search *s, int p)
{
    while ((s->deadline == 0 || cm_seconds_now() < s->deadline) && grow_slowest(s, p))
        ;
}

static void optimise_all(rule_search *s, cm_progress *bar, double from, double to)
{
    int np = cm_design_partition_count(s->d);
    for (int p = 0; p < np; p++) {
        optimise_partition(s, p);
        cm_progress_update(bar, from + (to - from) * (p + 1) / np, "folding");
    }
}

/* Puts every node of partition p back to its smallest folding (with propagation,
 * since neighbours may be tied to it). */
static void reset_partition(cm_design *d, int p)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    for (int i = info.first; i <= info.last; i++) {
        int count;
        for (int k = 0; k < 3; k++)
            cm_design_set_fold_propagate(d, i, (cm_fold)k, cm_design_fold_values(d, i, (cm_fold)k, &count)[0]);
    }
}

/* True when every folding of the node is at its largest valid value. */
static bool fully_unrolled(const cm_design *d, int node)
{
    int64_t now[3];
    cm_node_info n;
    cm_design_node_info(d, node, &n);
    now[0] = n.fold_in;
    now[1] = n.fold_out;
    now[2] = n.fold_kernel;
    for (int k = 0; k < 3; k++) {
        int count;
        const int64_t *v = cm_design_fold_values(d, node, (cm_fold)k, &count);
        if (now[k] != v[count - 1])
            return false;
    }
    return true;
}

/* SAMO's reasons to try merging partition p with a neighbour. */
static bool wants_merge(const cm_design *d, int p)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    const cm_board *b = cm_design_board(d);
    if (info.time_s < b->reconfiguration_s)
        return true;
    if (info.bandwidth_gbps > 0.9 * b->bandwidth_gbps)
        return true; /* memory-bound */
    return fully_unrolled(d, info.slowest_node);
}

/* Tries merging p with p + 1; keeps the merge only if the cost strictly improves. */
static bool past_deadline(const rule_search *s)
{
    return s->deadline != 0 && cm_seconds_now() >= s->deadline;
}

static bool try_merge(rule_search *s, int p, cm_design_point *keep)
{
    cm_design *d = s->d;
    double cost = cm_design_cost(d);
    int bad = violations(d);
    cm_design_point_capture(d, keep);
    if (cm_design_merge(d, p, NULL) != CM_OK)
        return false;
    reset_partition(d, p);
    optimise_partition(s, p);
    int now_bad = violations(d);
    if (now_bad < bad || (now_bad == bad && cm_design_cost(d) < cost))
        return true;
    cm_design_point_restore(d, keep);
    return false;
}

static void merge_phase(rule_search *s, cm_progress *bar)
{
    cm_design_point *keep = cm_design_point_new(s->d);
    if (!keep)
        return;
    bool merged = true;
    while (merged && cm_design_partition_count(s->d) > 1 && !past_deadline(s)) {
        merged = false;
        int np = cm_design_partition_count(s->d);
        for (int p = 0; p + 1 < np && !merged && !past_deadline(s); p++) {
            if (!wants_merge(s->d, p) && !wants_merge(s->d, p + 1))
                continue;
            merged = try_merge(s, p, keep);
        }
        cm_progress_update(bar, 0.5 + 0.5 / (1 + cm_design_partition_count(s->d)), "merging");
    }
    cm_design_point_free(keep);
}

/* SAMO's starting cuts: from one partition, cut at every allowed place in turn,
 * undoing a cut that makes a fitting design stop fitting. */
static void initial_cuts(cm_design *d, const rule_search *s)
{
    for (int i = 0; i + 1 < cm_design_node_count(d) && !past_deadline(s); i++) {
        if (!cm_design_can_cut_after(d, i))
            continue;
        int bad = violations(d);
        if (cm_design_split(d, i, NULL) != CM_OK)
            continue;
        if (violations(d) > bad || (bad == 0 && violations(d) > 0)) {
            cm_node_info n;
            cm_design_node_info(d, i, &n);
            cm_design_merge(d, n.partition, NULL);
        }
    }
}

static void rule_free(rule_search *s, int n)
{
    for (int i = 0; s->sorted && i < n; i++)
        free(s->sorted[i]);
    free(s->sorted);
    free(s->n_sorted);
    cm_design_point_free(s->before);
    cm_design_point_free(s->best);
}

cm_status cm_optimise_rule(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                           cm_error *err)
{
    rule_search s = {.d = d};
    int n = cm_design_node_count(d);
    s.before = cm_design_point_new(d);
    s.best = cm_design_point_new(d);
    s.sorted = calloc((size_t)n, sizeof *s.sorted);
    s.n_sorted = calloc((size_t)n, sizeof *s.n_sorted);
    /* SAMO's rule has no stopping time; large graphs with long matching chains (FINN's
     * MobileNetV2) can take minutes, so it stops at the time limit, 60 s by default. */
    s.deadline = cm_seconds_now() + (o->time_limit_s > 0 ? o->time_limit_s : CM_RULE_DEFAULT_TIME_LIMIT_S);
    cm_status st = s.before && s.best && s.sorted && s.n_sorted ? CM_OK : cm_error_nomem(err);
    if (st != CM_OK) {
        rule_free(&s, n);
        return st;
    }
    cm_progress bar;
    cm_progress_init(&bar, o->progress, "rule");
    if (cm_design_options_of(d)->reconfiguration)
        initial_cuts(d, &s);
    optimise_all(&s, &bar, 0.0, 0.5);
    if (cm_design_options_of(d)->reconfiguration)
        merge_phase(&s, &bar);
    cm_progress_done(&bar);
    r->evaluations += s.tried;
    r->stopped_early = past_deadline(&s);
    if (r->stopped_early)
        snprintf(r->note, sizeof r->note, "the time limit stopped the rule optimiser early");
    rule_free(&s, n);
    return CM_OK;
}
