/* The rule-based optimiser (SAMO section IV-D, Algorithm 2). Per partition, it
 * repeatedly gives the slowest node the next larger folding (by the product of its
 * three folding factors) among those that keep the design feasible, preferring, among
 * the first two products that work, the one with the smallest average resource use.
 * It then merges neighbouring partitions where SAMO's heuristics say a merge may pay:
 * a partition that runs for less than a reconfiguration, one that is memory-bound,
 * or one whose slowest node is fully unrolled; each merged partition is re-optimised
 * from the resource-minimal folding and the merge kept only if the cost improves.
 *
 * Beyond the paper:
 * - A first phase grows the slowest node of the start design (one partition, or one per
 *   place the backend can cut when one does not fit) before any cut, and the best
 *   design met anywhere is the answer; it is at least as good as the first improving
 *   step from the start.
 * - Cuts by headroom instead of SAMO's cuts. SAMO cuts the one-partition design
 *   wherever a cut adds no violation, which from a network that does not fit is nearly
 *   everywhere; the merges that undo hundreds of cuts one at a time ran out of budget
 *   with tens to hundreds of partitions, each paying a reconfiguration. Here the
 *   resource-minimal design is cut as seldom as a headroom allows (each partition
 *   within that share of the board), for headrooms from the whole board down to a few
 *   percent, each cut grown, the best kept: the trade between reconfigurations and
 *   room to unroll, walked from one end until it stops paying. SAMO's merges then run
 *   on the best.
 * - The cut-and-merge phase runs only when it can win: every design of two or more
 *   partitions costs at least one reconfiguration, so a fitting first-phase design
 *   faster than that is kept without it.
 * - A node no folding of which fits the board alone (or, without reconfiguration, nodes
 *   whose least uses of some resource add up to more than the board) proves at once
 *   that nothing fits.
 * - Cheap growth: a candidate whose node alone takes its partition over a limit is not
 *   applied, and a node that could not grow is not tried again in that partition's
 *   growth unless it becomes the slowest.
 * - Candidates with one effect are costed once. Where matching ties whole stretches of a
 *   network into one group (FINN's residual blocks: every stream width of a partition),
 *   every node's candidates move the same group to the same few values, and each
 *   costing re-costs the group: a growth that tried every node was quadratic (2,500
 *   blocks: 175 s). A candidate whose sides lie in rigid groups (cm_fold_groups) is
 *   known by its effect, the groups it sets and the kernel folding, and one whose
 *   effect was costed since the design last changed is passed over: it would leave the
 *   same design, so it would fail again or tie. One whose effect is nothing, or which
 *   propagation would refuse, is passed over without costing.
 * - A last phase trades resources between nodes from the best design met (trade_phase,
 *   below): growth only adds to the slowest node and never takes back.
 * - It stops by its own criterion or after a budget of work: by default
 *   CM_OPTIMISE_RULE_WORK node costings (cm_design_evaluations), or the caller's count of
 *   design points. Both are counts, so the same inputs give the same design on any
 *   machine; only a time limit the user gives is looked at on the clock. A step re-costs
 *   its partition, not the design, so a budget of points sized for design scans
 *   (cm_optimise_budget) ended the first phase of a 10,000-layer chain with a partition
 *   per node still to grow. */
#include "optimise/optimisers.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

typedef struct candidate {
    int64_t f[3];
    int64_t product;
} candidate;

/* What a candidate does to the design when its node's sides lie in rigid groups: the
 * groups it sets (ascending; -1: none) to new values, and its node's new kernel folding
 * (node -1: unchanged). */
typedef struct move_effect {
    int group[2];
    int64_t value[2];
    int node;
    int64_t kernel;
} move_effect;

/* Effects costed since the design last changed, direct-mapped: an effect a collision
 * pushed out is only costed again. A slot holds an effect of the round it names. */
#define RULE_SEEN_SLOTS 1024
typedef struct seen_slot {
    move_effect e;
    uint64_t round;
} seen_slot;

typedef struct rule_search {
    cm_design *d;
    int64_t *fold_before, *fold_best;  /* 3 per node: one partition's foldings, saved */
    candidate **sorted; /* per node, built on first use: its foldings by product */
    size_t *n_sorted;
    uint64_t tried;     /* candidate foldings tried: the design points */
    uint64_t budget;    /* design points allowed (UINT64_MAX: no count) */
    uint64_t work_from, work_budget; /* the design's node costings at the start, and how
                                        many more are allowed (UINT64_MAX: no count) */
    double deadline;    /* the user's time limit as a cm_seconds_now() value; 0: none */
    bool out_of_budget, out_of_time;
    uint32_t clock_skip;  /* calls of stopped() until the next look at the clock */
    bool *blocked;        /* per node: could not grow since its partition's growth began */
    cm_fold_groups *groups; /* the growing partition's matching groups (NULL: none known) */
    seen_slot *seen;      /* effects costed in this round */
    uint64_t round;       /* rounds start when the design may have changed (grow_any) */
    cm_design_point *incumbent; /* the best design met so far */
    int inc_bad;        /* its violations (INT_MAX: none yet) */
    double inc_cost;
} rule_search;

