/* Node handlers that become layers: convolution, fully connected, pooling,
 * activations, element-wise merges, concatenation, upsampling, normalisation and the
 * shape changes of feature maps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/import.h"
#include "model/import_ops.h"

static const char *layer_name(const Onnx__NodeProto *node)
{
    if (node->name && *node->name)
        return node->name;
    return node->n_output ? node->output[0] : node->op_type;
}

cm_status cm_import_chw(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *t,
                        cm_shape *out)
{
    const char *why = NULL;
    if (t->rank < 2)
        why = "has no batch and channel axes";
    else if (t->rank > 4)
        why = "has more than 4 axes";
    else if (t->dims[0] != 1)
        why = "has a batch dimension other than 1";
    if (why) {
        if (node)
            return cm_import_fail(im, node, CM_EINPUT, "feature map '%s' %s", t->name, why);
        return cm_error_set(im->err, CM_EINPUT, "%s: feature map '%s' %s", im->origin, t->name, why);
    }
    out->c = t->dims[1];
    out->h = t->rank > 2 ? t->dims[2] : 1;
    out->w = t->rank > 3 ? t->dims[3] : 1;
    if (t->channels_last && t->rank == 4)
        *out = (cm_shape){t->dims[3], t->dims[1], t->dims[2]};
    return CM_OK;
}

cm_layer *cm_import_add_layer(cm_import *im, const Onnx__NodeProto *node, cm_op op,
                              cm_tensor **inputs, int n_inputs)
{
    cm_source sources[64];
    if (n_inputs > 64) {
        cm_import_fail(im, node, CM_EINPUT, "more than 64 inputs");
        return NULL;
    }
    for (int i = 0; i < n_inputs; i++)
        sources[i] = inputs[i]->source;
    im->layer_channels_last = inputs[0]->channels_last;
    im->layer_moved_by = inputs[0]->moved_by;
    for (int i = 1; i < n_inputs; i++)
        if (inputs[i]->channels_last != inputs[0]->channels_last) {
            cm_import_fail(im, node, CM_EINPUT, "mixes channels-first and channels-last inputs");
            return NULL;
        }
    cm_layer *l = cm_graph_add_layer(im->g, layer_name(node), op);
    if (!l || cm_layer_set_inputs(l, sources, n_inputs, im->err) != CM_OK) {
        cm_error_nomem(im->err);
        return NULL;
    }
    l->in_q = inputs[0]->q;
    l->out_q = cm_quant_float();
    l->weight_q = cm_quant_float();
    l->bias_q = cm_quant_float();
    if (cm_import_chw(im, node, inputs[0], &l->in_shape) != CM_OK)
        return NULL;
    return l;
}

cm_status cm_import_layer_output(cm_import *im, const Onnx__NodeProto *node, int rank,
                                 const int64_t *dims)
{
    cm_tensor probe = {.name = node->output[0], .rank = rank,
                       .channels_last = im->layer_channels_last};
    memcpy(probe.dims, dims, (size_t)rank * sizeof *dims);
    char what[300];
    snprintf(what, sizeof what, "output '%s' of node '%s'", node->output[0], layer_name(node));
    cm_status st = cm_import_check_dims(im, what, &probe);
    if (st != CM_OK)
        return st;
    cm_layer *l = &im->g->layers[im->g->n_layers - 1];
    if ((st = cm_import_chw(im, node, &probe, &l->out_shape)) != CM_OK)
        return st;
    cm_tensor *t = cm_import_define(im, node->output[0], CM_TENSOR_ACTIVATION, rank, dims);
    if (!t)
        return cm_error_nomem(im->err);
    t->source = im->g->n_layers - 1;
    t->channels_last = probe.channels_last;
    t->moved_by = probe.channels_last ? im->layer_moved_by : NULL;
    if ((st = cm_layer_compute_cost(l, im->err)) != CM_OK)
        cm_error_prefix(im->err, im->origin); /* its message names only the layer */
    return st;
}

/* Layers whose output values lie in the input's domain keep its quantisation. */
static void inherit_quant(cm_import *im, const cm_tensor *in)
{
    cm_layer *l = &im->g->layers[im->g->n_layers - 1];
    l->out_q = in->q;
    cm_tensor *out = &im->tensors[im->n_tensors - 1];
    out->q = in->q;
    out->has_q = in->has_q;
}

cm_status cm_import_need(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in,
                         int k, cm_tensor_kind kind)
{
    if (k >= n_in || !in[k])
        return cm_import_fail(im, node, CM_EINPUT, "input %d is missing", k);
    if (in[k]->kind != kind)
        return cm_import_fail(im, node, CM_EINPUT, "input '%s' must be %s", in[k]->name,
                              kind == CM_TENSOR_CONST ? "a constant (initializer)" : "a feature map");
    return CM_OK;
}

cm_status cm_import_check_weight_bits(cm_import *im, const Onnx__NodeProto *node,
                                      const cm_tensor *w)
{
    if (w->q.bits > CM_QUANT_BITS_MAX)
        return cm_import_fail(im, node, CM_EINPUT,
                              "weights '%s' are quantised to %d bits, outside the supported "
                              "1-%d for weights and activations",
                              w->name, w->q.bits, CM_QUANT_BITS_MAX);
    return CM_OK;
}

