/* One cut vector for the exact search: lower bounds and candidates (exact_internal.h).
 *
 * Why the bounds hold (evaluate.c's model, one cut vector, every conv block assigned a
 * coarse N, MACCs m and bank size, the other blocks' streams by its rule):
 *  - a step's conv interval and depth depend on its block's N, m and its f_in only, and
 *    fall as N, m grow and as f_in falls; its memory interval is fixed by the cut and f_in;
 *  - a non-conv block gets at most the largest power of two <= min(channels, 64) of any
 *    layer on it (the rule only doubles below that cap), so its interval and depth at
 *    that many streams are lower bounds; pooling's resources are left out (>= 0);
 *  - a conv block's resources grow with N, m, the bank and the channels it is sized
 *    for (the largest N_in / f_in of its layers), so the least channels any bank gives
 *    and the smallest bank that gives a step its f_in bound the resources from below;
 *  - N and m only matter through ceil(v / N) and ceil(K^2 / m), so the breakpoints
 *    cover them, and a bank only through the f_in it gives, so the smallest bank of each
 *    f_in vector covers the banks;
 *  - the weights cost the same on any cut once there are several subgraphs.
 * A subgraph's time is (depth + II * batch) / clock with II the largest interval, so a
 * group of several conv steps needs all of them at or below its II at once: the least
 * II whose cheapest points, summed over its unassigned blocks, fit what is left. */
#include "latency/exact_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hw/fpgaconvnet_blocks.h"

/* ---- times of one step ---- */

static double sub_time(const cm_lx_cut *x, double depth, double ii)
{
    return (depth + ii * x->mach->batch) / x->mach->clock_hz;
}

static double mem_ii(const cm_lx_cut *x, int gi, const cm_lat_step *steps, int n, int fold,
                     int folds)
{
    cm_lat_sub s = {gi, fold, folds, n, steps};
    double in, out;
    cm_lat_sub_io(x->net, &s, &in, &out);
    return (in + out) / x->mach->bw_words;
}

static void nc_bound(const cm_lx_cut *x, const cm_lat_step *st, int folds, double *ii,
                     double *depth)
{
    cm_lat_entry e[2] = {{0.0, 1.0, 0.0, 1.0}, {0.0, 1.0, 0.0, 1.0}};
    cm_lat_step_entries(&x->net->l[st->layer], st->kind, folds, x->streams[st->block], 1, e,
                        depth);
    *ii = cm_lat_entry_ii(&e[0]);
}

static void conv_point(const cm_lx_cut *x, int layer, int folds, int N, int m, double *ii,
                       double *depth)
{
    cm_lat_entry e[2];
    cm_lat_step_entries(&x->net->l[layer], CM_LATENCY_CONV, folds, N, m, e, depth);
    *ii = fmax(cm_lat_entry_ii(&e[0]), cm_lat_entry_ii(&e[1]));
}

/* The whole time of a single-conv group at (N, m, f_in): f_in passes of the conv layer
 * and the accumulation subgraph, or one subgraph unfolded. */
static double single_time(const cm_lx_cut *x, const cm_lx_step *s, int N, int m, int fin)
{
    const cm_lx_group *grp = &x->groups[s->group];
    const cm_lat_group *g = &x->a->groups[s->group];
    double ii, depth;
    conv_point(x, s->layer, fin, N, m, &ii, &depth);
    if (fin == 1)
        return sub_time(x, depth + grp->nc_depth, fmax(fmax(grp->mem_ii, grp->nc_ii), ii));
    double pass_ii = fmax(mem_ii(x, s->group, g->steps, g->lead + 1, 0, fin), ii);
    for (int k = 0; k < g->lead; k++) { /* the channel-wise steps ahead, on a slice */
        double i2, d2;
        nc_bound(x, &g->steps[k], fin, &i2, &d2);
        pass_ii = fmax(pass_ii, i2);
        depth += d2;
    }
    double t = sub_time(x, depth, pass_ii) * fin;
    double acc_ii = mem_ii(x, s->group, g->acc_steps, g->n_acc_steps, fin, fin), acc_depth = 0.0;
    for (int k = 0; k < g->n_acc_steps; k++) {
        double i2, d2;
        nc_bound(x, &g->acc_steps[k], cm_lat_step_slices(fin, fin, g->acc_steps[k].kind), &i2, &d2);
        acc_ii = fmax(acc_ii, i2);
        acc_depth += d2;
    }
    t += sub_time(x, acc_depth, acc_ii);
    return x->n_groups == 1 ? t + x->weights_s : t;
}

