/* QCDQ quantisation, as PyTorch, Brevitas and ONNX Runtime's tools write it: QuantizeLinear
 * -> [Clip] -> DequantizeLinear on feature maps, integer initializers -> DequantizeLinear
 * on weights, and the integer layers QLinearConv, QLinearMatMul, ConvInteger and
 * MatMulInteger. They become the same bit-width, signedness and scale annotations that
 * QONNX's Quant gives (import_qonnx.c), not layers; the integer layers become the conv
 * and fc layers their float forms make, with those annotations.
 *
 * A QCDQ file states no bit width: QuantizeLinear and DequantizeLinear have only 8-bit
 * (and, from opset 21, 16- and 32-bit) integer types, so a 4-bit Quant is written as int8
 * with a Clip to [-8, 7] on feature maps, and as int8 weights that merely stay within
 * [-8, 7]. The width is therefore what the integer range needs: a Clip's bounds for a
 * feature map, the values themselves for weights. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/import_ops.h"

/* An integer element type of ONNX: its width and signedness. */
typedef struct int_type {
    int bits;
    bool is_signed;
} int_type;

static bool int_type_of(int32_t data_type, int_type *out)
{
    switch (data_type) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: *out = (int_type){8, true}; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: *out = (int_type){8, false}; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: *out = (int_type){16, true}; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16: *out = (int_type){16, false}; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: *out = (int_type){32, true}; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: *out = (int_type){32, false}; return true;
    default: return false;
    }
}

/* The integer type of constant t (weights, a zero point, a Clip bound). */
static cm_status const_int_type(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *t,
                                const char *what, int_type *out)
{
    if (t->kind != CM_TENSOR_CONST)
        return cm_import_fail(im, node, CM_EINPUT, "%s '%s' must be a constant", what, t->name);
    if (!t->proto || !int_type_of(t->proto->data_type, out))
        return cm_import_fail(im, node, CM_EINPUT,
                              "%s '%s' is not of an 8-, 16- or 32-bit integer type", what,
                              t->name);
    return CM_OK;
}

/* The quantised side's type: the zero point's, uint8 when it is omitted (ONNX). */
static cm_status zero_point_type(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                 int n_in, int k, int_type *out)
{
    *out = (int_type){8, false};
    if (k >= n_in || !in[k])
        return CM_OK;
    return const_int_type(im, node, in[k], "zero point", out);
}

/* One scale for the whole tensor; 0 when per axis (as for QONNX, cnnmap/quant.h). */
static cm_status scale_of(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in,
                          int k, double *out)
{
    *out = 0.0;
    if (k >= n_in || !in[k] || in[k]->kind != CM_TENSOR_CONST)
        return cm_import_fail(im, node, CM_EINPUT, "the scale (input %d) must be a constant", k);
    if (in[k]->count == 1 && in[k]->values)
        *out = in[k]->values[0];
    return CM_OK;
}

/* The narrowest annotation holding the integers lo..hi (from 32-bit types at most, so
 * that the widths stay under 63 and the shifts defined): signed when lo is negative, and
 * narrow when a signed range leaves out its most negative value ([-7, 7] for 4 bits). */
static cm_quant quant_for_range(int64_t lo, int64_t hi, double scale)
{
    cm_quant q = {.bits = 1, .quantised = true, .is_signed = lo < 0, .scale = scale};
    if (q.is_signed) {
        while (q.bits < 62 && (lo < -((int64_t)1 << (q.bits - 1)) ||
                               hi > ((int64_t)1 << (q.bits - 1)) - 1))
            q.bits++;
        q.narrow = q.bits > 1 && lo > -((int64_t)1 << (q.bits - 1));
    } else {
        while (q.bits < 62 && hi > ((int64_t)1 << q.bits) - 1)
            q.bits++;
    }
    return q;
}

/* The annotation of integer constant w (weights, a bias) from the values it holds. When
 * the model file does not hold them (external data left out) the element type is all
 * that is known, and its full width is taken. */
