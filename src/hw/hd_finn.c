/* FINN's parser: graph layers become FINN v0.6 HLS custom ops as FINN's own
 * conversion produces them (a convolution is FMPadding when padded, a sliding-window
 * generator and an MVAU with the following activation absorbed as thresholds; a
 * depthwise convolution uses a VVAU), named as FINN names them ("StreamingFCLayer_
 * Batch_0") so that folding configurations can be exported by name. Folding per SAMO
 * Table I (SIMD = channel-in folding, PE = channel-out folding) and flags per SAMO's
 * FINN wrapper (backend-models.md 3.5): intra and inter matching everywhere except
 * the MVAU (divisible instead) and DuplicateStreams (divisible); cuts only after an
 * MVAU or a VVAU. Ops of current FINN carry what GoogLeNet, DenseNet, EfficientNet
 * and the FPNs need: StreamingConcat (a channel concat) and ElementwiseMul (SiLU's and
 * squeeze-excitation's product of two streams), which v0.6 did not have, and
 * UpsampleNearestNeighbour; they keep FINN's pre-specialisation names here, and the export (export_finn.c) names every node as the
 * FINN version it targets does. */
#include "hw/hd_finn_wide.h"
#include "hw/hdgraph.h"

#include <stdio.h>
#include <string.h>

enum {
    NAME_MVAU, NAME_VVAU, NAME_SWG, NAME_THRESHOLD, NAME_MAXPOOL, NAME_POOL, NAME_DUP,
    NAME_ADD, NAME_PAD, NAME_GAP, NAME_CONCAT, NAME_MUL, NAME_UPSAMPLE, NAME_COUNT
};

static const char *const finn_op[NAME_COUNT] = {
    [NAME_MVAU] = "StreamingFCLayer_Batch",
    [NAME_VVAU] = "Vector_Vector_Activate_Batch",
    [NAME_SWG] = "ConvolutionInputGenerator",
    [NAME_THRESHOLD] = "Thresholding_Batch",
    [NAME_MAXPOOL] = "StreamingMaxPool_Batch",
    [NAME_POOL] = "Pool_Batch",
    [NAME_DUP] = "DuplicateStreams_Batch",
    [NAME_ADD] = "AddStreams_Batch",
    [NAME_PAD] = "FMPadding_Batch",
    [NAME_GAP] = "GlobalAccPool_Batch",
    [NAME_CONCAT] = "StreamingConcat",
    [NAME_MUL] = "ElementwiseMul",
    [NAME_UPSAMPLE] = "UpsampleNearestNeighbour_Batch",
};

/* The activation a conv or fc hands its output to, when the MVAU can absorb it as
 * thresholds: the single consumer, marked fusable by the importer. */
static int absorbed_activation(const cm_hd_build *b, int li)
{
    if (cm_hd_consumers(b, li) != 1)
        return -1;
    const int first = cm_hd_first_consumer(b, li);
    const cm_layer *c = &b->g->layers[first];
    if ((c->op == CM_OP_RELU || c->op == CM_OP_ACTIVATION) && c->fusable)
        return first;
    return -1;
}

/* Appends a FINN node of kind `id` for layer li, connected after `from` (or to the
 * layer's inputs when from < 0). Returns its index or -1 (out of memory). */
static int finn_node(cm_hd_build *b, int li, int id, cm_finn_kind kind, int from, cm_error *err,
                     cm_status *st)
{
    char name[64];
    cm_hd_numbered_name(b, id, finn_op[id], name, sizeof name);
    int idx = cm_hd_add_layer_node(b, li, name, finn_op[id]);
    if (idx < 0) {
        *st = cm_error_nomem(err);
        return -1;
    }
    cm_hd_node *n = &b->h->nodes[idx];
    cm_finn_node_init(&n->hw.finn, kind);
    const cm_layer *l = &b->g->layers[li];
    n->bits_in = n->bits_out = cm_hd_act_bits(b, &l->in_q);
    n->hw.finn.in_bits = n->hw.finn.out_bits = n->bits_in;
    n->hw.finn.weight_bits = cm_hd_weight_bits(b, l);
    n->flags = CM_HD_INTRA | CM_HD_INTER;
    *st = from >= 0 ? cm_hd_connect(b->h, from, idx, err) : cm_hd_connect_inputs(b, li, idx, err);
    return idx;
}

