/* From the graph to G: one task per convolution, fully connected and pooling layer,
 * with downsampling convolutions fused into their main-branch convolution by loop
 * merge, and the skip-connection buffers before and after the residual rewrites. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn2fpga/n2_internal.h"

void cm_nn2fpga_options_init(cm_nn2fpga_options *o)
{
    memset(o, 0, sizeof *o);
    o->solver = CM_NN2FPGA_BIP;
    o->default_bits = 8;
    o->temporal_reuse = true;
    o->loop_merge = true;
    o->batch = 1;
}

void cm_nn2fpga_result_free(cm_nn2fpga_result *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_layers; i++)
        free(r->layers[i].name);
    for (int i = 0; i < r->n_skips; i++)
        free(r->skips[i].name);
    free(r->layers);
    free(r->skips);
    memset(r, 0, sizeof *r);
}

static int quant_bits(const cm_quant *q, int fallback, bool *defaulted)
{
    if (q->quantised && q->bits > 0)
        return q->bits;
    *defaulted = true;
    return fallback;
}

/* Two 8-bit products share a DSP48E2, four at 4 bits or fewer; wider ones take one. */
static int pack_for(int weight_bits, int act_bits)
{
    int widest = weight_bits > act_bits ? weight_bits : act_bits;
    return widest <= 4 ? 4 : widest <= 8 ? 2 : 1;
}

static bool is_depthwise(const cm_layer *l)
{
    return l->groups > 1 && l->groups == l->in_shape.c && l->out_shape.c == l->in_shape.c;
}

static cm_status task_kind(const cm_layer *l, cm_nn2fpga_kind *kind, cm_error *err)
{
    switch (l->op) {
    case CM_OP_CONV:
        /* a grouped convolution is a conv task over its groups (one engine, the groups in
         * turn), a depthwise one the dwconv task of section 3.5.1 */
        if (l->groups < 1 || l->in_shape.c % l->groups || l->out_shape.c % l->groups)
            return cm_error_set(err, CM_EINPUT, "layer %s: %d groups do not divide its %lld input "
                                "and %lld output channels", l->name, l->groups,
                                (long long)l->in_shape.c, (long long)l->out_shape.c);
        *kind = l->groups == 1 || !is_depthwise(l) ? CM_NN2FPGA_CONV : CM_NN2FPGA_DWCONV;
        return CM_OK;
    case CM_OP_FC: *kind = CM_NN2FPGA_CONV; return CM_OK;
    case CM_OP_POOL_MAX:
    case CM_OP_POOL_AVG:
        *kind = l->out_shape.h == 1 && l->out_shape.w == 1 ? CM_NN2FPGA_GLOBAL_POOL
                                                           : CM_NN2FPGA_POOL;
        return CM_OK;
    case CM_OP_GLOBAL_POOL_AVG:
    case CM_OP_GLOBAL_POOL_MAX: *kind = CM_NN2FPGA_GLOBAL_POOL; return CM_OK;
    case CM_OP_SLICE:
    case CM_OP_SHUFFLE: /* its streams carry what a convolution's weights are laid out for */
        return cm_error_set(err, CM_EINPUT, "layer %s (%s): the nn2fpga backend has no block "
                            "that slices or reorders channels", l->name, cm_op_name(l->op));
    case CM_OP_LAYERNORM: /* integer streams: no mean, variance or division per pixel */
        return cm_error_set(err, CM_EINPUT, "layer %s (%s): the nn2fpga backend has no layer "
                            "normalisation block", l->name, cm_op_name(l->op));
    case CM_OP_UPSAMPLE:
        if (l->interpolate)
            return cm_error_set(err, CM_EINPUT, "layer %s (%s): the nn2fpga backend has no "
                                "bilinear interpolation block", l->name, cm_op_name(l->op));
        return CM_EUSAGE;
    default: return CM_EUSAGE; /* not a task of G */
    }
}