static void step_value(const cm_lx_cut *x, const cm_lx_step *s, int N, int m, int fin,
                       double *val, double *depth)
{
    if (s->single) {
        *val = single_time(x, s, N, m, fin);
        *depth = 0.0;
    } else {
        conv_point(x, s->layer, 1, N, m, val, depth);
    }
}

/* BRAM18 per bank that holds the step's weights split f_in ways. */
static int64_t bank_need(const cm_lx_cut *x, int layer, int fin, int N, int m)
{
    int64_t words = cm_lat_bank_words(&x->net->l[layer], fin, N, m);
    int64_t need = cm_fcn_bram_mem(words, x->mach->word_bits);
    return need > 1 ? need : 1;
}

/* ---- resources ---- */

static cm_resources with_banks(cm_resources r, int N, int m, int64_t bank)
{
    r.bram18 += (int64_t)N * m * bank;
    return r;
}

static bool fits(const cm_lx_cut *x, const cm_resources *r)
{
    return cm_resources_fit(r, &x->mach->avail);
}

static cm_resources *block_base(cm_lx_cut *x, cm_lx_block *k, cm_error *err)
{
    if (k->base)
        return k->base;
    k->base = malloc((size_t)k->n_nbp * (size_t)k->n_mbp * sizeof *k->base);
    if (!k->base) {
        cm_error_nomem(err);
        return NULL;
    }
    for (int mi = 0; mi < k->n_mbp; mi++)
        for (int ni = 0; ni < k->n_nbp; ni++)
            k->base[mi * k->n_nbp + ni] =
                cm_lat_conv_res(&k->z, k->nbp[ni], k->mbp[mi], 0, x->mach->word_bits);
    return k->base;
}

/* What is left for the given blocks when every other unassigned block takes its least. */
static cm_resources budget(const cm_lx_cut *x, const int *blocks, int n)
{
    cm_resources r = x->mach->avail;
    cm_resources_sub(&r, &x->used);
    cm_resources_sub(&r, &x->unassigned);
    for (int i = 0; i < n; i++)
        cm_resources_add(&r, &x->blocks[blocks[i]].minres);
    return r;
}

/* ---- relaxed lists ---- */

typedef struct point {
    double val, depth;
    cm_resources res;
} point;

/* (N, m) matter to a layer only at its own breakpoints: a larger N or m with the same
 * ceilings costs at least as much. */
static bool own_breakpoint(int v, int x)
{
    int q = (v + x - 1) / x;
    return x <= v && x == (v + q - 1) / q;
}

static int list_points(cm_lx_cut *x, cm_lx_step *s, const cm_resources *base, point *p)
{
    const cm_lx_block *k = &x->blocks[s->block];
    const cm_lat_layer *l = &x->net->l[s->layer];
    int n = 0;
    for (int mi = 0; mi < k->n_mbp; mi++)
        for (int ni = 0; ni < k->n_nbp; ni++) {
            int N = k->nbp[ni], m = k->mbp[mi];
            if (!own_breakpoint(cm_lat_group_filters(l), N) || !own_breakpoint(l->kernel[0] * l->kernel[1], m))
                continue;
            for (int fi = 0; fi < s->n_fins; fi++) {
                cm_resources r = with_banks(base[mi * k->n_nbp + ni], N, m,
                                            bank_need(x, s->layer, s->fins[fi], N, m));
                if (!fits(x, &r))
                    continue;
                p[n].res = r;
                step_value(x, s, N, m, s->fins[fi], &p[n].val, &p[n].depth);
                n++;
            }
        }
    return n;
}