/* One spatial axis of a sliding window: output length and the pads it uses. */
typedef struct window_axis {
    int64_t in, kernel, stride, dilation, pad_begin, pad_end;
} window_axis;

static cm_status window_out(cm_import *im, const Onnx__NodeProto *node, window_axis *a,
                            const char *auto_pad, bool ceil_mode, int64_t *out)
{
    if (a->kernel <= 0 || a->stride <= 0 || a->dilation <= 0 || a->pad_begin < 0 || a->pad_end < 0)
        return cm_import_fail(im, node, CM_EINPUT,
                              "kernel, stride and dilation must be positive and pads non-negative");
    /* Bounded before any arithmetic: with every term at most CM_DIM_MAX (2^24) the
     * products and sums below stay under 2^50, far from int64 overflow, and the
     * results fit the layer's int fields. */
    if (a->kernel > CM_DIM_MAX || a->stride > CM_DIM_MAX || a->dilation > CM_DIM_MAX ||
        a->pad_begin > CM_DIM_MAX || a->pad_end > CM_DIM_MAX)
        return cm_import_fail(im, node, CM_EINPUT,
                              "window geometry is out of range (kernel, stride, dilation and "
                              "pads must be at most %lld)", (long long)CM_DIM_MAX);
    int64_t span = a->dilation * (a->kernel - 1) + 1;
    if (strcmp(auto_pad, "SAME_UPPER") == 0 || strcmp(auto_pad, "SAME_LOWER") == 0) {
        *out = (a->in + a->stride - 1) / a->stride;
        int64_t total = (*out - 1) * a->stride + span - a->in;
        if (total < 0)
            total = 0;
        bool upper = auto_pad[5] == 'U';
        a->pad_begin = upper ? total / 2 : total - total / 2;
        a->pad_end = total - a->pad_begin;
        return CM_OK;
    }
    if (strcmp(auto_pad, "VALID") == 0)
        a->pad_begin = a->pad_end = 0;
    else if (*auto_pad && strcmp(auto_pad, "NOTSET") != 0)
        return cm_import_fail(im, node, CM_EINPUT, "unknown auto_pad '%s'", auto_pad);
    int64_t room = a->in + a->pad_begin + a->pad_end - span;
    if (room < 0)
        return cm_import_fail(im, node, CM_EINPUT,
                              "window of %lld exceeds the padded input of %lld",
                              (long long)span, (long long)(a->in + a->pad_begin + a->pad_end));
    *out = (ceil_mode ? (room + a->stride - 1) / a->stride : room / a->stride) + 1;
    /* A window that would start in the end padding is dropped (PyTorch and ONNX). */
    if (ceil_mode && (*out - 1) * a->stride >= a->in + a->pad_begin)
        (*out)--;
    return CM_OK;
}

/* Geometry shared by Conv and the pools: kernel, strides, dilations, pads, auto_pad. */
static cm_status window_geometry(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *x,
                                 const int64_t *kernel, bool ceil_mode, cm_layer *l,
                                 int64_t *out_dims)
{
    int spatial = x->rank - 2;
    if (spatial < 1 || spatial > 2)
        return cm_import_fail(im, node, CM_EINPUT, "only 1-D and 2-D windows are supported");
    int64_t strides[2] = {1, 1}, dilations[2] = {1, 1}, pads[4] = {0, 0, 0, 0};
    /* Absent means the default; present, ONNX wants one value per spatial axis (pads:
     * all begins, then all ends). Two pads for a 2-D window would otherwise be read
     * as top and left, with bottom and right silently 0. */
    int ns = cm_attr_ints(node, "strides", strides, 2);
    int nd = cm_attr_ints(node, "dilations", dilations, 2);
    int np = cm_attr_ints(node, "pads", pads, 4);
    if ((ns >= 0 && ns != spatial) || (nd >= 0 && nd != spatial))
        return cm_import_fail(im, node, CM_EINPUT, "strides and dilations must have %d value%s",
                              spatial, spatial == 1 ? "" : "s");
    if (np >= 0 && np != 2 * spatial)
        return cm_import_fail(im, node, CM_EINPUT,
                              "pads must have %d values (begin and end of each spatial axis)",
                              2 * spatial);
    char auto_pad[32];
    cm_attr_string(node, "auto_pad", auto_pad, sizeof auto_pad);
    for (int i = 0; i < spatial; i++) {
        window_axis a = {x->dims[2 + i], kernel[i], strides[i], dilations[i], pads[i],
                         pads[i + spatial]};
        cm_status st = window_out(im, node, &a, auto_pad, ceil_mode, &out_dims[2 + i]);
        if (st != CM_OK)
            return st;
        l->kernel[i] = (int)a.kernel;
        l->stride[i] = (int)a.stride;
        l->dilation[i] = (int)a.dilation;
        l->pad[i] = (int)a.pad_begin;
        l->pad[i + 2] = (int)a.pad_end;
    }
    if (spatial == 1)
        l->kernel[1] = 1;
    out_dims[0] = 1;
    return CM_OK;
}

static cm_status read_bias(cm_import *im, const Onnx__NodeProto *node, cm_layer *l,
                           const cm_tensor *b, int64_t channels)
{
    if (!b)
        return CM_OK;
    if (b->kind != CM_TENSOR_CONST || b->count != channels)
        return cm_import_fail(im, node, CM_EINPUT, "bias '%s' must be a constant of %lld values",
                              b->name, (long long)channels);
    l->has_bias = true;
    l->bias_q = b->q;
    return cm_tensor_read_floats(im, b, &l->bias);
}

