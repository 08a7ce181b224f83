/* The exact optimiser's view of the design: every node's valid configurations with
 * their costs (from the design's memoised cost model), with dominated ones marked so
 * that segments can drop them, and the per-node figures behind the cheap segment
 * bounds. Also the few rules the integer program must share with the design: the
 * edge rule, and eq. 7 as the design evaluates it. */
#include "optimise/exact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

#define EX_EDGE_FLAGS (CM_HD_INTER | CM_HD_DIVISIBLE)

bool ex_compatible(unsigned flags, int64_t a, int64_t b)
{
    if ((flags & CM_HD_INTER) && a != b)
        return false;
    if (flags & CM_HD_DIVISIBLE) {
        int64_t hi = a > b ? a : b, lo = a > b ? b : a;
        return lo > 0 && hi % lo == 0;
    }
    return true;
}

int64_t ex_res_kind(const cm_resources *r, int k)
{
    const int64_t v[EX_RESOURCES] = {r->dsp, r->bram18, r->uram, r->lut, r->ff};
    return v[k];
}

static bool res_eq(const cm_resources *a, const cm_resources *b)
{
    return a->dsp == b->dsp && a->bram18 == b->bram18 && a->uram == b->uram && a->lut == b->lut &&
           a->ff == b->ff;
}

/* Whether x's first-frame terms are each no worse than y's (the partition's first frame
 * grows with every one of them, and shrinks with the off-chip beat), and whether one
 * is better. */
static bool timing_no_worse(const cm_block_timing *x, const cm_block_timing *y, bool *better)
{
    const double xs[8] = {x->fill_words, x->fill_cycles, x->head_cycles, x->start_words,
                          x->start_cycles, x->rest_cycles, x->tail_cycles, -x->beat_words};
    const double ys[8] = {y->fill_words, y->fill_cycles, y->head_cycles, y->start_words,
                          y->start_cycles, y->rest_cycles, y->tail_cycles, -y->beat_words};
    for (int k = 0; k < 8; k++) {
        if (xs[k] > ys[k])
            return false;
        *better |= xs[k] < ys[k];
    }
    return true;
}

/* Whether configuration x dominates y: same interface where an edge constrains it,
 * no worse in cycles, every first-frame term and every resource, and better in one (or,
 * when equal in all, earlier in the list, so that exactly one of a set of equals
 * survives). */
static bool dominates(const ex_config *x, int ix, const ex_config *y, int iy, bool in_keyed,
                      bool out_keyed)
{
    if ((in_keyed && x->in != y->in) || (out_keyed && x->out != y->out))
        return false;
    bool better = false;
    if (x->cycles > y->cycles || !timing_no_worse(&x->timing, &y->timing, &better) ||
        !cm_resources_fit(&x->res, &y->res))
        return false;
    if (better || x->cycles < y->cycles || !res_eq(&x->res, &y->res))
        return true;
    return ix < iy;
}