static cm_status build_list(cm_lx_cut *x, cm_lx_step *s, cm_error *err)
{
    cm_lx_block *k = &x->blocks[s->block];
    const cm_resources *base = block_base(x, k, err);
    if (!base)
        return CM_EINTERNAL;
    size_t cap = (size_t)k->n_nbp * (size_t)k->n_mbp * (size_t)s->n_fins;
    point *p = malloc((cap ? cap : 1) * sizeof *p);
    cm_res_point *rp = malloc((cap ? cap : 1) * sizeof *rp);
    if (!p || !rp) {
        free(p);
        free(rp);
        return cm_error_nomem(err);
    }
    const int n = list_points(x, s, base, p);
    cm_lx_list *li = &s->list;
    li->min_depth = INFINITY;
    for (int i = 0; i < n; i++) {
        rp[i] = (cm_res_point){p[i].val, p[i].res};
        li->min_depth = fmin(li->min_depth, p[i].depth);
    }
    free(p);
    cm_status st = cm_res_staircase_build(&li->steps, rp, n, err);
    free(rp);
    li->built = st == CM_OK;
    return st;
}

/* ---- bounds ---- */

/* The cheapest resources with which every listed step reaches an interval <= tau. */
static bool tau_fits(const cm_lx_cut *x, const int *steps, int n, double tau,
                     const cm_resources *r)
{
    cm_resources sum = {0};
    for (int i = 0; i < n; i++) {
        const cm_lx_list *li = &x->steps[steps[i]].list;
        const cm_resources *least = cm_res_staircase_at_most(&li->steps, tau);
        if (!least)
            return false;
        cm_resources_add(&sum, least);
    }
    return cm_resources_fit(&sum, r);
}

