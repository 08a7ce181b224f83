/* The exact latency-driven search (--optimiser exact): the lowest latency of eq. 7 over
 * the cut vectors and the conv blocks' (N, m, bank), the other blocks' streams by the
 * rule of evaluate.c, with a proven lower bound.
 *
 * The rule search's point is the first incumbent. Then every cut vector in turn: a
 * lower bound from its relaxed step lists (exact_cut.c); below the incumbent / (1 + gap)
 * a depth-first branch and bound over its conv blocks, each block's candidates tried in
 * order of their bound, every complete assignment costed by cm_lat_evaluate. The bound
 * reported is the least of the incumbent and of everything set aside (a pruned cut
 * vector's or branch's bound, a costed point's latency), and of a bound over the whole
 * space for whatever the time limit left unexplored, so it holds at any stop. Cut
 * vectors are taken in order and ties keep the first point, so the result is
 * deterministic apart from where a time limit stops it. */
#include "latency/exact_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

/* Beyond 2^this cut vectors the search does not enumerate them: the bound is then the
 * whole-space one. */
#define EXACT_MAX_FREE_CUTS 24
/* Rounding of the bound's sums against evaluate.c's. */
#define EXACT_ROUNDING 1e-9

typedef struct exact {
    const cm_lat_net *net;
    const cm_lat_machine *m;
    const cm_latency_options *o;
    double prune_gap;    /* the gap, a hair tighter so that rounding cannot exceed it */
    double deadline;     /* 0: none */
    bool stopped;
    double incumbent;    /* INFINITY: nothing fits yet */
    double closed;       /* least bound of what was set aside */
    double weights_s;
    uint64_t evaluations;
    cm_lat_search_result *best;
    const bool *cut;     /* the cut vector being searched */
    int *order;          /* its conv blocks, in branching order */
} exact;

static bool out_of_time(exact *x)
{
    if (!x->stopped && x->deadline > 0 && cm_seconds_now() > x->deadline)
        x->stopped = true;
    return x->stopped;
}

static double threshold(const exact *x)
{
    return x->incumbent / (1.0 + x->prune_gap);
}

static void close_at(exact *x, double bound)
{
    x->closed = fmin(x->closed, bound);
}

/* ---- the incumbent ---- */

static cm_status keep(exact *x, const cm_lat_arch *a, const cm_lat_fold *f, double latency,
                      cm_error *err)
{
    cm_lat_search_result *r = x->best;
    size_t n = (size_t)a->n_blocks + 1;
    int *c = realloc(r->coarse, n * sizeof *c), *m = c ? realloc(r->macc, n * sizeof *m) : NULL;
    if (c)
        r->coarse = c;
    if (m)
        r->macc = m;
    int *k = m ? realloc(r->bank, n * sizeof *k) : NULL;
    if (!k)
        return cm_error_nomem(err);
    r->bank = k;
    memcpy(r->cut, x->cut, (size_t)x->net->n_weight * sizeof *r->cut);
    memcpy(r->coarse, f->coarse, n * sizeof *c);
    memcpy(r->macc, f->macc, n * sizeof *m);
    memcpy(r->bank, f->bank, n * sizeof *k);
    r->n_blocks = a->n_blocks;
    x->incumbent = latency;
    return CM_OK;
}

/* One cut vector's architecture, scratch and folding. */
typedef struct cut_state {
    cm_lat_arch a;
    cm_lat_eval e;
    cm_lat_fold f;
    cm_lx_cut lx;
} cut_state;

static void cut_state_free(cut_state *s)
{
    cm_lx_cut_free(&s->lx);
    cm_lat_eval_free(&s->e);
    free(s->f.coarse);
    free(s->f.macc);
    free(s->f.bank);
    cm_lat_arch_free(&s->a);
}

/* bounds: with the exact search's tables (exact_cut.c), not needed to cost one point */
static cm_status cut_state_init(exact *x, const bool *cut, bool bounds, cut_state *s,
                                cm_error *err)
{
    memset(s, 0, sizeof *s);
    cm_status st = cm_lat_arch_build(x->net, cut, x->o->input_folding, &s->a, err);
    if (st != CM_OK)
        return st;
    size_t n = (size_t)s->a.n_blocks + 1;
    s->f.coarse = calloc(n, sizeof(int));
    s->f.macc = calloc(n, sizeof(int));
    s->f.bank = calloc(n, sizeof(int));
    s->f.auto_coarse = true;
    st = s->f.coarse && s->f.macc && s->f.bank ? CM_OK : cm_error_nomem(err);
    if (st == CM_OK)
        st = cm_lat_eval_init(&s->a, &s->e, err);
    if (st == CM_OK && bounds)
        st = cm_lx_cut_init(x->net, x->m, &s->a, x->weights_s, &s->lx, err);
    if (st != CM_OK)
        cut_state_free(s);
    return st;
}

