/* QONNX and FINN quantisation nodes (Quant, BipolarQuant, Trunc, MultiThreshold):
 * they become bit-width, signedness and scale annotations on the tensor they quantise,
 * not layers. */
#include <math.h>
#include <string.h>

#include "model/import_ops.h"

static cm_status scalar_input(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in,
                              int k, const char *what, double *out)
{
    if (k >= n_in || !in[k] || in[k]->kind != CM_TENSOR_CONST || !in[k]->values)
        return cm_import_fail(im, node, CM_EINPUT, "%s must be a constant in the model file", what);
    *out = in[k]->values[0];
    return CM_OK;
}

cm_status cm_import_annotate(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                             cm_quant q)
{
    if (x->kind == CM_TENSOR_CONST) {
        cm_tensor *t = cm_import_alias_const(im, node->output[0], x);
        if (!t)
            return cm_error_nomem(im->err);
        t->q = q;
        t->has_q = true;
        return CM_OK;
    }
    cm_tensor *t = cm_import_define(im, node->output[0], CM_TENSOR_ACTIVATION, x->rank, x->dims);
    if (!t)
        return cm_error_nomem(im->err);
    t->source = x->source;
    t->q = q;
    t->has_q = true;
    if (CM_SOURCE_IS_INPUT(x->source))
        im->g->inputs[CM_SOURCE_INPUT_INDEX(x->source)].q = q;
    else
        im->g->layers[x->source].out_q = q;
    return CM_OK;
}

static double scale_of(const cm_tensor *s)
{
    return s && s->values && s->count == 1 ? s->values[0] : 0.0;
}

/* Weights and activations take 1-32 bits (CM_QUANT_BITS_MAX): the backends' cost
 * models count thresholds as 2^bits and hold widths in int arithmetic, and no FPGA
 * datapath is wider. A constant may also be a bias or accumulator, which takes up to
 * 64 bits; the layer that reads a constant as weights checks it (cm_import_check_weight_bits). */
static cm_status check_bits(cm_import *im, const Onnx__NodeProto *node, double bits,
                            const cm_tensor *x)
{
    bool act = x->kind == CM_TENSOR_ACTIVATION;
    int max = act ? CM_QUANT_BITS_MAX : CM_QUANT_BIAS_BITS_MAX;
    if (!(bits >= 1 && bits <= max) || bits != floor(bits))
        return cm_import_fail(im, node, CM_EINPUT,
                              "bit width %g of %s '%s' is not an integer in %d-%d (weights and "
                              "activations take 1-%d bits, biases 1-%d)",
                              bits, act ? "feature map" : "constant", x->name, 1, max,
                              CM_QUANT_BITS_MAX, CM_QUANT_BIAS_BITS_MAX);
    return CM_OK;
}

static cm_status op_quant(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in < 1 || !in[0])
        return cm_import_fail(im, node, CM_EINPUT, "input 0 is missing");
    double bits = 0;
    cm_status st = scalar_input(im, node, in, n_in, 3, "the bit width", &bits);
    if (st != CM_OK || (st = check_bits(im, node, bits, in[0])) != CM_OK)
        return st;
    cm_quant q = {.bits = (int)bits, .quantised = true,
                  .is_signed = cm_attr_int(node, "signed", 1) != 0,
                  .narrow = cm_attr_int(node, "narrow", 0) != 0,
                  .scale = scale_of(n_in > 1 ? in[1] : NULL)};
    return cm_import_annotate(im, node, in[0], q);
}

static cm_status op_bipolar_quant(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                  int n_in)
{
    if (n_in < 1 || !in[0])
        return cm_import_fail(im, node, CM_EINPUT, "input 0 is missing");
    cm_quant q = {.bits = 1, .quantised = true, .is_signed = true,
                  .scale = scale_of(n_in > 1 ? in[1] : NULL)};
    return cm_import_annotate(im, node, in[0], q);
}

static cm_status op_trunc(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in < 1 || !in[0])
        return cm_import_fail(im, node, CM_EINPUT, "input 0 is missing");
    double bits = 0;
    cm_status st = scalar_input(im, node, in, n_in, 4, "the output bit width", &bits);
    if (st != CM_OK || (st = check_bits(im, node, bits, in[0])) != CM_OK)
        return st;
    cm_quant q = in[0]->q;
    q.bits = (int)bits;
    q.quantised = true;
    q.scale = scale_of(n_in > 1 ? in[1] : NULL);
    return cm_import_annotate(im, node, in[0], q);
}

/* FINN data type names: INT4, UINT8, BIPOLAR, BINARY. The width is parsed by hand,
 * not with sscanf("%d"), whose behaviour on a number too large for int is undefined. */
static bool parse_finn_dtype(const char *name, cm_quant *q)
{
    if (strcmp(name, "BIPOLAR") == 0 || strcmp(name, "BINARY") == 0) {
        q->bits = 1;
        q->is_signed = name[1] == 'I';
        return true;
    }
    const char *p;
    if (strncmp(name, "UINT", 4) == 0)
        p = name + 4;
    else if (strncmp(name, "INT", 3) == 0)
        p = name + 3;
    else
        return false;
    q->is_signed = p - name == 3;
    if (!*p)
        return false;
    int bits = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || bits > 1000)
            return false;
        bits = bits * 10 + (*p - '0');
    }
    q->bits = bits;
    return true;
}

/* MultiThreshold maps each value to the number of thresholds it passes, so T
 * thresholds per channel need ceil(log2(T + 1)) bits unless out_dtype says. */
static cm_status op_multithreshold(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                   int n_in)
{
    cm_status st;
    if ((st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION)) != CM_OK ||
        (st = cm_import_need(im, node, in, n_in, 1, CM_TENSOR_CONST)) != CM_OK)
        return st;
    cm_quant q = {.quantised = true, .scale = cm_attr_float(node, "out_scale", 1.0)};
    char dtype[32];
    cm_attr_string(node, "out_dtype", dtype, sizeof dtype);
    if (*dtype) {
        if (!parse_finn_dtype(dtype, &q))
            return cm_import_fail(im, node, CM_EINPUT, "unknown out_dtype '%s'", dtype);
        if ((st = check_bits(im, node, q.bits, in[0])) != CM_OK)
            return st;
    } else {
        int64_t steps = in[1]->rank ? in[1]->dims[in[1]->rank - 1] : 1;
        q.bits = (int)ceil(log2((double)steps + 1.0));
        q.is_signed = cm_attr_float(node, "out_bias", 0.0) < 0;
    }
    return cm_import_annotate(im, node, in[0], q);
}

const cm_op_entry cm_qonnx_ops[] = {
    {"Quant", op_quant},
    {"BipolarQuant", op_bipolar_quant},
    {"Trunc", op_trunc},
    {"MultiThreshold", op_multithreshold},
    {NULL, NULL},
};