static cm_status op_conv(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    cm_status st;
    if ((st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION)) != CM_OK ||
        (st = cm_import_need(im, node, in, n_in, 1, CM_TENSOR_CONST)) != CM_OK)
        return st;
    const cm_tensor *x = in[0], *w = in[1];
    if ((st = cm_import_check_weight_bits(im, node, w)) != CM_OK)
        return st;
    if (w->rank != x->rank || x->rank < 3)
        return cm_import_fail(im, node, CM_EINPUT, "weights '%s' have rank %d for input rank %d",
                              w->name, w->rank, x->rank);
    int64_t group = cm_attr_int(node, "group", 1);
    if (group <= 0 || group > x->dims[1] || x->dims[1] % group || w->dims[0] % group ||
        w->dims[1] * group != x->dims[1])
        return cm_import_fail(im, node, CM_EINPUT,
                              "weights %lld x %lld with group %lld do not fit %lld input channels",
                              (long long)w->dims[0], (long long)w->dims[1], (long long)group,
                              (long long)x->dims[1]);
    int64_t kernel[2] = {w->dims[2], x->rank > 3 ? w->dims[3] : 1};
    int64_t attr_kernel[2];
    int nk = cm_attr_ints(node, "kernel_shape", attr_kernel, 2);
    if (nk >= 0 && (nk != x->rank - 2 || attr_kernel[0] != kernel[0] ||
                    (nk > 1 && attr_kernel[1] != kernel[1])))
        return cm_import_fail(im, node, CM_EINPUT, "kernel_shape disagrees with the weights");
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_CONV, in, 1);
    if (!l)
        return im->err->code;
    int64_t out[CM_MAX_RANK];
    if ((st = window_geometry(im, node, x, kernel, false, l, out)) != CM_OK)
        return st;
    out[1] = w->dims[0];
    l->groups = (int)group;
    l->weight_q = w->q;
    if ((st = read_bias(im, node, l, n_in > 2 ? in[2] : NULL, w->dims[0])) != CM_OK)
        return st;
    if ((st = cm_tensor_read_floats(im, w, &l->weights)) != CM_OK)
        return st;
    l->n_weights = l->weights ? (uint64_t)w->count : 0;
    return cm_import_layer_output(im, node, x->rank, out);
}

/* Transposes an out x in matrix stored in x out order. */
static cm_status transpose_weights(cm_import *im, float **w, int64_t rows, int64_t cols)
{
    if (!*w)
        return CM_OK;
    float *t = malloc((size_t)(rows * cols) * sizeof *t);
    if (!t)
        return cm_error_nomem(im->err);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            t[c * rows + r] = (*w)[r * cols + c];
    free(*w);
    *w = t;
    return CM_OK;
}

/* Gemm(A, B, C) and MatMul(A, B) with a constant B: a fully connected layer. */
static cm_status fully_connected(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                 int n_in, bool trans_b, double alpha, const cm_tensor *bias)
{
    cm_status st;
    if ((st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION)) != CM_OK ||
        (st = cm_import_need(im, node, in, n_in, 1, CM_TENSOR_CONST)) != CM_OK)
        return st;
    const cm_tensor *a = in[0], *w = in[1];
    if ((st = cm_import_check_weight_bits(im, node, w)) != CM_OK)
        return st;
    if (a->rank != 2 || w->rank != 2)
        return cm_import_fail(im, node, CM_EINPUT, "expects a 2-D input and 2-D weights");
    int64_t k = trans_b ? w->dims[1] : w->dims[0], n = trans_b ? w->dims[0] : w->dims[1];
    if (k != a->dims[1])
        return cm_import_fail(im, node, CM_EINPUT,
                              "weights '%s' take %lld features but the input has %lld", w->name,
                              (long long)k, (long long)a->dims[1]);
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_FC, in, 1);
    if (!l)
        return im->err->code;
    l->weight_q = w->q;
    if (bias && bias->count != n && bias->count != 1)
        return cm_import_fail(im, node, CM_EINPUT, "bias '%s' does not match %lld outputs",
                              bias->name, (long long)n);
    if (bias && bias->count == n && (st = read_bias(im, node, l, bias, n)) != CM_OK)
        return st;
    if ((st = cm_tensor_read_floats(im, w, &l->weights)) != CM_OK)
        return st;
    if (!trans_b && (st = transpose_weights(im, &l->weights, k, n)) != CM_OK)
        return st;
    if (l->weights) {
        l->n_weights = (uint64_t)w->count;
        for (uint64_t i = 0; alpha != 1.0 && i < l->n_weights; i++)
            l->weights[i] *= (float)alpha;
    }
    int64_t out[2] = {1, n};
    return cm_import_layer_output(im, node, 2, out);
}

static cm_status op_gemm(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (cm_attr_int(node, "transA", 0) != 0)
        return cm_import_fail(im, node, CM_EINPUT, "transA is not supported");
    const cm_tensor *c = n_in > 2 ? in[2] : NULL;
    if (c && c->kind != CM_TENSOR_CONST)
        return cm_import_fail(im, node, CM_EINPUT, "bias '%s' must be a constant", c->name);
    if (c && cm_attr_float(node, "beta", 1.0) != 1.0)
        return cm_import_fail(im, node, CM_EINPUT, "beta other than 1 is not supported");
    return fully_connected(im, node, in, n_in, cm_attr_int(node, "transB", 0) != 0,
                           cm_attr_float(node, "alpha", 1.0), c);
}