/* Costs a complete assignment with the model itself. */
static cm_status leaf(exact *x, cut_state *s, cm_error *err)
{
    for (int b = 0; b < s->a.n_blocks; b++)
        s->f.coarse[b] = s->f.macc[b] = s->f.bank[b] = 1;
    for (int i = 0; i < s->lx.n_blocks; i++) {
        const cm_lx_block *k = &s->lx.blocks[i];
        s->f.coarse[k->b] = k->N, s->f.macc[k->b] = k->m, s->f.bank[k->b] = k->bank;
    }
    x->evaluations++;
    cm_lat_evaluate(&s->a, x->m, &s->f, &s->e);
    if (!s->e.feasible)
        return CM_OK;
    close_at(x, s->e.latency_s);
    return s->e.latency_s < x->incumbent ? keep(x, &s->a, &s->f, s->e.latency_s, err) : CM_OK;
}

/* ---- branch and bound over one cut vector's conv blocks ---- */

typedef struct ranked {
    double bound;
    int index;
} ranked;

static int ranked_cmp(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->bound != b->bound)
        return a->bound < b->bound ? -1 : 1;
    return a->index - b->index;
}

/* The bound of each candidate of block blk; those below the threshold in *kept, ranked. */
static cm_status rank_cands(exact *x, cut_state *s, int blk, const cm_lx_cands *c, ranked *kept,
                            int *n_kept, cm_error *err)
{
    cm_status st = CM_OK;
    *n_kept = 0;
    for (int i = 0; st == CM_OK && i < c->n; i++) {
        double bound;
        cm_lx_assign(&s->lx, blk, c, i);
        st = cm_lx_bound(&s->lx, threshold(x), &bound, err);
        cm_lx_unassign(&s->lx, blk);
        if (bound < threshold(x))
            kept[(*n_kept)++] = (ranked){bound, i};
        else if (bound < INFINITY)
            close_at(x, bound);
    }
    qsort(kept, (size_t)*n_kept, sizeof *kept, ranked_cmp);
    return st;
}

static cm_status branch(exact *x, cut_state *s, int level, cm_error *err);

static cm_status descend(exact *x, cut_state *s, int level, const cm_lx_cands *c,
                         const ranked *kept, int n_kept, cm_error *err)
{
    const int blk = x->order[level];
    cm_status st = CM_OK;
    for (int i = 0; st == CM_OK && i < n_kept; i++) {
        if (kept[i].bound >= threshold(x) || out_of_time(x)) {
            close_at(x, kept[i].bound); /* the rest are no lower: ranked */
            break;
        }
        cm_lx_assign(&s->lx, blk, c, kept[i].index);
        st = branch(x, s, level + 1, err);
        cm_lx_unassign(&s->lx, blk);
    }
    return st;
}

static cm_status branch(exact *x, cut_state *s, int level, cm_error *err)
{
    if (level == s->lx.n_blocks)
        return leaf(x, s, err);
    cm_lx_cands c;
    cm_status st = cm_lx_candidates(&s->lx, x->order[level], &c, err);
    if (st != CM_OK)
        return st;
    ranked *kept = malloc(((size_t)c.n + 1) * sizeof *kept);
    int n_kept = 0;
    st = kept ? rank_cands(x, s, x->order[level], &c, kept, &n_kept, err) : cm_error_nomem(err);
    if (st == CM_OK)
        st = descend(x, s, level, &c, kept, n_kept, err);
    free(kept);
    cm_lx_cands_free(&c);
    return st;
}

static cm_status search_cut(exact *x, const bool *cut, cm_error *err)
{
    cut_state s;
    cm_status st = cut_state_init(x, cut, true, &s, err);
    if (st != CM_OK)
        return st;
    double root;
    x->cut = cut;
    x->order = malloc(((size_t)s.lx.n_blocks + 1) * sizeof *x->order);
    st = x->order ? cm_lx_bound(&s.lx, threshold(x), &root, err) : cm_error_nomem(err);
    for (int i = 0; x->order && i < s.lx.n_blocks; i++)
        x->order[i] = i;
    if (st == CM_OK && root >= threshold(x))
        close_at(x, root);
    else if (st == CM_OK)
        st = branch(x, &s, 0, err);
    free(x->order);
    x->order = NULL;
    cut_state_free(&s);
    return st;
}

/* ---- the whole space ---- */

