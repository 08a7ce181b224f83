/* The network as the latency-driven flow sees it: the graph's hardware layers
 * (convolution, dense, pooling, pointwise, merges) in topological order, the paper's
 * application model of a feature extractor extended to branches. Flatten, reshape and
 * softmax have no hardware (as in the throughput-driven fpgaConvNet parser). A layer
 * whose main operand is not the layer before it starts a subgraph and reads it from
 * off-chip memory; a merge's other operands come from memory too, written there by
 * their producers (latency_internal.h, cm_lat_layer). */
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
    case CM_OP_BATCHNORM:
    case CM_OP_SLICE:    /* streams the channels it keeps, drops the rest */
    case CM_OP_SHUFFLE:  /* reorders a pixel's channels */
    case CM_OP_UPSAMPLE: /* walks its output over a row buffer */
        *k = CM_LATENCY_RELU;
        return true;
    case CM_OP_LAYERNORM: /* over a pixel's channels (fill_layer refuses a whole map's) */
        *k = CM_LATENCY_RELU;
        return true;
    case CM_OP_ADD:
    case CM_OP_MUL: *k = l->n_inputs > 1 ? CM_LATENCY_ELTWISE : CM_LATENCY_RELU; return true;
    case CM_OP_CONCAT: *k = CM_LATENCY_ELTWISE; return true;
    default: return false;
    }
}

static int positive(int v)
{
    return v > 0 ? v : 1;
}

/* A layer's producer in net terms: a net index, or a graph input as cm_source has it. */
typedef int lat_source;

typedef struct net_build {
    const cm_graph *g;
    cm_lat_net *net;
    lat_source *of_layer; /* per graph layer: its net index, or its pass-through's source */
    int *main_at;         /* per net layer: which operand streams in */
} net_build;

static lat_source source_of(const net_build *b, cm_source s)
{
    return CM_SOURCE_IS_INPUT(s) ? s : b->of_layer[s];
}

static cm_shape source_shape(const net_build *b, lat_source s)
{
    if (CM_SOURCE_IS_INPUT(s))
        return b->g->inputs[CM_SOURCE_INPUT_INDEX(s)].shape;
    const cm_lat_layer *p = &b->net->l[s];
    return (cm_shape){p->nout, p->rows_out, p->cols_out};
}