static void set_dims(cm_hd_node *n, int64_t c, int64_t h, int64_t w, int64_t c_out, int64_t h_out,
                     int64_t w_out)
{
    n->channels_in = (int)c;
    n->channels_out = (int)c_out;
    n->size_in = c * h * w;
    n->size_out = c_out * h_out * w_out;
}

/* The pads a sliding window needs to produce the graph's output shape: the declared
 * ones, with the end pads raised to what the last window reads (a ceil_mode pool's
 * last window runs past the input and its declared pad). */
static void window_pads(const cm_layer *l, int pad[4])
{
    const int64_t in[2] = {l->in_shape.h, l->in_shape.w}, out[2] = {l->out_shape.h, l->out_shape.w};
    memcpy(pad, l->pad, 4 * sizeof *pad);
    for (int i = 0; i < 2; i++) {
        int64_t d = l->dilation[i] > 0 ? l->dilation[i] : 1, s = l->stride[i] > 0 ? l->stride[i] : 1;
        int64_t reach = (out[i] - 1) * s + d * (l->kernel[i] - 1) + 1 - in[i] - l->pad[i];
        if (reach > pad[i + 2])
            pad[i + 2] = (int)reach;
    }
}

/* FMPadding before a padded sliding window; returns the node or `from` if unpadded. */
static int finn_padding(cm_hd_build *b, int li, int from, cm_error *err, cm_status *st)
{
    const cm_layer *l = &b->g->layers[li];
    int pad[4];
    window_pads(l, pad);
    if (!(pad[0] | pad[1] | pad[2] | pad[3]))
        return from;
    int idx = finn_node(b, li, NAME_PAD, CM_FINN_FMPADDING, from, err, st);
    if (idx < 0 || *st != CM_OK)
        return idx;
    cm_hd_node *n = &b->h->nodes[idx];
    cm_finn_node *f = &n->hw.finn;
    f->ifm_dim[0] = (int)l->in_shape.h;
    f->ifm_dim[1] = (int)l->in_shape.w;
    memcpy(f->pad, pad, sizeof f->pad);
    f->channels = (int)l->in_shape.c;
    f->num_vectors = 1;
    int64_t h = l->in_shape.h + pad[0] + pad[2], w = l->in_shape.w + pad[1] + pad[3];
    set_dims(n, l->in_shape.c, l->in_shape.h, l->in_shape.w, l->in_shape.c, h, w);
    *st = cm_hd_values_intra(n, l->in_shape.c, err);
    return idx;
}

static int finn_swg(cm_hd_build *b, int li, int from, cm_error *err, cm_status *st)
{
    const cm_layer *l = &b->g->layers[li];
    int idx = finn_node(b, li, NAME_SWG, CM_FINN_SWG, from, err, st);
    if (idx < 0 || *st != CM_OK)
        return idx;
    cm_hd_node *n = &b->h->nodes[idx];
    cm_finn_node *f = &n->hw.finn;
    int pad[4];
    window_pads(l, pad);
    f->ifm_dim[0] = (int)(l->in_shape.h + pad[0] + pad[2]);
    f->ifm_dim[1] = (int)(l->in_shape.w + pad[1] + pad[3]);
    memcpy(f->in_pad, pad, sizeof f->in_pad);
    f->ofm_dim[0] = (int)l->out_shape.h;
    f->ofm_dim[1] = (int)l->out_shape.w;
    f->kernel[0] = l->kernel[0];
    f->kernel[1] = l->kernel[1];
    f->stride[0] = l->stride[0];
    f->stride[1] = l->stride[1];
    for (int i = 0; i < 2; i++)
        f->dilation[i] = l->dilation[i] > 0 ? l->dilation[i] : 1;
    f->channels = (int)l->in_shape.c;
    int64_t k2c = (int64_t)l->kernel[0] * l->kernel[1] * l->in_shape.c;
    set_dims(n, l->in_shape.c, f->ifm_dim[0], f->ifm_dim[1], k2c, l->out_shape.h, l->out_shape.w);
    *st = cm_hd_values_intra(n, l->in_shape.c, err);
    return idx;
}

/* An MVAU or VVAU with the activation that follows it as thresholds (act >= 0), or
 * without thresholds; its output width is then the activation's. */
static void absorb_activation(const cm_hd_build *b, cm_hd_node *n, const cm_layer *l, int act)
{
    cm_finn_node *f = &n->hw.finn;
    f->no_activation = act < 0;
    n->bits_out = f->out_bits = cm_hd_act_bits(b, act >= 0 ? &b->g->layers[act].out_q : &l->out_q);
    cm_finn_node_apply_samo_styles(f);
}