static void set_geometry(cm_nn2fpga_layer *t, const cm_layer *l)
{
    t->groups = t->kind == CM_NN2FPGA_CONV && l->op == CM_OP_CONV && l->groups > 1 ? l->groups : 1;
    t->ich = l->in_shape.c;
    t->ih = l->in_shape.h;
    t->iw = l->in_shape.w;
    t->och = l->out_shape.c;
    t->oh = l->out_shape.h;
    t->ow = l->out_shape.w;
    t->fh = l->kernel[0] > 0 ? l->kernel[0] : 1;
    t->fw = l->kernel[1] > 0 ? l->kernel[1] : 1;
    if (l->op == CM_OP_FC) { /* a 1x1 convolution on the flattened input */
        t->ich = l->in_shape.c * l->in_shape.h * l->in_shape.w;
        t->ih = t->iw = t->fh = t->fw = 1;
    }
    if (t->kind == CM_NN2FPGA_GLOBAL_POOL) {
        t->fh = t->ih;
        t->fw = t->iw;
    }
}

static void set_derived(cm_nn2fpga_layer *t)
{
    int64_t och = t->kind == CM_NN2FPGA_CONV ? t->och : 1;
    t->macs = t->kind == CM_NN2FPGA_CONV || t->kind == CM_NN2FPGA_DWCONV
                  ? t->oh * t->ow * och * (t->ich / t->groups) *
                        (t->fh * t->fw + t->merged_fh * t->merged_fw)
                  : 0;
    t->window_activations = t->kind == CM_NN2FPGA_GLOBAL_POOL
                                ? 0 : ((t->fh - 1) * t->iw + t->fw - 1) * t->ich; /* eq. 3.5 */
}

static cm_status make_task(const cm_graph *g, int index, int merged, cm_nn2fpga_kind kind,
                           const cm_nn2fpga_options *o, cm_nn2fpga_result *r, cm_error *err)
{
    const cm_layer *l = &g->layers[index];
    cm_nn2fpga_layer *t = &r->layers[r->n_layers];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->layer = index;
    t->merged_layer = merged;
    set_geometry(t, l);
    bool defaulted = false, weighted = kind == CM_NN2FPGA_CONV || kind == CM_NN2FPGA_DWCONV;
    t->act_bits = quant_bits(&l->in_q, o->default_bits, &defaulted);
    t->weight_bits = weighted ? quant_bits(&l->weight_q, o->default_bits, &defaulted) : 0;
    r->bits_defaulted |= defaulted && weighted;
    t->pack = pack_for(t->weight_bits, t->act_bits);
    size_t len = strlen(l->name) + (merged >= 0 ? strlen(g->layers[merged].name) + 2 : 1);
    if (!(t->name = malloc(len)))
        return cm_error_nomem(err);
    snprintf(t->name, len, "%s%s%s", l->name, merged >= 0 ? "+" : "",
             merged >= 0 ? g->layers[merged].name : "");
    if (merged >= 0) {
        t->merged_fh = g->layers[merged].kernel[0];
        t->merged_fw = g->layers[merged].kernel[1];
    }
    set_derived(t);
    r->n_layers++;
    r->macs += (uint64_t)t->macs;
    return cm_nn2fpga_configure(t, 1, 1, 1, false, err);
}

