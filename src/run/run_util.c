/* What the executor's kernels share: output allocation, attribute and integer-input
 * reading, numpy broadcasting, float32 rounding and the matrix product (OpenBLAS). */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "model/import.h"
#include "run/run_internal.h"

/* The elements of an output of shape dims, or an error if one is out of range. */
static cm_status output_count(cm_run_ctx *cx, int rank, const int64_t *dims, int64_t *count)
{
    *count = 1;
    for (int k = 0; k < rank; k++) {
        if (dims[k] < 0 || (dims[k] > 0 && *count > CM_RUN_ELEMENTS_MAX / dims[k]))
            return cm_run_fail(cx, CM_EINPUT, "output dimension %lld at axis %d is out of range",
                               (long long)dims[k], k);
        *count *= dims[k];
    }
    return CM_OK;
}

cm_status cm_run_new(cm_run_ctx *cx, cm_dtype dtype, int rank, const int64_t *dims,
                     cm_array **out)
{
    int64_t count;
    cm_status st = output_count(cx, rank, dims, &count);
    if (st != CM_OK)
        return st;
    if (count > cx->r->max_elements)
        return cm_run_fail(cx, CM_EINPUT,
                           "an output of %lld elements exceeds the limit of %lld per tensor",
                           (long long)count, (long long)cx->r->max_elements);
    st = cm_array_alloc(dtype, rank, dims, false, out, cx->err);
    if (st != CM_OK && st != CM_EINTERNAL)
        return cm_run_fail(cx, st, "%s", cx->err->message);
    return st;
}

cm_status cm_run_reshaped(cm_run_ctx *cx, const cm_array *a, int rank, const int64_t *dims,
                          cm_array **out)
{
    /* counted before anything is allocated: a shape far larger than the input (a
     * fuzzed Reshape during constant folding asked for 400 GB) fails here */
    int64_t count;
    cm_status st = output_count(cx, rank, dims, &count);
    if (st != CM_OK)
        return st;
    if (count != a->count)
        return cm_run_fail(cx, CM_EINPUT, "cannot reshape %lld elements into %lld",
                           (long long)a->count, (long long)count);
    st = cm_run_new(cx, a->dtype, rank, dims, out);
    if (st != CM_OK)
        return st;
    if (a->f)
        memcpy((*out)->f, a->f, (size_t)a->count * sizeof *a->f);
    else if (a->i)
        memcpy((*out)->i, a->i, (size_t)a->count * sizeof *a->i);
    return CM_OK;
}

int64_t cm_run_wrap_int(cm_dtype t, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (t) {
    case CM_DTYPE_INT8: return (int8_t)(uint8_t)u;
    case CM_DTYPE_UINT8: return (uint8_t)u;
    case CM_DTYPE_INT16: return (int16_t)(uint16_t)u;
    case CM_DTYPE_UINT16: return (uint16_t)u;
    case CM_DTYPE_INT32: return (int32_t)(uint32_t)u;
    case CM_DTYPE_UINT32: return (uint32_t)u;
    case CM_DTYPE_BOOL: return u != 0;
    default: return v;
    }
}

cm_dtype cm_run_float_type(cm_run_ctx *cx, cm_dtype declared)
{
    return cx->r->wide && declared == CM_DTYPE_FLOAT32 ? CM_DTYPE_FLOAT64 : declared;
}

cm_status cm_run_need(cm_run_ctx *cx, cm_array **in, int n_in, int n)
{
    for (int k = 0; k < n; k++)
        if (k >= n_in || !in[k])
            return cm_run_fail(cx, CM_EINPUT, "input %d is missing", k);
    return CM_OK;
}

int cm_run_ints(cm_run_ctx *cx, const cm_array *a, const char *what, int64_t *out, int max)
{
    if (!a) {
        cm_run_fail(cx, CM_EINPUT, "%s is missing", what);
        return -1;
    }
    if (a->rank > 1 || a->count > max) {
        cm_run_fail(cx, CM_EINPUT, "%s must be a list of at most %d values", what, max);
        return -1;
    }
    for (int64_t k = 0; k < a->count; k++)
        out[k] = cm_run_geti(a, k);
    return (int)a->count;
}

int cm_run_axis(cm_run_ctx *cx, int64_t axis, int rank)
{
    if (axis < -(int64_t)rank || axis >= rank) {
        cm_run_fail(cx, CM_EINPUT, "axis %lld is out of range for rank %d", (long long)axis, rank);
        return -1;
    }
    return (int)(axis < 0 ? axis + rank : axis);
}

int64_t cm_run_attr_int(cm_run_ctx *cx, const char *name, int64_t dflt)
{
    return cm_attr_int(cx->node->proto, name, dflt);
}

double cm_run_attr_float(cm_run_ctx *cx, const char *name, double dflt)
{
    return cm_attr_float(cx->node->proto, name, dflt);
}

