/* Per-network engines and their latency-resource Pareto fronts (f-CNNx III-B, first
 * step of the DSE): the latency-driven fpgaConvNet flow is run under copies of the
 * board whose resources are scaled down geometrically, and the non-dominated designs
 * are kept. Each design's subgraphs become the schedulable units of the bandwidth
 * scheduler: the input-folding passes of one layer stay separate (partitioning along
 * the input feature maps) but the final accumulation pass joins the pass before it, so
 * that every unit holds a convolution (or dense) layer. Each engine keeps the design
 * point it is (cuts, foldings and block sizes by name) for the design file. */
#include "multi/multi_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/latency.h>

#include "util/progress.h"

/* The smallest cap of the sweep: below 3% of a board no network of interest fits. */
#define SMALLEST_CAP 0.03
/* What a front point gets at least under a user's limit (the latency search then
 * returns its minimal point), and what a network's whole-board point gets when the
 * fronts' time is up before it: that point sets the network's target (fps_max), which
 * a minimal point would put at the slowest engine's rate (every target then met). */
#define MIN_POINT_S 1e-3
#define MIN_FIRST_POINT_S 0.05

void cm_mt_point_free(cm_multi_point *p)
{
    for (int i = 0; p->cuts && i < p->n_cuts; i++)
        free(p->cuts[i]);
    for (int i = 0; p->fold_layers && i < p->n_folds; i++)
        free(p->fold_layers[i]);
    free(p->cuts);
    free(p->fold_layers);
    free(p->folds);
    free(p->blocks);
    memset(p, 0, sizeof *p);
}

void cm_mt_engine_free(cm_multi_engine *e)
{
    free(e->subgraphs);
    cm_mt_point_free(&e->point);
    memset(e, 0, sizeof *e);
}

/* ---- the design point an engine is ---- */

static cm_status add_name(char **names, int *n, const char *name, cm_error *err)
{
    if (!(names[*n] = strdup(name)))
        return cm_error_nomem(err);
    (*n)++;
    return CM_OK;
}

/* A subgraph that starts at another weight layer than the one before it starts a
 * group, so the network is cut there (the passes of a folded layer share its first
 * layer). A subgraph that starts elsewhere reads a branch's operand from memory: the
 * flow starts it whatever the cuts say. */
static cm_status record_cuts(const cm_graph *g, const cm_latency_design *ld, cm_multi_point *p,
                             cm_error *err)
{
    p->cuts = calloc((size_t)ld->n_subgraphs + 1, sizeof *p->cuts);
    if (!p->cuts)
        return cm_error_nomem(err);
    cm_status st = CM_OK;
    for (int i = 1; st == CM_OK && i < ld->n_subgraphs; i++)
        if (ld->subgraphs[i].first_layer != ld->subgraphs[i - 1].first_layer &&
            (g->layers[ld->subgraphs[i].first_layer].op == CM_OP_CONV ||
             g->layers[ld->subgraphs[i].first_layer].op == CM_OP_FC))
            st = add_name(p->cuts, &p->n_cuts, g->layers[ld->subgraphs[i].first_layer].name, err);
    return st;
}

static cm_status record_folds(const cm_graph *g, const cm_latency_design *ld, cm_multi_point *p,
                              cm_error *err)
{
    p->fold_layers = calloc((size_t)ld->n_layers + 1, sizeof *p->fold_layers);
    p->folds = calloc((size_t)ld->n_layers + 1, sizeof *p->folds);
    if (!p->fold_layers || !p->folds)
        return cm_error_nomem(err);
    cm_status st = CM_OK;
    for (int i = 0; st == CM_OK && i < ld->n_layers; i++)
        if (ld->fin[i] > 1) {
            p->folds[p->n_folds] = ld->fin[i];
            st = add_name(p->fold_layers, &p->n_folds, g->layers[i].name, err);
        }
    return st;
}

static cm_status record_point(const cm_graph *g, const cm_latency_design *ld, cm_multi_point *p,
                              cm_error *err)
{
    p->blocks = calloc((size_t)ld->n_blocks + 1, sizeof *p->blocks);
    if (!p->blocks)
        return cm_error_nomem(err);
    for (int b = 0; b < ld->n_blocks; b++) {
        const cm_latency_block *x = &ld->blocks[b];
        cm_multi_block *y = &p->blocks[p->n_blocks++];
        *y = (cm_multi_block){.coarse = x->coarse, .macc = x->macc, .bank_bram = x->bank_bram};
        snprintf(y->name, sizeof y->name, "%s", x->name);
    }
    cm_status st = record_cuts(g, ld, p, err);
    return st == CM_OK ? record_folds(g, ld, p, err) : st;
}