/* merge_into[i]: the convolution that layer i (a downsampling conv) is fused into. */
static cm_status build_tasks(const cm_graph *g, const cm_nn2fpga_options *o, const int *merge_into,
                             const int *merge_from, cm_nn2fpga_result *r, cm_error *err)
{
    r->layers = calloc((size_t)g->n_layers + 1, sizeof *r->layers);
    if (!r->layers)
        return cm_error_nomem(err);
    for (int i = 0; i < g->n_layers; i++) {
        cm_nn2fpga_kind kind = CM_NN2FPGA_CONV;
        cm_status st = task_kind(&g->layers[i], &kind, err);
        if (st == CM_EUSAGE || merge_into[i] >= 0)
            continue;
        if (st == CM_OK)
            st = make_task(g, i, merge_from[i], kind, o, r, err);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

static cm_status add_skip(const cm_graph *g, const n2_block *b, bool optimised,
                          const cm_nn2fpga_options *o, cm_nn2fpga_result *r, cm_error *err)
{
    const cm_layer *add = &g->layers[b->add];
    cm_nn2fpga_skip *s = &r->skips[r->n_skips];
    memset(s, 0, sizeof *s);
    if (!(s->name = strdup(add->name)))
        return cm_error_nomem(err);
    r->n_skips++;
    bool unused = false;
    s->downsample = b->ds_conv >= 0;
    s->optimised = optimised;
    s->bits = quant_bits(&add->in_q, o->default_bits, &unused);
    s->channels = add->out_shape.c;
    /* The skip FIFO holds the block input (or the downsampled one) while the main
     * branch's window buffers delay it, plus the pixel being added. Temporal reuse
     * forwards it from the first window buffer, and loop merge computes the
     * downsampling beside the first convolution, so the first lag is no longer
     * buffered twice (section 3.6.4). */
    int64_t lag = b->lag_first + b->lag_rest - b->lag_short;
    int64_t lag_opt = b->lag_rest;
    s->activations_before = ((lag > 0 ? lag : 0) + 1) * s->channels;
    s->activations_after = optimised ? (lag_opt + 1) * s->channels : s->activations_before;
    s->bram_before = n2_bram18_banks(s->bits, s->activations_before);
    s->bram_after = n2_bram18_banks(s->bits, s->activations_after);
    r->bram_skip += s->bram_after;
    return CM_OK;
}

static cm_status build_skips(const cm_graph *g, const cm_nn2fpga_options *o, const n2_block *blocks,
                             int n_blocks, int *merge_into, int *merge_from,
                             cm_nn2fpga_result *r, cm_error *err)
{
    r->skips = calloc((size_t)n_blocks + 1, sizeof *r->skips);
    if (!r->skips)
        return cm_error_nomem(err);
    for (int i = 0; i < n_blocks; i++) {
        const n2_block *b = &blocks[i];
        bool merge = o->loop_merge && b->mergeable;
        if (merge) {
            merge_into[b->ds_conv] = b->first_main;
            merge_from[b->first_main] = b->ds_conv;
        }
        bool optimised = b->ds_conv >= 0 ? merge : o->temporal_reuse && b->first_main >= 0;
        cm_status st = add_skip(g, b, optimised, o, r, err);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

cm_status cm_nn2fpga_build(const cm_graph *g, const cm_nn2fpga_options *o, cm_nn2fpga_result *out,
                           cm_error *err)
{
    memset(out, 0, sizeof *out);
    if (o->default_bits < 1 || o->default_bits > 32)
        return cm_error_set(err, CM_EUSAGE, "default bit width %d is not in 1..32", o->default_bits);
    n2_block *blocks = NULL;
    int n_blocks = 0;
    int *merge = malloc(2 * ((size_t)g->n_layers + 1) * sizeof *merge);
    cm_status st = merge ? n2_find_blocks(g, &blocks, &n_blocks, err) : cm_error_nomem(err);
    if (st == CM_OK) {
        for (int i = 0; i < 2 * (g->n_layers + 1); i++)
            merge[i] = -1;
        st = build_skips(g, o, blocks, n_blocks, merge, merge + g->n_layers + 1, out, err);
    }
    if (st == CM_OK)
        st = build_tasks(g, o, merge, merge + g->n_layers + 1, out, err);
    if (st == CM_OK && out->n_layers > 0) { /* a pixel a cycle in, a value a cycle out */
        const cm_nn2fpga_layer *first = &out->layers[0], *last = &out->layers[out->n_layers - 1];
        int64_t in = first->ih * first->iw, values = last->och * last->oh * last->ow;
        out->port_cycles = in > values ? in : values;
    }
    free(merge);
    free(blocks);
    if (st != CM_OK)
        cm_nn2fpga_result_free(out);
    return st;
}