static cm_status op_matmul(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in > 0 && in[0] && in[0]->channels_last)
        return cm_import_pointwise_matmul(im, node, in, n_in);
    return fully_connected(im, node, in, n_in, false, 1.0, NULL);
}

static cm_status pool(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in,
                      cm_op op)
{
    cm_status st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION);
    if (st != CM_OK)
        return st;
    const cm_tensor *x = in[0];
    int64_t kernel[2] = {1, 1};
    int nk = cm_attr_ints(node, "kernel_shape", kernel, 2);
    if (nk != x->rank - 2)
        return cm_import_fail(im, node, CM_EINPUT, "kernel_shape must have %d values", x->rank - 2);
    cm_layer *l = cm_import_add_layer(im, node, op, in, 1);
    if (!l)
        return im->err->code;
    l->ceil_mode = cm_attr_int(node, "ceil_mode", 0) != 0;
    l->count_include_pad = cm_attr_int(node, "count_include_pad", 0) != 0;
    int64_t out[CM_MAX_RANK];
    if ((st = window_geometry(im, node, x, kernel, l->ceil_mode, l, out)) != CM_OK)
        return st;
    out[1] = x->dims[1];
    if ((st = cm_import_layer_output(im, node, x->rank, out)) != CM_OK)
        return st;
    if (op == CM_OP_POOL_MAX)
        inherit_quant(im, x);
    return CM_OK;
}

static cm_status op_maxpool(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (node->n_output > 1 && *node->output[1])
        return cm_import_fail(im, node, CM_EINPUT, "the Indices output is not supported");
    return pool(im, node, in, n_in, CM_OP_POOL_MAX);
}

static cm_status op_avgpool(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    return pool(im, node, in, n_in, CM_OP_POOL_AVG);
}

/* keepdims false: the output drops the spatial axes (N x C), as ReduceMean may. */
static cm_status global_pool_dims(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                  int n_in, cm_op op, bool keepdims)
{
    cm_status st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION);
    if (st != CM_OK)
        return st;
    const cm_tensor *x = in[0];
    if (x->rank < 3)
        return cm_import_fail(im, node, CM_EINPUT, "needs a feature map with spatial axes");
    cm_layer *l = cm_import_add_layer(im, node, op, in, 1);
    if (!l)
        return im->err->code;
    int64_t out[CM_MAX_RANK];
    memcpy(out, x->dims, sizeof out);
    for (int i = 2; i < x->rank; i++)
        out[i] = 1;
    l->kernel[0] = (int)x->dims[2];
    l->kernel[1] = x->rank > 3 ? (int)x->dims[3] : 1;
    if ((st = cm_import_layer_output(im, node, keepdims ? x->rank : 2, out)) != CM_OK)
        return st;
    if (op == CM_OP_GLOBAL_POOL_MAX)
        inherit_quant(im, x);
    return CM_OK;
}

static cm_status global_pool(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in,
                             cm_op op)
{
    return global_pool_dims(im, node, in, n_in, op, true);
}

static cm_status op_global_avgpool(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                   int n_in)
{
    return global_pool(im, node, in, n_in, CM_OP_GLOBAL_POOL_AVG);
}

static cm_status op_global_maxpool(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                   int n_in)
{
    return global_pool(im, node, in, n_in, CM_OP_GLOBAL_POOL_MAX);
}

/* ReduceMean over the spatial axes is a global average pool; without keepdims (MnasNet's
 * head) its output is N x C. */
static cm_status op_reduce_mean(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                int n_in)
{
    int64_t axes[CM_MAX_RANK];
    int n = cm_attr_ints(node, "axes", axes, CM_MAX_RANK);
    if (n < 0 && n_in > 1 && in[1] && in[1]->values && in[1]->count <= CM_MAX_RANK) {
        n = (int)in[1]->count;
        for (int i = 0; i < n; i++)
            axes[i] = cm_to_int64(in[1]->values[i]);
    }
    bool spatial = n_in > 0 && in[0] && in[0]->rank == 4 && n == 2 &&
                   ((axes[0] == 2 || axes[0] == -2) && (axes[1] == 3 || axes[1] == -1));
    int64_t keepdims = cm_attr_int(node, "keepdims", 1);
    if (!spatial || (keepdims != 0 && keepdims != 1))
        return cm_import_fail(im, node, CM_EINPUT,
                              "only a mean over the spatial axes (2 and 3) is supported");
    return global_pool_dims(im, node, in, n_in, CM_OP_GLOBAL_POOL_AVG, keepdims == 1);
}

static cm_status activation(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in,
                            cm_op op, cm_activation kind, double alpha, double beta)
{
    cm_status st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION);
    if (st != CM_OK)
        return st;
    cm_layer *l = cm_import_add_layer(im, node, op, in, 1);
    if (!l)
        return im->err->code;
    l->activation = kind;
    l->alpha = alpha;
    l->beta = beta;
    if ((st = cm_import_layer_output(im, node, in[0]->rank, in[0]->dims)) != CM_OK)
        return st;
    if (kind == CM_ACT_RELU)
        inherit_quant(im, in[0]);
    return CM_OK;
}

