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
        /* a shift is a bias even when the file lacks its bytes (weights elsewhere) */
        g->layers[p].has_bias = g->layers[p].has_bias || bn || shift;
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

/* A single-input layer with a constant scalar operand equal to v (within float32). */
static bool const_scalar(const cm_layer *l, cm_op op, float v)
{
    const float *c = op == CM_OP_ADD ? l->bias : l->weights;
    return l->op == op && l->n_inputs == 1 && l->has_const_operand && l->n_weights == 1 && c &&
           c[0] > v * 0.999f && c[0] < v * 1.001f;
}

/* torch's exact GELU, Div(x, sqrt 2) -> Erf -> Add 1 -> Mul by x -> Mul 0.5, around the
 * erf layer e: the other layers' indices, each the sole consumer of the one before.
 * Returns the index of the x * (1 + erf) product, or -1. */
static int gelu_product(const cm_graph *g, int e, int *scale, int *plus_one, int *half)
{
    *scale = sole_producer(g, e);
    int one = *plus_one = sole_consumer(g, e);
    int prod = one >= 0 ? sole_consumer(g, one) : -1;
    *half = prod >= 0 ? sole_consumer(g, prod) : -1;
    if (*scale < 0 || *half < 0 || !const_scalar(&g->layers[*scale], CM_OP_MUL, 0.70710678f) ||
        !const_scalar(&g->layers[one], CM_OP_ADD, 1.0f) ||
        !const_scalar(&g->layers[*half], CM_OP_MUL, 0.5f))
        return -1;
    const cm_layer *p = &g->layers[prod];
    cm_source x = g->layers[*scale].inputs[0];
    bool product = p->op == CM_OP_MUL && p->n_inputs == 2 &&
                   ((p->inputs[0] == x && p->inputs[1] == one) ||
                    (p->inputs[1] == x && p->inputs[0] == one));
    return product ? prod : -1;
}

/* The five layers of torch's GELU become one activation: the product layer turns into
 * it, reading x, and the others are removed (from the highest index down, so the lower
 * indices stay valid). */
static cm_status fuse_gelu(cm_graph *g, cm_error *err)
{
    for (int e = 0; e < g->n_layers; e++) {
        const cm_layer *l = &g->layers[e];
        if (l->op != CM_OP_ACTIVATION || l->activation != CM_ACT_ERF)
            continue;
        int scale, one, half, prod = gelu_product(g, e, &scale, &one, &half);
        if (prod < 0)
            continue;
        cm_layer *p = &g->layers[prod];
        p->op = CM_OP_ACTIVATION;
        p->activation = CM_ACT_GELU;
        p->inputs[0] = g->layers[scale].inputs[0];
        p->n_inputs = 1;
        p->in_shape = g->layers[scale].in_shape;
        p->in_q = g->layers[scale].in_q;
        p->out_q = g->layers[half].out_q;
        int gone[4] = {half, one, e, scale}; /* descending: topological order */
        for (int k = 0; k < 4; k++) {
            cm_status st = cm_graph_bypass_layer(g, gone[k], err);
            if (st != CM_OK)
                return st;
        }
        e = scale - 1;
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
        st = fuse_gelu(g, err);
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