static cm_status const_quant(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *w,
                             double scale, cm_quant *q)
{
    int_type type;
    cm_status st = const_int_type(im, node, w, "integer constant", &type);
    if (st != CM_OK)
        return st;
    float *v = NULL;
    if ((st = cm_tensor_read_floats(im, w, &v)) != CM_OK)
        return st;
    if (!v) {
        *q = (cm_quant){.bits = type.bits, .quantised = true, .is_signed = type.is_signed,
                        .scale = scale};
        return CM_OK;
    }
    int64_t lo = 0, hi = 0;
    for (int64_t i = 0; i < w->count; i++) {
        int64_t x = (int64_t)v[i];
        lo = i == 0 || x < lo ? x : lo;
        hi = i == 0 || x > hi ? x : hi;
    }
    free(v);
    *q = quant_for_range(lo, hi, scale);
    return CM_OK;
}

/* The quantised twin of constant w, for handing to a float layer's handler. */
static cm_status quantised_const(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *w,
                                 double scale, cm_tensor *out)
{
    *out = *w;
    out->has_q = true;
    return const_quant(im, node, w, scale, &out->q);
}

/* QuantizeLinear(x, scale, zero point): x's integers, of the zero point's type. */
static cm_status op_quantize(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in < 1 || !in[0])
        return cm_import_fail(im, node, CM_EINPUT, "input 0 is missing");
    int_type type;
    double scale;
    cm_status st;
    if ((st = scale_of(im, node, in, n_in, 1, &scale)) != CM_OK ||
        (st = zero_point_type(im, node, in, n_in, 2, &type)) != CM_OK)
        return st;
    if (cm_attr(node, "output_dtype"))
        return cm_import_fail(im, node, CM_EINPUT, "output_dtype is not supported (give the "
                              "type by the zero point)");
    if (in[0]->kind == CM_TENSOR_CONST)
        return cm_import_fail(im, node, CM_EINPUT,
                              "quantises constant '%s' at run time: store the weights as "
                              "integers with a DequantizeLinear, so that their range is known",
                              in[0]->name);
    cm_quant q = {.bits = type.bits, .quantised = true, .is_signed = type.is_signed,
                  .scale = scale};
    return cm_import_annotate(im, node, in[0], q);
}

/* Clip of integers (bounds of an integer type) between a QuantizeLinear and its
 * DequantizeLinear: the narrower range is what the Quant's bit width was. */
static bool clips_integers(cm_tensor **in, int n_in)
{
    int_type type;
    for (int k = 1; k < n_in && k < 3; k++)
        if (in[k] && in[k]->kind == CM_TENSOR_CONST && in[k]->proto &&
            int_type_of(in[k]->proto->data_type, &type))
            return true;
    return false;
}

static cm_status clip_bound(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in,
                            int k, int64_t *out)
{
    if (k >= n_in || !in[k])
        return CM_OK;
    if (in[k]->kind != CM_TENSOR_CONST || !in[k]->values || in[k]->count != 1)
        return cm_import_fail(im, node, CM_EINPUT, "the %s must be a constant scalar",
                              k == 1 ? "min" : "max");
    *out = cm_to_int64(in[k]->values[0]);
    return CM_OK;
}

static cm_status op_integer_clip(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                 int n_in)
{
    cm_tensor *x = in[0];
    if (!x || x->kind != CM_TENSOR_ACTIVATION || !x->has_q || !x->q.quantised)
        return cm_import_fail(im, node, CM_EINPUT,
                              "clips integers that no QuantizeLinear or quantised layer made "
                              "(input '%s'), so their bit width is unknown",
                              x ? x->name : "(missing)");
    const cm_quant *from = &x->q;
    if (from->bits < 1 || from->bits > CM_QUANT_BITS_MAX)
        return cm_import_fail(im, node, CM_EINPUT, "clips integers of %d bits", from->bits);
    const int64_t type_lo = from->is_signed ? -((int64_t)1 << (from->bits - 1)) : 0;
    const int64_t type_hi = from->is_signed ? ((int64_t)1 << (from->bits - 1)) - 1
                                            : ((int64_t)1 << from->bits) - 1;
    int64_t lo = type_lo, hi = type_hi;
    cm_status st;
    if ((st = clip_bound(im, node, in, n_in, 1, &lo)) != CM_OK ||
        (st = clip_bound(im, node, in, n_in, 2, &hi)) != CM_OK)
        return st;
    /* Bounds beyond the type's range do not widen it. */
    lo = lo < type_lo ? type_lo : lo;
    hi = hi > type_hi ? type_hi : hi;
    if (lo > hi)
        return cm_import_fail(im, node, CM_EINPUT, "min %lld exceeds max %lld", (long long)lo,
                              (long long)hi);
    cm_quant q = quant_for_range(lo, hi, from->scale);
    /* The type stays what it was: an unsigned range clipped to [0, 15] is 4 unsigned
     * bits, a signed one clipped to [0, 7] is a 4-bit signed range never negative. */
    if (from->is_signed && !q.is_signed) {
        q = quant_for_range(-1, hi, from->scale);
        q.narrow = false;
    }
    /* An unsigned narrow range leaves out the top value (QONNX: [0, 2^b - 2]). */
    if (!q.is_signed)
        q.narrow = lo == 0 && q.bits > 1 && q.bits < 62 && hi == ((int64_t)1 << q.bits) - 2;
    return cm_import_annotate(im, node, x, q);
}