static cm_status op_relu(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    return activation(im, node, in, n_in, CM_OP_RELU, CM_ACT_RELU, 0, 0);
}

static cm_status op_clip(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    double lo = cm_attr_float(node, "min", -INFINITY), hi = cm_attr_float(node, "max", INFINITY);
    if (n_in > 1 && in[1]) {
        if (!in[1]->values || in[1]->count != 1)
            return cm_import_fail(im, node, CM_EINPUT, "min must be a constant scalar");
        lo = in[1]->values[0];
    }
    if (n_in > 2 && in[2]) {
        if (!in[2]->values || in[2]->count != 1)
            return cm_import_fail(im, node, CM_EINPUT, "max must be a constant scalar");
        hi = in[2]->values[0];
    }
    if (lo == 0 && isinf(hi))
        return activation(im, node, in, n_in, CM_OP_RELU, CM_ACT_RELU, 0, 0);
    cm_activation kind = lo == 0 && hi == 6 ? CM_ACT_RELU6 : CM_ACT_CLIP;
    return activation(im, node, in, n_in, CM_OP_ACTIVATION, kind, lo, hi);
}

static cm_status op_leaky_relu(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    return activation(im, node, in, n_in, CM_OP_ACTIVATION, CM_ACT_LEAKY_RELU,
                      cm_attr_float(node, "alpha", 0.01), 0);
}

static cm_status op_sigmoid(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    return activation(im, node, in, n_in, CM_OP_ACTIVATION, CM_ACT_SIGMOID, 0, 0);
}

static cm_status op_hard_sigmoid(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                 int n_in)
{
    return activation(im, node, in, n_in, CM_OP_ACTIVATION, CM_ACT_HARD_SIGMOID,
                      cm_attr_float(node, "alpha", 0.2), cm_attr_float(node, "beta", 0.5));
}

static cm_status op_hard_swish(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    return activation(im, node, in, n_in, CM_OP_ACTIVATION, CM_ACT_HARD_SWISH, 0, 0);
}

static cm_status op_tanh(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    return activation(im, node, in, n_in, CM_OP_ACTIVATION, CM_ACT_TANH, 0, 0);
}

static cm_status op_softmax(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    cm_status st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION);
    if (st != CM_OK)
        return st;
    if (!cm_import_add_layer(im, node, CM_OP_SOFTMAX, in, 1))
        return im->err->code;
    return cm_import_layer_output(im, node, in[0]->rank, in[0]->dims);
}

/* BatchNormalization keeps its per-channel scale s = gamma / sqrt(var + eps) as the
 * layer's weights and its shift beta - mean * s as the bias, ready to fold. */
static cm_status op_batchnorm(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    cm_status st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION);
    for (int k = 1; st == CM_OK && k < 5; k++)
        st = cm_import_need(im, node, in, n_in, k, CM_TENSOR_CONST);
    if (st != CM_OK)
        return st;
    int64_t channels = in[0]->dims[1];
    for (int k = 1; k < 5; k++)
        if (in[k]->count != channels)
            return cm_import_fail(im, node, CM_EINPUT, "'%s' has %lld values for %lld channels",
                                  in[k]->name, (long long)in[k]->count, (long long)channels);
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_BATCHNORM, in, 1);
    if (!l)
        return im->err->code;
    double eps = cm_attr_float(node, "epsilon", 1e-5);
    float *v[4] = {NULL, NULL, NULL, NULL};
    for (int k = 0; st == CM_OK && k < 4; k++)
        st = cm_tensor_read_floats(im, in[k + 1], &v[k]);
    if (st == CM_OK && v[0] && v[1] && v[2] && v[3]) {
        l->weights = malloc((size_t)channels * sizeof *l->weights);
        l->bias = malloc((size_t)channels * sizeof *l->bias);
        if (!l->weights || !l->bias)
            st = cm_error_nomem(im->err);
        for (int64_t c = 0; st == CM_OK && c < channels; c++) {
            double s = v[0][c] / sqrt((double)v[3][c] + eps);
            l->weights[c] = (float)s;
            l->bias[c] = (float)(v[1][c] - v[2][c] * s);
        }
        l->n_weights = (uint64_t)channels;
    }
    for (int k = 0; k < 4; k++)
        free(v[k]);
    l->has_bias = true;
    if (st != CM_OK)
        return st;
    return cm_import_layer_output(im, node, in[0]->rank, in[0]->dims);
}

cm_status cm_import_broadcast(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *a,
                              const cm_tensor *b, int *rank, int64_t *dims)
{
    *rank = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < *rank; i++) {
        int ia = i - (*rank - a->rank), ib = i - (*rank - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return cm_import_fail(im, node, CM_EINPUT, "shapes of '%s' and '%s' do not broadcast",
                                  a->name, b->name);
        dims[i] = da > db ? da : db;
    }
    return CM_OK;
}

/* The constant operand of a scale or shift, kept as the layer's weights (mul) or bias
 * (add) so that the clean-up can fold it into the layer before. */
