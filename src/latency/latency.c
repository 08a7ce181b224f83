/* The latency-driven flow's public entry points: options, the optimiser (search.c) and
 * the costing of a given point, both ending in the exported design of sdf.c. */
#include "latency/latency_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

void cm_latency_options_init(cm_latency_options *o)
{
    memset(o, 0, sizeof *o);
    o->batch = 1;
    o->word_bits = 16;
    o->weights_reloading = true;
    o->input_folding = true;
    o->exhaustive_cuts = 8;
    o->threads = 1;
    o->exact_gap = 0.01;
}

bool cm_latency_subgraph_runs(const cm_latency_subgraph *s, int layer)
{
    for (int k = 0; k < s->n_layers; k++)
        if (s->layers[k] == layer)
            return true;
    return false;
}

const char *cm_latency_block_kind_name(cm_latency_block_kind k)
{
    static const char *const names[] = {
        [CM_LATENCY_CONV] = "Convolution", [CM_LATENCY_POOL] = "Pooling",
        [CM_LATENCY_RELU] = "ReLU", [CM_LATENCY_ACCUM] = "Accumulate", [CM_LATENCY_ELTWISE] = "Eltwise",
    };
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

static cm_status machine_of(const cm_board *b, const cm_latency_options *o, cm_lat_machine *m,
                            cm_error *err)
{
    if (o->batch < 1 || o->word_bits < 1 || o->word_bits > 64)
        return cm_error_set(err, CM_EUSAGE, "latency flow: batch must be >= 1 and bits in 1..64");
    double mhz = o->clock_mhz > 0 ? o->clock_mhz : b->clock_mhz;
    double gbps = o->bandwidth_gbps > 0 ? o->bandwidth_gbps : b->bandwidth_gbps;
    if (mhz <= 0 || gbps <= 0)
        return cm_error_set(err, CM_EUSAGE, "latency flow: clock and bandwidth must be positive");
    m->avail = b->resources;
    m->clock_hz = mhz * 1e6;
    m->bw_bytes_s = gbps * 1e9;
    m->bw_words = m->bw_bytes_s / (m->clock_hz * (o->word_bits / 8.0));
    m->word_bits = o->word_bits;
    m->batch = o->batch;
    return CM_OK;
}

/* Costs the point on the architecture of `cut` and exports it. */
static cm_status finish(const cm_lat_net *net, const cm_lat_machine *m, const cm_latency_options *o,
                        const bool *cut, const cm_latency_point *p, cm_latency_design *out,
                        cm_error *err)
{
    cm_lat_arch a;
    cm_lat_eval e;
    cm_status st = cm_lat_arch_build(net, cut, o->input_folding, &a, err);
    if (st != CM_OK)
        return st;
    st = cm_lat_eval_init(&a, &e, err);
    size_t n = (size_t)a.n_blocks + 1;
    cm_lat_fold f = {calloc(n, sizeof(int)), calloc(n, sizeof(int)), calloc(n, sizeof(int)),
                     p->coarse == NULL};
    if (st == CM_OK && (!f.coarse || !f.macc || !f.bank))
        st = cm_error_nomem(err);
    for (int b = 0; st == CM_OK && b < a.n_blocks; b++) {
        f.coarse[b] = p->coarse ? p->coarse[b] : 1;
        f.macc[b] = p->macc ? p->macc[b] : 1;
        f.bank[b] = p->bank_bram ? p->bank_bram[b] : cm_lat_full_bank(&a, m, &f, b);
        if (f.coarse[b] < 1 || f.macc[b] < 1 || f.bank[b] < 1)
            st = cm_error_set(err, CM_EUSAGE, "latency flow: block %d: foldings must be >= 1", b);
    }
    if (st == CM_OK) {
        cm_lat_evaluate(&a, m, &f, &e);
        st = cm_lat_export(&a, m, &f, &e, out, err);
    }
    free(f.coarse);
    free(f.macc);
    free(f.bank);
    cm_lat_eval_free(&e);
    cm_lat_arch_free(&a);
    return st;
}

/* The machine figures and the chain of hardware layers, with `out` cleared. */
static cm_status prepare(const cm_graph *g, const cm_board *board, const cm_latency_options *o,
                         cm_lat_machine *m, cm_lat_net *net, cm_latency_design *out,
                         cm_error *err)
{
    memset(out, 0, sizeof *out);
    cm_status st = machine_of(board, o, m, err);
    return st == CM_OK ? cm_lat_net_build(g, net, err) : st;
}

static cm_status check_cut(const cm_lat_net *net, const cm_latency_point *p, cm_error *err)
{
    if (!p->cut && net->n_weight > 1)
        return cm_error_set(err, CM_EUSAGE, "latency flow: the point has no cut vector");
    return CM_OK;
}

cm_status cm_latency_evaluate(const cm_graph *g, const cm_board *board,
                              const cm_latency_options *o, const cm_latency_point *p,
                              cm_latency_design *out, cm_error *err)
{
    cm_lat_machine m;
    cm_lat_net net;
    cm_status st = prepare(g, board, o, &m, &net, out, err);
    if (st != CM_OK)
        return st;
    bool *cut = calloc((size_t)net.n_weight, sizeof *cut);
    st = cut ? check_cut(&net, p, err) : cm_error_nomem(err);
    for (int w = 1; st == CM_OK && w < net.n_weight; w++)
        cut[w] = p->cut[w];
    if (st == CM_OK)
        st = finish(&net, &m, o, cut, p, out, err);
    free(cut);
    cm_lat_net_free(&net);
    if (st != CM_OK)
        cm_latency_design_free(out);
    return st;
}

static cm_status infeasible(const cm_latency_design *d, const cm_board *b, cm_error *err)
{
    const cm_resources *r = &d->resources, *h = &b->resources;
    return cm_error_set(err, CM_EINFEASIBLE,
                        "no latency-driven design fits %s: the best needs DSP %lld/%lld, "
                        "BRAM18 %lld/%lld, LUT %lld/%lld, FF %lld/%lld",
                        b->name, (long long)r->dsp, (long long)h->dsp, (long long)r->bram18,
                        (long long)h->bram18, (long long)r->lut, (long long)h->lut,
                        (long long)r->ff, (long long)h->ff);
}

cm_status cm_latency_optimise(const cm_graph *g, const cm_board *board,
                              const cm_latency_options *o, cm_latency_design *out, cm_error *err)
{
    double start = cm_seconds_now();
    cm_lat_machine m;
    cm_lat_net net;
    cm_status st = prepare(g, board, o, &m, &net, out, err);
    if (st != CM_OK)
        return st;
    cm_lat_search_result r;
    st = cm_lat_search(&net, &m, o, &r, err);
    if (st == CM_OK) {
        cm_latency_point p = {r.cut, r.coarse, r.macc, r.bank};
        st = finish(&net, &m, o, r.cut, &p, out, err);
        out->evaluations = r.evaluations;
        out->stopped_early = r.stopped_early;
        out->stopped_by_budget = r.stopped_by_budget;
        out->has_lower_bound = r.has_lower_bound;
        out->lower_bound_s = r.lower_bound;
        out->optimal = r.optimal;
        cm_lat_search_free(&r);
    }
    cm_lat_net_free(&net);
    out->time_s = cm_seconds_now() - start;
    if (st == CM_OK && !out->feasible)
        return infeasible(out, board, err);
    if (st != CM_OK)
        cm_latency_design_free(out);
    return st;
}

void cm_latency_design_free(cm_latency_design *d)
{
    for (int i = 0; d->subgraphs && i < d->n_subgraphs; i++) {
        free(d->subgraphs[i].column);
        free(d->subgraphs[i].layers);
        free(d->subgraphs[i].shift);
        free(d->subgraphs[i].workload);
        free(d->subgraphs[i].ii);
    }
    free(d->subgraphs);
    free(d->blocks);
    free(d->node_names);
    free(d->node_block);
    free(d->gamma);
    free(d->fin);
    memset(d, 0, sizeof *d);
}

void cm_latency_pass_name(const cm_latency_subgraph *x, char *buf, size_t size)
{
    if (x->folds > 1 && x->fold < x->folds)
        snprintf(buf, size, "%d/%d", x->fold + 1, x->folds);
    else
        snprintf(buf, size, "%s", x->folds > 1 ? "accumulation" : "-");
}