/* The least II the unassigned steps can share within r: a value below it fails. */
static double least_ii(const cm_lx_cut *x, const int *steps, int n, const cm_resources *r)
{
    double lo = 0.0, hi = 0.0;
    for (int i = 0; i < n; i++) {
        const cm_lx_list *li = &x->steps[steps[i]].list;
        if (li->steps.n == 0)
            return INFINITY;
        lo = fmax(lo, li->steps.val[0]);
        hi = fmax(hi, li->steps.val[li->steps.n - 1]);
    }
    if (tau_fits(x, steps, n, lo, r))
        return lo;
    if (!tau_fits(x, steps, n, hi, r))
        return INFINITY;
    for (int it = 0; it < 60 && hi - lo > 1e-9 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (tau_fits(x, steps, n, mid, r))
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

static cm_status ensure_list(cm_lx_cut *x, cm_lx_step *s, cm_error *err)
{
    return s->list.built ? CM_OK : build_list(x, s, err);
}

static cm_status multi_bound(cm_lx_cut *x, const cm_lx_group *grp, int *open, double *t,
                             cm_error *err)
{
    double depth = grp->nc_depth, ii = fmax(grp->mem_ii, grp->nc_ii);
    int n_open = 0, open_blocks[grp->n > 0 ? grp->n : 1];
    for (int i = 0; i < grp->n; i++) {
        cm_lx_step *s = &x->steps[grp->first + i];
        if (x->blocks[s->block].choice >= 0) {
            depth += s->depth;
            ii = fmax(ii, s->val);
            continue;
        }
        cm_status st = ensure_list(x, s, err);
        if (st != CM_OK)
            return st;
        depth += s->list.min_depth;
        open_blocks[n_open] = s->block;
        open[n_open++] = grp->first + i;
    }
    if (n_open > 0) {
        cm_resources r = budget(x, open_blocks, n_open);
        ii = fmax(ii, least_ii(x, open, n_open, &r));
    }
    *t = sub_time(x, depth, ii);
    return CM_OK;
}

static cm_status group_bound(cm_lx_cut *x, int gi, int *open, double *t, cm_error *err)
{
    const cm_lx_group *grp = &x->groups[gi];
    if (grp->n != 1)
        return multi_bound(x, grp, open, t, err);
    cm_lx_step *s = &x->steps[grp->first];
    if (x->blocks[s->block].choice >= 0) {
        *t = s->val;
        return CM_OK;
    }
    cm_status st = ensure_list(x, s, err);
    if (st != CM_OK)
        return st;
    cm_resources r = budget(x, &s->block, 1);
    const int i = cm_res_staircase_first_fitting(&s->list.steps, &r);
    *t = i < 0 ? INFINITY : s->list.steps.val[i];
    return CM_OK;
}

cm_status cm_lx_bound(cm_lx_cut *x, double limit, double *bound, cm_error *err)
{
    cm_resources need = x->used;
    cm_resources_add(&need, &x->unassigned);
    *bound = INFINITY;
    if (!fits(x, &need))
        return CM_OK;
    int *open = malloc(((size_t)x->n_steps + 1) * sizeof *open);
    if (!open)
        return cm_error_nomem(err);
    double sum = x->n_groups > 1 ? x->weights_s : 0.0;
    cm_status st = CM_OK;
    for (int gi = 0; st == CM_OK && gi < x->n_groups && sum < limit; gi++) {
        double t = 0.0;
        st = group_bound(x, gi, open, &t, err);
        sum += t;
    }
    free(open);
    *bound = sum;
    return st;
}

/* ---- assignment ---- */

void cm_lx_assign(cm_lx_cut *x, int blk, const cm_lx_cands *c, int i)
{
    cm_lx_block *k = &x->blocks[blk];
    k->choice = i;
    k->N = c->N[i], k->m = c->m[i], k->bank = c->bank[i];
    k->res = c->res[i];
    cm_resources_add(&x->used, &k->res);
    cm_resources_sub(&x->unassigned, &k->minres);
    for (int j = 0; j < k->n_steps; j++) {
        cm_lx_step *s = &x->steps[k->steps[j]];
        s->val = c->val[(size_t)i * c->n_steps + j];
        s->depth = c->dep[(size_t)i * c->n_steps + j];
    }
}

void cm_lx_unassign(cm_lx_cut *x, int blk)
{
    cm_lx_block *k = &x->blocks[blk];
    cm_resources_sub(&x->used, &k->res);
    cm_resources_add(&x->unassigned, &k->minres);
    k->choice = -1;
}

/* ---- candidates of one block ---- */

void cm_lx_cands_free(cm_lx_cands *c)
{
    free(c->N);
    free(c->m);
    free(c->bank);
    free(c->res);
    free(c->val);
    free(c->dep);
    memset(c, 0, sizeof *c);
}

static cm_status cands_grow(cm_lx_cands *c, cm_error *err)
{
    if (c->n < c->cap)
        return CM_OK;
    int cap = c->cap ? 2 * c->cap : 64;
    size_t ns = (size_t)(c->n_steps ? c->n_steps : 1);
    int *N = realloc(c->N, (size_t)cap * sizeof *N);
    if (N)
        c->N = N;
    int *m = N ? realloc(c->m, (size_t)cap * sizeof *m) : NULL;
    if (m)
        c->m = m;
    int *b = m ? realloc(c->bank, (size_t)cap * sizeof *b) : NULL;
    if (b)
        c->bank = b;
    cm_resources *r = b ? realloc(c->res, (size_t)cap * sizeof *r) : NULL;
    if (r)
        c->res = r;
    double *v = r ? realloc(c->val, (size_t)cap * ns * sizeof *v) : NULL;
    if (v)
        c->val = v;
    double *d = v ? realloc(c->dep, (size_t)cap * ns * sizeof *d) : NULL;
    if (!d)
        return cm_error_nomem(err);
    c->dep = d;
    c->cap = cap;
    return CM_OK;
}

static int int_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Scratch of one block's candidate generation: needs[j * MAX_FIN + fi]. */
typedef struct gen {
    int64_t *needs, *banks;
    int *fins, *prev;
} gen;

/* Bank sizes at which some step's f_in changes, from the least at which all fit. */
static int bank_steps(const cm_lx_cut *x, const cm_lx_block *k, gen *g, int N, int m)
{
    int64_t least = 1;
    int n = 0;
    for (int j = 0; j < k->n_steps; j++) {
        const cm_lx_step *s = &x->steps[k->steps[j]];
        for (int fi = 0; fi < s->n_fins; fi++)
            g->needs[j * CM_LAT_MAX_FIN + fi] = bank_need(x, s->layer, s->fins[fi], N, m);
        int64_t last = g->needs[j * CM_LAT_MAX_FIN + s->n_fins - 1];
        least = last > least ? last : least;
    }
    g->banks[n++] = least;
    for (int j = 0; j < k->n_steps; j++)
        for (int fi = 0; fi < x->steps[k->steps[j]].n_fins; fi++)
            if (g->needs[j * CM_LAT_MAX_FIN + fi] > least)
                g->banks[n++] = g->needs[j * CM_LAT_MAX_FIN + fi];
    qsort(g->banks, (size_t)n, sizeof *g->banks, int_cmp);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || g->banks[i] != g->banks[u - 1])
            g->banks[u++] = g->banks[i];
    return u;
}

/* Each step's f_in at the bank (the smallest that fits); the channels it sizes. */
static int fins_at(const cm_lx_cut *x, const cm_lx_block *k, gen *g, int64_t bank)
{
    int channels = 1;
    for (int j = 0; j < k->n_steps; j++) {
        const cm_lx_step *s = &x->steps[k->steps[j]];
        int fi = 0;
        while (g->needs[j * CM_LAT_MAX_FIN + fi] > bank)
            fi++;
        g->fins[j] = s->fins[fi];
        int ch = x->net->l[s->layer].nin / s->fins[fi];
        channels = ch > channels ? ch : channels;
    }
    return channels;
}

static cm_status add_cand(cm_lx_cut *x, const cm_lx_block *k, cm_lx_cands *c, const gen *g,
                          int N, int m, int64_t bank, const cm_resources *r, cm_error *err)
{
    cm_status st = cands_grow(c, err);
    if (st != CM_OK)
        return st;
    int i = c->n++;
    c->N[i] = N, c->m[i] = m, c->bank[i] = (int)bank, c->res[i] = *r;
    for (int j = 0; j < k->n_steps; j++)
        step_value(x, &x->steps[k->steps[j]], N, m, g->fins[j], &c->val[(size_t)i * k->n_steps + j],
                   &c->dep[(size_t)i * k->n_steps + j]);
    return CM_OK;
}

static cm_status nm_cands(cm_lx_cut *x, cm_lx_block *k, cm_lx_cands *c, gen *g, int N, int m,
                          cm_error *err)
{
    int nb = bank_steps(x, k, g, N, m), last_ch = -1;
    cm_resources base = {0};
    for (int i = 0; i < nb && g->banks[i] <= INT32_MAX; i++) {
        int ch = fins_at(x, k, g, g->banks[i]);
        if (i > 0 && !memcmp(g->fins, g->prev, (size_t)k->n_steps * sizeof *g->fins))
            continue;
        memcpy(g->prev, g->fins, (size_t)k->n_steps * sizeof *g->fins);
        if (ch != last_ch) {
            cm_lat_size z = k->z;
            z.channels = ch;
            base = cm_lat_conv_res(&z, N, m, 0, x->mach->word_bits);
            last_ch = ch;
        }
        cm_resources r = with_banks(base, N, m, g->banks[i]);
        if (!fits(x, &r))
            break; /* larger banks only add BRAM and channels */
        cm_status st = add_cand(x, k, c, g, N, m, g->banks[i], &r, err);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

cm_status cm_lx_candidates(cm_lx_cut *x, int blk, cm_lx_cands *c, cm_error *err)
{
    cm_lx_block *k = &x->blocks[blk];
    memset(c, 0, sizeof *c);
    c->n_steps = k->n_steps;
    const cm_resources *base = block_base(x, k, err);
    size_t ns = (size_t)k->n_steps;
    gen g = {malloc(ns * CM_LAT_MAX_FIN * sizeof *g.needs),
             malloc((ns * CM_LAT_MAX_FIN + 1) * sizeof *g.banks), malloc(ns * sizeof *g.fins),
             malloc(ns * sizeof *g.prev)};
    cm_status st = base ? CM_OK : CM_EINTERNAL;
    if (st == CM_OK && (!g.needs || !g.banks || !g.fins || !g.prev))
        st = cm_error_nomem(err);
    for (int mi = 0; st == CM_OK && mi < k->n_mbp; mi++)
        for (int ni = 0; st == CM_OK && ni < k->n_nbp; ni++) {
            cm_resources least = with_banks(base[mi * k->n_nbp + ni], k->nbp[ni], k->mbp[mi], 1);
            if (least.dsp > x->mach->avail.dsp)
                break; /* DSPs grow with N */
            if (fits(x, &least))
                st = nm_cands(x, k, c, &g, k->nbp[ni], k->mbp[mi], err);
        }
    free(g.needs);
    free(g.banks);
    free(g.fins);
    free(g.prev);
    if (st != CM_OK)
        cm_lx_cands_free(c);
    return st;
}

/* ---- set-up ---- */

static int pow2_floor(int v)
{
    int p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

static void nc_streams(cm_lx_cut *x)
{
    const cm_lat_arch *a = x->a;
    for (int b = 0; b < a->n_blocks; b++)
        x->streams[b] = 1;
    for (int gi = 0; gi < a->n_groups; gi++)
        for (int pass = 0; pass < 2; pass++) {
            const cm_lat_group *g = &a->groups[gi];
            const cm_lat_step *st = pass ? g->acc_steps : g->steps;
            for (int k = 0; k < (pass ? g->n_acc_steps : g->n_steps); k++) {
                if (st[k].kind == CM_LATENCY_CONV)
                    continue;
                int nout = x->net->l[st[k].layer].nout, cap = pow2_floor(nout < 64 ? nout : 64);
                x->streams[st[k].block] = cap > x->streams[st[k].block] ? cap : x->streams[st[k].block];
            }
        }
}

static void group_consts(cm_lx_cut *x, int gi)
{
    const cm_lat_group *g = &x->a->groups[gi];
    cm_lx_group *grp = &x->groups[gi];
    grp->mem_ii = mem_ii(x, gi, g->steps, g->n_steps, 0, 1);
    grp->nc_ii = grp->nc_depth = 0.0;
    for (int k = 0; k < g->n_steps; k++) {
        if (g->steps[k].kind == CM_LATENCY_CONV)
            continue;
        double ii, depth;
        nc_bound(x, &g->steps[k], 1, &ii, &depth);
        grp->nc_ii = fmax(grp->nc_ii, ii);
        grp->nc_depth += depth;
    }
}

static void step_fins(const cm_lx_cut *x, cm_lx_step *s, bool foldable)
{
    const cm_lat_layer *l = &x->net->l[s->layer];
    s->n_fins = 0;
    for (int d = 1; d <= l->nin && d <= CM_LAT_MAX_FIN; d++)
        if (cm_lat_fin_ok(l, d) && (foldable || d == 1))
            s->fins[s->n_fins++] = d;
}

/* The conv steps, group by group, and the conv blocks that hold them. */
static cm_status make_steps(cm_lx_cut *x, int *block_of, cm_error *err)
{
    const cm_lat_arch *a = x->a;
    for (int gi = 0; gi < a->n_groups; gi++)
        for (int k = 0; k < a->groups[gi].n_steps; k++)
            x->n_steps += a->groups[gi].steps[k].kind == CM_LATENCY_CONV;
    x->steps = calloc((size_t)x->n_steps + 1, sizeof *x->steps);
    x->blocks = calloc((size_t)a->n_conv + 1, sizeof *x->blocks);
    if (!x->steps || !x->blocks)
        return cm_error_nomem(err);
    for (int b = 0; b < a->n_blocks; b++)
        block_of[b] = -1;
    int n = 0;
    for (int gi = 0; gi < a->n_groups; gi++) {
        const cm_lat_group *g = &a->groups[gi];
        x->groups[gi].first = n;
        for (int k = 0; k < g->n_steps; k++) {
            if (g->steps[k].kind != CM_LATENCY_CONV)
                continue;
            int b = g->steps[k].block;
            if (block_of[b] < 0) {
                block_of[b] = x->n_blocks;
                x->blocks[x->n_blocks++].b = b;
            }
            x->steps[n] = (cm_lx_step){.group = gi, .layer = g->steps[k].layer, .block = block_of[b]};
            step_fins(x, &x->steps[n], g->foldable);
            x->blocks[block_of[b]].n_steps++;
            n++;
        }
        x->groups[gi].n = n - x->groups[gi].first;
        for (int i = x->groups[gi].first; i < n; i++)
            x->steps[i].single = x->groups[gi].n == 1;
    }
    return CM_OK;
}

/* Each block's steps, in one pass over the steps. */
static cm_status block_steps(cm_lx_cut *x, cm_error *err)
{
    for (int i = 0; i < x->n_blocks; i++) {
        x->blocks[i].steps = malloc((size_t)x->blocks[i].n_steps * sizeof *x->blocks[i].steps);
        if (!x->blocks[i].steps)
            return cm_error_nomem(err);
        x->blocks[i].n_steps = 0;
    }
    for (int i = 0; i < x->n_steps; i++) {
        cm_lx_block *k = &x->blocks[x->steps[i].block];
        k->steps[k->n_steps++] = i;
    }
    return CM_OK;
}

static cm_status block_setup(cm_lx_cut *x, cm_lx_block *k, cm_error *err)
{
    k->choice = -1;
    int *nv = malloc((size_t)k->n_steps * sizeof *nv), *kv = malloc((size_t)k->n_steps * sizeof *kv);
    cm_status st = nv && kv ? CM_OK : cm_error_nomem(err);
    int n = 0;
    for (int j = 0; st == CM_OK && j < k->n_steps; j++) {
        const cm_lx_step *s = &x->steps[k->steps[j]];
        const cm_lat_layer *l = &x->net->l[s->layer];
        nv[n] = cm_lat_group_filters(l);
        kv[n++] = l->kernel[0] * l->kernel[1];
        cm_lat_size_add(&k->z, l, l->nin / s->fins[s->n_fins - 1]);
    }
    if (st == CM_OK)
        st = cm_lat_breakpoints(nv, n, &k->nbp, &k->n_nbp, err);
    if (st == CM_OK)
        st = cm_lat_breakpoints(kv, n, &k->mbp, &k->n_mbp, err);
    if (st == CM_OK)
        k->minres = cm_lat_conv_res(&k->z, 1, 1, 1, x->mach->word_bits);
    free(nv);
    free(kv);
    return st;
}

cm_status cm_lx_cut_init(const cm_lat_net *net, const cm_lat_machine *m, const cm_lat_arch *a,
                         double weights_s, cm_lx_cut *x, cm_error *err)
{
    memset(x, 0, sizeof *x);
    x->net = net, x->mach = m, x->a = a, x->weights_s = weights_s;
    x->n_groups = a->n_groups;
    x->groups = calloc((size_t)a->n_groups, sizeof *x->groups);
    x->streams = calloc((size_t)a->n_blocks + 1, sizeof *x->streams);
    int *block_of = malloc(((size_t)a->n_blocks + 1) * sizeof *block_of);
    cm_status st = x->groups && x->streams && block_of ? CM_OK : cm_error_nomem(err);
    if (st == CM_OK)
        st = make_steps(x, block_of, err);
    free(block_of);
    if (st == CM_OK)
        st = block_steps(x, err);
    if (st == CM_OK) {
        nc_streams(x);
        for (int gi = 0; gi < a->n_groups; gi++)
            group_consts(x, gi);
    }
    for (int i = 0; st == CM_OK && i < x->n_blocks; i++) {
        st = block_setup(x, &x->blocks[i], err);
        if (st == CM_OK)
            cm_resources_add(&x->unassigned, &x->blocks[i].minres);
    }
    if (st != CM_OK)
        cm_lx_cut_free(x);
    return st;
}

void cm_lx_cut_free(cm_lx_cut *x)
{
    for (int i = 0; x->steps && i < x->n_steps; i++) {
        cm_res_staircase_free(&x->steps[i].list.steps);
    }
    for (int i = 0; x->blocks && i < x->n_blocks; i++) {
        free(x->blocks[i].steps);
        free(x->blocks[i].nbp);
        free(x->blocks[i].mbp);
        free(x->blocks[i].base);
    }
    free(x->steps);
    free(x->groups);
    free(x->blocks);
    free(x->streams);
    memset(x, 0, sizeof *x);
}