static cm_status keep_operand(cm_import *im, cm_layer *l, const cm_tensor *c, char arith)
{
    float *v;
    cm_status st = cm_tensor_read_floats(im, c, &v);
    if (st != CM_OK || !v)
        return st;
    for (int64_t i = 0; i < c->count; i++)
        v[i] = arith == '-' ? -v[i] : arith == '/' ? 1.0f / v[i] : v[i];
    if (arith == '+' || arith == '-')
        l->bias = v;
    else
        l->weights = v;
    l->n_weights = (uint64_t)c->count;
    return CM_OK;
}

/* Add, Sub, Mul, Div with a feature map: a merge of two feature maps, or a shift or
 * scale by a constant (for Sub and Div, only a constant second operand). */
cm_status cm_import_elementwise(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                int n_in, char arith)
{
    if (n_in != 2 || !in[0] || !in[1])
        return cm_import_fail(im, node, CM_EINPUT, "needs two inputs");
    int rank;
    int64_t dims[CM_MAX_RANK];
    cm_status st = cm_import_broadcast(im, node, in[0], in[1], &rank, dims);
    if (st != CM_OK)
        return st;
    bool both = in[0]->kind == CM_TENSOR_ACTIVATION && in[1]->kind == CM_TENSOR_ACTIVATION;
    bool ordered_ok = arith == '+' || arith == '*' || in[1]->kind == CM_TENSOR_CONST;
    if ((both && arith != '+' && arith != '*') || !ordered_ok)
        return cm_import_fail(im, node, CM_EINPUT, "only a constant divisor or subtrahend is supported");
    cm_tensor *ordered[2] = {in[0], in[1]};
    if (in[0]->kind == CM_TENSOR_CONST) {
        ordered[0] = in[1];
        ordered[1] = in[0];
    }
    /* The constant operand becomes the layer's weight_q, which the backends read as
     * a weight width. */
    if (!both && (st = cm_import_check_weight_bits(im, node, ordered[1])) != CM_OK)
        return st;
    cm_op op = arith == '+' || arith == '-' ? CM_OP_ADD : CM_OP_MUL;
    cm_layer *l = cm_import_add_layer(im, node, op, ordered, both ? 2 : 1);
    if (!l)
        return im->err->code;
    if (!both) {
        l->has_const_operand = true;
        l->params = (uint64_t)ordered[1]->count;
        l->weight_q = ordered[1]->q;
        if ((st = keep_operand(im, l, ordered[1], arith)) != CM_OK)
            return st;
    }
    return cm_import_layer_output(im, node, rank, dims);
}

cm_status cm_import_concat_activations(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                       int n_in)
{
    if (n_in < 1)
        return cm_import_fail(im, node, CM_EINPUT, "needs at least one input");
    for (int k = 0; k < n_in; k++) {
        cm_status st = cm_import_need(im, node, in, n_in, k, CM_TENSOR_ACTIVATION);
        if (st != CM_OK)
            return st;
    }
    int rank = in[0]->rank;
    int64_t axis = cm_attr_int(node, "axis", 1);
    if (axis < 0)
        axis += rank;
    if (axis != 1)
        return cm_import_fail(im, node, CM_EINPUT, "only concatenation along channels is supported");
    int64_t dims[CM_MAX_RANK];
    memcpy(dims, in[0]->dims, sizeof dims);
    for (int k = 1; k < n_in; k++) {
        bool same = in[k]->rank == rank;
        for (int i = 0; same && i < rank; i++)
            same = i == 1 || in[k]->dims[i] == dims[i];
        if (!same)
            return cm_import_fail(im, node, CM_EINPUT, "input '%s' does not match the others' shape",
                                  in[k]->name);
        dims[1] += in[k]->dims[1];
    }
    if (!cm_import_add_layer(im, node, CM_OP_CONCAT, in, n_in))
        return im->err->code;
    cm_status st = cm_import_layer_output(im, node, rank, dims);
    if (st == CM_OK)
        inherit_quant(im, in[0]);
    return st;
}

/* Linear mode interpolates between the 2 x 2 nearest inputs; the coordinate modes are
 * those torch exports (align_corners false: half_pixel or pytorch_half_pixel; true:
 * align_corners; before opset 11 Upsample and Resize know only asymmetric). */
static cm_status interpolation(cm_import *im, const Onnx__NodeProto *node, bool *linear)
{
    char mode[32], coord[48];
    cm_attr_string(node, "mode", mode, sizeof mode);
    *linear = strcmp(mode, "linear") == 0 || strcmp(mode, "bilinear") == 0;
    if (*mode && strcmp(mode, "nearest") != 0 && !*linear)
        return cm_import_fail(im, node, CM_EINPUT,
                              "mode '%s' is not supported (nearest and linear are)", mode);
    cm_attr_string(node, "coordinate_transformation_mode", coord, sizeof coord);
    if (*linear && *coord && strcmp(coord, "half_pixel") != 0 &&
        strcmp(coord, "pytorch_half_pixel") != 0 && strcmp(coord, "align_corners") != 0 &&
        strcmp(coord, "asymmetric") != 0)
        return cm_import_fail(im, node, CM_EINPUT,
                              "linear mode with coordinate_transformation_mode '%s' is not "
                              "supported (half_pixel, pytorch_half_pixel, align_corners and "
                              "asymmetric are)", coord);
    return CM_OK;
}

