/* Channel-wise blocks written with the channels last (ConvNeXt's permute, LayerNorm,
 * Linear, GELU, Linear, permute): a Transpose to N x H x W x C aliases the feature map
 * while its layers keep C x H x W, the operators that work per pixel on the last axis
 * read it (LayerNormalization, MatMul as a 1x1 convolution, element-wise ones), and the
 * Transpose back aliases it again. Also LayerNormalization over channels in general,
 * and Erf as an activation (the clean-up fuses torch's GELU pattern around it). */
#include <stdlib.h>
#include <string.h>

#include "model/import_ops.h"

/* Operators that act on each pixel's channels alone, so they read a channels-last
 * feature map as they would its channels-first original. */
static const char *const channel_wise_ops[] = {
    "LayerNormalization", "MatMul", "Add", "Sub", "Mul", "Div", "Erf", "Relu", "Sigmoid", "Tanh",
    "Clip", "LeakyRelu", "HardSigmoid", "HardSwish", "Transpose", "Identity", "Dropout", "Cast",
    NULL,
};

static bool is_arith(const char *op)
{
    return !strcmp(op, "Add") || !strcmp(op, "Sub") || !strcmp(op, "Mul") || !strcmp(op, "Div");
}

/* Channels last over more than one pixel: its data order differs from the layer's. */
static bool reordered(const cm_tensor *t)
{
    return t && t->kind == CM_TENSOR_ACTIVATION && t->channels_last && t->rank == 4 &&
           t->dims[1] * t->dims[2] > 1;
}

/* A constant operand of a channels-last feature map: a scalar, or one value per channel
 * along the last axis. */
static bool per_channel(const cm_tensor *c, int64_t channels)
{
    for (int i = 0; i + 1 < c->rank; i++)
        if (c->dims[i] != 1)
            return false;
    return c->rank == 0 || c->dims[c->rank - 1] == 1 || c->dims[c->rank - 1] == channels;
}

cm_status cm_import_channels_last_guard(cm_import *im, const Onnx__NodeProto *node,
                                        cm_tensor **in, int n_in)
{
    const cm_tensor *x = NULL;
    for (int k = 0; k < n_in && !x; k++)
        if (reordered(in[k]))
            x = in[k];
    if (!x)
        return CM_OK;
    bool listed = false;
    for (int i = 0; node->op_type && cm_import_is_onnx_domain(node->domain) && channel_wise_ops[i];
         i++)
        listed = listed || !strcmp(node->op_type, channel_wise_ops[i]);
    /* The Transpose is what the layers cannot follow; the reader is where it shows. */
    if (!listed && x->moved_by)
        return cm_import_fail(im, x->moved_by, CM_EINPUT,
                              "changes the data layout: its channels-last output reaches node "
                              "'%s' (%s), which is not channel-wise, before a Transpose "
                              "(0, 3, 1, 2) moves the channels back",
                              node->name && *node->name ? node->name : "(unnamed)",
                              node->op_type ? node->op_type : "no op_type");
    if (!listed)
        return cm_import_fail(im, node, CM_EINPUT,
                              "feature map '%s' has its channels last (a Transpose moved them); "
                              "only channel-wise operators may read it until a Transpose "
                              "(perm 0,3,1,2) moves them back",
                              x->name);
    for (int k = 0; is_arith(node->op_type) && k < n_in; k++)
        if (in[k] && in[k]->kind == CM_TENSOR_CONST && !per_channel(in[k], x->dims[3]))
            return cm_import_fail(im, node, CM_EINPUT,
                                  "constant '%s' is not per channel of the channels-last feature "
                                  "map '%s'", in[k]->name, x->name);
    return CM_OK;
}

static bool perm_is(const int64_t *perm, int n, const int64_t *want)
{
    if (n != 4)
        return false;
    for (int i = 0; i < 4; i++)
        if (perm[i] != want[i])
            return false;
    return true;
}

cm_status cm_import_transpose_channels(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                                       const int64_t *perm, int n, bool *done)
{
    static const int64_t to_last_perm[4] = {0, 2, 3, 1}, to_first_perm[4] = {0, 3, 1, 2};
    *done = false;
    bool to_last = !x->channels_last && x->rank == 4 && perm_is(perm, n, to_last_perm);
    bool to_first = x->channels_last && perm_is(perm, n, to_first_perm);
    if (reordered(x) && !to_first)
        return cm_import_fail(im, node, CM_EINPUT,
                              "changes the data layout (a feature map whose channels a Transpose "
                              "moved last may only have them moved back, perm 0,3,1,2)");
    if (!to_last && !to_first)
        return CM_OK;
    int64_t dims[4];
    for (int i = 0; i < 4; i++)
        dims[i] = x->dims[perm[i]];
    cm_tensor *t = cm_import_define(im, node->output[0], CM_TENSOR_ACTIVATION, 4, dims);
    if (!t)
        return cm_error_nomem(im->err);
    t->source = x->source;
    t->q = x->q;
    t->has_q = x->has_q;
    t->channels_last = to_last;
    t->moved_by = to_last ? node : NULL;
    *done = true;
    return CM_OK;
}