/* Whether the budget or the user's time limit has ended the search; the budget is a
 * count, so where it stops the search does not depend on the machine. */
static bool stopped(rule_search *s)
{
    if (!s->out_of_budget && !s->out_of_time) {
        if (s->tried >= s->budget ||
            cm_design_evaluations(s->d) - s->work_from >= s->work_budget)
            s->out_of_budget = true;
        else if (s->deadline > 0 && s->clock_skip-- == 0) {
            s->clock_skip = 1024; /* the clock costs more than a candidate's check */
            s->out_of_time = cm_seconds_now() >= s->deadline;
        }
    }
    return s->out_of_budget || s->out_of_time;
}

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
    const cm_resources *have = cm_design_limits(d);
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
    int64_t f[3];
    cm_design_node_folding(s->d, node, f);
    int64_t now = f[0] * f[1] * f[2];
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

/* Keeps the design as the incumbent when it breaks fewer constraints, or as few at a
 * lower cost. Growth and merges never make a design worse, so phase ends are enough. */
static void note_point(rule_search *s)
{
    int bad = violations(s->d);
    double cost = cm_design_cost(s->d);
    if (bad < s->inc_bad || (bad == s->inc_bad && cost < s->inc_cost)) {
        s->inc_bad = bad;
        s->inc_cost = cost;
        cm_design_point_capture(s->d, s->incumbent);
    }
}

/* A step changes only its own partition (matching holds within one), so saving,
 * restoring and checking that partition is enough: on 10,000 one-node partitions the
 * whole design would cost 10,000 times more per step. */
static void save_partition(const cm_design *d, int p, int64_t *fold)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    for (int i = info.first; i <= info.last; i++)
        cm_design_node_folding(d, i, &fold[3 * i]);
}

static void restore_partition(cm_design *d, int p, const int64_t *fold)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    for (int i = info.first; i <= info.last; i++) {
        int64_t now[3];
        cm_design_node_folding(d, i, now);
        const int64_t *f = &fold[3 * i];
        if (now[0] != f[0] || now[1] != f[1] || now[2] != f[2])
            cm_design_set_folding(d, i, f[0], f[1], f[2]);
    }
}

/* Partition p's broken limits: each resource over the board's, and the bandwidth
 * (eq. 7). Folding rules cannot break in a step: propagation keeps them or fails. */
static int partition_violations(const cm_design *d, int p)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    const cm_board *b = cm_design_board(d);
    const cm_resources *r = &info.res, *max = cm_design_limits(d);
    return (r->dsp > max->dsp) + (r->bram18 > max->bram18) + (r->uram > max->uram) +
           (r->lut > max->lut) + (r->ff > max->ff) + !(info.bandwidth_gbps < b->bandwidth_gbps);
}

/* The sum of the cycles of partition p's nodes: with the cost, the measure a step must
 * lower. */
static double cycles_sum(const cm_design *d, int p)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    double sum = 0;
    for (int i = info.first; i <= info.last; i++)
        sum += cm_design_node_cycles(d, i);
    return sum;
}

static double partition_time(const cm_design *d, int p)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    return info.time_s;
}

/* Times within this fraction of each other are one time to rule. A partition's time is
 * kept up to date by moves (cm_design_cost), and its last bits depend on which states
 * were timed on the way, which has nothing to do with the design: taking a candidate
 * back by the nodes it moved instead of by its whole partition changed FINN designs on
 * 9 of the matrix's 86 cells through ties decided in the last bits. */
#define RULE_TIME_TIE 1e-9

/* Whether partition p after a step is better than (time, sum) before it: faster, or as
 * fast (RULE_TIME_TIE) with fewer cycles over its nodes. Growing the slowest node can
 * shrink its neighbours through the matching constraints; without this measure two
 * nodes tied by a chain can take turns growing and shrinking each other forever (FINN's
 * MobileNetV2).
 * A step changes only its partition (matching holds within one), so the design's cost
 * never rises during growth either. */
static bool improves(const cm_design *d, int p, double time, double sum)
{
    double now = partition_time(d, p), tie = RULE_TIME_TIE * time;
    return now < time - tie || (now <= time + tie && cycles_sum(d, p) < sum);
}

/* Whether the node's own resources at folding `f`, in place of its current ones, take
 * partition p over a limit of the board it keeps now. The neighbours that matching
 * drags along are left out, so this only spares applying (propagating and re-timing
 * the partition) a candidate that cannot keep the violations. */
static bool overflows_alone(const cm_design *d, const cm_resources *part, const cm_resources *now,
                            int node, const int64_t f[3])
{
    cm_resources at;
    cm_design_node_cost_at(d, node, f[0], f[1], f[2], NULL, NULL, &at);
    const cm_resources *max = cm_design_limits(d);
    const int64_t p[5] = {part->dsp, part->bram18, part->uram, part->lut, part->ff};
    const int64_t o[5] = {now->dsp, now->bram18, now->uram, now->lut, now->ff};
    const int64_t a[5] = {at.dsp, at.bram18, at.uram, at.lut, at.ff};
    const int64_t m[5] = {max->dsp, max->bram18, max->uram, max->lut, max->ff};
    for (int k = 0; k < 5; k++)
        if (p[k] <= m[k] && a[k] > o[k] && a[k] - o[k] > m[k] - p[k])
            return true;
    return false;
}