/* Resize and Upsample in nearest or linear mode, scaling the spatial axes. */
static cm_status upsample(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                          const double *scales, const cm_tensor *sizes)
{
    bool linear = false;
    cm_status ist = interpolation(im, node, &linear);
    if (ist != CM_OK)
        return ist;
    if (x->rank != 4)
        return cm_import_fail(im, node, CM_EINPUT, "needs a 4-D feature map");
    int64_t dims[4] = {1, x->dims[1], 0, 0};
    for (int i = 2; i < 4; i++) {
        if (sizes)
            dims[i] = cm_to_int64(sizes->values[i]);
        else
            dims[i] = cm_to_int64(floor((double)x->dims[i] * scales[i]));
        if (!(scales ? scales[0] == 1 && scales[1] == 1
                     : sizes->values[0] == 1 && sizes->values[1] == x->dims[1]))
            return cm_import_fail(im, node, CM_EINPUT, "only spatial axes may be scaled");
        /* Checked here, not only with the output: the factors below narrow it to int. */
        if (dims[i] <= 0 || dims[i] > CM_DIM_MAX)
            return cm_import_fail(im, node, CM_EINPUT, "output size %lld is out of range 1-%lld",
                                  (long long)dims[i], (long long)CM_DIM_MAX);
    }
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_UPSAMPLE, &x, 1);
    if (!l)
        return im->err->code;
    l->interpolate = linear;
    for (int i = 0; i < 2; i++)
        l->upsample[i] = dims[2 + i] > 0 && dims[2 + i] % x->dims[2 + i] == 0
                             ? (int)(dims[2 + i] / x->dims[2 + i])
                             : 0;
    cm_status st = cm_import_layer_output(im, node, 4, dims);
    if (st == CM_OK)
        inherit_quant(im, x);
    return st;
}

static const cm_tensor *known_values(const cm_tensor *t, int64_t count)
{
    return t && t->values && t->count == count ? t : NULL;
}

static cm_status op_resize(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    cm_status st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION);
    if (st != CM_OK)
        return st;
    /* Opset 10: (X, scales); opset 11 and later: (X, roi, scales, sizes). */
    const cm_tensor *scales = n_in == 2 ? in[1] : n_in > 2 ? in[2] : NULL;
    const cm_tensor *sizes = n_in > 3 ? known_values(in[3], 4) : NULL;
    double s[4] = {1, 1, 1, 1};
    if (!sizes) {
        scales = known_values(scales, 4);
        if (!scales) {
            int n = 0;
            const Onnx__AttributeProto *a = cm_attr(node, "scales");
            if (a && a->n_floats == 4)
                for (n = 0; n < 4; n++)
                    s[n] = a->floats[n];
            if (n != 4)
                return cm_import_fail(im, node, CM_EINPUT, "scales or sizes must be 4 constants");
        } else {
            memcpy(s, scales->values, sizeof s);
        }
    }
    return upsample(im, node, in[0], s, sizes);
}

/* Pad becomes a layer here; the clean-up folds it into the window that follows. */
static cm_status op_pad(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    cm_status st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION);
    if (st != CM_OK)
        return st;
    cm_tensor *x = in[0];
    int64_t pads[2 * CM_MAX_RANK];
    int n = cm_attr_ints(node, "pads", pads, 2 * CM_MAX_RANK);
    if (n < 0 && n_in > 1 && in[1] && in[1]->values && in[1]->count <= 2 * CM_MAX_RANK) {
        n = (int)in[1]->count;
        for (int i = 0; i < n; i++)
            pads[i] = cm_to_int64(in[1]->values[i]);
    }
    if (n != 2 * x->rank)
        return cm_import_fail(im, node, CM_EINPUT, "pads must be %d constants", 2 * x->rank);
    double value = cm_attr_float(node, "value", 0.0);
    if (n_in > 2 && in[2] && in[2]->values && in[2]->count == 1)
        value = in[2]->values[0];
    bool any = false;
    for (int i = 0; i < n; i++)
        any = any || pads[i] != 0;
    if (!any)
        return cm_import_reshape_activation(im, node, x, x->rank, x->dims);
    char mode[32];
    cm_attr_string(node, "mode", mode, sizeof mode);
    /* Padding with the lowest value is max pooling's own padding. */
    bool lowest = value <= -3.4e38;
    if ((*mode && strcmp(mode, "constant") != 0) || (value != 0.0 && !lowest))
        return cm_import_fail(im, node, CM_EINPUT, "only zero padding (or lowest-value padding "
                              "before max pooling) is supported");
    int64_t dims[CM_MAX_RANK];
    for (int i = 0; i < x->rank; i++) {
        if (pads[i] < 0 || pads[i + x->rank] < 0 || pads[i] > CM_DIM_MAX ||
            pads[i + x->rank] > CM_DIM_MAX || (i < 2 && (pads[i] || pads[i + x->rank])))
            return cm_import_fail(im, node, CM_EINPUT, "only non-negative spatial pads are supported");
        dims[i] = x->dims[i] + pads[i] + pads[i + x->rank];
    }
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_PAD, &x, 1);
    if (!l)
        return im->err->code;
    l->alpha = lowest ? value : 0.0;
    for (int i = 2; i < x->rank && i < 4; i++) {
        l->pad[i - 2] = (int)pads[i];
        l->pad[i] = (int)pads[i + x->rank];
    }
    if ((st = cm_import_layer_output(im, node, x->rank, dims)) == CM_OK)
        inherit_quant(im, x);
    return st;
}