cm_status cm_import_channels_last_output(cm_import *im, const cm_tensor *t)
{
    if (!reordered(t))
        return CM_OK;
    if (t->moved_by)
        return cm_import_fail(im, t->moved_by, CM_EINPUT,
                              "changes the data layout: graph output '%s' keeps the channels "
                              "last", t->name);
    return cm_error_set(im->err, CM_EINPUT, "%s: graph output '%s' keeps the channels last",
                        im->origin, t->name);
}

cm_status cm_import_pointwise_matmul(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                     int n_in)
{
    cm_status st;
    if ((st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION)) != CM_OK ||
        (st = cm_import_need(im, node, in, n_in, 1, CM_TENSOR_CONST)) != CM_OK)
        return st;
    const cm_tensor *x = in[0], *w = in[1];
    if ((st = cm_import_check_weight_bits(im, node, w)) != CM_OK)
        return st;
    if (x->rank != 4 || w->rank != 2 || w->dims[0] != x->dims[3])
        return cm_import_fail(im, node, CM_EINPUT,
                              "weights '%s' do not take the %lld channels of the channels-last "
                              "feature map '%s'", w->name, (long long)x->dims[x->rank - 1], x->name);
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_CONV, in, 1);
    if (!l)
        return im->err->code;
    l->kernel[0] = l->kernel[1] = 1;
    l->weight_q = w->q;
    float *v = NULL;
    if ((st = cm_tensor_read_floats(im, w, &v)) != CM_OK)
        return st;
    int64_t c = w->dims[0], n = w->dims[1];
    if (v) { /* C x N as stored; a convolution's weights are N x C x 1 x 1 */
        l->weights = malloc((size_t)(c * n) * sizeof *l->weights);
        if (!l->weights) {
            free(v);
            return cm_error_nomem(im->err);
        }
        for (int64_t i = 0; i < c; i++)
            for (int64_t o = 0; o < n; o++)
                l->weights[o * c + i] = v[i * n + o];
        l->n_weights = (uint64_t)(c * n);
        free(v);
    }
    int64_t dims[4] = {1, x->dims[1], x->dims[2], n};
    return cm_import_layer_output(im, node, 4, dims);
}

/* Normalised over exactly the channels: the last axis of a channels-last map, or axis 1
 * of a channels-first one with nothing after it but single pixels. */
static bool over_channels(const cm_tensor *x, int64_t axis)
{
    if (axis < 0)
        axis += x->rank;
    if (x->channels_last && x->rank == 4)
        return axis == 3;
    if (axis != 1)
        return false;
    for (int i = 2; i < x->rank; i++)
        if (x->dims[i] != 1)
            return false;
    return true;
}

static cm_status read_per_channel(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *t,
                                  int64_t channels, float **out)
{
    if (t->kind != CM_TENSOR_CONST || t->count != channels)
        return cm_import_fail(im, node, CM_EINPUT, "'%s' must be a constant of %lld values",
                              t->name, (long long)channels);
    return cm_tensor_read_floats(im, t, out);
}

static cm_status op_layer_norm(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                               int n_in)
{
    cm_status st;
    if ((st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION)) != CM_OK ||
        (st = cm_import_need(im, node, in, n_in, 1, CM_TENSOR_CONST)) != CM_OK)
        return st;
    cm_tensor *x = in[0];
    if (!over_channels(x, cm_attr_int(node, "axis", -1)))
        return cm_import_fail(im, node, CM_EINPUT,
                              "normalises over axes other than the channels (only a layer "
                              "normalisation over each pixel's channels is supported)");
    for (size_t k = 1; k < node->n_output; k++)
        if (*node->output[k])
            return cm_import_fail(im, node, CM_EINPUT, "the Mean and InvStdDev outputs are not "
                                  "supported");
    cm_shape s;
    if ((st = cm_import_chw(im, node, x, &s)) != CM_OK)
        return st;
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_LAYERNORM, in, 1);
    if (!l)
        return im->err->code;
    l->alpha = cm_attr_float(node, "epsilon", 1e-5);
    l->weight_q = in[1]->q;
    if ((st = read_per_channel(im, node, in[1], s.c, &l->weights)) != CM_OK)
        return st;
    l->n_weights = l->weights ? (uint64_t)s.c : 0;
    if (n_in > 2 && in[2]) {
        l->has_bias = true;
        l->bias_q = in[2]->q;
        if ((st = read_per_channel(im, node, in[2], s.c, &l->bias)) != CM_OK)
            return st;
    }
    return cm_import_layer_output(im, node, x->rank, x->dims);
}

static cm_status op_erf(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    cm_status st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION);
    if (st != CM_OK)
        return st;
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_ACTIVATION, in, 1);
    if (!l)
        return im->err->code;
    l->activation = CM_ACT_ERF;
    return cm_import_layer_output(im, node, in[0]->rank, in[0]->dims);
}

const cm_op_entry cm_channel_ops[] = {
    {"LayerNormalization", op_layer_norm},
    {"Erf", op_erf},
    {NULL, NULL},
};
