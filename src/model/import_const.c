/* Constant folding: the shape computations PyTorch exports (Shape, Gather, Unsqueeze,
 * Concat, Reshape, ...) evaluated on constants, and the same operators' feature-map
 * forms, which only change a tensor's dims. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/import_ops.h"

static bool all_const(cm_tensor **in, int n_in)
{
    for (int k = 0; k < n_in; k++)
        if (in[k] && in[k]->kind != CM_TENSOR_CONST)
            return false;
    return n_in > 0 && in[0];
}

/* Defines output 0 as a constant; values (owned, may be NULL) are taken over. */
static cm_status define_const(cm_import *im, const Onnx__NodeProto *node, int rank,
                              const int64_t *dims, double *values)
{
    cm_tensor probe = {.rank = rank};
    if (rank > 0) /* a scalar has no dims array */
        memcpy(probe.dims, dims, (size_t)rank * sizeof *dims);
    cm_status st = cm_import_check_dims(im, "constant", &probe);
    cm_tensor *t = st == CM_OK ? cm_import_define(im, node->output[0], CM_TENSOR_CONST, rank, dims)
                               : NULL;
    if (!t) {
        free(values);
        return st != CM_OK ? st : cm_error_nomem(im->err);
    }
    t->values = values;
    t->data_absent = values == NULL;
    return CM_OK;
}

static cm_status need_values(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *t)
{
    if (t && t->values)
        return CM_OK;
    return cm_import_fail(im, node, CM_EINPUT, "constant '%s' has no values in the model file",
                          t ? t->name : "(missing)");
}

static double *copy_values(const cm_tensor *t)
{
    if (!t->values)
        return NULL;
    double *v = malloc((size_t)t->count * sizeof *v);
    if (v)
        memcpy(v, t->values, (size_t)t->count * sizeof *v);
    return v;
}

/* The same data under new dims: a constant keeps its values, a feature map is
 * reshaped. */
static cm_status redim(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x, int rank,
                       const int64_t *dims)
{
    if (x->kind == CM_TENSOR_ACTIVATION)
        return cm_import_reshape_activation(im, node, x, rank, dims);
    cm_tensor probe = {.rank = rank};
    if (rank > 0)
        memcpy(probe.dims, dims, (size_t)rank * sizeof *dims);
    cm_status st = cm_import_check_dims(im, "reshaped constant", &probe);
    if (st != CM_OK)
        return st;
    if (probe.count != x->count)
        return cm_import_fail(im, node, CM_EINPUT, "changes the element count");
    double *v = copy_values(x);
    if (x->values && !v)
        return cm_error_nomem(im->err);
    st = define_const(im, node, rank, dims, v);
    if (st == CM_OK) {
        cm_tensor *t = &im->tensors[im->n_tensors - 1];
        t->proto = x->proto;
        t->data_absent = x->data_absent;
        t->q = x->q;
        t->has_q = x->has_q;
    }
    return st;
}

/* A possibly negative axis counted from the front. Values far outside the rank
 * become -1 or rank + 1 before the narrowing to int, which would otherwise wrap
 * 2^32 + 1 to a valid 1. */
static int axis_of(int64_t axis, int rank)
{
    if (axis < -(int64_t)rank)
        return -1;
    if (axis > rank)
        return rank + 1;
    return (int)(axis < 0 ? axis + rank : axis);
}

/* Axes from the attribute (opset < 13) or the second input (opset >= 13). */
static int read_axes(const Onnx__NodeProto *node, cm_tensor **in, int n_in, int64_t *axes)
{
    int n = cm_attr_ints(node, "axes", axes, CM_MAX_RANK);
    if (n < 0 && n_in > 1 && in[1] && in[1]->values && in[1]->count <= CM_MAX_RANK) {
        n = (int)in[1]->count;
        for (int i = 0; i < n; i++)
            axes[i] = cm_to_int64(in[1]->values[i]);
    }
    return n;
}

