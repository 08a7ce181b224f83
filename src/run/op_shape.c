/* Operators that move or make data without arithmetic: Reshape, Flatten, Squeeze,
 * Unsqueeze, Transpose, Concat, Shape, Size, Gather, Slice, Expand, ConstantOfShape,
 * Range, Constant and Pad. Each follows the attribute or input form of the node's opset. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/import.h"
#include "run/run_internal.h"

#define R CM_ARRAY_MAX_RANK

static void strides_of(int rank, const int64_t *dims, int64_t *strides)
{
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= dims[d];
    }
}

/* y[k] = x[src] for the output element k whose input offset is src. */
static void copy_element(cm_array *y, int64_t k, const cm_array *x, int64_t src)
{
    if (y->f)
        y->f[k] = x->f[src];
    else
        y->i[k] = x->i[src];
}

/* A new array of shape dims whose element at index (i_0, ...) is x's element at
 * offset sum(i_d * strides[d]): transposes and broadcasts. */
static cm_status strided_copy(cm_run_ctx *cx, const cm_array *x, int rank, const int64_t *dims,
                              const int64_t *strides, cm_array **out)
{
    cm_status st = cm_run_new(cx, x->dtype, rank, dims, out);
    if (st != CM_OK)
        return st;
    int64_t idx[R] = {0}, src = 0;
    for (int64_t k = 0; k < (*out)->count; k++) {
        copy_element(*out, k, x, src);
        for (int d = rank - 1; d >= 0; d--) {
            src += strides[d];
            if (++idx[d] < dims[d])
                break;
            src -= strides[d] * dims[d];
            idx[d] = 0;
        }
    }
    return CM_OK;
}


CM_RUN_KERNEL(cm_run_reshape)
{
    (void)n_out;
    cm_status st;
    if ((st = cm_run_need(cx, in, n_in, 2)) != CM_OK)
        return st;
    const cm_array *x = in[0];
    int64_t shape[R];
    int n = cm_run_ints(cx, in[1], "shape", shape, R);
    if (n < 0)
        return cx->err->code;
    bool allow_zero = cm_run_attr_int(cx, "allowzero", 0) != 0;
    int infer = -1;
    int64_t known = 1;
    for (int d = 0; d < n; d++) {
        if (shape[d] == 0 && !allow_zero) {
            if (d >= x->rank)
                return cm_run_fail(cx, CM_EINPUT, "shape copies axis %d of a rank-%d input", d,
                                   x->rank);
            shape[d] = x->dims[d];
        }
        if (shape[d] == -1) {
            if (infer >= 0)
                return cm_run_fail(cx, CM_EINPUT, "shape has two -1 entries");
            infer = d;
        } else if (shape[d] < 0) {
            return cm_run_fail(cx, CM_EINPUT, "shape has entry %lld", (long long)shape[d]);
        } else {
            if (shape[d] > 0 && known > CM_RUN_ELEMENTS_MAX / shape[d])
                return cm_run_fail(cx, CM_EINPUT, "shape is too large");
            known *= shape[d];
        }
    }
    if (infer >= 0) {
        if (known == 0 || x->count % known)
            return cm_run_fail(cx, CM_EINPUT, "cannot reshape %lld elements with a -1 entry",
                               (long long)x->count);
        shape[infer] = x->count / known;
    }
    return cm_run_reshaped(cx, x, n, shape, out);
}

CM_RUN_KERNEL(cm_run_flatten)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    int64_t axis = cm_run_attr_int(cx, "axis", 1);
    if (axis < 0)
        axis += x->rank;
    if (axis < 0 || axis > x->rank)
        return cm_run_fail(cx, CM_EINPUT, "axis is out of range for rank %d", x->rank);
    int64_t dims[2] = {1, 1};
    for (int d = 0; d < x->rank; d++)
        dims[d < axis ? 0 : 1] *= x->dims[d];
    return cm_run_reshaped(cx, x, 2, dims, out);
}

