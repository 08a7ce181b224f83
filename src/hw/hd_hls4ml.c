/* hls4ml's parser: one node per layer as hls4ml builds them in io_stream mode. The
 * only folding variable is the kernel folding (SAMO Table I maps the reuse factor onto
 * it: RF = n_in x n_out / kf); the channel foldings stay 1. Dense and convolution
 * layers use SAMO's analytic model (backend-models.md 4.3).
 *
 * Correction of SAMO: SAMO takes the kernel foldings to be the valid reuse factors
 * themselves and sets RF = N / kf, which is seldom a valid RF (hls4ml then snaps it
 * at build time, so the predicted design is not the one built). cnnmap's kernel
 * foldings are N / RF over the valid RFs, so RF = N / kf is always valid and the DSP
 * count kf equals hls4ml's block factor.
 *
 * Second correction: SAMO also gives every other layer a reuse factor scanned over
 * C_in x C_out, so an unfolded ReLU of C channels takes spatial x C^2 cycles. hls4ml's
 * streaming activation, pooling and merge layers read one pixel (all its channels)
 * per cycle, so cnnmap gives them spatial-size cycles and no folding.
 *
 * Third: SAMO counts no BRAM, LUT or FF; cnnmap fills the resource model of
 * hls4ml_blocks.c (weights, FIFOs, line buffers, logic), so designs whose weights or
 * buffers do not fit the board are infeasible. */
#include "hw/hdgraph.h"

#include <stdio.h>
#include <stdlib.h>

static const char *hls_op_name(cm_op op)
{
    switch (op) {
    case CM_OP_CONV: return "Conv2D";
    case CM_OP_FC: return "Dense";
    case CM_OP_POOL_MAX:
    case CM_OP_POOL_AVG: return "Pooling2D";
    case CM_OP_GLOBAL_POOL_AVG:
    case CM_OP_GLOBAL_POOL_MAX: return "GlobalPooling2D";
    case CM_OP_ADD:
    case CM_OP_MUL: return "Merge";
    case CM_OP_CONCAT: return "Concatenate";
    /* A stream word is a whole pixel, so taking a range of its channels or reordering
     * them is wiring in a pixel-a-cycle layer (hls_kind: CM_HLS4ML_ACT). */
    case CM_OP_SLICE: return "ChannelSlice";
    case CM_OP_SHUFFLE: return "ChannelShuffle";
    case CM_OP_BATCHNORM: return "BatchNormalization";
    case CM_OP_LAYERNORM: return "LayerNormalization";
    case CM_OP_UPSAMPLE: return "Resize";
    default: return "Activation";
    }
}

static cm_status hls_kernel_folds(cm_hd_node *n, cm_error *err)
{
    int64_t total = cm_hls4ml_kernel_folds(n->hw.hls.n_in, n->hw.hls.n_out, NULL, 0);
    if (total <= 0 || total > (1 << 24))
        return cm_error_set(err, CM_EINPUT, "layer %s: %lld reuse factors is too many", n->name,
                            (long long)total);
    int64_t *v = malloc((size_t)total * sizeof *v);
    if (!v)
        return cm_error_nomem(err);
    cm_hls4ml_kernel_folds(n->hw.hls.n_in, n->hw.hls.n_out, v, total);
    /* Every valid RF divides N (rule iii), so kf = N / RF is exact and RF = N / kf
     * gives back a valid RF; the list of RFs ascending is the list of kf descending. */
    int64_t N = n->hw.hls.n_in * n->hw.hls.n_out;
    for (int64_t i = 0; i < total / 2; i++) {
        int64_t t = v[i];
        v[i] = v[total - 1 - i];
        v[total - 1 - i] = t;
    }
    for (int64_t i = 0; i < total; i++)
        v[i] = N / v[i];
    cm_status st = cm_hd_values_copy(&n->fold[2], v, (int)total, err);
    free(v);
    return st;
}

static cm_hls4ml_kind hls_kind(const cm_layer *l)
{
    switch (l->op) {
    case CM_OP_CONV:
    case CM_OP_FC: return CM_HLS4ML_MAC;
    case CM_OP_POOL_MAX:
    case CM_OP_POOL_AVG: return CM_HLS4ML_POOL;
    case CM_OP_GLOBAL_POOL_AVG:
    case CM_OP_GLOBAL_POOL_MAX: return CM_HLS4ML_GLOBAL_POOL;
    case CM_OP_ADD: return CM_HLS4ML_ADD;
    case CM_OP_MUL:
    case CM_OP_BATCHNORM: return CM_HLS4ML_MUL;
    case CM_OP_LAYERNORM: return CM_HLS4ML_NORM;
    case CM_OP_CONCAT: return CM_HLS4ML_COPY;
    case CM_OP_UPSAMPLE: return l->interpolate ? CM_HLS4ML_INTERP : CM_HLS4ML_COPY;
    case CM_OP_ACTIVATION:
        return l->activation == CM_ACT_SIGMOID || l->activation == CM_ACT_TANH ||
                       l->activation == CM_ACT_ERF || l->activation == CM_ACT_GELU
                   ? CM_HLS4ML_ACT_TABLE
                   : CM_HLS4ML_ACT;
    default: return CM_HLS4ML_ACT;
    }
}