/* The MVAU of a conv (after its sliding window) or of a dense layer. */
static int finn_mvau(cm_hd_build *b, int li, int from, int act, cm_error *err, cm_status *st)
{
    const cm_layer *l = &b->g->layers[li];
    int idx = finn_node(b, li, NAME_MVAU, CM_FINN_MVAU, from, err, st);
    if (idx < 0 || *st != CM_OK)
        return idx;
    cm_hd_node *n = &b->h->nodes[idx];
    cm_finn_node *f = &n->hw.finn;
    int64_t mw = l->in_shape.c * (l->op == CM_OP_FC ? l->in_shape.h * l->in_shape.w
                                                    : (int64_t)l->kernel[0] * l->kernel[1]);
    f->mw = (int)mw;
    f->mh = (int)l->out_shape.c;
    f->num_vectors = l->op == CM_OP_FC ? 1 : l->out_shape.h * l->out_shape.w;
    absorb_activation(b, n, l, act);
    set_dims(n, mw, 1, f->num_vectors, l->out_shape.c, 1, f->num_vectors);
    n->flags = CM_HD_DIVISIBLE | CM_HD_CUT_AFTER;
    *st = cm_hd_values_divisors(&n->fold[0], mw, err);
    if (*st == CM_OK)
        *st = cm_hd_values_divisors(&n->fold[1], l->out_shape.c, err);
    if (*st == CM_OK)
        *st = cm_hd_values_divisors(&n->fold[2], 1, err);
    return idx;
}

static int finn_vvau(cm_hd_build *b, int li, int from, int act, cm_error *err, cm_status *st)
{
    const cm_layer *l = &b->g->layers[li];
    int idx = finn_node(b, li, NAME_VVAU, CM_FINN_VVAU, from, err, st);
    if (idx < 0 || *st != CM_OK)
        return idx;
    cm_hd_node *n = &b->h->nodes[idx];
    cm_finn_node *f = &n->hw.finn;
    f->channels = (int)l->in_shape.c;
    f->kernel[0] = l->kernel[0];
    f->kernel[1] = l->kernel[1];
    f->ofm_dim[0] = (int)l->out_shape.h;
    f->ofm_dim[1] = (int)l->out_shape.w;
    f->num_vectors = l->out_shape.h * l->out_shape.w;
    absorb_activation(b, n, l, act);
    int64_t k2c = (int64_t)l->kernel[0] * l->kernel[1] * l->in_shape.c;
    set_dims(n, k2c, 1, f->num_vectors, l->out_shape.c, 1, f->num_vectors);
    n->flags |= CM_HD_CUT_AFTER;
    *st = cm_hd_values_intra(n, l->in_shape.c, err);
    return idx;
}

static cm_status finn_conv(cm_hd_build *b, int li, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    bool depthwise = l->groups > 1 && l->groups == l->in_shape.c && l->groups == l->out_shape.c;
    if (l->groups > 1 && !depthwise)
        return cm_error_set(err, CM_EINPUT,
                            "layer %s: FINN has no building block for a grouped convolution "
                            "(groups %d) other than depthwise", l->name, l->groups);
    cm_status st = CM_OK;
    int act = absorbed_activation(b, li);
    int at = -1;
    if (l->op == CM_OP_CONV) {
        at = finn_padding(b, li, -1, err, &st);
        if (st == CM_OK)
            at = finn_swg(b, li, at, err, &st);
    }
    if (st == CM_OK)
        at = depthwise ? finn_vvau(b, li, at, act, err, &st) : finn_mvau(b, li, at, act, err, &st);
    b->out_node[li] = at;
    if (act >= 0)
        b->out_node[act] = at;
    return st;
}

