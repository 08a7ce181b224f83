/* Graph clean-up passes; see cleanup.h. Each pass looks for one pattern and removes
 * the absorbed layer with cm_graph_bypass_layer. */
#include <stdlib.h>

#include "model/cleanup.h"

static bool is_output(const cm_graph *g, int index)
{
    for (int o = 0; o < g->n_outputs; o++)
        if (g->outputs[o] == index)
            return true;
    return false;
}

/* The single consumer of layer i, or -1 when it has several or is a graph output. */
static int sole_consumer(const cm_graph *g, int i)
{
    int first = -1;
    if (is_output(g, i) || cm_graph_consumers(g, i, &first) != 1)
        return -1;
    return first;
}

/* The producer layer of layer i when i is its only consumer, else -1. */
static int sole_producer(const cm_graph *g, int i)
{
    const cm_layer *l = &g->layers[i];
    if (l->n_inputs != 1 || CM_SOURCE_IS_INPUT(l->inputs[0]))
        return -1;
    int p = l->inputs[0];
    return sole_consumer(g, p) == i ? p : -1;
}

static bool pads_zero(const cm_layer *l)
{
    return !l->pad[0] && !l->pad[1] && !l->pad[2] && !l->pad[3];
}

static cm_status fold_pads(cm_graph *g, cm_error *err)
{
    for (int i = 0; i < g->n_layers; i++) {
        cm_layer *pad = &g->layers[i];
        if (pad->op != CM_OP_PAD)
            continue;
        int c = sole_consumer(g, i);
        cm_layer *next = c >= 0 ? &g->layers[c] : NULL;
        bool window = next && (next->op == CM_OP_POOL_MAX ||
                               (pad->alpha == 0.0 &&
                                (next->op == CM_OP_CONV || next->op == CM_OP_POOL_AVG)));
        if (!window && !pads_zero(pad))
            continue;
        if (window) {
            for (int k = 0; k < 4; k++)
                next->pad[k] += pad->pad[k];
            next->in_shape = pad->in_shape;
            next->in_q = pad->in_q;
            if (next->op == CM_OP_POOL_AVG && !pads_zero(pad))
                next->count_include_pad = true; /* the explicit zeros were averaged */
        }
        cm_status st = cm_graph_bypass_layer(g, i--, err);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

static cm_status fold_flatten(cm_graph *g, cm_error *err)
{
    for (int i = 0; i < g->n_layers; i++) {
        if (g->layers[i].op != CM_OP_FLATTEN)
            continue;
        int c = sole_consumer(g, i);
        if (c < 0 || g->layers[c].op != CM_OP_FC)
            continue;
        g->layers[c].in_shape = g->layers[i].in_shape;
        g->layers[c].in_q = g->layers[i].in_q;
        cm_status st = cm_graph_bypass_layer(g, i--, err);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

/* Scales each output channel's weights by s and sets bias = bias * s + t. A missing
 * s or t means 1 or 0. Values are dropped when either side lacks them. */
static cm_status apply_affine(cm_layer *p, const float *s, const float *t, bool has_values,
                              cm_error *err)
{
    int64_t channels = p->out_shape.c;
    if (!has_values || !p->weights) {
        free(p->weights);
        free(p->bias);
        p->weights = p->bias = NULL;
        p->n_weights = 0;
    } else {
        if (!p->bias && !(p->bias = calloc((size_t)channels, sizeof *p->bias)))
            return cm_error_nomem(err);
        uint64_t per_channel = p->n_weights / (uint64_t)channels;
        for (int64_t c = 0; c < channels; c++) {
            float sc = s ? s[c] : 1.0f;
            for (uint64_t k = 0; k < per_channel; k++)
                p->weights[(uint64_t)c * per_channel + k] *= sc;
            p->bias[c] = p->bias[c] * sc + (t ? t[c] : 0.0f);
        }
    }
    if (t)
        p->has_bias = true;
    return cm_layer_compute_cost(p, err);
}

/* Batch normalisation, or a per-channel constant shift or scale, right after a
 * convolution or fully connected layer becomes part of it. */
static cm_status fold_affine(cm_graph *g, cm_error *err)
{
    for (int i = 0; i < g->n_layers; i++) {
        cm_layer *l = &g->layers[i];
        bool bn = l->op == CM_OP_BATCHNORM;
        bool shift = l->op == CM_OP_ADD && l->has_const_operand && l->params == (uint64_t)l->out_shape.c;
        bool scale = l->op == CM_OP_MUL && l->has_const_operand && l->params == (uint64_t)l->out_shape.c;
        if (!bn && !shift && !scale)
            continue;
        int p = sole_producer(g, i);
        if (p < 0 || (g->layers[p].op != CM_OP_CONV && g->layers[p].op != CM_OP_FC) ||
            g->layers[p].out_shape.c != l->out_shape.c)
            continue;
        bool has_values = bn ? l->weights && l->bias : shift ? l->bias != NULL : l->weights != NULL;
        cm_status st = apply_affine(&g->layers[p], bn || scale ? l->weights : NULL,
                                    bn || shift ? l->bias : NULL, has_values, err);
        if (st != CM_OK)
            return st;
        if (l->out_q.quantised)
            g->layers[p].out_q = l->out_q;
        if ((st = cm_graph_bypass_layer(g, i--, err)) != CM_OK)
            return st;
    }
    return CM_OK;
}

static void mark_fusable(cm_graph *g)
{
    for (int i = 0; i < g->n_layers; i++) {
        cm_layer *l = &g->layers[i];
        if (l->op != CM_OP_RELU && l->op != CM_OP_ACTIVATION)
            continue;
        int p = sole_producer(g, i);
        cm_op pop = p >= 0 ? g->layers[p].op : CM_OP_COUNT;
        l->fusable = pop == CM_OP_CONV || pop == CM_OP_FC || pop == CM_OP_ADD ||
                     pop == CM_OP_MUL || pop == CM_OP_BATCHNORM;
    }
}

cm_status cm_graph_cleanup(cm_graph *g, const char *origin, cm_error *err)
{
    cm_status st = fold_pads(g, err);
    if (st == CM_OK)
        st = fold_flatten(g, err);
    if (st == CM_OK)
        st = fold_affine(g, err);
    if (st != CM_OK) {
        cm_error_prefix(err, origin);
        return st;
    }
    mark_fusable(g);
    return CM_OK;
}