/* Words the subgraph moves through the memory node of its SDF graph (column 0). */
static double io_words(const cm_latency_design *ld, const cm_latency_subgraph *s)
{
    double w = 0.0;
    for (int r = 0; r < ld->n_arcs; r++)
        w += fabs(s->workload[r * ld->n_nodes]);
    return w;
}

static bool is_accumulation(const cm_latency_subgraph *s)
{
    return s->folds > 1 && s->fold == s->folds;
}

static void add_pass(const cm_latency_design *ld, const cm_latency_subgraph *s, double word_bytes,
                     cm_multi_subgraph *u)
{
    double weights = s->weights_s > 0 ? (double)s->weight_words : 0.0;
    u->last_layer = s->last_layer;
    u->passes++;
    u->latency_s += s->exec_s + s->weights_s;
    u->bytes += (io_words(ld, s) + weights) * word_bytes;
    u->macs += s->macs;
}

cm_status cm_mt_engine_of(const cm_graph *g, const cm_latency_design *ld, double word_bytes,
                          double cap, cm_multi_engine *e, cm_error *err)
{
    memset(e, 0, sizeof *e);
    cm_status st = record_point(g, ld, &e->point, err);
    if (st != CM_OK) {
        cm_mt_engine_free(e);
        return st;
    }
    e->subgraphs = calloc((size_t)ld->n_subgraphs + 1, sizeof *e->subgraphs);
    if (!e->subgraphs)
        return cm_error_nomem(err);
    for (int i = 0; i < ld->n_subgraphs; i++) {
        const cm_latency_subgraph *s = &ld->subgraphs[i];
        if (!is_accumulation(s) || e->n_subgraphs == 0)
            e->subgraphs[e->n_subgraphs++].first_layer = s->first_layer;
        add_pass(ld, s, word_bytes, &e->subgraphs[e->n_subgraphs - 1]);
    }
    for (int i = 0; i < e->n_subgraphs; i++) {
        cm_multi_subgraph *u = &e->subgraphs[i];
        u->bandwidth = u->bytes / u->latency_s;
        e->latency_s += u->latency_s;
        e->bytes += u->bytes;
    }
    for (int b = 0; b < ld->n_blocks; b++)
        if (ld->blocks[b].kind == CM_LATENCY_CONV)
            e->dsp_coarse += ld->blocks[b].coarse * ld->blocks[b].macc;
    e->n_blocks = ld->n_blocks;
    e->resources = ld->resources;
    e->cap = cap;
    return CM_OK;
}

/* a dominates b: no slower, no larger, and not the same point. */
static bool dominates(const cm_multi_engine *a, const cm_multi_engine *b)
{
    if (a->latency_s > b->latency_s || !cm_resources_fit(&a->resources, &b->resources))
        return false;
    return a->latency_s < b->latency_s || !cm_resources_fit(&b->resources, &a->resources);
}

static bool same(const cm_multi_engine *a, const cm_multi_engine *b)
{
    return a->latency_s == b->latency_s && cm_resources_fit(&a->resources, &b->resources) &&
           cm_resources_fit(&b->resources, &a->resources);
}

/* Keeps the engines no other dominates (the first of equal ones), fastest first. */
static void pareto(cm_multi_model *m)
{
    /* Decide every drop against the whole front before freeing or moving any engine: a
     * freed engine (zero latency and resources) would dominate the rest. */
    bool drop[m->n_front > 0 ? m->n_front : 1];
    for (int i = 0; i < m->n_front; i++) {
        drop[i] = false;
        for (int j = 0; j < m->n_front && !drop[i]; j++)
            drop[i] = j != i && (dominates(&m->front[j], &m->front[i]) ||
                                 (j < i && same(&m->front[j], &m->front[i])));
    }
    int kept = 0;
    for (int i = 0; i < m->n_front; i++) {
        if (drop[i])
            cm_mt_engine_free(&m->front[i]);
        else
            m->front[kept++] = m->front[i];
    }
    m->n_front = kept;
    for (int i = 1; i < kept; i++)
        for (int j = i; j > 0 && m->front[j].latency_s < m->front[j - 1].latency_s; j--) {
            cm_multi_engine t = m->front[j];
            m->front[j] = m->front[j - 1];
            m->front[j - 1] = t;
        }
}

void cm_mt_latency_options(const cm_multi_options *o, double bandwidth_gbps, double clock_mhz,
                           cm_latency_options *lo)
{
    cm_latency_options_init(lo);
    lo->clock_mhz = clock_mhz;
    lo->bandwidth_gbps = bandwidth_gbps;
    lo->word_bits = o->word_bits;
}