static cm_status finn_pool(cm_hd_build *b, int li, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    cm_status st = CM_OK;
    int pad[4];
    window_pads(l, pad);
    bool padded = pad[0] | pad[1] | pad[2] | pad[3];
    bool streaming = l->op == CM_OP_POOL_MAX && !padded && l->kernel[0] == l->kernel[1] &&
                     l->kernel[0] == l->stride[0] && l->stride[0] == l->stride[1] &&
                     l->in_shape.h == l->in_shape.w && l->in_shape.h % l->kernel[0] == 0;
    int idx;
    if (streaming) {
        idx = finn_node(b, li, NAME_MAXPOOL, CM_FINN_MAXPOOL, -1, err, &st);
        if (idx >= 0 && st == CM_OK) {
            cm_finn_node *f = &b->h->nodes[idx].hw.finn;
            f->ifm_dim[0] = f->ifm_dim[1] = (int)l->in_shape.h;
            f->pool_dim = l->kernel[0];
            f->channels = (int)l->in_shape.c;
            st = cm_hd_values_intra(&b->h->nodes[idx], l->in_shape.c, err);
        }
    } else {
        int at = finn_padding(b, li, -1, err, &st);
        if (st == CM_OK)
            at = finn_swg(b, li, at, err, &st);
        if (st != CM_OK)
            return st;
        idx = finn_node(b, li, NAME_POOL, CM_FINN_POOL, at, err, &st);
        if (idx >= 0 && st == CM_OK) {
            cm_hd_node *n = &b->h->nodes[idx];
            cm_finn_node *f = &n->hw.finn;
            f->channels = (int)l->in_shape.c;
            f->kernel[0] = l->kernel[0];
            f->kernel[1] = l->kernel[1];
            f->ofm_dim[0] = (int)l->out_shape.h;
            f->ofm_dim[1] = (int)l->out_shape.w;
            f->num_vectors = 1;
            n->size_in = l->out_shape.h * l->out_shape.w * l->kernel[0] * l->kernel[1] * l->in_shape.c;
            n->channels_in = (int)(l->kernel[0] * l->kernel[1] * l->in_shape.c);
            st = cm_hd_values_intra(n, l->in_shape.c, err);
        }
    }
    b->out_node[li] = idx;
    return st;
}

/* Nodes with one PE over the channels and numInputVectors = the spatial size. */
static cm_status finn_channelwise(cm_hd_build *b, int li, int id, cm_finn_kind kind,
                                  cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    cm_status st = CM_OK;
    int idx = finn_node(b, li, id, kind, -1, err, &st);
    if (idx >= 0 && st == CM_OK) {
        cm_hd_node *n = &b->h->nodes[idx];
        cm_finn_node *f = &n->hw.finn;
        f->channels = (int)l->in_shape.c;
        f->num_vectors = l->in_shape.h * l->in_shape.w;
        f->ifm_dim[0] = (int)l->in_shape.h;
        f->ifm_dim[1] = (int)l->in_shape.w;
        n->bits_out = f->out_bits = cm_hd_act_bits(b, &l->out_q);
        st = cm_hd_values_intra(n, l->in_shape.c, err);
    }
    b->out_node[li] = idx;
    return st;
}

static cm_status finn_duplicate(cm_hd_build *b, int li, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    cm_status st = CM_OK;
    int idx = finn_node(b, li, NAME_DUP, CM_FINN_DUPLICATE, b->out_node[li], err, &st);
    if (idx < 0 || st != CM_OK)
        return st;
    cm_hd_node *n = &b->h->nodes[idx];
    cm_finn_node *f = &n->hw.finn;
    f->channels = (int)l->out_shape.c;
    f->num_vectors = l->out_shape.h * l->out_shape.w;
    int64_t size = l->out_shape.c * f->num_vectors;
    set_dims(n, l->out_shape.c, 1, f->num_vectors, l->out_shape.c, 1, f->num_vectors);
    n->size_in = n->size_out = size;
    n->bits_in = n->bits_out = cm_hd_act_bits(b, &l->out_q);
    n->flags = CM_HD_INTRA | CM_HD_DIVISIBLE;
    b->fork_node[li] = idx;
    return cm_hd_values_intra(n, l->out_shape.c, err);
}

/* The shape of a layer's input i (its producer's output, or the graph input). */
static cm_shape input_shape(const cm_hd_build *b, const cm_layer *l, int i)
{
    const cm_source s = l->inputs[i];
    if (CM_SOURCE_IS_INPUT(s))
        return b->g->inputs[CM_SOURCE_INPUT_INDEX(s)].shape;
    return b->g->layers[s].out_shape;
}

/* Every input of a merge must come from a node of its own: a merge fed by the network's
 * input, or by one map twice, has no stream per operand. */
static cm_status merge_inputs(const cm_hd_build *b, int li, const cm_hd_node *n, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    if (n->n_pred != l->n_inputs)
        return cm_error_set(err, CM_EINPUT, "layer %s (%s): FINN streams each operand from a "
                            "layer of its own, and %d of its %d inputs are not", l->name,
                            cm_op_name(l->op), l->n_inputs - n->n_pred, l->n_inputs);
    return CM_OK;
}