int cm_run_attr_ints(cm_run_ctx *cx, const char *name, int64_t *out, int max)
{
    return cm_attr_ints(cx->node->proto, name, out, max);
}

void cm_run_attr_string(cm_run_ctx *cx, const char *name, char *buf, size_t size)
{
    cm_attr_string(cx->node->proto, name, buf, size);
}

bool cm_run_has_attr(cm_run_ctx *cx, const char *name)
{
    return cm_attr(cx->node->proto, name) != NULL;
}

int64_t cm_run_opset(cm_run_ctx *cx)
{
    return cx->node->opset;
}

cm_status cm_run_broadcast_shape(cm_run_ctx *cx, const cm_array *const *a, int n, int *out_rank,
                                 int64_t *out_dims)
{
    int rank = 0;
    for (int k = 0; k < n; k++)
        if (a[k] && a[k]->rank > rank)
            rank = a[k]->rank;
    for (int d = 0; d < rank; d++)
        out_dims[d] = 1;
    for (int k = 0; k < n; k++) {
        if (!a[k])
            continue;
        int off = rank - a[k]->rank;
        for (int d = 0; d < a[k]->rank; d++) {
            int64_t have = out_dims[off + d], dim = a[k]->dims[d];
            if (dim == have || dim == 1)
                continue;
            if (have != 1)
                return cm_run_fail(cx, CM_EINPUT, "shapes do not broadcast: %lld against %lld "
                                   "at axis %d", (long long)dim, (long long)have, off + d);
            out_dims[off + d] = dim;
        }
    }
    *out_rank = rank;
    return CM_OK;
}

void cm_run_broadcast_strides(const cm_array *a, int rank, const int64_t *dims, int64_t *strides)
{
    int64_t s = 1;
    int off = rank - a->rank;
    for (int d = rank - 1; d >= 0; d--) {
        int64_t dim = d >= off ? a->dims[d - off] : 1;
        strides[d] = dim == 1 && dims[d] != 1 ? 0 : s;
        s *= dim;
    }
}

void cm_run_round_f32(cm_array *a)
{
    if (!a->f)
        return;
    for (int64_t k = 0; k < a->count; k++)
        a->f[k] = (float)a->f[k];
}

const float *cm_run_weights32(cm_run_ctx *cx, const cm_array *w)
{
    cm_run_node *n = cx->node;
    return n->weights32 && n->n_in > 1 && n->in[1] >= 0 && cx->r->consts[n->in[1]] == w
               ? n->weights32 : NULL;
}

/* The float32 operand: the constant's copy, or a fresh conversion into *owned. */
static const float *operand32(cm_run_matrix a, int64_t rows, int64_t cols, float **owned)
{
    *owned = NULL;
    if (a.v32 && a.ld == cols)
        return a.v32;
    float *f = malloc((size_t)(rows * cols) * sizeof *f + 1);
    if (!f)
        return NULL;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t q = 0; q < cols; q++)
            f[r * cols + q] = a.v32 ? a.v32[r * a.ld + q] : (float)a.v[r * a.ld + q];
    *owned = f;
    return f;
}

cm_status cm_run_gemm(cm_run_ctx *cx, bool f32, int64_t m, int64_t n, int64_t k,
                      cm_run_matrix a, cm_run_matrix b, double *c)
{
    if (m <= 0 || n <= 0)
        return CM_OK;
    if (k <= 0) {
        memset(c, 0, (size_t)(m * n) * sizeof *c);
        return CM_OK;
    }
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || a.ld > INT32_MAX || b.ld > INT32_MAX)
        return cm_run_fail(cx, CM_EINPUT, "matrix product of %lld x %lld x %lld is too large",
                           (long long)m, (long long)k, (long long)n);
    enum CBLAS_TRANSPOSE ta = a.trans ? CblasTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE tb = b.trans ? CblasTrans : CblasNoTrans;
    if (!f32) {
        cblas_dgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, 1.0, a.v, (int)a.ld, b.v,
                    (int)b.ld, 0.0, c, (int)n);
        return CM_OK;
    }
    int64_t a_cols = a.trans ? m : k, b_cols = b.trans ? k : n;
    float *own_a, *own_b;
    const float *fa = operand32(a, a.trans ? k : m, a_cols, &own_a);
    const float *fb = operand32(b, b.trans ? n : k, b_cols, &own_b);
    float *fc = malloc((size_t)(m * n) * sizeof *fc);
    if (!fa || !fb || !fc) {
        free(own_a);
        free(own_b);
        free(fc);
        return cm_error_nomem(cx->err);
    }
    cblas_sgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, 1.0f, fa, (int)a_cols, fb,
                (int)b_cols, 0.0f, fc, (int)n);
    for (int64_t q = 0; q < m * n; q++)
        c[q] = fc[q];
    free(own_a);
    free(own_b);
    free(fc);
    return CM_OK;
}