/* What the resource model needs: words per pixel in and out, the padded row a line
 * buffer holds (hls4ml pads in a layer of its own before an io_stream convolution),
 * the window, and the output FIFO's depth, which hls4ml sets to the output pixels. */
static void hls_resource_dims(const cm_layer *l, cm_hls4ml_layer *h)
{
    h->kind = hls_kind(l);
    h->bits = CM_HLS4ML_BITS;
    h->channels_in = l->in_shape.c;
    h->channels_out = l->out_shape.c;
    h->line_width = l->in_shape.w + l->pad[1] + l->pad[3];
    bool windowed = l->op == CM_OP_CONV || l->op == CM_OP_POOL_MAX || l->op == CM_OP_POOL_AVG;
    h->kernel_h = windowed && l->kernel[0] > 0 ? l->kernel[0] : 1;
    h->kernel_w = windowed && l->kernel[1] > 0 ? l->kernel[1] : 1;
    h->fifo_depth = l->out_shape.h * l->out_shape.w;
    h->windowed = windowed && (l->in_shape.h > 1 || l->in_shape.w > 1);
    for (int i = 0; i < 2 && h->windowed; i++) {
        const int64_t d = l->dilation[i] > 0 ? l->dilation[i] : 1;
        h->win[i] = (cm_window_axis){
            .n = i == 0 ? l->in_shape.h : l->in_shape.w, .before = l->pad[i],
            .after = l->pad[i + 2], .extent = d * (l->kernel[i] - 1) + 1,
            .stride = l->stride[i] > 0 ? l->stride[i] : 1,
            .out = i == 0 ? l->out_shape.h : l->out_shape.w};
    }
}

static cm_status hls_layer(cm_hd_build *b, int li, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    if (l->op == CM_OP_FLATTEN || l->op == CM_OP_RESHAPE || l->op == CM_OP_SOFTMAX ||
        l->op == CM_OP_PAD) {
        cm_hd_pass_through(b, li);
        return CM_OK;
    }
    int idx = cm_hd_add_layer_node(b, li, l->name,
                                   l->op == CM_OP_LAYERNORM && l->norm_l2    ? "L2Normalization"
                                   : l->op == CM_OP_LAYERNORM && l->norm_map ? "GroupNormalization"
                                                                             : hls_op_name(l->op));
    if (idx < 0)
        return cm_error_nomem(err);
    cm_hd_node *n = &b->h->nodes[idx];
    cm_hls4ml_layer *h = &n->hw.hls;
    const cm_shape at = cm_hd_is_broadcast_merge(l) ? l->out_shape : l->in_shape;
    bool spatial_input = at.h > 1 || at.w > 1;
    h->spatial = spatial_input ? at.h * at.w : 1;
    h->kernel_fold = 1;
    hls_resource_dims(l, h);
    n->flags = CM_HD_CUT_AFTER;
    cm_status st = cm_hd_values_divisors(&n->fold[0], 1, err);
    if (st == CM_OK)
        st = cm_hd_values_divisors(&n->fold[1], 1, err);
    if (st != CM_OK)
        return st;
    h->whole_map = l->op == CM_OP_LAYERNORM && l->norm_map;
    if (l->op == CM_OP_UPSAMPLE) {
        h->resizes = true;
        cm_resize_axis_make(l->in_shape.h, l->out_shape.h, l->interpolate, &h->resize[0]);
        cm_resize_axis_make(l->in_shape.w, l->out_shape.w, l->interpolate, &h->resize[1]);
    }
    if (l->op == CM_OP_CONV || l->op == CM_OP_FC) {
        h->multiplies = true;
        int groups = l->groups > 0 ? l->groups : 1;
        h->n_in = l->op == CM_OP_FC ? l->in_shape.c * l->in_shape.h * l->in_shape.w
                                    : l->in_shape.c / groups * l->kernel[0] * l->kernel[1];
        h->n_out = l->out_shape.c;
        if (l->op == CM_OP_FC)
            h->spatial = 1;
        n->kernel_size = l->kernel[0] > 0 ? l->kernel[0] : 1;
        st = hls_kernel_folds(n, err);
    } else {
        h->n_in = h->n_out = 1;
        st = cm_hd_values_divisors(&n->fold[2], 1, err);
    }
    if (st == CM_OK)
        st = cm_hd_connect_inputs(b, li, idx, err);
    b->out_node[li] = idx;
    return st;
}

cm_status cm_hd_build_hls4ml(cm_hd_build *b, cm_error *err)
{
    for (int li = 0; li < b->g->n_layers; li++) {
        cm_status st = hls_layer(b, li, err);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

int cm_hd_hls4ml_params(const cm_hd_node *n, const int64_t fold[3], cm_hd_param out[3])
{
    if (!n->hw.hls.multiplies)
        return 0;
    cm_hls4ml_layer l = n->hw.hls;
    l.kernel_fold = fold[2];
    out[0] = (cm_hd_param){"ReuseFactor", cm_hls4ml_reuse_factor(&l)};
    return 1;
}