/* A node merging the layer's inputs into a map of its output shape; -1 on error (*st). */
static int merge_node(cm_hd_build *b, int li, int id, cm_finn_kind kind, cm_error *err,
                      cm_status *st)
{
    const cm_layer *l = &b->g->layers[li];
    const int idx = finn_node(b, li, id, kind, -1, err, st);
    if (idx < 0 || *st != CM_OK)
        return -1;
    cm_hd_node *n = &b->h->nodes[idx];
    const int64_t c = l->out_shape.c, px = l->out_shape.h * l->out_shape.w;
    n->hw.finn.channels = (int)c;
    n->hw.finn.num_vectors = px;
    set_dims(n, c, 1, px, c, 1, px);
    b->out_node[li] = idx;
    *st = merge_inputs(b, li, n, err);
    return *st == CM_OK ? idx : -1;
}

/* StreamingConcat over the channels; its ChannelsPerStream are filled (and a concat of
 * more inputs than one node takes is cascaded) by cm_hd_finn_split_wide. */
static cm_status finn_concat(cm_hd_build *b, int li, cm_error *err)
{
    cm_status st = CM_OK;
    merge_node(b, li, NAME_CONCAT, CM_FINN_CONCAT, err, &st);
    return st;
}

/* ElementwiseMul of two streams; one of them may be a C-vector per frame (the scale of
 * a squeeze-excitation), broadcast over the other's pixels. */
static cm_status finn_mul(cm_hd_build *b, int li, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    if (l->n_inputs != 2)
        return cm_hd_unsupported(b, li, err);
    const cm_shape s0 = input_shape(b, l, 0), s1 = input_shape(b, l, 1);
    const int64_t px0 = s0.h * s0.w, px1 = s1.h * s1.w, px = l->out_shape.h * l->out_shape.w;
    if (s0.c != l->out_shape.c || s1.c != l->out_shape.c || (px0 != px && px0 != 1) ||
        (px1 != px && px1 != 1))
        return cm_error_set(err, CM_EINPUT, "layer %s (mul): FINN's ElementwiseMul takes two "
                            "maps of one shape or a map and one value per channel", l->name);
    cm_status st = CM_OK;
    const int idx = merge_node(b, li, NAME_MUL, CM_FINN_MUL, err, &st);
    if (idx < 0)
        return st;
    cm_hd_node *n = &b->h->nodes[idx];
    cm_finn_node *f = &n->hw.finn;
    f->broadcast_port = px0 != px ? 0 : px1 != px ? 1 : -1;
    const cm_source other = l->inputs[1];
    f->weight_bits = CM_SOURCE_IS_INPUT(other) ? f->in_bits
                                               : cm_hd_act_bits(b, &b->g->layers[other].out_q);
    n->bits_out = f->out_bits = cm_hd_act_bits(b, &l->out_q);
    cm_finn_node_apply_samo_styles(f);
    return cm_hd_values_intra(n, l->out_shape.c, err);
}

/* UpsampleNearestNeighbour_Batch (upsampler.py): a square map (its IFMDim and OFMDim
 * are one number each) enlarged in nearest mode, a pixel a cycle with no folding of its
 * own (as StreamingMaxPool, its streams take the neighbours' width). */
static cm_status finn_upsample(cm_hd_build *b, int li, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    if (l->interpolate || l->in_shape.h != l->in_shape.w || l->out_shape.h != l->out_shape.w ||
        l->out_shape.h < l->in_shape.h)
        return cm_error_set(err, CM_EINPUT, "layer %s (upsample): FINN's "
                            "UpsampleNearestNeighbour enlarges a square map in nearest mode, "
                            "and this is %s from %lldx%lld to %lldx%lld", l->name,
                            l->interpolate ? "bilinear" : "nearest", (long long)l->in_shape.h,
                            (long long)l->in_shape.w, (long long)l->out_shape.h,
                            (long long)l->out_shape.w);
    cm_status st = CM_OK;
    const int idx = finn_node(b, li, NAME_UPSAMPLE, CM_FINN_UPSAMPLE, -1, err, &st);
    if (idx >= 0 && st == CM_OK) {
        cm_finn_node *f = &b->h->nodes[idx].hw.finn;
        f->channels = (int)l->in_shape.c;
        f->num_vectors = 1;
        f->ifm_dim[0] = f->ifm_dim[1] = (int)l->in_shape.h;
        f->ofm_dim[0] = f->ofm_dim[1] = (int)l->out_shape.h;
        cm_resize_axis_make(l->in_shape.h, l->out_shape.h, 0, &f->resize[0]);
        cm_resize_axis_make(l->in_shape.w, l->out_shape.w, 0, &f->resize[1]);
        st = cm_hd_values_intra(&b->h->nodes[idx], l->in_shape.c, err);
    }
    b->out_node[li] = idx;
    return st;
}