/* Axes from the attribute (before opset 13) or the second input; -1 after an error. */
static int read_axes(cm_run_ctx *cx, cm_array **in, int n_in, int64_t *axes)
{
    if (cm_run_opset(cx) < 13) {
        int n = cm_run_attr_ints(cx, "axes", axes, R);
        return n < 0 ? 0 : n;
    }
    if (n_in < 2 || !in[1])
        return 0;
    return cm_run_ints(cx, in[1], "axes", axes, R);
}

CM_RUN_KERNEL(cm_run_squeeze)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    int64_t axes[R];
    int n = read_axes(cx, in, n_in, axes);
    if (n < 0)
        return cx->err->code;
    bool drop[R] = {false};
    for (int k = 0; k < n; k++) {
        int a = cm_run_axis(cx, axes[k], x->rank);
        if (a < 0)
            return cx->err->code;
        if (x->dims[a] != 1)
            return cm_run_fail(cx, CM_EINPUT, "axis %d has size %lld, not 1", a,
                               (long long)x->dims[a]);
        drop[a] = true;
    }
    int64_t dims[R];
    int rank = 0;
    for (int d = 0; d < x->rank; d++)
        if (!(n ? drop[d] : x->dims[d] == 1))
            dims[rank++] = x->dims[d];
    return cm_run_reshaped(cx, x, rank, dims, out);
}

CM_RUN_KERNEL(cm_run_unsqueeze)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    int64_t axes[R];
    int n = read_axes(cx, in, n_in, axes);
    if (n < 0)
        return cx->err->code;
    int rank = x->rank + n;
    if (rank > R)
        return cm_run_fail(cx, CM_EINPUT, "the result would have rank %d (at most %d)", rank, R);
    bool added[R] = {false};
    for (int k = 0; k < n; k++) {
        int a = cm_run_axis(cx, axes[k], rank);
        if (a < 0)
            return cx->err->code;
        if (added[a])
            return cm_run_fail(cx, CM_EINPUT, "axis %d is given twice", a);
        added[a] = true;
    }
    int64_t dims[R];
    for (int d = 0, s = 0; d < rank; d++)
        dims[d] = added[d] ? 1 : x->dims[s++];
    return cm_run_reshaped(cx, x, rank, dims, out);
}

CM_RUN_KERNEL(cm_run_transpose)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    int64_t perm[R];
    int n = cm_run_attr_ints(cx, "perm", perm, R);
    if (n < 0) {
        n = x->rank;
        for (int d = 0; d < n; d++)
            perm[d] = n - 1 - d;
    }
    if (n != x->rank)
        return cm_run_fail(cx, CM_EINPUT, "perm has %d entries for a rank-%d input", n, x->rank);
    bool seen[R] = {false};
    int64_t dims[R], xs[R], ps[R];
    strides_of(x->rank, x->dims, xs);
    for (int d = 0; d < n; d++) {
        if (perm[d] < 0 || perm[d] >= n || seen[perm[d]])
            return cm_run_fail(cx, CM_EINPUT, "perm is not a permutation");
        seen[perm[d]] = true;
        dims[d] = x->dims[perm[d]];
        ps[d] = xs[perm[d]];
    }
    return strided_copy(cx, x, n, dims, ps, out);
}