/* Clip: of integers, an annotation; of real values, the activation layer. */
static cm_status op_clip(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in > 0 && clips_integers(in, n_in))
        return op_integer_clip(im, node, in, n_in);
    return cm_import_base_handler(node->op_type)(im, node, in, n_in);
}

/* DequantizeLinear(x, scale, zero point): integer weights, or a feature map's integers
 * from a QuantizeLinear (and Clip) or an integer layer, whose annotation it keeps. */
static cm_status op_dequantize(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                               int n_in)
{
    if (n_in < 1 || !in[0])
        return cm_import_fail(im, node, CM_EINPUT, "input 0 is missing");
    double scale;
    int_type type;
    cm_status st;
    if ((st = scale_of(im, node, in, n_in, 1, &scale)) != CM_OK ||
        (st = zero_point_type(im, node, in, n_in, 2, &type)) != CM_OK)
        return st;
    cm_tensor *x = in[0];
    if (x->kind == CM_TENSOR_CONST) {
        cm_quant q;
        if ((st = const_quant(im, node, x, scale, &q)) != CM_OK)
            return st;
        return cm_import_annotate(im, node, x, q);
    }
    if (!x->has_q || !x->q.quantised)
        return cm_import_fail(im, node, CM_EINPUT,
                              "dequantises '%s', which no QuantizeLinear or quantised layer "
                              "made, so its bit width is unknown",
                              x->name);
    cm_quant q = x->q;
    q.scale = scale;
    return cm_import_annotate(im, node, x, q);
}

/* The integer feature map an integer layer reads: quantised by a QuantizeLinear, or
 * (a graph input of an integer type) annotated here by its zero point's type. */
static cm_status integer_input(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                               int n_in, int scale_k, int zp_k)
{
    cm_status st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION);
    if (st != CM_OK || (in[0]->has_q && in[0]->q.quantised))
        return st;
    int_type type;
    double scale = 0.0;
    if ((scale_k >= 0 && (st = scale_of(im, node, in, n_in, scale_k, &scale)) != CM_OK) ||
        (st = zero_point_type(im, node, in, n_in, zp_k, &type)) != CM_OK)
        return st;
    cm_tensor *x = in[0];
    x->q = (cm_quant){.bits = type.bits, .quantised = true, .is_signed = type.is_signed,
                      .scale = scale};
    x->has_q = true;
    if (CM_SOURCE_IS_INPUT(x->source))
        im->g->inputs[CM_SOURCE_INPUT_INDEX(x->source)].q = x->q;
    else
        im->g->layers[x->source].out_q = x->q;
    return CM_OK;
}

/* The layer just appended for node, and its output, take annotation q. */
static cm_status annotate_output(cm_import *im, const Onnx__NodeProto *node, cm_quant q)
{
    cm_tensor *t = cm_import_find(im, node->output[0]);
    if (!t)
        return cm_import_fail(im, node, CM_EINPUT, "output '%s' was not made", node->output[0]);
    t->q = q;
    t->has_q = true;
    im->g->layers[im->g->n_layers - 1].out_q = q;
    return CM_OK;
}

/* The output of a QLinear layer: y's scale and zero point type (inputs y_k, y_k + 1). */
static cm_status qlinear_output(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                int n_in, int y_k)
{
    double scale;
    int_type type;
    cm_status st;
    if ((st = scale_of(im, node, in, n_in, y_k, &scale)) != CM_OK ||
        (st = zero_point_type(im, node, in, n_in, y_k + 1, &type)) != CM_OK)
        return st;
    cm_quant q = {.bits = type.bits, .quantised = true, .is_signed = type.is_signed,
                  .scale = scale};
    return annotate_output(im, node, q);
}