/* The effect of giving `node` folding f (apply: in, then out, then kernel, each
 * propagated): 1 with *e filled, -1 when it changes nothing or propagation refuses it,
 * 0 when a side is not in a rigid group. In one group, the out step overrides the in
 * step, so only the out value stays. */
static int effect_of(const rule_search *s, int node, const int64_t f[3], move_effect *e)
{
    bool rigid_in, rigid_out;
    if (!s->groups)
        return 0;
    int gi = cm_fold_groups_of(s->groups, node, CM_FOLD_IN, &rigid_in);
    int go = cm_fold_groups_of(s->groups, node, CM_FOLD_OUT, &rigid_out);
    if (!rigid_in || !rigid_out)
        return 0;
    int64_t now[3];
    cm_design_node_folding(s->d, node, now);
    int64_t out_between = gi == go ? f[0] : now[1]; /* the out side after the in step */
    if ((f[0] != now[0] && !cm_fold_groups_takes(s->groups, gi, f[0])) ||
        (f[1] != out_between && !cm_fold_groups_takes(s->groups, go, f[1])))
        return -1;
    *e = (move_effect){{-1, -1}, {0, 0}, -1, 0};
    int n = 0;
    if (gi != go && f[0] != now[0]) {
        e->group[n] = gi;
        e->value[n++] = f[0];
    }
    if (f[1] != now[1]) {
        e->group[n] = go;
        e->value[n++] = f[1];
    }
    if (n == 2 && e->group[0] > e->group[1]) {
        int g = e->group[0];
        int64_t v = e->value[0];
        e->group[0] = e->group[1];
        e->value[0] = e->value[1];
        e->group[1] = g;
        e->value[1] = v;
    }
    if (f[2] != now[2]) {
        e->node = node;
        e->kernel = f[2];
    }
    return n > 0 || e->node >= 0 ? 1 : -1;
}

static seen_slot *seen_slot_of(rule_search *s, const move_effect *e)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    const int64_t parts[6] = {e->group[0], e->value[0], e->group[1], e->value[1], e->node,
                              e->kernel};
    for (int k = 0; k < 6; k++)
        h = (h ^ (uint64_t)parts[k]) * 0x100000001b3ull;
    return &s->seen[(h ^ (h >> 29)) % RULE_SEEN_SLOTS];
}

static bool same_effect(const move_effect *a, const move_effect *b)
{
    return a->group[0] == b->group[0] && a->group[1] == b->group[1] &&
           a->value[0] == b->value[0] && a->value[1] == b->value[1] && a->node == b->node &&
           a->kernel == b->kernel;
}

/* Whether the candidate need not be costed: its effect was costed in this round, or
 * it has none, or propagation refuses it. Otherwise its effect is noted as costed. */
static bool seen_before(rule_search *s, int node, const int64_t f[3])
{
    move_effect e;
    int known = effect_of(s, node, f, &e);
    if (known <= 0)
        return known < 0;
    seen_slot *slot = seen_slot_of(s, &e);
    if (slot->round == s->round && same_effect(&slot->e, &e))
        return true;
    slot->e = e;
    slot->round = s->round;
    return false;
}

/* One step on partition p growing `node`: returns false when it cannot grow. A step
 * must keep a feasible design feasible; in a design that does not fit yet (other
 * partitions still too big), it must not add violations. It must also improve the
 * design (improves). */
static bool grow_node(rule_search *s, int p, int node)
{
    size_t count;
    const candidate *cands = larger_foldings(s, node, &count);
    cm_partition_info part;
    cm_design_partition_info(s->d, p, &part);
    int64_t f_now[3];
    cm_resources r_now;
    cm_design_node_folding(s->d, node, f_now);
    cm_design_node_cost_at(s->d, node, f_now[0], f_now[1], f_now[2], NULL, NULL, &r_now);
    /* The partition as it was, read at the first candidate costed: a node whose
     * candidates are all passed over costs no pass over its partition. */
    bool saved = false, journal = false;
    int allowed = 0;
    double time = 0, sum = 0;
    int64_t first_product = 0;
    double best_use = 0;
    bool found = false;
    for (size_t i = 0; i < count && !stopped(s); i++) {
        const candidate *c = &cands[i];
        /* SAMO stops once feasible steps of two distinct products have been seen. */
        if (found && c->product != first_product && cands[i - 1].product != c->product &&
            cands[i - 1].product != first_product)
            break;
        /* Only candidates applied count against the budget: the check is a memoised
         * lookup, and near a full board it rejects most of them. */
        if (overflows_alone(s->d, &part.res, &r_now, node, c->f) || seen_before(s, node, c->f))
            continue;
        /* Each candidate is taken back through the design's journal, which restores
         * only the nodes it moved; without one (out of memory), by its partition. */
        if (!saved) {
            journal = cm_design_journal_start(s->d);
            if (!journal)
                save_partition(s->d, p, s->fold_before);
            allowed = partition_violations(s->d, p);
            time = partition_time(s->d, p);
            sum = cycles_sum(s->d, p);
            saved = true;
        } else if (journal) {
            cm_design_journal_start(s->d);
        }
        s->tried++;
        if (apply(s->d, node, c->f) && partition_violations(s->d, p) <= allowed &&
            improves(s->d, p, time, sum)) {
            double use = average_use(s->d, p);
            if (!found || use < best_use) {
                best_use = use;
                save_partition(s->d, p, s->fold_best);
            }
            if (!found)
                first_product = c->product;
            found = true;
        }
        if (journal)
            cm_design_journal_undo(s->d);
        else
            restore_partition(s->d, p, s->fold_before);
    }
    if (found)
        restore_partition(s->d, p, s->fold_best);
    return found;
}

