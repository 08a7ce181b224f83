/* fpgaConvNet's parser: one fpgaConvNet layer per graph layer (SAMO's wrapper of
 * fpgaconvnet-model, backend-models.md 2.6), a Split after any layer whose output
 * feeds several layers, and the folding variables of SAMO Table I: coarse-in,
 * coarse-out and fine. Constraints per SAMO Table II: intra matching for the layers
 * whose channels pass through (pooling, activations, element-wise, concat, split);
 * no inter matching, because fpgaConvNet puts a squeeze between layers whose stream
 * counts differ. Every edge is a valid cut. */
#include "hw/hdgraph.h"

#include <stdio.h>

static bool fcn_kind_of(const cm_layer *l, cm_fcn_kind *kind)
{
    switch (l->op) {
    case CM_OP_CONV: *kind = CM_FCN_CONV; return true;
    case CM_OP_FC: *kind = CM_FCN_INNER_PRODUCT; return true;
    case CM_OP_POOL_MAX:
    case CM_OP_POOL_AVG: *kind = CM_FCN_POOL; return true;
    case CM_OP_GLOBAL_POOL_AVG:
    case CM_OP_GLOBAL_POOL_MAX: *kind = CM_FCN_GLOBAL_POOL; return true;
    case CM_OP_RELU:
    case CM_OP_ACTIVATION:
    case CM_OP_BATCHNORM: *kind = CM_FCN_RELU; return true;
    /* A stream block too, holding a pixel's channels while their mean and variance are
     * summed (CM_HD_PIXEL_BUFFER) and multiplying each word (CM_HD_NORMALISE). */
    case CM_OP_LAYERNORM: *kind = CM_FCN_RELU; return true;
    case CM_OP_ADD:
    case CM_OP_MUL:
        *kind = l->n_inputs > 1 ? CM_FCN_ELTWISE : CM_FCN_RELU;
        return true;
    case CM_OP_CONCAT: *kind = CM_FCN_CONCAT; return true;
    /* Both stream a word a cycle per stream: a slice reads every channel of its fork's
     * output and passes on its range; a shuffle passes each pixel's channels on in
     * another order, from a pixel buffer (CM_HD_PIXEL_BUFFER). */
    case CM_OP_SLICE:
    case CM_OP_SHUFFLE: *kind = CM_FCN_RELU; return true;
    case CM_OP_UPSAMPLE: *kind = CM_FCN_RESIZE; return true;
    default: return false;
    }
}

static const char *fcn_op_name(cm_fcn_kind k)
{
    static const char *const names[] = {
        [CM_FCN_CONV] = "Convolution", [CM_FCN_INNER_PRODUCT] = "InnerProduct",
        [CM_FCN_POOL] = "Pooling", [CM_FCN_GLOBAL_POOL] = "GlobalPooling",
        [CM_FCN_RELU] = "ReLU", [CM_FCN_SQUEEZE] = "Squeeze", [CM_FCN_SPLIT] = "Split",
        [CM_FCN_ELTWISE] = "EltWise", [CM_FCN_CONCAT] = "Concat", [CM_FCN_RESIZE] = "Resize",
    };
    return names[k];
}