static cm_status op_constant(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    (void)in;
    (void)n_in;
    const Onnx__AttributeProto *a = cm_attr(node, "value");
    if (a && a->t) {
        cm_tensor probe = {.rank = (int)a->t->n_dims};
        if (a->t->n_dims > CM_MAX_RANK)
            return cm_import_fail(im, node, CM_EINPUT, "value has too many axes");
        bool empty = false;
        for (int i = 0; i < probe.rank; i++)
            empty = empty || (probe.dims[i] = a->t->dims[i]) == 0;
        /* An empty tensor: torch's placeholder for Resize's unused roi and scales at
         * opset 11 and 12. It has no values, so whatever needs them refuses it. */
        if (empty && probe.rank == 1)
            return cm_import_define(im, node->output[0], CM_TENSOR_CONST, 1, probe.dims)
                       ? CM_OK
                       : cm_error_nomem(im->err);
        cm_status st = cm_import_check_dims(im, "constant value", &probe);
        if (st != CM_OK)
            return st;
        cm_tensor *t = cm_import_define(im, node->output[0], CM_TENSOR_CONST, probe.rank, probe.dims);
        if (!t)
            return cm_error_nomem(im->err);
        t->proto = a->t;
        return cm_tensor_decode_values(im, t);
    }
    const char *scalars[] = {"value_float", "value_int"};
    for (int i = 0; i < 2; i++)
        if ((a = cm_attr(node, scalars[i]))) {
            double *v = malloc(sizeof *v);
            if (!v)
                return cm_error_nomem(im->err);
            *v = i == 0 ? a->f : (double)a->i;
            return define_const(im, node, 0, NULL, v);
        }
    if ((a = cm_attr(node, "value_ints")) || (a = cm_attr(node, "value_floats"))) {
        int64_t n = a->n_ints ? (int64_t)a->n_ints : (int64_t)a->n_floats;
        double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
        if (!v)
            return cm_error_nomem(im->err);
        for (int64_t i = 0; i < n; i++)
            v[i] = a->n_ints ? (double)a->ints[i] : a->floats[i];
        return define_const(im, node, 1, &n, v);
    }
    return cm_import_fail(im, node, CM_EINPUT, "has no supported value attribute");
}

static cm_status op_shape(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in < 1 || !in[0])
        return cm_import_fail(im, node, CM_EINPUT, "input 0 is missing");
    int rank = in[0]->rank;
    int start = axis_of(cm_attr_int(node, "start", 0), rank);
    int end = axis_of(cm_attr_int(node, "end", rank), rank);
    start = start < 0 ? 0 : start > rank ? rank : start;
    end = end < start ? start : end > rank ? rank : end;
    int64_t n = end - start;
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
        return cm_error_nomem(im->err);
    for (int i = 0; i < n; i++)
        v[i] = (double)in[0]->dims[start + i];
    return define_const(im, node, 1, &n, v);
}

static cm_status op_gather(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in != 2 || !all_const(in, n_in))
        return cm_import_fail(im, node, CM_EINPUT, "only a gather from constants is supported");
    cm_status st;
    if ((st = need_values(im, node, in[0])) != CM_OK || (st = need_values(im, node, in[1])) != CM_OK)
        return st;
    const cm_tensor *data = in[0], *idx = in[1];
    int axis = axis_of(cm_attr_int(node, "axis", 0), data->rank);
    if (axis < 0 || axis >= data->rank || data->rank + idx->rank - 1 > CM_MAX_RANK)
        return cm_import_fail(im, node, CM_EINPUT, "axis out of range");
    int64_t dims[CM_MAX_RANK], outer = 1, inner = 1;
    int rank = 0;
    for (int i = 0; i < axis; i++)
        outer *= dims[rank++] = data->dims[i];
    for (int i = 0; i < idx->rank; i++)
        dims[rank++] = idx->dims[i];
    for (int i = axis + 1; i < data->rank; i++)
        inner *= dims[rank++] = data->dims[i];
    /* The output's dims are checked before their product is used. */
    cm_tensor probe = {.rank = rank};
    memcpy(probe.dims, dims, sizeof dims);
    if ((st = cm_import_check_dims(im, "gathered constant", &probe)) != CM_OK)
        return st;
    int64_t span = data->dims[axis], total = probe.count;
    if (total > CM_CONST_VALUES_MAX) /* too large to be a shape: dims only */
        return define_const(im, node, rank, dims, NULL);
    double *v = malloc((size_t)(total ? total : 1) * sizeof *v);
    if (!v)
        return cm_error_nomem(im->err);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < idx->count; j++) {
            int64_t k = cm_to_int64(idx->values[j]);
            if (k < 0)
                k += span;
            if (k < 0 || k >= span) {
                free(v);
                return cm_import_fail(im, node, CM_EINPUT, "index %lld out of range", (long long)k);
            }
            memcpy(v + (o * idx->count + j) * inner, data->values + (o * span + k) * inner,
                   (size_t)inner * sizeof *v);
        }
    return define_const(im, node, rank, dims, v);
}