/* When the slowest node cannot grow, the next slowest in turn: the first frame also
 * waits on the nodes before and after the slowest (their fills and tails), so a
 * faster neighbour can still shorten the partition's time. A node that could not grow
 * is not tried again in this partition's growth unless it becomes the slowest: the
 * others' steps only take resources and time away, and trying every node after every
 * step made growth quadratic (efficientnet_b0: 44 s). */
/* The slowest node of partition p, other than `skip`, not blocked (ties: the first). */
static int next_slowest(const rule_search *s, const cm_partition_info *info, int skip)
{
    int best = -1;
    double best_cycles = 0;
    for (int i = info->first; i <= info->last; i++) {
        if (i == skip || s->blocked[i])
            continue;
        double c = cm_design_node_cycles(s->d, i);
        if (best < 0 || c > best_cycles) {
            best = i;
            best_cycles = c;
        }
    }
    return best;
}

static bool grow_any(rule_search *s, int p)
{
    s->round++; /* the last step may have changed the design */
    cm_partition_info info;
    cm_design_partition_info(s->d, p, &info);
    if (grow_node(s, p, info.slowest_node))
        return true;
    /* A failed step restores the partition, so the cycles (and this order) stand until
     * a step succeeds; each failure blocks its node, so the scans stay linear. */
    for (int node; !stopped(s) && (node = next_slowest(s, &info, info.slowest_node)) >= 0;) {
        if (grow_node(s, p, node))
            return true;
        s->blocked[node] = true;
    }
    return false;
}

static void optimise_partition(rule_search *s, int p)
{
    cm_partition_info info;
    cm_design_partition_info(s->d, p, &info);
    memset(s->blocked + info.first, 0, (size_t)(info.last - info.first + 1) * sizeof *s->blocked);
    s->groups = cm_fold_groups_new(s->d, p); /* NULL: every candidate is costed */
    while (!stopped(s) && grow_any(s, p))
        ;
    cm_fold_groups_free(s->groups);
    s->groups = NULL;
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

/* SAMO's merge scan. After a merge the scan goes on from the merged partition rather
 * than from the first: a merge changes only its own partition, so the pairs before it
 * stand as they were judged. */
static void merge_phase(rule_search *s, cm_progress *bar)
{
    cm_design_point *keep = cm_design_point_new(s->d);
    if (!keep)
        return;
    for (int p = 0; p + 1 < cm_design_partition_count(s->d) && !stopped(s);) {
        if ((wants_merge(s->d, p) || wants_merge(s->d, p + 1)) && try_merge(s, p, keep))
            continue;
        p++;
        cm_progress_update(bar, 0.75 + 0.25 * p / cm_design_partition_count(s->d), "merging");
    }
    cm_design_point_free(keep);
}

/* Partition p's largest share of any board resource. */
static double partition_share(const cm_design *d, int p)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    const cm_resources *have = cm_design_limits(d);
    const int64_t used[5] = {info.res.dsp, info.res.bram18, info.res.uram, info.res.lut, info.res.ff};
    const int64_t max[5] = {have->dsp, have->bram18, have->uram, have->lut, have->ff};
    double share = 0;
    for (int k = 0; k < 5; k++) {
        double u = max[k] > 0 ? (double)used[k] / (double)max[k] : (used[k] > 0 ? 1e300 : 0);
        share = u > share ? u : share;
    }
    return share;
}

/* A partition that still breaks a limit after the greedy pass (the last one, with no
 * neighbour after it to take in, or one whose next neighbour would not fit) joins the
 * partition before it when the union breaks fewer limits than the two apart. */
static void absorb_backwards(rule_search *s)
{
    cm_design *d = s->d;
    for (int p = cm_design_partition_count(d) - 1; p > 0 && !stopped(s); p--) {
        int bad = partition_violations(d, p);
        if (bad == 0)
            continue;
        bad += partition_violations(d, p - 1);
        cm_partition_info info;
        cm_design_partition_info(d, p - 1, &info);
        s->tried++;
        if (cm_design_merge(d, p - 1, NULL) != CM_OK)
            continue;
        if (partition_violations(d, p - 1) >= bad)
            cm_design_split(d, info.last, NULL);
    }
}