/* Records, for each configuration, the slowest configuration dominating it. */
static void mark_dominated(ex_node *en, bool in_keyed, bool out_keyed)
{
    for (int c = 0; c < en->n_cfg; c++) {
        ex_config *y = &en->cfg[c];
        y->dom_cycles = -1.0;
        for (int k = 0; k < en->n_cfg; k++)
            if (k != c && dominates(&en->cfg[k], k, y, c, in_keyed, out_keyed) &&
                en->cfg[k].cycles > y->dom_cycles)
                y->dom_cycles = en->cfg[k].cycles;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static cm_status collect_out_values(ex_node *en, cm_error *err)
{
    en->out_vals = malloc((size_t)(en->n_cfg > 0 ? en->n_cfg : 1) * sizeof *en->out_vals);
    if (!en->out_vals)
        return cm_error_nomem(err);
    for (int c = 0; c < en->n_cfg; c++)
        en->out_vals[c] = en->cfg[c].out;
    qsort(en->out_vals, (size_t)en->n_cfg, sizeof *en->out_vals, cmp_i64);
    int k = 0;
    for (int c = 0; c < en->n_cfg; c++)
        if (k == 0 || en->out_vals[k - 1] != en->out_vals[c])
            en->out_vals[k++] = en->out_vals[c];
    en->n_out_vals = k;
    return CM_OK;
}

/* The largest fraction of the board any one resource of r takes. */
static double worst_ratio(const cm_resources *r, const cm_resources *max)
{
    double worst = 0.0;
    for (int k = 0; k < EX_RESOURCES; k++) {
        int64_t use = ex_res_kind(r, k), have = ex_res_kind(max, k);
        if (use > 0)
            worst = fmax(worst, have > 0 ? (double)use / (double)have : INFINITY);
    }
    return worst;
}

/* Appends one folding if it obeys the intra rule and fits the board on its own (a
 * configuration that does not can appear in no feasible design). */
static void add_config(ex_problem *p, int i, ex_node *en, const int64_t f[3])
{
    const cm_hd_node *hn = &p->d->hd.nodes[i];
    if ((hn->flags & CM_HD_INTRA) && f[0] != f[1])
        return;
    ex_config c = {.in = f[0], .out = f[1], .kernel = f[2]};
    cm_block_cost cost;
    cm_design_node_block_cost(p->d, i, f, &cost);
    c.cycles = cost.cycles;
    c.timing = cost.timing;
    c.res = cost.res;
    p->evaluations++;
    cm_resources_min(&en->min_res, &c.res);
    double ratio = worst_ratio(&c.res, &p->d->limits);
    if (ratio < en->closest_ratio) {
        en->closest_ratio = ratio;
        en->closest = c.res;
    }
    if (!cm_resources_fit(&c.res, &p->d->limits))
        return;
    if (c.cycles < en->fast_alone)
        en->fast_alone = c.cycles;
    const cm_depth_terms dt = cm_design_depth_terms(&cost);
    c.slowest = dt.slowest;
    en->least_before = fmin(en->least_before, dt.before);
    en->least_after = fmin(en->least_after, dt.after);
    cm_resources_min(&en->min_fit, &c.res);
    en->cfg[en->n_cfg++] = c;
}

/* The node's least resources as a staircase over its configurations' cycles, so that
 * ex_time_floor's probe costs a search a node instead of a pass over its configurations
 * (the cut graph's set-up asks it of every segment: EfficientNet-B0's 36,426 for
 * fpgaConvNet on a U250 took more than 30 s on one thread). */
static cm_status steps_init(ex_node *en, cm_error *err)
{
    cm_res_point *by = malloc(((size_t)en->n_cfg + 1) * sizeof *by);
    if (!by)
        return cm_error_nomem(err);
    for (int c = 0; c < en->n_cfg; c++)
        by[c] = (cm_res_point){en->cfg[c].cycles, en->cfg[c].res};
    const cm_status st = cm_res_staircase_build(&en->steps, by, en->n_cfg, err);
    free(by);
    return st;
}

static bool in_keyed(const cm_design *d, int i)
{
    const cm_hd_node *hn = &d->hd.nodes[i];
    for (int k = 0; k < hn->n_pred; k++)
        if (d->hd.nodes[hn->pred[k]].flags & EX_EDGE_FLAGS)
            return true;
    return false;
}

static cm_status node_init(ex_problem *p, int i, cm_error *err)
{
    const cm_hd_node *hn = &p->d->hd.nodes[i];
    ex_node *en = &p->nodes[i];
    const cm_hd_values *v = hn->fold;
    size_t total = (size_t)v[0].count * (size_t)v[1].count * (size_t)v[2].count;
    en->cfg = malloc((total > 0 ? total : 1) * sizeof *en->cfg);
    if (!en->cfg)
        return cm_error_nomem(err);
    en->flags = hn->flags & EX_EDGE_FLAGS;
    en->fast_alone = en->closest_ratio = en->least_before = en->least_after = INFINITY;
    en->min_res = (cm_resources){INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    en->min_fit = en->min_res;
    for (int a = 0; a < v[0].count; a++)
        for (int b = 0; b < v[1].count; b++)
            for (int k = 0; k < v[2].count; k++)
                add_config(p, i, en, (int64_t[3]){v[0].v[a], v[1].v[b], v[2].v[k]});
    mark_dominated(en, in_keyed(p->d, i), en->flags && hn->n_succ > 0);
    cm_status st = steps_init(en, err);
    return st == CM_OK ? collect_out_values(en, err) : st;
}

/* The distinct cycle counts of all the nodes' configurations (total of them). */
static cm_status levels_init(ex_problem *p, size_t total, cm_error *err)
{
    p->levels = malloc((total ? total : 1) * sizeof *p->levels);
    if (!p->levels)
        return cm_error_nomem(err);
    size_t n = 0;
    for (int i = 0; i < p->n; i++)
        for (int c = 0; c < p->nodes[i].n_cfg; c++)
            p->levels[n++] = p->nodes[i].cfg[c].cycles;
    p->n_levels = ex_sort_distinct(p->levels, (int)n);
    return CM_OK;
}

cm_status ex_problem_init(ex_problem *p, cm_design *d, double deadline, double setup_grace,
                          cm_error *err)
{
    memset(p, 0, sizeof *p);
    p->d = d;
    p->n = d->hd.n_nodes;
    p->batch = d->opt.batch;
    p->clock_hz = d->clock_hz;
    p->reconf_s = d->board.reconfiguration_s;
    p->has_depth = true; /* every backend's first frame (design/first_frame.c) */
    p->deadline = deadline;
    p->setup_grace = fmax(setup_grace, deadline);
    p->warm_ub = INFINITY;
    p->nodes = calloc((size_t)p->n, sizeof *p->nodes);
    if (!p->nodes)
        return cm_error_nomem(err);
    size_t total = 0;
    for (int i = 0; i < p->n; i++) {
        if (i % 256 == 255 && cm_seconds_now() >= p->setup_grace) {
            p->init_stopped = true;
            return CM_OK;
        }
        cm_status st = node_init(p, i, err);
        if (st != CM_OK)
            return st;
        total += (size_t)p->nodes[i].n_cfg;
    }
    return levels_init(p, total, err);
}

void ex_problem_free(ex_problem *p)
{
    if (p->nodes)
        for (int i = 0; i < p->n; i++) {
            free(p->nodes[i].cfg);
            free(p->nodes[i].out_vals);
            cm_res_staircase_free(&p->nodes[i].steps);
        }
    free(p->nodes);
    free(p->levels);
    p->nodes = NULL;
    p->levels = NULL;
}

void ex_segment_init(ex_problem *p, int first, int end, ex_segment *s)
{
    int cuts[3], n = 0;
    if (first > 0)
        cuts[n++] = 0;
    cuts[n++] = first;
    if (end < p->n)
        cuts[n++] = end;
    cm_design_set_partitions(p->d, cuts, n, NULL);
    const cm_part *part = &p->d->parts[first > 0 ? 1 : 0];
    s->first = first;
    s->end = end;
    s->io_bits = part->io_bits;
    s->chain = part->chain;
}

double ex_span_share(double k, double words, double burst)
{
    return k > burst && words > burst ? fmin((k - burst) / (words - burst), 1.0) : 0.0;
}

double ex_cost_floor(const ex_problem *p, const ex_segment *s, double t_min)
{
    const int first = s->first, n = s->end - s->first;
    if (!p->has_depth || n <= 0)
        return p->batch * t_min;
    /* into[i]: the longest path of "before" terms ending at a producer of node i;
     * out_of[i]: of "after" terms starting at a consumer */
    double *into = malloc(2 * (size_t)n * sizeof *into);
    if (!into)
        return p->batch * t_min; /* the bound without the first frame */
    double *out_of = into + n;
    const cm_hd_node *nodes = p->d->hd.nodes;
    for (int i = first; i < s->end; i++) {
        double v = 0.0;
        for (int k = 0; k < nodes[i].n_pred; k++) {
            const int q = nodes[i].pred[k];
            if (q >= first)
                v = fmax(v, into[q - first] + p->nodes[q].least_before);
        }
        into[i - first] = v;
    }
    double least = INFINITY;
    for (int i = s->end - 1; i >= first; i--) {
        double v = 0.0;
        for (int k = 0; k < nodes[i].n_succ; k++) {
            const int q = nodes[i].succ[k];
            if (q < s->end)
                v = fmax(v, out_of[q - first] + p->nodes[q].least_after);
        }
        out_of[i - first] = v;
        const ex_node *en = &p->nodes[i];
        for (int c = 0; c < en->n_cfg; c++) {
            const ex_config *x = &en->cfg[c];
            if (x->cycles < t_min)
                continue;
            const double depth = into[i - first] + x->slowest + v;
            least = fmin(least, p->batch * x->cycles + fmax(depth, 0.0));
        }
    }
    free(into);
    return least;
}

bool ex_bandwidth_ok(const ex_problem *p, const ex_segment *s, double cycles)
{
    /* The expression of cm_design_part_fits, term for term, so that rounding agrees. */
    const cm_design *d = p->d;
    return s->io_bits * d->clock_hz < d->board.bandwidth_gbps * 8e9 * cycles;
}

bool ex_config_kept(const ex_problem *p, const ex_segment *s, int n, int c)
{
    const ex_config *x = &p->nodes[n].cfg[c];
    if (x->dom_cycles < 0)
        return true;
    /* A dominated configuration is only needed as the slow node that keeps a
     * memory-bound segment legal, and only when none of its dominators can be. */
    return ex_bandwidth_ok(p, s, x->cycles) && !ex_bandwidth_ok(p, s, x->dom_cycles);
}

int ex_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int ex_sort_distinct(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, ex_cmp_double);
    int u = 0;
    for (int j = 0; j < n; j++)
        if (u == 0 || v[j] != v[u - 1])
            v[u++] = v[j];
    return u;
}

/* Whether, at interval t, each resource's sum of the nodes' cheapest configurations
 * no slower than t fits the board (each resource on its own: a relaxation). */
static bool floor_fits(const ex_problem *p, const ex_segment *s, const uint8_t *keep, double t)
{
    cm_resources sum = {0};
    if (!keep) {
        for (int i = s->first; i < s->end; i++) {
            const ex_node *en = &p->nodes[i];
            const cm_resources *least = cm_res_staircase_at_most(&en->steps, t);
            if (!least)
                return false;
            cm_resources_add(&sum, least);
        }
        return cm_resources_fit(&sum, &p->d->limits);
    }
    int k = 0;
    for (int i = s->first; i < s->end; i++) {
        const ex_node *en = &p->nodes[i];
        cm_resources least = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
        bool any = false;
        for (int c = 0; c < en->n_cfg; c++, k++)
            if ((!keep || keep[k]) && en->cfg[c].cycles <= t) {
                cm_resources_min(&least, &en->cfg[c].res);
                any = true;
            }
        if (!any)
            return false;
        cm_resources_add(&sum, &least);
    }
    return cm_resources_fit(&sum, &p->d->limits);
}

double ex_time_floor(const ex_problem *p, const ex_segment *s, const uint8_t *keep)
{
    /* Feasibility only grows with t and changes only at the segment's own cycle counts,
     * all of them among the network's levels: bisect over those (no sort per segment:
     * the cut graph's set-up asks this of every segment). */
    double found = INFINITY;
    int lo = 0, hi = p->n_levels;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (floor_fits(p, s, keep, p->levels[mid])) {
            found = p->levels[mid];
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return found;
}

/* ---- the first frame's floor with the board's resources priced ---- */

/* How a node's first output (F) or last output (L) follows from the time before it
 * (first_frame.c's recurrence, each a lower bound at every configuration): from its
 * producers' first outputs (F: its own fill and head; L: its start and rest), from their
 * last outputs (L: its tail, or its rest where its slowest stage waits for the whole
 * input), from the share of its input's span after which it fills (F: and its head) or
 * starts (L: and its rest), from off-chip memory at its beat (F: the share of the stream
 * it fills on, and head; L: the whole stream and tail), or from the input's last word of
 * a late record's source (L: the record's work at its cycles). */
enum { PF_FF, PF_LF, PF_MF, PF_FL, PF_LL, PF_ML, PF_RL, PF_TERMS };

typedef struct pf_row {
    int first, end;
    int *off;        /* per node of the row: its configurations' first index, and the end */
    double *term;    /* PF_TERMS per configuration */
    double *res;     /* EX_RESOURCES per configuration */
    uint8_t *flags;  /* per node: PF_MEMORY, PF_INSIDE */
    double *share;   /* per configuration: the share of its input's span after which it
                      * has its first output, and after which it starts (word_at) */
    double *lf, *ll; /* per node: the longest priced path to its F and to its L */
    double *lz;      /* per node: to its input's last word (its producers' L) */
    double *priced;  /* per configuration: its resources at the pass's prices */
    int *rec_off;    /* per node: its late records' first index, and the end */
    int *rec_src;    /* per record: its source, in the row */
    double *rec_work; /* and the share of the node's cycles after the source's input */
} pf_row;

enum { PF_MEMORY = 1, PF_INSIDE = 2 };


static void pf_terms(const ex_config *c, double words, double burst, double *term)
{
    const cm_block_timing *t = &c->timing;
    const double src = words / (t->beat_words > 0 ? t->beat_words : 1.0);
    term[PF_FF] = t->fill_cycles + t->head_cycles;
    term[PF_LF] = t->head_cycles;
    term[PF_MF] = ex_span_share(t->fill_words, words, burst) * src + t->head_cycles;
    term[PF_FL] = t->start_cycles + t->rest_cycles;
    term[PF_LL] = t->start_words >= words && words > burst ? fmax(t->rest_cycles, t->tail_cycles)
                                                           : t->tail_cycles;
    term[PF_ML] = src + t->tail_cycles;
    term[PF_RL] = t->rest_cycles;
}

static void pf_row_free(pf_row *r)
{
    free(r->off);
    free(r->term);
    free(r->res);
    free(r->flags);
    free(r->share);
    free(r->lf);
    free(r->priced);
    free(r->rec_off);
    free(r->rec_src);
    free(r->rec_work);
}

/* The late records (first_frame.c) that bound each node's last output, as exact's
 * program has them (add_late_rows): L >= the source's input's last word + work times
 * the node's cycles, where that input has a producer in the row. */
static cm_status pf_records_init(const ex_problem *p, pf_row *r, cm_error *err)
{
    const int n = r->end - r->first;
    int cap = 1, total = 0;
    for (int i = r->first; i < r->end; i++) {
        const int c = cm_design_late_cap(p->d, i);
        cap = c > cap ? c : cap;
        total += c;
    }
    double *late = calloc((size_t)n * CM_LATE_STRIDE + 1, sizeof *late);
    cm_late_rec *recs = malloc((size_t)cap * sizeof *recs);
    r->rec_off = malloc(((size_t)n + 1) * sizeof *r->rec_off);
    r->rec_src = malloc(((size_t)total + 1) * sizeof *r->rec_src);
    r->rec_work = malloc(((size_t)total + 1) * sizeof *r->rec_work);
    cm_status st = late && recs && r->rec_off && r->rec_src && r->rec_work ? CM_OK
                                                                           : cm_error_nomem(err);
    if (st == CM_OK)
        r->rec_off[0] = 0;
    for (int i = 0; st == CM_OK && i < n; i++) {
        const int count = cm_design_late_records(p->d, r->first, r->first + i, late, recs);
        r->rec_off[i + 1] = r->rec_off[i];
        for (int k = 0; k < count; k++) {
            const int src = recs[k].source - r->first;
            if (recs[k].work > 0 && src >= 0 && (r->flags[src] & PF_INSIDE)) {
                r->rec_src[r->rec_off[i + 1]] = src;
                r->rec_work[r->rec_off[i + 1]++] = recs[k].work;
            }
        }
        cm_design_late_keep(late + (size_t)i * CM_LATE_STRIDE, recs, count);
    }
    free(late);
    free(recs);
    return st;
}

static cm_status pf_row_init(const ex_problem *p, int first, int end, pf_row *r, cm_error *err)
{
    const int n = end - first;
    memset(r, 0, sizeof *r);
    r->first = first;
    r->end = end;
    r->off = malloc(((size_t)n + 1) * sizeof *r->off);
    r->flags = calloc((size_t)n + 1, sizeof *r->flags);
    r->lf = malloc(3 * ((size_t)n + 1) * sizeof *r->lf);
    if (!r->off || !r->flags || !r->lf)
        return cm_error_nomem(err);
    r->ll = r->lf + n + 1;
    r->lz = r->ll + n + 1;
    r->off[0] = 0;
    for (int i = 0; i < n; i++)
        r->off[i + 1] = r->off[i] + p->nodes[first + i].n_cfg;
    r->term = malloc(((size_t)r->off[n] + 1) * PF_TERMS * sizeof *r->term);
    r->res = malloc(((size_t)r->off[n] + 1) * EX_RESOURCES * sizeof *r->res);
    r->priced = malloc(((size_t)r->off[n] + 1) * sizeof *r->priced);
    r->share = malloc(2 * ((size_t)r->off[n] + 1) * sizeof *r->share);
    if (!r->term || !r->res || !r->priced || !r->share)
        return cm_error_nomem(err);
    const cm_hd_node *nodes = p->d->hd.nodes;
    for (int i = 0; i < n; i++) {
        const cm_hd_node *hn = &nodes[first + i];
        const double words = hn->size_in > 0 ? (double)hn->size_in : 1.0;
        double burst = 1.0;
        uint8_t flags = hn->n_pred == 0 ? PF_MEMORY : 0;
        for (int k = 0; k < hn->n_pred; k++) {
            const int q = hn->pred[k];
            if (q < first) {
                flags |= PF_MEMORY;
            } else {
                flags |= PF_INSIDE;
                if (p->nodes[q].n_cfg > 0)
                    burst = fmax(burst, p->nodes[q].cfg[0].timing.burst_words);
            }
        }
        const ex_node *en = &p->nodes[first + i];
        for (int c = 0; c < en->n_cfg; c++) {
            const int k = r->off[i] + c;
            const cm_block_timing *t = &en->cfg[c].timing;
            pf_terms(&en->cfg[c], words, burst, &r->term[(size_t)k * PF_TERMS]);
            for (int kind = 0; kind < EX_RESOURCES; kind++)
                r->res[(size_t)k * EX_RESOURCES + kind] = (double)ex_res_kind(&en->cfg[c].res, kind);
            r->share[2 * (size_t)k] = ex_span_share(t->fill_words, words, burst);
            r->share[2 * (size_t)k + 1] = ex_span_share(t->start_words, words, burst);
        }
        r->flags[i] = flags;
    }
    return pf_records_init(p, r, err);
}

/* One price vector's bound on every segment of the row, kept in out where higher: the
 * longest path of priced terms, plus every node's cheapest priced resources, less the
 * board's price. A node's L is at least each producer's (no term is negative), so the
 * longest path to a node leaving [first, i + 1) is the most of every L there. */
static void pf_pass(const ex_problem *p, pf_row *r, const double *lam, double *out)
{
    const cm_hd_node *nodes = p->d->hd.nodes;
    double total = 0.0, frame = 0.0;
    for (int kind = 0; kind < EX_RESOURCES; kind++)
        total -= lam[kind] * (double)ex_res_kind(&p->d->limits, kind);
    for (int i = r->first; i < r->end; i++) {
        const int at = i - r->first;
        double best[PF_TERMS], cheapest = INFINITY;
        for (int o = 0; o < PF_TERMS; o++)
            best[o] = INFINITY;
        for (int k = r->off[at]; k < r->off[at + 1]; k++) {
            const double *res = &r->res[(size_t)k * EX_RESOURCES];
            const double *term = &r->term[(size_t)k * PF_TERMS];
            double priced = 0.0;
            for (int kind = 0; kind < EX_RESOURCES; kind++)
                priced += lam[kind] * res[kind];
            r->priced[k] = priced;
            cheapest = fmin(cheapest, priced);
            for (int o = 0; o < PF_TERMS; o++)
                best[o] = fmin(best[o], term[o] + priced);
        }
        total += cheapest;
        double aF = 0.0, aL = 0.0;
        for (int k = 0; k < nodes[i].n_pred; k++) {
            const int q = nodes[i].pred[k] - r->first;
            if (q >= 0) {
                aF = fmax(aF, r->lf[q]);
                aL = fmax(aL, r->ll[q]);
            }
        }
        const uint8_t fl = r->flags[at];
        double F = aF + best[PF_FF] - cheapest;
        if (fl & PF_MEMORY)
            F = fmax(F, best[PF_MF] - cheapest);
        double L = aF + best[PF_FL] - cheapest;
        if (fl & PF_INSIDE) {
            /* after a share of the input's span: a weighted mean of two paths, on which
             * each node's price still counts once */
            double fill = INFINITY, start = INFINITY;
            for (int k = r->off[at]; k < r->off[at + 1]; k++) {
                const double *term = &r->term[(size_t)k * PF_TERMS];
                const double *share = &r->share[2 * (size_t)k];
                fill = fmin(fill, share[0] * (aL - aF) + term[PF_LF] + r->priced[k]);
                start = fmin(start, share[1] * (aL - aF) + term[PF_RL] + r->priced[k]);
            }
            F = fmax(F, aF + fill - cheapest);
            L = fmax(L, fmax(aL + best[PF_LL], aF + start) - cheapest);
        }
        L = fmax(L, F);
        if (fl & PF_MEMORY)
            L = fmax(L, best[PF_ML] - cheapest);
        r->lz[at] = aL; /* before the records: a node's own rows are one */
        for (int e = r->rec_off[at]; e < r->rec_off[at + 1]; e++) {
            double late = INFINITY;
            for (int k = r->off[at]; k < r->off[at + 1]; k++)
                late = fmin(late, r->rec_work[e] * p->nodes[i].cfg[k - r->off[at]].cycles +
                                      r->priced[k]);
            L = fmax(L, r->lz[r->rec_src[e]] + late - cheapest);
        }
        r->lf[at] = F;
        r->ll[at] = L;
        frame = fmax(frame, L);
        out[at] = fmax(out[at], total + frame);
    }
}

cm_status ex_priced_floors(const ex_problem *p, int first, int end, double *out, cm_error *err)
{
    pf_row r;
    cm_status st = pf_row_init(p, first, end, &r, err);
    if (st != CM_OK) {
        pf_row_free(&r);
        return st;
    }
    const int n = end - first;
    double scale = INFINITY, most = 0.0;
    double demand[EX_RESOURCES] = {0}; /* the most each node can take, summed */
    for (int i = first; i < end; i++) {
        out[i - first] = 0.0;
        scale = fmin(scale, p->nodes[i].fast_alone);
        for (int c = 0; c < p->nodes[i].n_cfg; c++)
            most = fmax(most, p->nodes[i].cfg[c].cycles);
        for (int kind = 0; kind < EX_RESOURCES; kind++) {
            double top = 0.0;
            for (int c = 0; c < p->nodes[i].n_cfg; c++)
                top = fmax(top, (double)ex_res_kind(&p->nodes[i].cfg[c].res, kind));
            demand[kind] += top;
        }
    }
    if (!(scale > 0) || isinf(scale))
        scale = 1.0;
    /* A whole board's price in cycles, by octaves from the fastest node's cycles to the
     * slowest's times the nodes, on each resource of which the row's nodes could take
     * more than the board has (priced alone) and on all of those at once: a resource is
     * priced where it binds, whatever its least share (DSPs on DenseNet-121 for FINN,
     * a U250: 0 at the least, and the design's limit). */
    const int steps = (int)ceil(log2(fmax(most * n / scale, 1.0))) + 1;
    bool used[EX_RESOURCES];
    for (int kind = 0; kind < EX_RESOURCES; kind++) {
        const double board = (double)ex_res_kind(&p->d->limits, kind);
        used[kind] = board > 0 && demand[kind] > board;
    }
    for (int dir = 0; dir <= EX_RESOURCES; dir++) {
        if (dir < EX_RESOURCES && !used[dir])
            continue;
        for (int e = 0; e <= steps; e++) {
            double lam[EX_RESOURCES] = {0};
            for (int kind = 0; kind < EX_RESOURCES; kind++)
                if (used[kind] && (dir == EX_RESOURCES || dir == kind))
                    lam[kind] = scale * ldexp(1.0, e) / (double)ex_res_kind(&p->d->limits, kind);
            pf_pass(p, &r, lam, out);
        }
    }
    pf_row_free(&r);
    return CM_OK;
}