static cm_status finn_layer(cm_hd_build *b, int li, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    if (b->out_node[li] >= 0) /* an activation an MVAU absorbed */
        return CM_OK;
    switch (l->op) {
    case CM_OP_CONV:
    case CM_OP_FC: return finn_conv(b, li, err);
    case CM_OP_POOL_MAX:
    case CM_OP_POOL_AVG: return finn_pool(b, li, err);
    case CM_OP_GLOBAL_POOL_AVG: return finn_channelwise(b, li, NAME_GAP, CM_FINN_GLOBALACCPOOL, err);
    case CM_OP_ADD:
        if (l->n_inputs > 1)
            return finn_channelwise(b, li, NAME_ADD, CM_FINN_ADD, err);
        return finn_channelwise(b, li, NAME_THRESHOLD, CM_FINN_THRESHOLDING, err);
    case CM_OP_MUL:
        if (l->n_inputs > 1)
            return finn_mul(b, li, err);
        return finn_channelwise(b, li, NAME_THRESHOLD, CM_FINN_THRESHOLDING, err);
    case CM_OP_RELU:
    case CM_OP_ACTIVATION:
    case CM_OP_BATCHNORM:
        /* Thresholds implement only monotonic functions; GELU dips below 0. */
        if (l->n_inputs > 1 || l->activation == CM_ACT_GELU)
            return cm_hd_unsupported(b, li, err);
        return finn_channelwise(b, li, NAME_THRESHOLD, CM_FINN_THRESHOLDING, err);
    case CM_OP_CONCAT:
        if (l->n_inputs == 1) {
            cm_hd_pass_through(b, li);
            return CM_OK;
        }
        return finn_concat(b, li, err);
    case CM_OP_UPSAMPLE: return finn_upsample(b, li, err);
    case CM_OP_FLATTEN:
    case CM_OP_RESHAPE:
    case CM_OP_SOFTMAX:
        cm_hd_pass_through(b, li);
        return CM_OK;
    default: return cm_hd_unsupported(b, li, err);
    }
}

/* SAMO: when an MVAU feeds an AddStreams, every input of the add must match it. */
static void finn_match_add_inputs(cm_hdgraph *h)
{
    for (int i = 0; i < h->n_nodes; i++) {
        cm_hd_node *n = &h->nodes[i];
        if (n->hw.finn.kind != CM_FINN_ADD)
            continue;
        bool from_mvau = false;
        for (int p = 0; p < n->n_pred; p++)
            from_mvau |= h->nodes[n->pred[p]].hw.finn.kind == CM_FINN_MVAU;
        if (from_mvau)
            for (int p = 0; p < n->n_pred; p++)
                h->nodes[n->pred[p]].flags |= CM_HD_INTER;
    }
}

cm_status cm_hd_build_finn(cm_hd_build *b, cm_error *err)
{
    for (int li = 0; li < b->g->n_layers; li++) {
        cm_status st = finn_layer(b, li, err);
        if (st == CM_OK && b->out_node[li] >= 0 && b->fork_node[li] < 0 &&
            b->g->layers[li].op != CM_OP_FLATTEN && cm_hd_consumers(b, li) > 1) {
            int owner = li;
            st = finn_duplicate(b, owner, err);
        }
        if (st != CM_OK)
            return st;
    }
    finn_match_add_inputs(b->h);
    return cm_hd_finn_split_wide(b->h, err);
}

int cm_hd_finn_params(const cm_hd_node *n, const int64_t fold[3], cm_hd_param out[3])
{
    switch (n->hw.finn.kind) {
    case CM_FINN_MVAU:
        out[0] = (cm_hd_param){"SIMD", fold[0]};
        out[1] = (cm_hd_param){"PE", fold[1]};
        return 2;
    case CM_FINN_SWG:
    case CM_FINN_FMPADDING:
    case CM_FINN_CONCAT:
        out[0] = (cm_hd_param){"SIMD", fold[0]};
        return 1;
    case CM_FINN_MAXPOOL:
    case CM_FINN_UPSAMPLE:
        return 0;
    default:
        out[0] = (cm_hd_param){"PE", fold[1]};
        return 1;
    }
}