/* A feature map takes new dims: the same layer shape aliases the tensor, a flat one is
 * a flatten layer, anything else a reshape layer. */
cm_status cm_import_reshape_activation(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                                       int rank, const int64_t *dims)
{
    if (cm_import_is_shuffle_step(x, rank))
        return cm_import_shuffle_reshape(im, node, x, rank, dims);
    cm_tensor probe = {.name = node->output[0], .rank = rank};
    memcpy(probe.dims, dims, (size_t)rank * sizeof *dims);
    cm_status st = cm_import_check_dims(im, "reshaped feature map", &probe);
    if (st != CM_OK)
        return st;
    if (probe.count != x->count)
        return cm_import_fail(im, node, CM_EINPUT, "changes the element count from %lld to %lld",
                              (long long)x->count, (long long)probe.count);
    bool same_dims = rank == x->rank && !memcmp(dims, x->dims, (size_t)rank * sizeof *dims);
    /* Over a single pixel, channels last is the channels-first data order. */
    if (x->channels_last && !same_dims && x->rank == 4 && x->dims[1] * x->dims[2] > 1)
        return cm_import_fail(im, node, CM_EINPUT, "reshapes a feature map whose channels a "
                              "Transpose moved last (a change of data layout)");
    probe.channels_last = x->channels_last && same_dims;
    cm_shape from = {0}, to = {0};
    if ((st = cm_import_chw(im, node, x, &from)) != CM_OK ||
        (st = cm_import_chw(im, node, &probe, &to)) != CM_OK)
        return st;
    if (from.c == to.c && from.h == to.h && from.w == to.w) {
        cm_tensor *t = cm_import_define(im, node->output[0], CM_TENSOR_ACTIVATION, rank, dims);
        if (!t)
            return cm_error_nomem(im->err);
        t->source = x->source;
        t->channels_last = probe.channels_last;
        t->moved_by = probe.channels_last ? x->moved_by : NULL;
        t->q = x->q;
        t->has_q = x->has_q;
        return CM_OK;
    }
    cm_op op = to.h == 1 && to.w == 1 ? CM_OP_FLATTEN : CM_OP_RESHAPE;
    if (!cm_import_add_layer(im, node, op, &x, 1))
        return im->err->code;
    if ((st = cm_import_layer_output(im, node, rank, dims)) == CM_OK)
        inherit_quant(im, x);
    return st;
}

/* Transpose of a feature map is accepted only where it leaves the data order alone:
 * the axes longer than 1 keep their relative order. */
cm_status cm_import_transpose_activation(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x)
{
    if (x->shuffle_stage)
        return cm_import_shuffle_transpose(im, node, x);
    int64_t perm[CM_MAX_RANK];
    int n = cm_attr_ints(node, "perm", perm, CM_MAX_RANK);
    if (n < 0) {
        n = x->rank;
        for (int i = 0; i < n; i++)
            perm[i] = n - 1 - i;
    }
    if (n != x->rank)
        return cm_import_fail(im, node, CM_EINPUT, "perm has %d values for rank %d", n, x->rank);
    bool moved = false;
    cm_status st = cm_import_transpose_channels(im, node, x, perm, n, &moved);
    if (st != CM_OK || moved)
        return st;
    int64_t dims[CM_MAX_RANK], last = -1;
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n)
            return cm_import_fail(im, node, CM_EINPUT, "perm value %lld out of range", (long long)perm[i]);
        dims[i] = x->dims[perm[i]];
        if (dims[i] == 1)
            continue;
        if (perm[i] < last)
            return cm_import_fail(im, node, CM_EINPUT,
                                  "changes the data layout (only layout-preserving transposes are supported)");
        last = perm[i];
    }
    return cm_import_reshape_activation(im, node, x, n, dims);
}

static cm_status op_pass_through(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                 int n_in)
{
    if (n_in < 1 || !in[0])
        return cm_import_fail(im, node, CM_EINPUT, "input 0 is missing");
    if (in[0]->kind == CM_TENSOR_CONST)
        return cm_import_alias_const(im, node->output[0], in[0]) ? CM_OK : cm_error_nomem(im->err);
    return cm_import_reshape_activation(im, node, in[0], in[0]->rank, in[0]->dims);
}

static cm_status op_upsample(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    return op_resize(im, node, in, n_in);
}

const cm_op_entry cm_layer_ops[] = {
    {"Conv", op_conv},
    {"Gemm", op_gemm},
    {"MatMul", op_matmul},
    {"MaxPool", op_maxpool},
    {"AveragePool", op_avgpool},
    {"GlobalAveragePool", op_global_avgpool},
    {"GlobalMaxPool", op_global_maxpool},
    {"ReduceMean", op_reduce_mean},
    {"Relu", op_relu},
    {"Clip", op_clip},
    {"LeakyRelu", op_leaky_relu},
    {"Sigmoid", op_sigmoid},
    {"HardSigmoid", op_hard_sigmoid},
    {"HardSwish", op_hard_swish},
    {"Tanh", op_tanh},
    {"Softmax", op_softmax},
    {"BatchNormalization", op_batchnorm},
    {"Resize", op_resize},
    {"Upsample", op_upsample},
    {"Split", cm_import_split},
    {"Pad", op_pad},
    {"Identity", op_pass_through},
    {"Dropout", op_pass_through},
    {NULL, NULL},
};