static int64_t shape_words(cm_shape s)
{
    return s.c * s.h * s.w;
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
    l->groups = positive(g->groups);
    l->weights = (int64_t)l->nout * (l->nin / l->groups) * l->kernel[0] * l->kernel[1];
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

/* Pooling and pointwise layers, and merges over their main operand's map. */
static void fill_map(const cm_layer *g, cm_shape in, cm_lat_layer *l)
{
    l->nin = (int)in.c;
    l->nout = (int)g->out_shape.c;
    l->rows = (int)in.h;
    l->cols = (int)in.w;
    /* a global pooling keeps one sum per channel: it needs no line buffer (a window the
     * size of the map would hold all but a row of it, 111 rows of EfficientNet's 112) */
    l->global = g->op == CM_OP_GLOBAL_POOL_AVG || g->op == CM_OP_GLOBAL_POOL_MAX;
    bool windowed = l->kind == CM_LATENCY_POOL && !l->global;
    for (int i = 0; i < 2; i++) {
        l->kernel[i] = windowed ? positive(g->kernel[i]) : 1;
        l->stride[i] = windowed ? positive(g->stride[i]) : 1;
    }
    if (windowed)
        memcpy(l->pad, g->pad, sizeof l->pad);
}

/* The operand that streams from the layer before (the first one otherwise). */
static int main_operand(const net_build *b, const cm_layer *src)
{
    for (int i = 0; i < src->n_inputs; i++)
        if (source_of(b, src->inputs[i]) == b->net->n - 1)
            return i;
    return 0;
}

static cm_status fill_layer(net_build *b, int gi, cm_lat_layer *l, cm_error *err)
{
    const cm_layer *src = &b->g->layers[gi];
    memset(l, 0, sizeof *l);
    l->graph_index = gi;
    l->groups = 1;
    if (src->op == CM_OP_LAYERNORM && src->norm_map)
        return cm_error_set(err, CM_EINPUT, "layer %s (%s): the latency-driven flow has no "
                            "building block for a normalisation over the whole map (its passes "
                            "stream slices of it)", src->name, cm_op_name(src->op));
    if (!kind_of(src, &l->kind) || src->n_inputs < 1)
        return cm_error_set(err, CM_EINPUT,
                            "layer %s (%s): the latency-driven flow has no building block for it",
                            src->name, cm_op_name(src->op));
    l->resize = src->op == CM_OP_UPSAMPLE;
    l->interpolate = l->resize && src->interpolate;
    l->normalise = src->op == CM_OP_LAYERNORM;
    const int main = b->main_at[b->net->n] = main_operand(b, src);
    const lat_source from = source_of(b, src->inputs[main]);
    l->starts = b->net->n > 0 && from != b->net->n - 1;
    for (int i = 0; i < src->n_inputs; i++)
        if (i != main)
            l->side_words += shape_words(source_shape(b, source_of(b, src->inputs[i])));
    if (src->op == CM_OP_CONV)
        fill_conv(src, l);
    else if (src->op == CM_OP_FC)
        fill_fc(src, l);
    else
        fill_map(src, source_shape(b, from), l);
    l->has_bias = l->kind == CM_LATENCY_CONV && src->has_bias;
    l->biases = l->has_bias ? l->nout : 0;
    l->rows_out = l->kind == CM_LATENCY_CONV && src->op == CM_OP_FC ? 1 : (int)src->out_shape.h;
    l->cols_out = l->kind == CM_LATENCY_CONV && src->op == CM_OP_FC ? 1 : (int)src->out_shape.w;
    l->macs = src->macs;
    return CM_OK;
}

/* A layer writes its output to memory besides streaming it on when a layer further on
 * reads it other than as the main operand of the very next one, or it is a graph
 * output that the last layer's write does not already cover. */
static void mark_spills(const net_build *b)
{
    cm_lat_net *net = b->net;
    for (int i = 0; i < net->n; i++) {
        const cm_layer *src = &b->g->layers[net->l[i].graph_index];
        const int main = b->main_at[i];
        for (int k = 0; k < src->n_inputs; k++) {
            lat_source s = source_of(b, src->inputs[k]);
            if (s >= 0 && (k != main || net->l[i].starts))
                net->l[s].spills = true;
        }
    }
    for (int o = 0; o < b->g->n_outputs; o++) {
        lat_source s = b->of_layer[b->g->outputs[o]];
        if (s >= 0 && s != net->n - 1)
            net->l[s].spills = true;
    }
}

/* The order the net takes the graph's layers in: topological, and after each layer one
 * of its consumers whenever one is ready (the lowest graph index first), so a layer
 * reads its main operand from the layer before it as often as the graph allows. The
 * graph's own order puts ResNet's downsampling shortcut between the block's two
 * convolutions, which would begin a subgraph at the shortcut and another after it;
 * this order begins one, at the shortcut. */
static cm_status stream_order(const cm_graph *g, int *order, cm_error *err)
{
    const int n = g->n_layers;
    int edges = 0;
    for (int i = 0; i < n; i++)
        edges += g->layers[i].n_inputs;
    int *pending = calloc((size_t)n, sizeof *pending), *first = calloc((size_t)n + 1, sizeof *first);
    int *to = malloc(((size_t)edges + 1) * sizeof *to), *fill = calloc((size_t)n, sizeof *fill);
    bool *done = calloc((size_t)n, sizeof *done);
    cm_status st = pending && first && to && fill && done ? CM_OK : cm_error_nomem(err);
    /* consumers of layer p: to[first[p] .. first[p + 1]) */
    for (int i = 0; st == CM_OK && i < n; i++)
        for (int k = 0; k < g->layers[i].n_inputs; k++)
            if (!CM_SOURCE_IS_INPUT(g->layers[i].inputs[k])) {
                first[g->layers[i].inputs[k] + 1]++;
                pending[i]++;
            }
    for (int p = 0; st == CM_OK && p < n; p++)
        first[p + 1] += first[p];
    for (int i = 0; st == CM_OK && i < n; i++)
        for (int k = 0; k < g->layers[i].n_inputs; k++) {
            cm_source s = g->layers[i].inputs[k];
            if (!CM_SOURCE_IS_INPUT(s))
                to[first[s] + fill[s]++] = i;
        }
    int lowest = 0, last = -1;
    for (int k = 0; st == CM_OK && k < n; k++) {
        int next = -1;
        for (int e = last >= 0 ? first[last] : 0; last >= 0 && e < first[last + 1]; e++)
            if (!done[to[e]] && pending[to[e]] == 0 && (next < 0 || to[e] < next))
                next = to[e];
        while (done[lowest])
            lowest++;
        if (next < 0)
            next = lowest; /* in topological order, the lowest left is always ready */
        order[k] = last = next;
        done[next] = true;
        for (int e = first[next]; e < first[next + 1]; e++)
            pending[to[e]]--;
    }
    free(pending);
    free(first);
    free(to);
    free(fill);
    free(done);
    return st;
}

static cm_status net_alloc(net_build *b, int n, cm_error *err)
{
    b->net->l = calloc((size_t)n, sizeof *b->net->l);
    b->net->weight_at = calloc((size_t)n, sizeof *b->net->weight_at);
    b->of_layer = calloc((size_t)n, sizeof *b->of_layer);
    b->main_at = calloc((size_t)n, sizeof *b->main_at);
    b->net->at_graph = malloc((size_t)n * sizeof *b->net->at_graph);
    if (!b->net->l || !b->net->weight_at || !b->of_layer || !b->main_at || !b->net->at_graph)
        return cm_error_nomem(err);
    for (int i = 0; i < n; i++)
        b->net->at_graph[i] = -1;
    return CM_OK;
}

cm_status cm_lat_net_build(const cm_graph *g, cm_lat_net *net, cm_error *err)
{
    memset(net, 0, sizeof *net);
    net_build b = {g, net, NULL, NULL};
    int *order = NULL;
    cm_status st = g->n_layers > 0 ? net_alloc(&b, g->n_layers, err)
                                   : cm_error_set(err, CM_EINPUT, "the model has no layers");
    if (st == CM_OK)
        st = (order = malloc((size_t)g->n_layers * sizeof *order)) ? stream_order(g, order, err)
                                                                  : cm_error_nomem(err);
    for (int k = 0; st == CM_OK && k < g->n_layers; k++) {
        const int i = order[k];
        const cm_layer *src = &g->layers[i];
        if (is_pass_through(src->op) && src->n_inputs >= 1) {
            b.of_layer[i] = source_of(&b, src->inputs[0]);
            continue;
        }
        cm_lat_layer *l = &net->l[net->n];
        st = fill_layer(&b, i, l, err);
        if (st != CM_OK)
            break;
        b.of_layer[i] = net->at_graph[i] = net->n;
        if (l->kind == CM_LATENCY_CONV)
            net->weight_at[net->n_weight++] = net->n;
        net->macs += l->macs;
        net->buffers |= l->resize || l->normalise;
        net->n++;
    }
    if (st == CM_OK && net->n_weight == 0)
        st = cm_error_set(err, CM_EINPUT, "the model has no convolution or dense layer");
    if (st == CM_OK)
        mark_spills(&b);
    net->n_graph_layers = g->n_layers;
    free(order);
    free(b.of_layer);
    free(b.main_at);
    if (st != CM_OK)
        cm_lat_net_free(net);
    return st;
}

void cm_lat_net_free(cm_lat_net *net)
{
    free(net->l);
    free(net->weight_at);
    free(net->at_graph);
    memset(net, 0, sizeof *net);
}