static cm_status window_axis(cm_run_ctx *cx, cm_run_window *w, int d, const char *auto_pad,
                             bool ceil_mode)
{
    const int64_t lim = (int64_t)1 << 30;
    if (w->kernel[d] < 1 || w->stride[d] < 1 || w->dilation[d] < 1 || w->pad[d] < 0 ||
        w->pad_end[d] < 0 || w->kernel[d] > lim || w->stride[d] > lim || w->dilation[d] > lim ||
        w->pad[d] > lim || w->pad_end[d] > lim)
        return cm_run_fail(cx, CM_EINPUT, "kernel, stride, dilation or pads of spatial axis %d "
                           "are out of range", d);
    int64_t span = w->dilation[d] * (w->kernel[d] - 1) + 1, in = w->in[d];
    if (!strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER")) {
        w->out[d] = (in + w->stride[d] - 1) / w->stride[d];
        int64_t total = (w->out[d] - 1) * w->stride[d] + span - in;
        total = total < 0 ? 0 : total;
        w->pad[d] = auto_pad[5] == 'U' ? total / 2 : total - total / 2;
        w->pad_end[d] = total - w->pad[d];
        return CM_OK;
    }
    if (!strcmp(auto_pad, "VALID"))
        w->pad[d] = w->pad_end[d] = 0;
    else if (*auto_pad && strcmp(auto_pad, "NOTSET"))
        return cm_run_fail(cx, CM_EINPUT, "unknown auto_pad '%s'", auto_pad);
    int64_t room = in + w->pad[d] + w->pad_end[d] - span;
    if (room < 0)
        return cm_run_fail(cx, CM_EINPUT, "a window of %lld does not fit the padded input of %lld "
                           "on spatial axis %d", (long long)span,
                           (long long)(in + w->pad[d] + w->pad_end[d]), d);
    w->out[d] = (ceil_mode ? (room + w->stride[d] - 1) / w->stride[d] : room / w->stride[d]) + 1;
    /* A window that would start in the end padding is dropped (PyTorch and ONNX Runtime). */
    if (ceil_mode && (w->out[d] - 1) * w->stride[d] >= in + w->pad[d])
        w->out[d]--;
    return CM_OK;
}

cm_status cm_run_window_read(cm_run_ctx *cx, const cm_array *x, const int64_t *kernel,
                             bool ceil_mode, cm_run_window *w)
{
    memset(w, 0, sizeof *w);
    if (x->rank < 3)
        return cm_run_fail(cx, CM_EINPUT, "the input has rank %d; N x C x spatial needed",
                           x->rank);
    w->n = x->rank - 2;
    int64_t v[2 * CM_ARRAY_MAX_RANK];
    int got = cm_run_attr_ints(cx, "kernel_shape", v, CM_ARRAY_MAX_RANK);
    if (got < 0 && !kernel)
        return cm_run_fail(cx, CM_EINPUT, "kernel_shape is missing");
    if (got >= 0 && got != w->n)
        return cm_run_fail(cx, CM_EINPUT, "kernel_shape has %d values for %d spatial axes", got,
                           w->n);
    for (int d = 0; d < w->n; d++) {
        w->in[d] = x->dims[2 + d];
        w->kernel[d] = got >= 0 ? v[d] : kernel[d];
        w->stride[d] = w->dilation[d] = 1;
        /* a window larger than the weights would read past them */
        if (got >= 0 && kernel && v[d] != kernel[d])
            return cm_run_fail(cx, CM_EINPUT, "kernel_shape %lld on spatial axis %d, but the "
                               "weights have %lld", (long long)v[d], d, (long long)kernel[d]);
    }
    if ((got = cm_run_attr_ints(cx, "strides", v, CM_ARRAY_MAX_RANK)) >= 0) {
        if (got != w->n)
            return cm_run_fail(cx, CM_EINPUT, "strides has %d values for %d spatial axes", got,
                               w->n);
        memcpy(w->stride, v, (size_t)got * sizeof *v);
    }
    if ((got = cm_run_attr_ints(cx, "dilations", v, CM_ARRAY_MAX_RANK)) >= 0) {
        if (got != w->n)
            return cm_run_fail(cx, CM_EINPUT, "dilations has %d values for %d spatial axes", got,
                               w->n);
        memcpy(w->dilation, v, (size_t)got * sizeof *v);
    }
    if ((got = cm_run_attr_ints(cx, "pads", v, 2 * CM_ARRAY_MAX_RANK)) >= 0) {
        if (got != 2 * w->n)
            return cm_run_fail(cx, CM_EINPUT, "pads has %d values for %d spatial axes", got, w->n);
        for (int d = 0; d < w->n; d++) {
            w->pad[d] = v[d];
            w->pad_end[d] = v[w->n + d];
        }
    }
    char auto_pad[32];
    cm_run_attr_string(cx, "auto_pad", auto_pad, sizeof auto_pad);
    for (int d = 0; d < w->n; d++) {
        cm_status st = window_axis(cx, w, d, auto_pad, ceil_mode);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}
