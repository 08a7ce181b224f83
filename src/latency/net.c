/* The network as the latency-driven flow sees it: a chain of hardware layers
 * (convolution, dense, pooling, pointwise), as in the paper's application model of a
 * feature extractor. Flatten, reshape and softmax have no hardware (as in the
 * throughput-driven fpgaConvNet parser); branches and merges are outside the flow. */
#include "latency/latency_internal.h"

#include <stdlib.h>
#include <string.h>

static bool is_pass_through(cm_op op)
{
    return op == CM_OP_FLATTEN || op == CM_OP_RESHAPE || op == CM_OP_SOFTMAX;
}

static bool kind_of(const cm_layer *l, cm_latency_block_kind *k)
{
    switch (l->op) {
    case CM_OP_CONV:
    case CM_OP_FC: *k = CM_LATENCY_CONV; return true;
    case CM_OP_POOL_MAX:
    case CM_OP_POOL_AVG:
    case CM_OP_GLOBAL_POOL_AVG:
    case CM_OP_GLOBAL_POOL_MAX: *k = CM_LATENCY_POOL; return true;
    case CM_OP_RELU:
    case CM_OP_ACTIVATION:
    case CM_OP_BATCHNORM: *k = CM_LATENCY_RELU; return true;
    case CM_OP_ADD:
    case CM_OP_MUL:
        *k = CM_LATENCY_RELU;
        return l->n_inputs == 1;
    default: return false;
    }
}

static int positive(int v)
{
    return v > 0 ? v : 1;
}

static void fill_conv(const cm_layer *g, cm_lat_layer *l)
{
    l->nin = (int)g->in_shape.c;
    l->nout = (int)g->out_shape.c;
    l->rows = (int)g->in_shape.h;
    l->cols = (int)g->in_shape.w;
    for (int i = 0; i < 2; i++) {
        l->kernel[i] = positive(g->kernel[i]);
        l->stride[i] = positive(g->stride[i]);
    }
    memcpy(l->pad, g->pad, sizeof l->pad);
    l->weights = (int64_t)l->nout * l->nin * l->kernel[0] * l->kernel[1];
}

/* A dense layer: a 1x1 convolution of a 1x1 map with every input word a channel. */
static void fill_fc(const cm_layer *g, cm_lat_layer *l)
{
    l->nin = (int)(g->in_shape.c * g->in_shape.h * g->in_shape.w);
    l->nout = (int)g->out_shape.c;
    l->rows = l->cols = 1;
    l->kernel[0] = l->kernel[1] = l->stride[0] = l->stride[1] = 1;
    l->weights = (int64_t)l->nout * l->nin;
}

static void fill_map(const cm_layer *g, cm_lat_layer *l)
{
    l->nin = l->nout = (int)g->in_shape.c;
    l->rows = (int)g->in_shape.h;
    l->cols = (int)g->in_shape.w;
    bool global = g->op == CM_OP_GLOBAL_POOL_AVG || g->op == CM_OP_GLOBAL_POOL_MAX;
    for (int i = 0; i < 2; i++) {
        l->kernel[i] = global ? (i ? l->cols : l->rows) : positive(g->kernel[i]);
        l->stride[i] = global ? l->kernel[i] : positive(g->stride[i]);
    }
    if (!global)
        memcpy(l->pad, g->pad, sizeof l->pad);
}

static cm_status fill_layer(const cm_graph *g, int gi, cm_lat_layer *l, cm_error *err)
{
    const cm_layer *src = &g->layers[gi];
    memset(l, 0, sizeof *l);
    l->graph_index = gi;
    if (!kind_of(src, &l->kind))
        return cm_error_set(err, CM_EINPUT,
                            "layer %s (%s): the latency-driven flow has no building block for it",
                            src->name, cm_op_name(src->op));
    if (src->op == CM_OP_CONV && src->groups > 1)
        return cm_error_set(err, CM_EINPUT,
                            "layer %s: grouped convolution is outside the latency-driven flow",
                            src->name);
    if (src->op == CM_OP_CONV)
        fill_conv(src, l);
    else if (src->op == CM_OP_FC)
        fill_fc(src, l);
    else
        fill_map(src, l);
    l->has_bias = l->kind == CM_LATENCY_CONV && src->has_bias;
    l->biases = l->has_bias ? l->nout : 0;
    l->rows_out = l->kind == CM_LATENCY_CONV && src->op == CM_OP_FC ? 1 : (int)src->out_shape.h;
    l->cols_out = l->kind == CM_LATENCY_CONV && src->op == CM_OP_FC ? 1 : (int)src->out_shape.w;
    l->macs = src->macs;
    return CM_OK;
}

/* The paper's application model is a chain: each layer reads the one before it. */
static cm_status check_chain(const cm_graph *g, cm_error *err)
{
    if (g->n_inputs != 1 || g->n_outputs != 1 || g->n_layers == 0 ||
        g->outputs[0] != g->n_layers - 1)
        return cm_error_set(err, CM_EINPUT,
                            "the latency-driven flow needs a chain of layers with one input "
                            "and one output");
    for (int i = 0; i < g->n_layers; i++) {
        const cm_layer *l = &g->layers[i];
        cm_source want = i == 0 ? -1 : i - 1;
        if (l->n_inputs < 1 || l->inputs[0] != want ||
            (l->n_inputs > 1 && l->op != CM_OP_ADD && l->op != CM_OP_MUL))
            return cm_error_set(err, CM_EINPUT,
                                "layer %s: the latency-driven flow needs a chain of layers "
                                "(no branches or merges)", l->name);
    }
    return CM_OK;
}

static cm_status net_alloc(cm_lat_net *net, int n, cm_error *err)
{
    net->l = calloc((size_t)n, sizeof *net->l);
    net->weight_at = calloc((size_t)n, sizeof *net->weight_at);
    return net->l && net->weight_at ? CM_OK : cm_error_nomem(err);
}

cm_status cm_lat_net_build(const cm_graph *g, cm_lat_net *net, cm_error *err)
{
    memset(net, 0, sizeof *net);
    cm_status st = check_chain(g, err);
    if (st == CM_OK)
        st = net_alloc(net, g->n_layers, err);
    for (int i = 0; st == CM_OK && i < g->n_layers; i++) {
        if (is_pass_through(g->layers[i].op))
            continue;
        cm_lat_layer *l = &net->l[net->n];
        st = fill_layer(g, i, l, err);
        if (st != CM_OK)
            break;
        if (l->kind == CM_LATENCY_CONV)
            net->weight_at[net->n_weight++] = net->n;
        net->macs += l->macs;
        net->n++;
    }
    if (st == CM_OK && net->n_weight == 0)
        st = cm_error_set(err, CM_EINPUT, "the model has no convolution or dense layer");
    net->n_graph_layers = g->n_layers;
    if (st != CM_OK)
        cm_lat_net_free(net);
    return st;
}

void cm_lat_net_free(cm_lat_net *net)
{
    free(net->l);
    free(net->weight_at);
    memset(net, 0, sizeof *net);
}