/* The resource-minimal design with the fewest cuts that leave every partition (that
 * can be) within `cap` of each resource: from one partition per place the backend can
 * cut, each partition takes in the next while their union stays within it and breaks
 * no limit. Greedy filling gives the fewest partitions for a cap, since a partition's
 * use only grows with what it holds. */
static void cut_at_capacity(rule_search *s, double cap)
{
    cm_design *d = s->d;
    cm_optimise_reset(d);
    cm_design_split_all(d);
    for (int p = 0; p + 1 < cm_design_partition_count(d) && !stopped(s);) {
        cm_partition_info info;
        cm_design_partition_info(d, p, &info);
        int bad = partition_violations(d, p);
        s->tried++;
        if (cm_design_merge(d, p, NULL) != CM_OK) {
            p++;
            continue;
        }
        int now_bad = partition_violations(d, p);
        double share = partition_share(d, p);
        /* A partition too fast for the bandwidth (hls4ml streams a whole pixel a
         * cycle) is fixed only by taking in a slower neighbour, whatever the cap. */
        if ((now_bad == 0 && share <= cap) || (bad > 0 && now_bad <= bad && share <= 1.0))
            continue;
        cm_design_split(d, info.last, NULL);
        p++;
    }
    absorb_backwards(s);
}

/* The headrooms tried, from full partitions (fewest reconfigurations, least room to
 * unroll) down to a few percent of the board (room to unroll at the price of more
 * reconfigurations). */
static const double RULE_CAPS[] = {1.0, 0.7, 0.5, 0.35, 0.25, 0.18, 0.125, 0.09,
                                   0.0625, 0.045, 0.03, 0.02};
#define RULE_CAP_COUNT (sizeof RULE_CAPS / sizeof RULE_CAPS[0])
/* Headrooms in a row that may fail to improve before the scan stops: the cost over the
 * headroom is roughly convex (reconfigurations against unrolling). */
#define RULE_CAP_PATIENCE 2

/* Cuts for each headroom, every partition grown, the best design kept: the cost
 * trades reconfigurations against room to unroll, and the headrooms walk that trade
 * from one end until it stops paying. */
static void capacity_cuts(rule_search *s, cm_progress *bar)
{
    int last_count = -1, stale = 0, best_bad = INT_MAX;
    double best_cost = 0;
    for (size_t c = 0; c < RULE_CAP_COUNT && stale < RULE_CAP_PATIENCE && !stopped(s); c++) {
        cut_at_capacity(s, RULE_CAPS[c]);
        int np = cm_design_partition_count(s->d);
        if (np == last_count)
            continue;
        last_count = np;
        optimise_all(s, bar, 0.25 + 0.5 * c / RULE_CAP_COUNT, 0.25 + 0.5 * (c + 1) / RULE_CAP_COUNT);
        note_point(s);
        int now_bad = violations(s->d);
        double now_cost = cm_design_cost(s->d);
        if (now_bad < best_bad || (now_bad == best_bad && now_cost < best_cost)) {
            best_bad = now_bad;
            best_cost = now_cost;
            stale = 0;
        } else {
            stale++;
        }
    }
}

static void rule_free(rule_search *s, int n)
{
    for (int i = 0; s->sorted && i < n; i++)
        free(s->sorted[i]);
    free(s->sorted);
    free(s->n_sorted);
    cm_design_point_free(s->incumbent);
    free(s->fold_before);
    free(s->fold_best);
    free(s->blocked);
    free(s->seen);
}

static void least_of(cm_resources *least, const cm_resources *r)
{
    int64_t *l[5] = {&least->dsp, &least->bram18, &least->uram, &least->lut, &least->ff};
    const int64_t v[5] = {r->dsp, r->bram18, r->uram, r->lut, r->ff};
    for (int k = 0; k < 5; k++)
        if (v[k] < *l[k])
            *l[k] = v[k];
}

/* Whether some folding of `node` fits the board on its own; *least gets the node's
 * least use of each resource over its foldings. */