CM_RUN_KERNEL(cm_run_concat)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    const cm_array *x0 = in[0];
    int axis = cm_run_axis(cx, cm_run_attr_int(cx, "axis", 0), x0->rank);
    if (axis < 0)
        return cx->err->code;
    int64_t dims[R];
    memcpy(dims, x0->dims, sizeof dims);
    dims[axis] = 0;
    if ((st = cm_run_need(cx, in, n_in, n_in)) != CM_OK)
        return st;
    for (int k = 0; k < n_in; k++) {
        bool same = in[k]->rank == x0->rank && (in[k]->f != NULL) == (x0->f != NULL);
        for (int d = 0; same && d < x0->rank; d++)
            same = d == axis || in[k]->dims[d] == x0->dims[d];
        if (!same)
            return cm_run_fail(cx, CM_EINPUT, "input %d does not match input 0 off the axis", k);
        dims[axis] += in[k]->dims[axis];
    }
    if ((st = cm_run_new(cx, x0->dtype, x0->rank, dims, out)) != CM_OK)
        return st;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; d++)
        outer *= dims[d];
    for (int d = axis + 1; d < x0->rank; d++)
        inner *= dims[d];
    int64_t pos = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int k = 0; k < n_in; k++) {
            int64_t run = in[k]->dims[axis] * inner;
            for (int64_t q = 0; q < run; q++)
                copy_element(*out, pos++, in[k], o * run + q);
        }
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_shape)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    int rank = in[0]->rank;
    int64_t start = cm_run_attr_int(cx, "start", 0), end = cm_run_attr_int(cx, "end", rank);
    start = start < 0 ? start + rank : start;
    end = end < 0 ? end + rank : end;
    start = start < 0 ? 0 : start > rank ? rank : start;
    end = end < 0 ? 0 : end > rank ? rank : end;
    int64_t n = end > start ? end - start : 0;
    if ((st = cm_run_new(cx, CM_DTYPE_INT64, 1, &n, out)) != CM_OK)
        return st;
    for (int64_t k = 0; k < n; k++)
        (*out)->i[k] = in[0]->dims[start + k];
    return CM_OK;
}

/* The element count as a 0-D int64, as ONNX's Size gives it whatever the input type. */
CM_RUN_KERNEL(cm_run_size)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK || (st = cm_run_new(cx, CM_DTYPE_INT64, 0, NULL, out)) != CM_OK)
        return st;
    (*out)->i[0] = in[0]->count;
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_gather)
{
    (void)n_out;
    cm_status st;
    if ((st = cm_run_need(cx, in, n_in, 2)) != CM_OK)
        return st;
    const cm_array *x = in[0], *ix = in[1];
    if (x->rank < 1)
        return cm_run_fail(cx, CM_EINPUT, "data must have rank 1 or more");
    int axis = cm_run_axis(cx, cm_run_attr_int(cx, "axis", 0), x->rank);
    if (axis < 0)
        return cx->err->code;
    int rank = x->rank - 1 + ix->rank;
    if (rank > R)
        return cm_run_fail(cx, CM_EINPUT, "the result would have rank %d", rank);
    int64_t dims[R];
    int r = 0;
    for (int d = 0; d < axis; d++)
        dims[r++] = x->dims[d];
    for (int d = 0; d < ix->rank; d++)
        dims[r++] = ix->dims[d];
    for (int d = axis + 1; d < x->rank; d++)
        dims[r++] = x->dims[d];
    if ((st = cm_run_new(cx, x->dtype, rank, dims, out)) != CM_OK)
        return st;
    int64_t outer = 1, inner = 1, n = x->dims[axis];
    for (int d = 0; d < axis; d++)
        outer *= x->dims[d];
    for (int d = axis + 1; d < x->rank; d++)
        inner *= x->dims[d];
    int64_t pos = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < ix->count; j++) {
            int64_t at = cm_run_geti(ix, j);
            if (at < -n || at >= n)
                return cm_run_fail(cx, CM_EINPUT, "index %lld is out of range for %lld",
                                   (long long)at, (long long)n);
            at = at < 0 ? at + n : at;
            for (int64_t q = 0; q < inner; q++)
                copy_element(*out, pos++, x, (o * n + at) * inner + q);
        }
    return CM_OK;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