static cm_status op_unsqueeze(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    int64_t axes[CM_MAX_RANK];
    int n = read_axes(node, in, n_in, axes);
    if (n_in < 1 || !in[0] || n < 0 || in[0]->rank + n > CM_MAX_RANK)
        return cm_import_fail(im, node, CM_EINPUT, "needs data and constant axes");
    int rank = in[0]->rank + n;
    bool inserted[CM_MAX_RANK] = {false};
    for (int i = 0; i < n; i++) {
        int a = axis_of(axes[i], rank);
        if (a < 0 || a >= rank || inserted[a])
            return cm_import_fail(im, node, CM_EINPUT, "bad axis %lld", (long long)axes[i]);
        inserted[a] = true;
    }
    int64_t dims[CM_MAX_RANK];
    for (int i = 0, j = 0; i < rank; i++)
        dims[i] = inserted[i] ? 1 : in[0]->dims[j++];
    return redim(im, node, in[0], rank, dims);
}

static cm_status op_squeeze(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in < 1 || !in[0])
        return cm_import_fail(im, node, CM_EINPUT, "input 0 is missing");
    int64_t axes[CM_MAX_RANK];
    int n = read_axes(node, in, n_in, axes);
    if (n > in[0]->rank) /* also more axes than read_axes stored */
        return cm_import_fail(im, node, CM_EINPUT, "%d axes for rank %d", n, in[0]->rank);
    bool drop[CM_MAX_RANK] = {false};
    for (int i = 0; i < in[0]->rank; i++)
        drop[i] = n < 0 && in[0]->dims[i] == 1;
    for (int i = 0; i < n; i++) {
        int a = axis_of(axes[i], in[0]->rank);
        if (a < 0 || a >= in[0]->rank || in[0]->dims[a] != 1)
            return cm_import_fail(im, node, CM_EINPUT, "cannot squeeze axis %lld", (long long)axes[i]);
        drop[a] = true;
    }
    int64_t dims[CM_MAX_RANK];
    int rank = 0;
    for (int i = 0; i < in[0]->rank; i++)
        if (!drop[i])
            dims[rank++] = in[0]->dims[i];
    return redim(im, node, in[0], rank, dims);
}

static cm_status op_reshape(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in < 2 || !in[0] || !in[1] || in[1]->kind != CM_TENSOR_CONST)
        return cm_import_fail(im, node, CM_EINPUT, "needs data and a constant shape");
    cm_status st = need_values(im, node, in[1]);
    if (st != CM_OK)
        return st;
    const cm_tensor *x = in[0], *shape = in[1];
    if (shape->count > CM_MAX_RANK)
        return cm_import_fail(im, node, CM_EINPUT, "target shape has too many axes");
    int rank = (int)shape->count, infer = -1;
    int64_t dims[CM_MAX_RANK], known = 1;
    for (int i = 0; i < rank; i++) {
        dims[i] = cm_to_int64(shape->values[i]);
        if (dims[i] == 0 && cm_attr_int(node, "allowzero", 0) == 0)
            dims[i] = i < x->rank ? x->dims[i] : 0;
        if (dims[i] == -1 && infer < 0)
            infer = i;
        else if (dims[i] <= 0 || dims[i] > CM_DIM_MAX)
            return cm_import_fail(im, node, CM_EINPUT, "bad target dimension %g",
                                  shape->values[i]);
        else if (known > CM_ELEMENTS_MAX / dims[i]) /* before the product can overflow */
            return cm_import_fail(im, node, CM_EINPUT, "target shape is too large");
        else
            known *= dims[i];
    }
    if (infer >= 0) {
        if (x->count % known)
            return cm_import_fail(im, node, CM_EINPUT, "cannot infer the -1 dimension");
        dims[infer] = x->count / known;
    }
    return redim(im, node, in[0], rank, dims);
}