static bool node_can_fit(rule_search *s, int node, cm_resources *least)
{
    size_t count;
    const candidate *all = sorted_foldings(s, node, &count);
    const cm_resources *have = cm_design_limits(s->d);
    bool fits = all == NULL; /* out of memory: claim nothing */
    *least = (cm_resources){INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    for (size_t i = 0; all && i < count; i++) {
        double cycles;
        cm_resources res;
        cm_design_node_cost_at(s->d, node, all[i].f[0], all[i].f[1], all[i].f[2], &cycles, NULL,
                               &res);
        s->tried++;
        least_of(least, &res);
        fits |= cm_resources_fit(&res, have);
    }
    if (!all)
        *least = (cm_resources){0};
    return fits;
}

/* The bound: a node that fits in no folding, or (one partition) the nodes' least uses
 * over the board. Writes the proof to r->note. */
static bool proven_infeasible(rule_search *s, cm_optimise_result *r)
{
    const cm_design *d = s->d;
    const cm_board *b = cm_design_board(d);
    cm_resources sum = {0}, least;
    for (int i = 0; i < cm_design_node_count(d); i++) {
        if (stopped(s)) /* proves nothing, and the phases after it stop at once */
            return false;
        if (!node_can_fit(s, i, &least)) {
            cm_node_info n;
            cm_design_node_info(d, i, &n);
            snprintf(r->note, sizeof r->note,
                     "infeasibility proven: node %s (layer %s) fits %s in no folding",
                     n.name, n.layer, b->display_name);
            return true;
        }
        cm_resources_add(&sum, &least);
    }
    if (cm_design_options_of(d)->reconfiguration || cm_resources_fit(&sum, cm_design_limits(d)))
        return false;
    snprintf(r->note, sizeof r->note,
             "infeasibility proven: the nodes' least resources add up to more than %s has "
             "and reconfiguration is off", b->display_name);
    return true;
}

/* The first phase: the start design (cut wherever the backend can when one partition
 * does not fit, as `none` leaves it), every partition grown. */
static void first_phase(rule_search *s, cm_progress *bar)
{
    if (!cm_design_feasible(s->d) && cm_design_options_of(s->d)->reconfiguration)
        cm_design_split_all(s->d);
    optimise_all(s, bar, 0.0, 0.25);
    note_point(s);
}

/* Cuts at each headroom, then SAMO's merges from the best design met; only when a
 * design of several partitions (at least one reconfiguration) can beat the incumbent.
 * SAMO cuts the one-partition design wherever a cut adds no violation: from a design
 * that does not fit, nearly everywhere, and undoing hundreds of cuts one merge at a
 * time ran out of budget with tens to hundreds of partitions (efficientnet_b0 on a
 * U250: 245 partitions, 62 s, where anneal finds 0.35 s). */
static void partition_phase(rule_search *s, cm_progress *bar)
{
    const cm_board *b = cm_design_board(s->d);
    if (!cm_design_options_of(s->d)->reconfiguration || stopped(s) ||
        (s->inc_bad == 0 && s->inc_cost <= b->reconfiguration_s))
        return;
    capacity_cuts(s, bar);
    cm_design_point_restore(s->d, s->incumbent);
    merge_phase(s, bar);
    note_point(s);
}

/* ---- trades: the last phase ----
 * Growth only ever adds resources to the slowest node, so the best design met can still
 * hold resources where they buy little: a node grown early for a bottleneck that later
 * moved, or a partition full before its last bottleneck could grow. A round of trades
 * costs every move of one folding of one node to its neighbouring valid value
 * (matching propagated) and takes the move that lowers the cost most while everything
 * fits. When no single move does, it pairs each move that lowers the cost but overruns
 * its partition with the move of another node of that partition that frees the
 * overrun at the least cost, estimates the pair by the sum of their changes, and tries
 * the best estimates. Rounds go on while one is taken.
 * Bounded by counts (the same design on any machine): a round is begun only when its
 * moves times the design's nodes fit in a quarter of what is left of RULE_TRADE_WORK,
 * and the phase's node costings stay within RULE_TRADE_GROWTH times those of the phases
 * before it, so that the phase never changes how rule scales. */
#define RULE_TRADE_WORK 6e6
#define RULE_TRADE_GROWTH 8
#define RULE_TRADE_PAIRS 20

typedef struct trade_move {
    int node, part;
    cm_fold which;
    int64_t value;
    double cost;      /* the design's cost after it */
    int bad;          /* its partition's broken limits after it */
    cm_resources res; /* its partition's resources after it */
} trade_move;

typedef struct trade_pair {
    int a, b; /* indices of moves */
    double estimate;
} trade_pair;

typedef struct trade_state {
    trade_move *moves;
    size_t n, cap;
    double work;          /* moves costed times nodes, so far */
    uint64_t evals_limit; /* node costings the phase may reach */
} trade_state;

static bool trade_over(rule_search *s, const trade_state *t)
{
    return stopped(s) || cm_design_evaluations(s->d) >= t->evals_limit;
}

/* Applies a move; false when propagation refuses it. */
static bool trade_apply(cm_design *d, const trade_move *m)
{
    return cm_design_set_fold_propagate(d, m->node, m->which, m->value);
}

/* A trial on partition p, taken back or kept by trial_end: through the design's
 * journal, which restores only the nodes it moved, or without one (out of memory) by
 * the partition's foldings. Returns whether the journal is on. */
static bool trial_begin(rule_search *s, int p)
{
    const bool journal = cm_design_journal_start(s->d);
    if (!journal)
        save_partition(s->d, p, s->fold_before);
    s->tried++;
    return journal;
}

static void trial_end(rule_search *s, int p, bool journal, bool keep)
{
    if (journal && keep)
        cm_design_journal_end(s->d);
    else if (journal)
        cm_design_journal_undo(s->d);
    else if (!keep)
        restore_partition(s->d, p, s->fold_before);
}

/* Costs one move and takes it back; appends it when propagation takes it. */
static void trade_cost(rule_search *s, trade_state *t, trade_move m)
{
    int64_t f[3];
    cm_design_node_folding(s->d, m.node, f);
    f[m.which] = m.value;
    if (seen_before(s, m.node, f))
        return;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        trade_move *grown = realloc(t->moves, cap * sizeof *grown);
        if (!grown)
            return;
        t->moves = grown;
        t->cap = cap;
    }
    const bool journal = trial_begin(s, m.part);
    t->work += cm_design_node_count(s->d);
    if (trade_apply(s->d, &m)) {
        cm_partition_info info;
        cm_design_partition_info(s->d, m.part, &info);
        m.cost = cm_design_cost(s->d);
        m.bad = partition_violations(s->d, m.part);
        m.res = info.res;
        t->moves[t->n++] = m;
    }
    trial_end(s, m.part, journal, false);
}