CM_RUN_KERNEL(cm_run_slice)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    int64_t starts[R], ends[R], axes[R], steps[R];
    int n, n_ends, n_axes = -1, n_steps = -1;
    if (cm_run_opset(cx) < 10) {
        n = cm_run_attr_ints(cx, "starts", starts, R);
        n_ends = cm_run_attr_ints(cx, "ends", ends, R);
        n_axes = cm_run_attr_ints(cx, "axes", axes, R);
    } else {
        if ((st = cm_run_need(cx, in, n_in, 3)) != CM_OK)
            return st;
        if ((n = cm_run_ints(cx, in[1], "starts", starts, R)) < 0 ||
            (n_ends = cm_run_ints(cx, in[2], "ends", ends, R)) < 0)
            return cx->err->code;
        if (n_in > 3 && in[3] && (n_axes = cm_run_ints(cx, in[3], "axes", axes, R)) < 0)
            return cx->err->code;
        if (n_in > 4 && in[4] && (n_steps = cm_run_ints(cx, in[4], "steps", steps, R)) < 0)
            return cx->err->code;
    }
    if (n < 0 || n != n_ends || (n_axes >= 0 && n_axes != n) || (n_steps >= 0 && n_steps != n))
        return cm_run_fail(cx, CM_EINPUT, "starts, ends, axes and steps differ in length");
    int64_t lo[R], step[R], dims[R];
    for (int d = 0; d < x->rank; d++)
        lo[d] = 0, step[d] = 1, dims[d] = x->dims[d];
    bool seen[R] = {false};
    for (int k = 0; k < n; k++) {
        int a = cm_run_axis(cx, n_axes >= 0 ? axes[k] : k, x->rank);
        if (a < 0)
            return cx->err->code;
        if (seen[a])
            return cm_run_fail(cx, CM_EINPUT, "axis %d is sliced twice", a);
        seen[a] = true;
        int64_t s = n_steps >= 0 ? steps[k] : 1, dim = x->dims[a];
        if (s == 0)
            return cm_run_fail(cx, CM_EINPUT, "a step is 0");
        int64_t b = starts[k], e = ends[k];
        b = b < 0 ? (b < -dim ? -1 : b + dim) : b;
        e = e < 0 ? (e < -dim ? -1 : e + dim) : e;
        if (s > 0) {
            b = clamp64(b, 0, dim);
            e = clamp64(e, 0, dim);
            dims[a] = e > b ? (e - b + s - 1) / s : 0;
        } else {
            b = clamp64(b, -1, dim - 1);
            e = clamp64(e, -1, dim - 1);
            dims[a] = b > e ? (b - e + (-s) - 1) / (-s) : 0;
        }
        lo[a] = b;
        step[a] = s;
    }
    if ((st = cm_run_new(cx, x->dtype, x->rank, dims, out)) != CM_OK)
        return st;
    int64_t xs[R], idx[R] = {0};
    strides_of(x->rank, x->dims, xs);
    for (int64_t k = 0; k < (*out)->count; k++) {
        int64_t src = 0;
        for (int d = 0; d < x->rank; d++)
            src += (lo[d] + idx[d] * step[d]) * xs[d];
        copy_element(*out, k, x, src);
        for (int d = x->rank - 1; d >= 0; d--) {
            if (++idx[d] < dims[d])
                break;
            idx[d] = 0;
        }
    }
    return CM_OK;
}

/* Copies x broadcast to the shape dims (numpy rules already checked). */
static cm_status broadcast_to(cm_run_ctx *cx, const cm_array *x, int rank, const int64_t *dims,
                              cm_array **out)
{
    int64_t s[R];
    cm_run_broadcast_strides(x, rank, dims, s);
    return strided_copy(cx, x, rank, dims, s, out);
}

CM_RUN_KERNEL(cm_run_expand)
{
    (void)n_out;
    cm_status st;
    if ((st = cm_run_need(cx, in, n_in, 2)) != CM_OK)
        return st;
    cm_array shape = {.dtype = CM_DTYPE_INT64};
    int n = cm_run_ints(cx, in[1], "shape", shape.dims, R);
    if (n < 0)
        return cx->err->code;
    shape.rank = n;
    const cm_array *both[2] = {in[0], &shape};
    int rank;
    int64_t dims[R];
    if ((st = cm_run_broadcast_shape(cx, both, 2, &rank, dims)) != CM_OK)
        return st;
    return broadcast_to(cx, in[0], rank, dims, out);
}