/* Every point runs each conv layer's windows through at most the board's DSPs worth of
 * MACCs, over however many subgraphs: a bound on any cut vector. */
static double space_bound(const exact *x)
{
    double best = 0.0;
    for (int w = 0; w < x->net->n_weight; w++) {
        const cm_lat_layer *l = &x->net->l[x->net->weight_at[w]];
        const double kk = (double)l->kernel[0] * l->kernel[1], fpg = cm_lat_group_filters(l);
        double least = INFINITY;
        for (int m = 1; m <= kk; m++) {
            double N = fmin(fpg, floor((double)x->m->avail.dsp / m));
            if (N >= 1)
                least = fmin(least, ceil(fpg / N) * ceil(kk / m));
        }
        double cycles = (double)l->rows_out * l->cols_out * l->nin * least * x->m->batch;
        best = fmax(best, cycles / x->m->clock_hz);
    }
    return best;
}

static double all_weights_s(const exact *x)
{
    double words = 0.0;
    for (int w = 0; w < x->net->n_weight; w++) {
        const cm_lat_layer *l = &x->net->l[x->net->weight_at[w]];
        words += (double)(l->weights + l->biases);
    }
    return words * (x->m->word_bits / 8.0) / x->m->bw_bytes_s;
}

/* The latency of the rule search's point, the first incumbent. */
static cm_status seed_latency(exact *x, cm_error *err)
{
    cut_state s;
    cm_status st = cut_state_init(x, x->best->cut, false, &s, err);
    if (st != CM_OK)
        return st;
    s.f.auto_coarse = false; /* its streams are those the rule gave it */
    for (int b = 0; b < s.a.n_blocks; b++)
        s.f.coarse[b] = x->best->coarse[b], s.f.macc[b] = x->best->macc[b], s.f.bank[b] = x->best->bank[b];
    cm_lat_evaluate(&s.a, x->m, &s.f, &s.e);
    x->incumbent = s.e.feasible ? s.e.latency_s : INFINITY;
    cut_state_free(&s);
    return CM_OK;
}

static cm_status enumerate(exact *x, int free_cuts, bool *done, cm_error *err)
{
    bool *cut = calloc((size_t)x->net->n_weight, sizeof *cut);
    cm_status st = cut ? CM_OK : cm_error_nomem(err);
    uint64_t mask = 0;
    for (; st == CM_OK && mask < (1ull << free_cuts) && !out_of_time(x); mask++) {
        for (int w = 1; w <= free_cuts; w++)
            cut[w] = (mask >> (w - 1)) & 1;
        st = search_cut(x, cut, err);
    }
    *done = st == CM_OK && mask == (1ull << free_cuts) && !x->stopped;
    free(cut);
    return st;
}

static void report(exact *x, bool done, cm_lat_search_result *r)
{
    double bound = fmin(x->incumbent, x->closed);
    if (!done)
        bound = fmin(bound, space_bound(x));
    r->has_lower_bound = x->incumbent < INFINITY;
    r->lower_bound = r->has_lower_bound ? bound * (1.0 - EXACT_ROUNDING) : 0.0;
    r->optimal = r->has_lower_bound && x->incumbent <= bound * (1.0 + fmax(x->o->exact_gap, 0.0));
    r->stopped_by_budget = r->stopped_by_budget && !x->stopped; /* x: its deadline only */
    r->stopped_early = r->stopped_early || x->stopped;
    r->evaluations += x->evaluations;
}

cm_status cm_lat_exact(const cm_lat_net *net, const cm_lat_machine *m,
                       const cm_latency_options *o, cm_lat_search_result *r, cm_error *err)
{
    exact x = {.net = net, .m = m, .o = o, .best = r, .closed = INFINITY};
    double gap = o->exact_gap > 0 ? o->exact_gap : 0.0;
    x.prune_gap = fmax(0.0, gap - 1e-7);
    if (o->time_limit_s > 0)
        x.deadline = cm_seconds_now() + o->time_limit_s;
    cm_latency_options rule = *o;
    rule.search = CM_LATENCY_SEARCH_RULE;
    cm_status st = cm_lat_search(net, m, &rule, r, err);
    if (st != CM_OK)
        return st;
    x.weights_s = all_weights_s(&x);
    st = seed_latency(&x, err);
    const int free_cuts = o->weights_reloading ? net->n_weight - 1 : 0;
    bool done = false;
    if (st == CM_OK && free_cuts <= EXACT_MAX_FREE_CUTS)
        st = enumerate(&x, free_cuts, &done, err);
    if (st != CM_OK) {
        cm_lat_search_free(r);
        return st;
    }
    report(&x, done, r);
    return CM_OK;
}