/* The coarse factors of a concat must divide every input's channel count. */
static int64_t concat_common_channels(const cm_hd_build *b, const cm_layer *l)
{
    int64_t g = 0;
    for (int i = 0; i < l->n_inputs; i++) {
        int64_t c = CM_SOURCE_IS_INPUT(l->inputs[i])
                        ? b->g->inputs[CM_SOURCE_INPUT_INDEX(l->inputs[i])].shape.c
                        : b->g->layers[l->inputs[i]].out_shape.c;
        while (c) {
            int64_t t = g % c;
            g = c;
            c = t;
        }
    }
    return g;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static const char *fcn_layer_op(const cm_layer *l, cm_fcn_kind kind)
{
    if (l->op == CM_OP_LAYERNORM)
        return l->norm_l2 ? "L2Norm" : l->norm_map ? "GroupNorm" : "LayerNorm";
    return l->op == CM_OP_SLICE ? "Slice" : l->op == CM_OP_SHUFFLE ? "ChannelShuffle"
                                                                    : fcn_op_name(kind);
}

static void fcn_fill(cm_fcn_layer *f, const cm_layer *l)
{
    const bool broadcast = cm_hd_is_broadcast_merge(l); /* over the output's map */
    f->rows = (int)(broadcast ? l->out_shape.h : l->in_shape.h);
    f->cols = (int)(broadcast ? l->out_shape.w : l->in_shape.w);
    f->channels = (int)l->in_shape.c;
    f->filters = (int)l->out_shape.c;
    for (int i = 0; i < 2; i++) {
        f->kernel[i] = l->kernel[i] > 0 ? l->kernel[i] : 1;
        f->stride[i] = l->stride[i] > 0 ? l->stride[i] : 1;
        f->dilation[i] = l->dilation[i] > 0 ? l->dilation[i] : 1;
    }
    f->ceil_mode = l->ceil_mode;
    for (int i = 0; i < 4; i++)
        f->pad[i] = l->pad[i];
    f->groups = l->groups > 0 ? l->groups : 1;
    f->has_bias = l->has_bias;
    f->n_inputs = l->n_inputs;
    if (f->kind == CM_FCN_CONCAT)
        f->channels = (int)l->out_shape.c;
    if (f->kind == CM_FCN_RESIZE)
        cm_fcn_resize_init(f, (int)l->out_shape.h, (int)l->out_shape.w, l->interpolate);
}

static cm_status fcn_values(cm_hd_build *b, cm_hd_node *n, const cm_layer *l, cm_error *err)
{
    cm_fcn_layer *f = &n->hw.fcn;
    if (f->kind == CM_FCN_CONCAT)
        return cm_hd_values_intra(n, concat_common_channels(b, l), err);
    if (l->op == CM_OP_SLICE) /* the streams carry whole channel groups in and out */
        return cm_hd_values_intra(n, gcd64(gcd64(l->in_shape.c, l->out_shape.c),
                                           l->channel_offset), err);
    if (f->kind != CM_FCN_CONV && f->kind != CM_FCN_INNER_PRODUCT)
        return cm_hd_values_intra(n, f->channels, err);
    cm_status st = cm_hd_values_divisors(&n->fold[0], f->channels, err);
    if (st == CM_OK)
        st = cm_hd_values_divisors(&n->fold[1], f->filters, err);
    if (st != CM_OK)
        return st;
    int fine[3], count = 1;
    fine[0] = 1;
    if (f->kind == CM_FCN_CONV)
        count = cm_fcn_fine_values(f->kernel, fine);
    int64_t v[3];
    for (int i = 0; i < count; i++)
        v[i] = fine[i];
    n->kernel_size = f->kernel[0];
    return cm_hd_values_copy(&n->fold[2], v, count, err);
}

static cm_status fcn_add_split(cm_hd_build *b, int li, int from, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    char name[320];
    snprintf(name, sizeof name, "%s_split", l->name);
    int idx = cm_hd_add_layer_node(b, li, name, fcn_op_name(CM_FCN_SPLIT));
    if (idx < 0)
        return cm_error_nomem(err);
    cm_hd_node *n = &b->h->nodes[idx];
    cm_fcn_layer_init(&n->hw.fcn, CM_FCN_SPLIT);
    cm_fcn_layer *f = &n->hw.fcn;
    f->rows = (int)l->out_shape.h;
    f->cols = (int)l->out_shape.w;
    f->channels = (int)l->out_shape.c;
    f->n_inputs = cm_hd_consumers(b, li);
    n->channels_in = n->channels_out = f->channels;
    n->size_in = n->size_out;
    n->flags |= CM_HD_CUT_AFTER;
    cm_status st = cm_hd_values_intra(n, f->channels, err);
    if (st == CM_OK)
        st = cm_hd_connect(b->h, from, idx, err);
    b->fork_node[li] = idx;
    return st;
}

static cm_status fcn_layer(cm_hd_build *b, int li, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    cm_fcn_kind kind;
    if (!fcn_kind_of(l, &kind)) {
        if (l->op == CM_OP_FLATTEN || l->op == CM_OP_RESHAPE || l->op == CM_OP_SOFTMAX) {
            cm_hd_pass_through(b, li);
            return CM_OK;
        }
        return cm_hd_unsupported(b, li, err);
    }
    int idx = cm_hd_add_layer_node(b, li, l->name, fcn_layer_op(l, kind));
    if (idx < 0)
        return cm_error_nomem(err);
    cm_hd_node *n = &b->h->nodes[idx];
    cm_fcn_layer_init(&n->hw.fcn, kind);
    fcn_fill(&n->hw.fcn, l);
    n->flags |= CM_HD_CUT_AFTER;
    if (l->op == CM_OP_SHUFFLE)
        n->flags |= CM_HD_PIXEL_BUFFER;
    if (l->op == CM_OP_LAYERNORM)
        n->flags |= (l->norm_map ? CM_HD_MAP_BUFFER : CM_HD_PIXEL_BUFFER) | CM_HD_NORMALISE;
    cm_status st = fcn_values(b, n, l, err);
    if (st == CM_OK)
        st = cm_hd_connect_inputs(b, li, idx, err);
    b->out_node[li] = idx;
    if (st == CM_OK && cm_hd_consumers(b, li) > 1)
        st = fcn_add_split(b, li, idx, err);
    return st;
}

cm_status cm_hd_build_fpgaconvnet(cm_hd_build *b, cm_error *err)
{
    for (int li = 0; li < b->g->n_layers; li++) {
        cm_status st = fcn_layer(b, li, err);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

int cm_hd_fpgaconvnet_params(const cm_hd_node *n, const int64_t fold[3], cm_hd_param out[3])
{
    cm_fcn_kind k = n->hw.fcn.kind;
    if (k != CM_FCN_CONV && k != CM_FCN_INNER_PRODUCT) {
        out[0] = (cm_hd_param){"coarse", fold[0]};
        return 1;
    }
    out[0] = (cm_hd_param){"coarse_in", fold[0]};
    out[1] = (cm_hd_param){"coarse_out", fold[1]};
    if (k == CM_FCN_INNER_PRODUCT)
        return 2;
    out[2] = (cm_hd_param){"fine", fold[2]};
    return 3;
}