CM_RUN_KERNEL(cm_run_constant_of_shape)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    int64_t dims[R];
    int n = cm_run_ints(cx, in[0], "shape", dims, R);
    if (n < 0)
        return cx->err->code;
    const Onnx__AttributeProto *a = cm_attr(cx->node->proto, "value");
    cm_array *v = NULL;
    if (a && a->t && (st = cm_array_from_tensor_proto(a->t, cx->r->dir, cx->r->origin, &v,
                                                     cx->err)) != CM_OK)
        return st;
    if (v && v->count != 1) {
        cm_array_free(v);
        return cm_run_fail(cx, CM_EINPUT, "value must hold one element");
    }
    cm_dtype t = v ? v->dtype : CM_DTYPE_FLOAT32;
    if ((st = cm_run_new(cx, cm_run_float_type(cx, t), n, dims, out)) == CM_OK)
        for (int64_t k = 0; k < (*out)->count; k++) {
            if ((*out)->f)
                (*out)->f[k] = v ? cm_run_getf(v, 0) : 0.0;
            else
                (*out)->i[k] = v ? cm_run_geti(v, 0) : 0;
        }
    cm_array_free(v);
    return st;
}

CM_RUN_KERNEL(cm_run_range)
{
    (void)n_out;
    cm_status st;
    if ((st = cm_run_need(cx, in, n_in, 3)) != CM_OK)
        return st;
    if (in[0]->count != 1 || in[1]->count != 1 || in[2]->count != 1)
        return cm_run_fail(cx, CM_EINPUT, "start, limit and delta must be scalars");
    int64_t n;
    if (in[0]->f) {
        double s = in[0]->f[0], l = cm_run_getf(in[1], 0), d = cm_run_getf(in[2], 0);
        double c = ceil((l - s) / d);
        if (!(c < (double)CM_RUN_ELEMENTS_MAX))
            return cm_run_fail(cx, CM_EINPUT, "the range is too long");
        n = c > 0 ? (int64_t)c : 0;
    } else {
        int64_t s = in[0]->i[0], l = cm_run_geti(in[1], 0), d = cm_run_geti(in[2], 0);
        if (d == 0)
            return cm_run_fail(cx, CM_EINPUT, "delta is 0");
        double c = ceil(((double)l - (double)s) / (double)d);
        if (!(c < (double)CM_RUN_ELEMENTS_MAX))
            return cm_run_fail(cx, CM_EINPUT, "the range is too long");
        n = c > 0 ? (int64_t)c : 0;
    }
    if ((st = cm_run_new(cx, in[0]->dtype, 1, &n, out)) != CM_OK)
        return st;
    for (int64_t k = 0; k < n; k++) {
        if ((*out)->f)
            (*out)->f[k] = in[0]->f[0] + (double)k * cm_run_getf(in[2], 0);
        else
            (*out)->i[k] = in[0]->i[0] + k * cm_run_geti(in[2], 0);
    }
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_constant)
{
    (void)in;
    (void)n_in;
    (void)n_out;
    const Onnx__NodeProto *p = cx->node->proto;
    const Onnx__AttributeProto *a;
    if ((a = cm_attr(p, "value")) && a->t)
        return cm_array_from_tensor_proto(a->t, cx->r->dir, cx->r->origin, out, cx->err);
    cm_status st;
    int64_t n;
    if ((a = cm_attr(p, "value_float")))
        return (st = cm_run_new(cx, CM_DTYPE_FLOAT32, 0, NULL, out)) != CM_OK
                   ? st : ((*out)->f[0] = a->f, CM_OK);
    if ((a = cm_attr(p, "value_int")))
        return (st = cm_run_new(cx, CM_DTYPE_INT64, 0, NULL, out)) != CM_OK
                   ? st : ((*out)->i[0] = a->i, CM_OK);
    if ((a = cm_attr(p, "value_floats"))) {
        n = (int64_t)a->n_floats;
        if ((st = cm_run_new(cx, CM_DTYPE_FLOAT32, 1, &n, out)) != CM_OK)
            return st;
        for (int64_t k = 0; k < n; k++)
            (*out)->f[k] = a->floats[k];
        return CM_OK;
    }
    if ((a = cm_attr(p, "value_ints"))) {
        n = (int64_t)a->n_ints;
        if ((st = cm_run_new(cx, CM_DTYPE_INT64, 1, &n, out)) != CM_OK)
            return st;
        for (int64_t k = 0; k < n; k++)
            (*out)->i[k] = a->ints[k];
        return CM_OK;
    }
    return cm_run_fail(cx, CM_EINPUT, "no value attribute the executor reads");
}