static cm_status op_flatten(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in < 1 || !in[0])
        return cm_import_fail(im, node, CM_EINPUT, "input 0 is missing");
    int axis = axis_of(cm_attr_int(node, "axis", 1), in[0]->rank);
    if (axis < 0 || axis > in[0]->rank)
        return cm_import_fail(im, node, CM_EINPUT, "axis out of range");
    int64_t dims[2] = {1, 1};
    for (int i = 0; i < in[0]->rank; i++)
        dims[i >= axis] *= in[0]->dims[i];
    return redim(im, node, in[0], 2, dims);
}

static cm_status op_transpose(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in < 1 || !in[0])
        return cm_import_fail(im, node, CM_EINPUT, "input 0 is missing");
    if (in[0]->kind == CM_TENSOR_ACTIVATION)
        return cm_import_transpose_activation(im, node, in[0]);
    return cm_import_fail(im, node, CM_EINPUT, "transposing a constant is not supported");
}

static cm_status op_cast(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in < 1 || !in[0])
        return cm_import_fail(im, node, CM_EINPUT, "input 0 is missing");
    if (in[0]->kind == CM_TENSOR_ACTIVATION)
        return cm_import_reshape_activation(im, node, in[0], in[0]->rank, in[0]->dims);
    cm_status st = redim(im, node, in[0], in[0]->rank, in[0]->dims);
    int64_t to = cm_attr_int(node, "to", 1);
    bool integer = to != 1 && to != 10 && to != 11 && to != 16;
    cm_tensor *t = &im->tensors[im->n_tensors - 1];
    for (int64_t i = 0; st == CM_OK && integer && t->values && i < t->count; i++)
        t->values[i] = trunc(t->values[i]);
    return st;
}

/* Slice of a 1-D constant (a shape vector); of a feature map, see import_split.c. */
static cm_status op_slice(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (n_in > 0 && in[0] && in[0]->kind == CM_TENSOR_ACTIVATION)
        return cm_import_slice_activation(im, node, in, n_in);
    if (!all_const(in, n_in) || in[0]->rank != 1)
        return cm_import_fail(im, node, CM_EINPUT, "only slicing a 1-D constant is supported");
    cm_status st = need_values(im, node, in[0]);
    if (st != CM_OK)
        return st;
    int64_t bounds[3] = {0, INT64_MAX, 1}, tmp[1];
    const char *names[2] = {"starts", "ends"};
    for (int k = 0; k < 3; k++) {
        if (k < 2 && cm_attr_ints(node, names[k], tmp, 1) == 1)
            bounds[k] = tmp[0];
        int input = k < 2 ? k + 1 : 4;
        if (n_in > input && in[input]) {
            if ((st = need_values(im, node, in[input])) != CM_OK)
                return st;
            bounds[k] = cm_to_int64(in[input]->values[0]);
        }
    }
    int64_t len = in[0]->count, step = bounds[2];
    if (step <= 0)
        return cm_import_fail(im, node, CM_EINPUT, "only positive steps are supported");
    int64_t start = bounds[0] < 0 ? bounds[0] + len : bounds[0];
    int64_t end = bounds[1] < 0 ? bounds[1] + len : bounds[1];
    start = start < 0 ? 0 : start > len ? len : start;
    end = end < start ? start : end > len ? len : end;
    /* Not (end - start + step - 1) / step: a step near INT64_MAX would overflow. */
    int64_t n = (end - start) / step + ((end - start) % step != 0);
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
        return cm_error_nomem(im->err);
    for (int64_t i = 0; i < n; i++)
        v[i] = in[0]->values[start + i * step];
    return define_const(im, node, 1, &n, v);
}

/* Index of a broadcast operand's element for flat output index i. */
static int64_t broadcast_index(const cm_tensor *t, int rank, const int64_t *dims, int64_t i)
{
    int64_t index = 0, stride = 1;
    for (int d = rank - 1; d >= 0; d--) {
        int64_t coord = i % dims[d];
        i /= dims[d];
        int td = d - (rank - t->rank);
        if (td >= 0) {
            if (t->dims[td] != 1)
                index += coord * stride;
            stride *= t->dims[td];
        }
    }
    return index;
}