/* An integer accumulator (ConvInteger, MatMulInteger): int32, scale not in the node. */
static cm_status accumulator_output(cm_import *im, const Onnx__NodeProto *node)
{
    cm_quant q = {.bits = 32, .quantised = true, .is_signed = true};
    return annotate_output(im, node, q);
}

static cm_status need_const(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in,
                            int k)
{
    return cm_import_need(im, node, in, n_in, k, CM_TENSOR_CONST);
}

/* QLinearConv(x, x_s, x_zp, w, w_s, w_zp, y_s, y_zp, B): Conv(x, w, B) with annotations. */
static cm_status op_qlinear_conv(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                 int n_in)
{
    cm_status st;
    double w_scale = 0.0, x_scale = 0.0;
    if ((st = integer_input(im, node, in, n_in, 1, 2)) != CM_OK ||
        (st = need_const(im, node, in, n_in, 3)) != CM_OK ||
        (st = scale_of(im, node, in, n_in, 4, &w_scale)) != CM_OK ||
        (st = scale_of(im, node, in, n_in, 1, &x_scale)) != CM_OK)
        return st;
    cm_tensor w, b;
    cm_tensor *conv_in[3] = {in[0], &w, NULL};
    if ((st = quantised_const(im, node, in[3], w_scale, &w)) != CM_OK)
        return st;
    if (n_in > 8 && in[8]) {
        if ((st = need_const(im, node, in, n_in, 8)) != CM_OK ||
            (st = quantised_const(im, node, in[8], x_scale * w_scale, &b)) != CM_OK)
            return st;
        conv_in[2] = &b;
    }
    if ((st = cm_import_base_handler("Conv")(im, node, conv_in, conv_in[2] ? 3 : 2)) != CM_OK)
        return st;
    return qlinear_output(im, node, in, n_in, 6);
}

/* QLinearMatMul(a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp): MatMul(a, b) with annotations. */
static cm_status op_qlinear_matmul(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                   int n_in)
{
    cm_status st;
    double b_scale = 0.0;
    if ((st = integer_input(im, node, in, n_in, 1, 2)) != CM_OK ||
        (st = need_const(im, node, in, n_in, 3)) != CM_OK ||
        (st = scale_of(im, node, in, n_in, 4, &b_scale)) != CM_OK)
        return st;
    cm_tensor b;
    cm_tensor *mm_in[2] = {in[0], &b};
    if ((st = quantised_const(im, node, in[3], b_scale, &b)) != CM_OK ||
        (st = cm_import_base_handler("MatMul")(im, node, mm_in, 2)) != CM_OK)
        return st;
    return qlinear_output(im, node, in, n_in, 6);
}

/* ConvInteger(x, w, x_zp, w_zp) and MatMulInteger(a, b, a_zp, b_zp): the float layer on
 * the integers, with an int32 accumulator out; the scales come in later nodes. */
static cm_status integer_layer(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                               int n_in, const char *float_op)
{
    cm_status st;
    if ((st = integer_input(im, node, in, n_in, -1, 2)) != CM_OK ||
        (st = need_const(im, node, in, n_in, 1)) != CM_OK)
        return st;
    cm_tensor w;
    cm_tensor *layer_in[2] = {in[0], &w};
    if ((st = quantised_const(im, node, in[1], 0.0, &w)) != CM_OK ||
        (st = cm_import_base_handler(float_op)(im, node, layer_in, 2)) != CM_OK)
        return st;
    return accumulator_output(im, node);
}

static cm_status op_conv_integer(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                 int n_in)
{
    return integer_layer(im, node, in, n_in, "Conv");
}

static cm_status op_matmul_integer(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                   int n_in)
{
    return integer_layer(im, node, in, n_in, "MatMul");
}

const cm_op_entry cm_qcdq_ops[] = {
    {"QuantizeLinear", op_quantize},
    {"DequantizeLinear", op_dequantize},
    {"Clip", op_clip},
    {"QLinearConv", op_qlinear_conv},
    {"QLinearMatMul", op_qlinear_matmul},
    {"ConvInteger", op_conv_integer},
    {"MatMulInteger", op_matmul_integer},
    {NULL, NULL},
};