/* Every move of one folding to a neighbouring value, costed into t->moves. */
static void trade_moves(rule_search *s, trade_state *t)
{
    t->n = 0;
    for (int p = 0; p < cm_design_partition_count(s->d) && !trade_over(s, t); p++) {
        cm_partition_info info;
        cm_design_partition_info(s->d, p, &info);
        s->groups = cm_fold_groups_new(s->d, p);
        s->round++;
        for (int i = info.first; i <= info.last && !trade_over(s, t); i++) {
            int64_t now[3];
            cm_design_node_folding(s->d, i, now);
            for (int k = 0; k < 3; k++) {
                int count;
                const int64_t *v = cm_design_fold_values(s->d, i, (cm_fold)k, &count);
                int at = 0;
                while (at < count && v[at] != now[k])
                    at++;
                if (at == count)
                    continue;
                if (at > 0)
                    trade_cost(s, t, (trade_move){.node = i, .part = p, .which = (cm_fold)k, .value = v[at - 1]});
                if (at + 1 < count)
                    trade_cost(s, t, (trade_move){.node = i, .part = p, .which = (cm_fold)k, .value = v[at + 1]});
            }
        }
        cm_fold_groups_free(s->groups);
        s->groups = NULL;
    }
}

/* The moves a round would cost, counted without costing them. */
static double trade_round_size(const cm_design *d)
{
    double moves = 0;
    for (int i = 0; i < cm_design_node_count(d); i++)
        for (int k = 0; k < 3; k++) {
            int count;
            cm_design_fold_values(d, i, (cm_fold)k, &count);
            moves += count > 1 ? 2 : 0;
        }
    return moves * cm_design_node_count(d);
}

/* How much of each resource partition `part` is over the board's after move a; false
 * when none is. */
static bool trade_overrun(const cm_design *d, const trade_move *a, int64_t over[5])
{
    const cm_resources *max = cm_design_limits(d);
    const int64_t r[5] = {a->res.dsp, a->res.bram18, a->res.uram, a->res.lut, a->res.ff};
    const int64_t m[5] = {max->dsp, max->bram18, max->uram, max->lut, max->ff};
    bool any = false;
    for (int k = 0; k < 5; k++) {
        over[k] = r[k] > m[k] ? r[k] - m[k] : 0;
        any |= over[k] > 0;
    }
    return any;
}

/* Whether move b frees at least `over` of each resource of its partition (now `now`). */
static bool trade_frees(const trade_move *b, const cm_resources *now, const int64_t over[5])
{
    const int64_t r[5] = {b->res.dsp, b->res.bram18, b->res.uram, b->res.lut, b->res.ff};
    const int64_t n[5] = {now->dsp, now->bram18, now->uram, now->lut, now->ff};
    for (int k = 0; k < 5; k++)
        if (over[k] > 0 && n[k] - r[k] < over[k])
            return false;
    return true;
}

static int by_estimate(const void *x, const void *y)
{
    const trade_pair *a = x, *b = y;
    if (a->estimate != b->estimate)
        return a->estimate < b->estimate ? -1 : 1;
    return a->a != b->a ? (a->a < b->a ? -1 : 1) : (a->b > b->b) - (a->b < b->b);
}

/* The pairs worth trying: each move that lowers the cost but overruns its partition,
 * with the move of another node that frees the overrun at the least cost; sorted by
 * the estimate. Returns how many (those with an estimate below the cost). */
static size_t trade_pairs(rule_search *s, const trade_state *t, double cost, trade_pair **out)
{
    trade_pair *pairs = malloc((t->n > 0 ? t->n : 1) * sizeof *pairs); /* at most one a move */
    size_t n = 0;
    for (size_t a = 0; pairs && a < t->n; a++) {
        const trade_move *ma = &t->moves[a];
        int64_t over[5];
        if (ma->bad == 0 || ma->cost >= cost || !trade_overrun(s->d, ma, over))
            continue;
        cm_partition_info info;
        cm_design_partition_info(s->d, ma->part, &info);
        size_t best = SIZE_MAX;
        for (size_t b = 0; b < t->n; b++) {
            const trade_move *mb = &t->moves[b];
            if (mb->part != ma->part || mb->node == ma->node || mb->bad > 0 ||
                !trade_frees(mb, &info.res, over))
                continue;
            if (best == SIZE_MAX || mb->cost < t->moves[best].cost)
                best = b;
        }
        if (best == SIZE_MAX)
            continue;
        const double estimate = (ma->cost - cost) + (t->moves[best].cost - cost);
        if (estimate >= 0)
            continue;
        pairs[n++] = (trade_pair){(int)a, (int)best, estimate};
    }
    if (n > 1)
        qsort(pairs, n, sizeof *pairs, by_estimate);
    *out = pairs;
    return n;
}