static cm_status fold_arith(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, char op)
{
    int rank;
    int64_t dims[CM_MAX_RANK];
    cm_status st = cm_import_broadcast(im, node, in[0], in[1], &rank, dims);
    if (st != CM_OK)
        return st;
    /* Broadcasting can multiply two bounded shapes into an unbounded one. */
    cm_tensor probe = {.rank = rank};
    memcpy(probe.dims, dims, sizeof dims);
    if ((st = cm_import_check_dims(im, "broadcast constant", &probe)) != CM_OK)
        return st;
    int64_t count = probe.count;
    if (!in[0]->values || !in[1]->values || count > CM_CONST_VALUES_MAX)
        return define_const(im, node, rank, dims, NULL);
    double *v = malloc((size_t)(count ? count : 1) * sizeof *v);
    if (!v)
        return cm_error_nomem(im->err);
    for (int64_t i = 0; i < count; i++) {
        double a = in[0]->values[broadcast_index(in[0], rank, dims, i)];
        double b = in[1]->values[broadcast_index(in[1], rank, dims, i)];
        v[i] = op == '+' ? a + b : op == '-' ? a - b : op == '*' ? a * b : b != 0 ? a / b : NAN;
    }
    return define_const(im, node, rank, dims, v);
}

static cm_status arith(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in,
                       char op)
{
    if (n_in != 2 || !in[0] || !in[1])
        return cm_import_fail(im, node, CM_EINPUT, "needs two inputs");
    if (all_const(in, n_in))
        return fold_arith(im, node, in, op);
    return cm_import_elementwise(im, node, in, n_in, op);
}

static cm_status op_add(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    return arith(im, node, in, n_in, '+');
}

static cm_status op_sub(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    return arith(im, node, in, n_in, '-');
}

static cm_status op_mul(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    return arith(im, node, in, n_in, '*');
}

static cm_status op_div(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    return arith(im, node, in, n_in, '/');
}

static cm_status op_concat(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    if (!all_const(in, n_in))
        return cm_import_concat_activations(im, node, in, n_in);
    int rank = in[0]->rank;
    int axis = axis_of(cm_attr_int(node, "axis", 0), rank);
    if (axis < 0 || axis >= rank)
        return cm_import_fail(im, node, CM_EINPUT, "axis out of range");
    int64_t dims[CM_MAX_RANK], outer = 1, inner = 1;
    memcpy(dims, in[0]->dims, sizeof dims);
    dims[axis] = 0;
    cm_status st;
    for (int k = 0; k < n_in; k++) {
        if ((st = need_values(im, node, in[k])) != CM_OK)
            return st;
        if (in[k]->rank != rank)
            return cm_import_fail(im, node, CM_EINPUT, "inputs differ in rank");
        /* The copy below takes each input's chunk at the first input's strides. */
        for (int i = 0; i < rank; i++)
            if (i != axis && in[k]->dims[i] != in[0]->dims[i])
                return cm_import_fail(im, node, CM_EINPUT,
                                      "input '%s' differs from the first in dimension %d",
                                      in[k]->name, i);
        dims[axis] += in[k]->dims[axis];
    }
    cm_tensor probe = {.rank = rank};
    memcpy(probe.dims, dims, sizeof dims);
    if ((st = cm_import_check_dims(im, "concatenated constant", &probe)) != CM_OK)
        return st;
    for (int i = 0; i < axis; i++)
        outer *= dims[i];
    for (int i = axis + 1; i < rank; i++)
        inner *= dims[i];
    int64_t total = probe.count;
    if (total > CM_CONST_VALUES_MAX) /* too large to be a shape: dims only */
        return define_const(im, node, rank, dims, NULL);
    double *v = malloc((size_t)(total ? total : 1) * sizeof *v), *p = v;
    if (!v)
        return cm_error_nomem(im->err);
    for (int64_t o = 0; o < outer; o++)
        for (int k = 0; k < n_in; k++) {
            int64_t chunk = in[k]->dims[axis] * inner;
            memcpy(p, in[k]->values + o * chunk, (size_t)chunk * sizeof *v);
            p += chunk;
        }
    return define_const(im, node, rank, dims, v);
}

const cm_op_entry cm_shape_ops[] = {
    {"Constant", op_constant},
    {"Shape", op_shape},
    {"Gather", op_gather},
    {"Unsqueeze", op_unsqueeze},
    {"Squeeze", op_squeeze},
    {"Reshape", op_reshape},
    {"Flatten", op_flatten},
    {"Transpose", op_transpose},
    {"Cast", op_cast},
    {"Slice", op_slice},
    {"Add", op_add},
    {"Sub", op_sub},
    {"Mul", op_mul},
    {"Div", op_div},
    {"Concat", op_concat},
    {NULL, NULL},
};