/* Pad: pads and value as attributes before opset 11, as inputs after; modes constant,
 * reflect and edge. Negative pads crop. */
CM_RUN_KERNEL(cm_run_pad)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    int64_t pads[2 * R], axes[R];
    int n, n_axes = -1;
    double value = 0.0;
    if (cm_run_opset(cx) < 11) {
        n = cm_run_attr_ints(cx, "pads", pads, 2 * R);
        if (n < 0)
            n = cm_run_attr_ints(cx, "paddings", pads, 2 * R);
        value = cm_run_attr_float(cx, "value", 0.0);
    } else {
        if ((st = cm_run_need(cx, in, n_in, 2)) != CM_OK)
            return st;
        n = cm_run_ints(cx, in[1], "pads", pads, 2 * R);
        if (n_in > 2 && in[2] && in[2]->count)
            value = cm_run_getf(in[2], 0);
        if (n_in > 3 && in[3] && (n_axes = cm_run_ints(cx, in[3], "axes", axes, R)) < 0)
            return cx->err->code;
    }
    if (n < 0)
        return cx->err->code ? cx->err->code : cm_run_fail(cx, CM_EINPUT, "pads are missing");
    int n_pad_axes = n_axes >= 0 ? n_axes : x->rank;
    if (n != 2 * n_pad_axes)
        return cm_run_fail(cx, CM_EINPUT, "%d pads for %d axes", n, n_pad_axes);
    int64_t begin[R] = {0}, dims[R];
    memcpy(dims, x->dims, sizeof dims);
    for (int k = 0; k < n_pad_axes; k++) {
        int a = n_axes >= 0 ? cm_run_axis(cx, axes[k], x->rank) : k;
        if (a < 0)
            return cx->err->code;
        begin[a] = pads[k];
        int64_t d = x->dims[a] + pads[k] + pads[k + n_pad_axes];
        if (pads[k] < -CM_RUN_ELEMENTS_MAX || pads[k] > CM_RUN_ELEMENTS_MAX ||
            pads[k + n_pad_axes] > CM_RUN_ELEMENTS_MAX || d < 0)
            return cm_run_fail(cx, CM_EINPUT, "pads of axis %d are out of range", a);
        dims[a] = d;
    }
    char mode[16];
    cm_run_attr_string(cx, "mode", mode, sizeof mode);
    int m = !*mode || !strcmp(mode, "constant") ? 0 : !strcmp(mode, "reflect") ? 1
          : !strcmp(mode, "edge") ? 2 : -1;
    if (m < 0)
        return cm_run_fail(cx, CM_EINPUT, "pad mode '%s' is not supported", mode);
    if ((st = cm_run_new(cx, x->dtype, x->rank, dims, out)) != CM_OK)
        return st;
    int64_t xs[R], idx[R] = {0};
    strides_of(x->rank, x->dims, xs);
    for (int64_t k = 0; k < (*out)->count; k++) {
        int64_t src = 0;
        bool inside = true;
        for (int d = 0; d < x->rank && inside; d++) {
            int64_t i = idx[d] - begin[d], len = x->dims[d];
            if (i < 0 || i >= len) {
                if (m == 0 || len == 0)
                    inside = false;
                else if (m == 2)
                    i = i < 0 ? 0 : len - 1;
                else if (len == 1)
                    i = 0;
                else {
                    int64_t period = 2 * (len - 1);
                    i = ((i % period) + period) % period;
                    i = i >= len ? period - i : i;
                }
            }
            src += i * xs[d];
        }
        if (!inside) {
            if ((*out)->f)
                (*out)->f[k] = value;
            else
                (*out)->i[k] = (int64_t)value;
        } else {
            copy_element(*out, k, x, src);
        }
        for (int d = x->rank - 1; d >= 0; d--) {
            if (++idx[d] < dims[d])
                break;
            idx[d] = 0;
        }
    }
    return CM_OK;
}