static void scaled_board(const cm_board *b, double cap, cm_board *out)
{
    *out = *b;
    out->resources.dsp = (int64_t)floor((double)b->resources.dsp * cap);
    out->resources.bram18 = (int64_t)floor((double)b->resources.bram18 * cap);
    out->resources.uram = (int64_t)floor((double)b->resources.uram * cap);
    out->resources.lut = (int64_t)floor((double)b->resources.lut * cap);
    out->resources.ff = (int64_t)floor((double)b->resources.ff * cap);
}

/* One point of the sweep: CM_OK with *found set when a design fits under the cap. */
static cm_status sweep_point(const cm_graph *g, const cm_board *board, const cm_latency_options *lo,
                             double cap, cm_multi_engine *e, bool *found, bool *stopped,
                             cm_error *why, cm_error *err)
{
    cm_board scaled;
    scaled_board(board, cap, &scaled);
    cm_latency_design ld;
    memset(&ld, 0, sizeof ld);
    cm_error local = {0};
    cm_status st = cm_latency_optimise(g, &scaled, lo, &ld, &local);
    *found = st == CM_OK && ld.feasible;
    *stopped = st == CM_OK && ld.stopped_early;
    if (*found)
        st = cm_mt_engine_of(g, &ld, lo->word_bits / 8.0, cap, e, err);
    else if (st == CM_EINFEASIBLE && cap == 1.0)
        *why = local; /* the whole board's reason: reported if nothing fits at all */
    if (st == CM_EINFEASIBLE)
        st = CM_OK;
    else if (st != CM_OK)
        *err = local;
    cm_latency_design_free(&ld);
    return st;
}

/* The time a point gets under a user's limit: an equal share of what is left to the
 * points left, this network's and the later ones'; 0 (none) without a limit. */
static double point_limit(const cm_mt_front_limits *lim, int points_left)
{
    if (isinf(lim->deadline))
        return 0.0;
    double left = lim->deadline - cm_seconds_now();
    return fmax(left / (points_left + lim->points_after), MIN_POINT_S);
}

/* Sweep point k of caps, appended to m's front when a design fits. */
static cm_status front_point(const cm_graph *g, const cm_board *board, const cm_latency_options *lo,
                             int caps, int k, cm_multi_model *m, cm_mt_front_limits *lim,
                             cm_error *why, cm_error *err)
{
    double cap = caps == 1 ? 1.0 : pow(SMALLEST_CAP, (double)k / (caps - 1));
    bool found = false, stopped = false;
    cm_status st = sweep_point(g, board, lo, cap, &m->front[m->n_front], &found, &stopped, why,
                               err);
    lim->stopped |= stopped;
    m->n_front += st == CM_OK && found;
    return st;
}

cm_status cm_mt_front(const cm_graph *g, const cm_board *board, const cm_multi_options *o,
                      double bandwidth_gbps, double clock_mhz, cm_multi_model *m,
                      cm_mt_front_limits *lim, cm_error *err)
{
    cm_latency_options lo;
    cm_mt_latency_options(o, bandwidth_gbps, clock_mhz, &lo);
    int caps = o->front_caps < 1 ? 1 : o->front_caps;
    m->front = calloc((size_t)caps, sizeof *m->front);
    if (!m->front)
        return cm_error_nomem(err);
    cm_error why = {0};
    cm_status st = CM_OK;
    int k = 0;
    for (; st == CM_OK && k < caps && cm_seconds_now() < lim->deadline; k++) {
        lo.time_limit_s = point_limit(lim, caps - k);
        st = front_point(g, board, &lo, caps, k, m, lim, &why, err);
    }
    /* Past the deadline the whole-board point still runs briefly, then the caps left
     * are tried smallest first, each with the least time, until one gives an engine:
     * small engines are what lets several networks fit together. */
    lim->stopped |= k < caps;
    lo.time_limit_s = MIN_FIRST_POINT_S;
    if (st == CM_OK && k == 0)
        st = front_point(g, board, &lo, caps, k++, m, lim, &why, err);
    int before = m->n_front;
    lo.time_limit_s = MIN_POINT_S;
    for (int j = caps - 1; st == CM_OK && j >= k && m->n_front == before; j--)
        st = front_point(g, board, &lo, caps, j, m, lim, &why, err);
    if (st != CM_OK)
        return st;
    pareto(m);
    if (m->n_front == 0)
        return cm_error_set(err, CM_EINFEASIBLE, "no engine fits the board %s: %s", board->name,
                            why.message[0] ? why.message : "every search failed");
    return CM_OK;
}