/* Applies moves a and then b (b may be NULL); keeps them when the design stays feasible
 * and its cost falls below `cost` by more than a tie. */
static bool trade_take(rule_search *s, const trade_move *a, const trade_move *b, double cost)
{
    const bool journal = trial_begin(s, a->part);
    const bool ok = trade_apply(s->d, a) && (!b || trade_apply(s->d, b)) &&
                    violations(s->d) == 0 && cm_design_cost(s->d) < cost * (1.0 - RULE_TIME_TIE);
    trial_end(s, a->part, journal, ok);
    return ok;
}

/* One round: true when a move or a pair was taken. */
static bool trade_round(rule_search *s, trade_state *t)
{
    const double cost = cm_design_cost(s->d);
    trade_moves(s, t);
    if (trade_over(s, t))
        return false;
    size_t best = SIZE_MAX;
    for (size_t m = 0; m < t->n; m++)
        if (t->moves[m].bad == 0 && t->moves[m].cost < cost * (1.0 - RULE_TIME_TIE) &&
            (best == SIZE_MAX || t->moves[m].cost < t->moves[best].cost))
            best = m;
    if (best != SIZE_MAX && trade_take(s, &t->moves[best], NULL, cost))
        return true;
    trade_pair *pairs;
    const size_t n = trade_pairs(s, t, cost, &pairs);
    bool taken = false;
    for (size_t k = 0; k < n && k < RULE_TRADE_PAIRS && !taken && !trade_over(s, t); k++)
        taken = trade_take(s, &t->moves[pairs[k].a], &t->moves[pairs[k].b], cost);
    free(pairs);
    return taken;
}

static void trade_phase(rule_search *s, cm_progress *bar)
{
    if (s->inc_bad != 0 || stopped(s))
        return;
    cm_design_point_restore(s->d, s->incumbent);
    const uint64_t before = cm_design_evaluations(s->d) - s->work_from;
    trade_state t = {.evals_limit = cm_design_evaluations(s->d) + RULE_TRADE_GROWTH * before};
    while (!trade_over(s, &t)) {
        const double left = RULE_TRADE_WORK - t.work;
        if (trade_round_size(s->d) > left / 4 || !trade_round(s, &t))
            break;
        cm_progress_update(bar, 1.0, "trading");
    }
    free(t.moves);
    note_point(s);
}

static void report(const rule_search *s, cm_optimise_result *r)
{
    r->evaluations += s->tried;
    r->stopped_early = s->out_of_budget || s->out_of_time;
    if (s->out_of_time)
        snprintf(r->note, sizeof r->note, "the time limit stopped the rule optimiser early");
    else if (s->out_of_budget && s->budget != UINT64_MAX)
        snprintf(r->note, sizeof r->note,
                 "the budget of %llu design points stopped the rule optimiser early",
                 (unsigned long long)s->budget);
    else if (s->out_of_budget)
        snprintf(r->note, sizeof r->note,
                 "the budget of %llu node costings stopped the rule optimiser early",
                 (unsigned long long)s->work_budget);
}

cm_status cm_optimise_rule(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                           cm_error *err)
{
    rule_search s = {.d = d, .inc_bad = INT_MAX};
    int n = cm_design_node_count(d);
    s.incumbent = cm_design_point_new(d);
    const size_t count = n > 0 ? (size_t)n : 1;
    s.fold_before = malloc(3 * count * sizeof *s.fold_before);
    s.fold_best = malloc(3 * count * sizeof *s.fold_best);
    s.sorted = calloc(count, sizeof *s.sorted);
    s.n_sorted = calloc(count, sizeof *s.n_sorted);
    s.blocked = calloc(count, sizeof *s.blocked);
    s.seen = calloc(RULE_SEEN_SLOTS, sizeof *s.seen);
    s.budget = o->max_points > 0 ? o->max_points : UINT64_MAX;
    s.work_budget = o->max_points > 0 ? UINT64_MAX : CM_OPTIMISE_RULE_WORK;
    s.work_from = cm_design_evaluations(d);
    if (o->time_limit_s > 0)
        s.deadline = cm_seconds_now() + o->time_limit_s;
    cm_status st = s.incumbent && s.fold_before && s.fold_best &&
                           s.sorted && s.n_sorted && s.blocked && s.seen
                       ? CM_OK
                       : cm_error_nomem(err);
    if (st != CM_OK) {
        rule_free(&s, n);
        return st;
    }
    if (proven_infeasible(&s, r)) {
        if (cm_design_options_of(d)->reconfiguration)
            cm_design_split_all(d);
        r->proven_infeasible = true;
        r->evaluations += s.tried;
        rule_free(&s, n);
        return CM_OK;
    }
    cm_progress bar;
    cm_progress_init(&bar, o->progress, "rule");
    first_phase(&s, &bar);
    partition_phase(&s, &bar);
    trade_phase(&s, &bar);
    cm_design_point_restore(d, s.incumbent);
    cm_progress_done(&bar);
    report(&s, r);
    rule_free(&s, n);
    return CM_OK;
}
