/* Window and reduction operators: MaxPool (with indices), AveragePool, the global
 * pools, ReduceMean/Sum/Max, Softmax, inference BatchNormalization, LayerNormalization,
 * InstanceNormalization,
 * and Resize/Upsample (nearest and linear). Sums divide once by their count, so that sums of exactly
 * represented values give the same result in any order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_internal.h"

#define R CM_ARRAY_MAX_RANK

static cm_status need_float(cm_run_ctx *cx, cm_array **in, int n_in, int k)
{
    cm_status st = cm_run_need(cx, in, n_in, k + 1);
    if (st != CM_OK)
        return st;
    if (!in[k]->f)
        return cm_run_fail(cx, CM_EINPUT, "input %d must be a float tensor, not %s", k,
                           cm_dtype_name(in[k]->dtype));
    return CM_OK;
}

typedef struct pool_result {
    double value;
    int64_t argmax; /* spatial offset in the input image */
} pool_result;

/* Pools one output position o of one image (x: the image's in_size values). */
static pool_result pool_at(const cm_run_window *w, const int64_t *o, const double *x, bool max,
                           bool count_pad)
{
    int64_t k_size = 1;
    for (int d = 0; d < w->n; d++)
        k_size *= w->kernel[d];
    double best = -INFINITY, sum = 0.0;
    int64_t best_at = -1, count = 0, kidx[R] = {0};
    for (int64_t kp = 0; kp < k_size; kp++) {
        int64_t off = 0;
        bool inside = true, in_padded = true;
        for (int d = 0; d < w->n; d++) {
            int64_t i = o[d] * w->stride[d] - w->pad[d] + kidx[d] * w->dilation[d];
            inside = inside && i >= 0 && i < w->in[d];
            in_padded = in_padded && i < w->in[d] + w->pad_end[d];
            off = off * w->in[d] + i;
        }
        if (inside) {
            double v = x[off];
            if (max && (v > best || isnan(v)) && !isnan(best)) {
                best = v;
                best_at = off;
            }
            sum += v;
            count++;
        } else if (count_pad && in_padded) {
            count++;
        }
        for (int d = w->n - 1; d >= 0; d--) {
            if (++kidx[d] < w->kernel[d])
                break;
            kidx[d] = 0;
        }
    }
    if (max)
        return (pool_result){best, best_at};
    return (pool_result){count ? sum / (double)count : NAN, -1};
}

static cm_status pool(cm_run_ctx *cx, cm_array **in, int n_in, cm_array **out, int n_out,
                      bool max)
{
    /* MaxPool also takes 8-bit integers: pooled through exact doubles. */
    bool ints = max && n_in > 0 && in[0] && in[0]->i;
    cm_status st = ints ? CM_OK : need_float(cx, in, n_in, 0);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    cm_run_window w;
    bool ceil_mode = cm_run_attr_int(cx, "ceil_mode", 0) != 0;
    if ((st = cm_run_window_read(cx, x, NULL, ceil_mode, &w)) != CM_OK)
        return st;
    bool count_pad = cm_run_attr_int(cx, "count_include_pad", 0) != 0;
    bool col_major = cm_run_attr_int(cx, "storage_order", 0) != 0;
    int64_t dims[R] = {x->dims[0], x->dims[1]}, in_size = 1, out_size = 1;
    for (int d = 0; d < w.n; d++) {
        dims[2 + d] = w.out[d];
        in_size *= w.in[d];
        out_size *= w.out[d];
    }
    if ((st = cm_run_new(cx, x->dtype, x->rank, dims, &out[0])) != CM_OK)
        return st;
    bool indices = max && n_out > 1;
    if (indices && (st = cm_run_new(cx, CM_DTYPE_INT64, x->rank, dims, &out[1])) != CM_OK)
        return st;
    double *image = ints ? malloc((size_t)in_size * sizeof *image + 1) : NULL;
    if (ints && !image)
        return cm_error_nomem(cx->err);
    for (int64_t img = 0; img < x->dims[0] * x->dims[1]; img++) {
        int64_t o[R] = {0};
        for (int64_t q = 0; ints && q < in_size; q++)
            image[q] = (double)x->i[img * in_size + q];
        const double *src = ints ? image : x->f + img * in_size;
        for (int64_t p = 0; p < out_size; p++) {
            pool_result r = pool_at(&w, o, src, max, count_pad);
            if (ints)
                out[0]->i[img * out_size + p] = (int64_t)r.value;
            else
                out[0]->f[img * out_size + p] = r.value;
            if (indices) {
                int64_t at = r.argmax;
                if (col_major && at >= 0) { /* spatial offset in column-major order */
                    int64_t rem = at, col = 0, mult = 1;
                    int64_t idx[R];
                    for (int d = w.n - 1; d >= 0; d--) {
                        idx[d] = rem % w.in[d];
                        rem /= w.in[d];
                    }
                    for (int d = 0; d < w.n; d++) {
                        col += idx[d] * mult;
                        mult *= w.in[d];
                    }
                    at = col;
                }
                out[1]->i[img * out_size + p] = img * in_size + at;
            }
            for (int d = w.n - 1; d >= 0; d--) {
                if (++o[d] < w.out[d])
                    break;
                o[d] = 0;
            }
        }
    }
    free(image);
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_max_pool) { return pool(cx, in, n_in, out, n_out, true); }
CM_RUN_KERNEL(cm_run_average_pool) { return pool(cx, in, n_in, out, n_out, false); }

static cm_status global_pool(cm_run_ctx *cx, cm_array **in, int n_in, cm_array **out, bool max)
{
    cm_status st = need_float(cx, in, n_in, 0);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    if (x->rank < 3)
        return cm_run_fail(cx, CM_EINPUT, "the input has rank %d; N x C x spatial needed",
                           x->rank);
    int64_t dims[R], size = 1;
    for (int d = 0; d < x->rank; d++) {
        dims[d] = d < 2 ? x->dims[d] : 1;
        if (d >= 2)
            size *= x->dims[d];
    }
    if ((st = cm_run_new(cx, x->dtype, x->rank, dims, out)) != CM_OK)
        return st;
    for (int64_t img = 0; img < x->dims[0] * x->dims[1]; img++) {
        const double *v = x->f + img * size;
        double acc = max ? -INFINITY : 0.0;
        for (int64_t k = 0; k < size; k++)
            acc = max ? (v[k] > acc || isnan(v[k]) ? v[k] : acc) : acc + v[k];
        (*out)->f[img] = max ? acc : acc / (double)size;
    }
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_global_average_pool) { (void)n_out; return global_pool(cx, in, n_in, out, false); }
CM_RUN_KERNEL(cm_run_global_max_pool) { (void)n_out; return global_pool(cx, in, n_in, out, true); }

typedef enum reduce_op { RED_SUM, RED_MEAN, RED_MAX, RED_L2 } reduce_op;

static cm_status reduce(cm_run_ctx *cx, cm_array **in, int n_in, cm_array **out, reduce_op op,
                        bool axes_input)
{
    if (n_in < 1 || !in[0])
        return cm_run_fail(cx, CM_EINPUT, "input 0 is missing");
    const cm_array *x = in[0];
    int64_t axes[R];
    int n_axes;
    if (axes_input) {
        n_axes = n_in > 1 && in[1] ? cm_run_ints(cx, in[1], "axes", axes, R) : 0;
        if (n_axes < 0)
            return cx->err->code;
    } else {
        n_axes = cm_run_attr_ints(cx, "axes", axes, R);
        if (n_axes > R)
            return cm_run_fail(cx, CM_EINPUT, "too many axes");
        n_axes = n_axes < 0 ? 0 : n_axes;
    }
    bool keep = cm_run_attr_int(cx, "keepdims", 1) != 0;
    bool reduced[R] = {false};
    if (n_axes == 0 && axes_input && cm_run_attr_int(cx, "noop_with_empty_axes", 0))
        return cm_run_reshaped(cx, x, x->rank, x->dims, out);
    for (int k = 0; k < n_axes; k++) {
        int a = cm_run_axis(cx, axes[k], x->rank);
        if (a < 0)
            return cx->err->code;
        reduced[a] = true;
    }
    int64_t dims[R], kdims[R];
    int rank = 0;
    int64_t count = 1;
    for (int d = 0; d < x->rank; d++) {
        bool r = n_axes == 0 || reduced[d];
        reduced[d] = r;
        kdims[d] = r ? 1 : x->dims[d];
        if (r)
            count *= x->dims[d];
        if (!r || keep)
            dims[rank++] = kdims[d];
    }
    cm_status st = cm_run_new(cx, x->f ? x->dtype : (op == RED_MEAN ? CM_DTYPE_FLOAT32 : x->dtype),
                              rank, dims, out);
    if (st != CM_OK)
        return st;
    cm_array *y = *out;
    double *acc = malloc(((size_t)y->count + 1) * sizeof *acc);
    if (!acc)
        return cm_error_nomem(cx->err);
    for (int64_t k = 0; k < y->count; k++)
        acc[k] = op == RED_MAX ? -INFINITY : 0.0;
    int64_t idx[R] = {0};
    for (int64_t k = 0; k < x->count; k++) {
        int64_t o = 0;
        for (int d = 0; d < x->rank; d++)
            o = o * kdims[d] + (reduced[d] ? 0 : idx[d]);
        double v = cm_run_getf(x, k);
        acc[o] = op == RED_MAX ? (v > acc[o] || isnan(v) ? v : acc[o])
                 : op == RED_L2 ? acc[o] + v * v
                                : acc[o] + v;
        for (int d = x->rank - 1; d >= 0; d--) {
            if (++idx[d] < x->dims[d])
                break;
            idx[d] = 0;
        }
    }
    for (int64_t k = 0; k < y->count; k++) {
        double v = op == RED_MEAN ? acc[k] / (double)count : op == RED_L2 ? sqrt(acc[k]) : acc[k];
        if (y->f)
            y->f[k] = v;
        else
            y->i[k] = (int64_t)v;
    }
    free(acc);
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_reduce_mean) { (void)n_out; return reduce(cx, in, n_in, out, RED_MEAN, cm_run_opset(cx) >= 18); }
CM_RUN_KERNEL(cm_run_reduce_max) { (void)n_out; return reduce(cx, in, n_in, out, RED_MAX, cm_run_opset(cx) >= 18); }
CM_RUN_KERNEL(cm_run_reduce_l2) { (void)n_out; return reduce(cx, in, n_in, out, RED_L2, cm_run_opset(cx) >= 18); }
CM_RUN_KERNEL(cm_run_reduce_sum) { (void)n_out; return reduce(cx, in, n_in, out, RED_SUM, cm_run_opset(cx) >= 13); }

CM_RUN_KERNEL(cm_run_softmax)
{
    (void)n_out;
    cm_status st = need_float(cx, in, n_in, 0);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    bool legacy = cm_run_opset(cx) < 13;
    int rank = x->rank ? x->rank : 1;
    int axis = cm_run_axis(cx, cm_run_attr_int(cx, "axis", legacy ? 1 : -1), rank);
    if (axis < 0)
        return cx->err->code;
    /* Before opset 13 the input is a matrix split at the axis; after, one axis. */
    int64_t outer = 1, len = 1, inner = 1;
    for (int d = 0; d < x->rank; d++) {
        if (d < axis)
            outer *= x->dims[d];
        else if (d == axis || legacy)
            len *= x->dims[d];
        else
            inner *= x->dims[d];
    }
    if ((st = cm_run_new(cx, x->dtype, x->rank, x->dims, out)) != CM_OK)
        return st;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const double *v = x->f + o * len * inner + i;
            double *y = (*out)->f + o * len * inner + i;
            double top = -INFINITY, sum = 0.0;
            for (int64_t k = 0; k < len; k++)
                top = v[k * inner] > top ? v[k * inner] : top;
            for (int64_t k = 0; k < len; k++)
                sum += y[k * inner] = exp(v[k * inner] - top);
            for (int64_t k = 0; k < len; k++)
                y[k * inner] /= sum;
        }
    return CM_OK;
}

/* Inputs 1..n_ops-1 of a normalisation, float and one value per channel of x = in[0]
 * (axis 1); *inner is the elements per channel of a sample. */
static cm_status per_channel_operands(cm_run_ctx *cx, cm_array **in, int n_in, int n_ops,
                                      int64_t *inner)
{
    cm_status st;
    for (int k = 0; k < n_ops; k++)
        if ((st = need_float(cx, in, n_in, k)) != CM_OK)
            return st;
    const cm_array *x = in[0];
    const int64_t c = x->rank > 1 ? x->dims[1] : 1;
    *inner = 1;
    for (int d = 2; d < x->rank; d++)
        *inner *= x->dims[d];
    for (int k = 1; k < n_ops; k++)
        if (in[k]->count != c)
            return cm_run_fail(cx, CM_EINPUT, "input %d has %lld values for %lld channels", k,
                               (long long)in[k]->count, (long long)c);
    return CM_OK;
}

/* The mean of v[0..len) and 1 / sqrt(variance + eps). */
static double run_stats(const double *v, int64_t len, double eps, double *mean_out)
{
    double mean = 0.0, var = 0.0;
    for (int64_t k = 0; k < len; k++)
        mean += v[k];
    mean /= (double)len;
    for (int64_t k = 0; k < len; k++)
        var += (v[k] - mean) * (v[k] - mean);
    *mean_out = mean;
    return 1.0 / sqrt(var / (double)len + eps);
}

CM_RUN_KERNEL(cm_run_batch_norm)
{
    (void)n_out;
    int64_t inner;
    cm_status st = per_channel_operands(cx, in, n_in, 5, &inner);
    if (st != CM_OK)
        return st;
    if (cm_run_attr_int(cx, "training_mode", 0))
        return cm_run_fail(cx, CM_EINPUT, "training mode; the executor runs inference");
    const cm_array *x = in[0];
    const int64_t c = x->rank > 1 ? x->dims[1] : 1;
    double eps = cm_run_attr_float(cx, "epsilon", 1e-5);
    if ((st = cm_run_new(cx, x->dtype, x->rank, x->dims, out)) != CM_OK)
        return st;
    for (int64_t k = 0; k < x->count; k++) {
        int64_t ch = (k / inner) % c;
        double v = (x->f[k] - in[3]->f[ch]) / sqrt(in[4]->f[ch] + eps);
        (*out)->f[k] = v * in[1]->f[ch] + in[2]->f[ch];
    }
    return CM_OK;
}

/* Scale or B of LayerNormalization: one value, or one per normalised element. */
static cm_status layer_norm_operand(cm_run_ctx *cx, const cm_array *a, int k, int64_t len)
{
    if (!a->f)
        return cm_run_fail(cx, CM_EINPUT, "input %d must be a float tensor, not %s", k,
                           cm_dtype_name(a->dtype));
    if (a->count != len && a->count != 1)
        return cm_run_fail(cx, CM_EINPUT, "input %d has %lld values for %lld normalised ones", k,
                           (long long)a->count, (long long)len);
    return CM_OK;
}

/* The optional Mean and InvStdDev outputs: the input's dims with the normalised axes 1. */
static cm_status layer_norm_stats(cm_run_ctx *cx, const cm_array *x, int axis, cm_array **out,
                                  int n_out)
{
    int64_t dims[R];
    for (int d = 0; d < x->rank; d++)
        dims[d] = d < axis ? x->dims[d] : 1;
    cm_status st = CM_OK;
    for (int k = 1; st == CM_OK && k < n_out && k < 3; k++)
        st = cm_run_new(cx, cm_run_float_type(cx, x->dtype), x->rank, dims, &out[k]);
    return st;
}

/* LayerNormalization: each run of the axes from `axis` on is brought to zero mean and
 * unit variance, then scaled and shifted (by one value, or one per element of the run). */
CM_RUN_KERNEL(cm_run_layer_norm)
{
    cm_status st;
    if ((st = need_float(cx, in, n_in, 0)) != CM_OK || (st = need_float(cx, in, n_in, 1)) != CM_OK)
        return st;
    const cm_array *x = in[0], *scale = in[1], *b = n_in > 2 ? in[2] : NULL;
    int axis = cm_run_axis(cx, cm_run_attr_int(cx, "axis", -1), x->rank);
    if (axis < 0)
        return cx->err->code;
    int64_t len = 1;
    for (int d = axis; d < x->rank; d++)
        len *= x->dims[d];
    if ((st = layer_norm_operand(cx, scale, 1, len)) != CM_OK ||
        (b && (st = layer_norm_operand(cx, b, 2, len)) != CM_OK))
        return st;
    double eps = cm_run_attr_float(cx, "epsilon", 1e-5);
    if ((st = cm_run_new(cx, x->dtype, x->rank, x->dims, out)) != CM_OK ||
        (st = layer_norm_stats(cx, x, axis, out, n_out)) != CM_OK)
        return st;
    for (int64_t g = 0; len > 0 && g < x->count / len; g++) {
        const double *v = x->f + g * len;
        double mean;
        const double inv = run_stats(v, len, eps, &mean);
        for (int64_t k = 0; k < len; k++)
            (*out)->f[g * len + k] = (v[k] - mean) * inv * scale->f[scale->count == 1 ? 0 : k] +
                                     (b ? b->f[b->count == 1 ? 0 : k] : 0.0);
        if (n_out > 1 && out[1])
            out[1]->f[g] = mean;
        if (n_out > 2 && out[2])
            out[2]->f[g] = inv;
    }
    return CM_OK;
}

/* InstanceNormalization: each channel of each sample (the axes from 2 on) brought to
 * zero mean and unit variance, then scaled and shifted by its channel's value (GroupNorm
 * exports as one over the groups of a reshaped map). */
CM_RUN_KERNEL(cm_run_instance_norm)
{
    (void)n_out;
    int64_t len;
    cm_status st = per_channel_operands(cx, in, n_in, 3, &len);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    if (x->rank < 3)
        return cm_run_fail(cx, CM_EINPUT, "input has %d axes; it needs a batch, channels and at "
                           "least one more", x->rank);
    double eps = cm_run_attr_float(cx, "epsilon", 1e-5);
    if ((st = cm_run_new(cx, x->dtype, x->rank, x->dims, out)) != CM_OK)
        return st;
    for (int64_t g = 0; len > 0 && g < x->count / len; g++) {
        const double *v = x->f + g * len;
        const int64_t ch = g % x->dims[1];
        double mean;
        const double inv = run_stats(v, len, eps, &mean);
        for (int64_t k = 0; k < len; k++)
            (*out)->f[g * len + k] = (v[k] - mean) * inv * in[1]->f[ch] + in[2]->f[ch];
    }
    return CM_OK;
}

/* ---- Resize and Upsample ---- */

typedef struct resize_plan {
    int rank;
    int64_t in[R], out[R];
    double scale[R], roi_start[R], roi_end[R];
    double out_len[R]; /* in x scale when scales are given (unrounded), else out */
    int coord;    /* 0 half_pixel, 1 asymmetric, 2 align_corners, 3 pytorch_half_pixel,
                     4 tf_half_pixel_for_nearest, 5 tf_crop_and_resize */
    int nearest;  /* 0 round_prefer_floor, 1 round_prefer_ceil, 2 floor, 3 ceil */
    bool linear;
    double extrapolation;
} resize_plan;

/* The input coordinate of output index x on axis d; false outside a crop. */
static bool source_coord(const resize_plan *p, int d, int64_t x, double *src)
{
    double s = p->scale[d], in = (double)p->in[d], out = p->out_len[d];
    switch (p->coord) {
    case 0: *src = ((double)x + 0.5) / s - 0.5; break;
    case 1: *src = (double)x / s; break;
    case 2: *src = out == 1 ? 0.0 : (double)x * (in - 1) / (out - 1); break;
    case 3: *src = out > 1 ? ((double)x + 0.5) / s - 0.5 : 0.0; break;
    case 4: *src = ((double)x + 0.5) / s; break;
    default:
        *src = out > 1 ? p->roi_start[d] * (in - 1) +
                             (double)x * (p->roi_end[d] - p->roi_start[d]) * (in - 1) / (out - 1)
                       : 0.5 * (p->roi_start[d] + p->roi_end[d]) * (in - 1);
        return *src >= 0 && *src <= in - 1;
    }
    return true;
}

static int64_t nearest_index(const resize_plan *p, double v, int64_t len)
{
    double fl = floor(v);
    int64_t i;
    switch (p->nearest) {
    case 0: i = (int64_t)(v - fl == 0.5 ? fl : round(v)); break;
    case 1: i = (int64_t)(v - fl == 0.5 ? fl + 1 : round(v)); break;
    case 2: i = (int64_t)fl; break;
    default: i = (int64_t)ceil(v); break;
    }
    return i < 0 ? 0 : i >= len ? len - 1 : i;
}

static cm_status resize_run(cm_run_ctx *cx, const cm_array *x, resize_plan *p, cm_array **out)
{
    cm_status st = cm_run_new(cx, x->dtype, p->rank, p->out, out);
    if (st != CM_OK)
        return st;
    int64_t xs[R], s = 1;
    for (int d = p->rank - 1; d >= 0; d--) {
        xs[d] = s;
        s *= p->in[d];
    }
    int64_t idx[R] = {0};
    for (int64_t k = 0; k < (*out)->count; k++) {
        int64_t lo[R], hi[R];
        double wt[R];
        bool inside = true;
        for (int d = 0; d < p->rank; d++) {
            double c;
            inside = source_coord(p, d, idx[d], &c) && inside;
            if (!p->linear) {
                lo[d] = hi[d] = nearest_index(p, c, p->in[d]);
                wt[d] = 0.0;
                continue;
            }
            c = c < 0 ? 0 : c > (double)(p->in[d] - 1) ? (double)(p->in[d] - 1) : c;
            lo[d] = (int64_t)floor(c);
            hi[d] = lo[d] + 1 < p->in[d] ? lo[d] + 1 : lo[d];
            wt[d] = c - (double)lo[d];
        }
        double v = 0.0;
        if (!inside) {
            v = p->extrapolation;
        } else {
            /* Sum over the corners of the cell: bit d of corner picks hi on axis d. */
            int n_lin = 0, axes[R];
            for (int d = 0; d < p->rank; d++)
                if (wt[d] != 0.0)
                    axes[n_lin++] = d;
            for (int corner = 0; corner < (1 << n_lin); corner++) {
                int64_t off = 0;
                double weight = 1.0;
                int64_t pick[R];
                for (int d = 0; d < p->rank; d++)
                    pick[d] = lo[d];
                for (int j = 0; j < n_lin; j++) {
                    int d = axes[j];
                    bool up = (corner >> j) & 1;
                    pick[d] = up ? hi[d] : lo[d];
                    weight *= up ? wt[d] : 1.0 - wt[d];
                }
                for (int d = 0; d < p->rank; d++)
                    off += pick[d] * xs[d];
                v += weight * cm_run_getf(x, off);
            }
        }
        if ((*out)->f)
            (*out)->f[k] = v;
        else
            (*out)->i[k] = (int64_t)nearbyint(v);
        for (int d = p->rank - 1; d >= 0; d--) {
            if (++idx[d] < p->out[d])
                break;
            idx[d] = 0;
        }
    }
    return CM_OK;
}

static cm_status plan_mode(cm_run_ctx *cx, resize_plan *p)
{
    char mode[32];
    cm_run_attr_string(cx, "mode", mode, sizeof mode);
    if (!*mode || !strcmp(mode, "nearest"))
        p->linear = false;
    else if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear"))
        p->linear = true;
    else
        return cm_run_fail(cx, CM_EINPUT, "mode '%s' is not supported (nearest and linear are)",
                           mode);
    return CM_OK;
}

/* Output sizes from scales, or scales from sizes. */
static cm_status plan_sizes(cm_run_ctx *cx, const cm_array *x, const cm_array *scales,
                            const cm_array *sizes, resize_plan *p)
{
    p->rank = x->rank;
    memcpy(p->in, x->dims, sizeof p->in);
    if (sizes && sizes->count) {
        if (sizes->count != x->rank)
            return cm_run_fail(cx, CM_EINPUT, "sizes has %lld values for rank %d",
                               (long long)sizes->count, x->rank);
        for (int d = 0; d < x->rank; d++) {
            p->out[d] = cm_run_geti(sizes, d);
            if (p->out[d] < 0 || p->out[d] > CM_RUN_ELEMENTS_MAX)
                return cm_run_fail(cx, CM_EINPUT, "size %lld is out of range",
                                   (long long)p->out[d]);
            p->scale[d] = p->in[d] ? (double)p->out[d] / (double)p->in[d] : 1.0;
            p->out_len[d] = (double)p->out[d];
        }
        return CM_OK;
    }
    if (!scales || scales->count != x->rank)
        return cm_run_fail(cx, CM_EINPUT, "scales must have one value per axis (%d)", x->rank);
    for (int d = 0; d < x->rank; d++) {
        /* float32 scales, as the file holds them */
        double sc = (float)cm_run_getf(scales, d);
        double o = floor((double)x->dims[d] * sc);
        if (!(sc > 0) || !(o <= (double)CM_RUN_ELEMENTS_MAX))
            return cm_run_fail(cx, CM_EINPUT, "scale %g is out of range", sc);
        p->scale[d] = sc;
        p->out[d] = (int64_t)o;
        p->out_len[d] = (double)x->dims[d] * sc;
    }
    return CM_OK;
}

static const char *const coord_names[] = {"half_pixel", "asymmetric", "align_corners",
                                          "pytorch_half_pixel", "tf_half_pixel_for_nearest",
                                          "tf_crop_and_resize"};
static const char *const nearest_names[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                            "ceil"};

CM_RUN_KERNEL(cm_run_resize)
{
    (void)n_out;
    if (n_in < 1 || !in[0])
        return cm_run_fail(cx, CM_EINPUT, "input 0 is missing");
    resize_plan p;
    memset(&p, 0, sizeof p);
    cm_status st = plan_mode(cx, &p);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    bool v10 = cm_run_opset(cx) < 11;
    const cm_array *roi = v10 ? NULL : n_in > 1 ? in[1] : NULL;
    const cm_array *scales = v10 ? (n_in > 1 ? in[1] : NULL) : n_in > 2 ? in[2] : NULL;
    const cm_array *sizes = !v10 && n_in > 3 ? in[3] : NULL;
    if ((st = plan_sizes(cx, x, scales, sizes, &p)) != CM_OK)
        return st;
    if (v10) {
        p.coord = 1;
        p.nearest = 2;
    } else {
        char s[40], nm[40];
        cm_run_attr_string(cx, "coordinate_transformation_mode", s, sizeof s);
        if (!strcmp(s, "tf_half_pixel_for_nn")) /* its name at opset 11 */
            strcpy(s, "tf_half_pixel_for_nearest");
        p.coord = -1;
        for (int k = 0; k < 6; k++)
            if (!strcmp(s, coord_names[k]) || (!*s && k == 0))
                p.coord = k;
        if (p.coord < 0)
            return cm_run_fail(cx, CM_EINPUT, "coordinate_transformation_mode '%s' is not "
                               "supported", s);
        cm_run_attr_string(cx, "nearest_mode", nm, sizeof nm);
        p.nearest = -1;
        for (int k = 0; k < 4; k++)
            if (!strcmp(nm, nearest_names[k]) || (!*nm && k == 0))
                p.nearest = k;
        if (p.nearest < 0)
            return cm_run_fail(cx, CM_EINPUT, "nearest_mode '%s' is not supported", nm);
        p.extrapolation = cm_run_attr_float(cx, "extrapolation_value", 0.0);
        if (p.coord == 5) {
            if (!roi || roi->count != 2 * x->rank)
                return cm_run_fail(cx, CM_EINPUT, "tf_crop_and_resize needs a roi of %d values",
                                   2 * x->rank);
            for (int d = 0; d < x->rank; d++) {
                p.roi_start[d] = cm_run_getf(roi, d);
                p.roi_end[d] = cm_run_getf(roi, x->rank + d);
            }
        }
    }
    return resize_run(cx, x, &p, out);
}

CM_RUN_KERNEL(cm_run_upsample)
{
    (void)n_out;
    if (n_in < 1 || !in[0])
        return cm_run_fail(cx, CM_EINPUT, "input 0 is missing");
    resize_plan p;
    memset(&p, 0, sizeof p);
    cm_status st = plan_mode(cx, &p);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    cm_array attr_scales = {.dtype = CM_DTYPE_FLOAT64};
    const cm_array *scales = n_in > 1 ? in[1] : NULL;
    if (cm_run_opset(cx) < 9) {
        const Onnx__AttributeProto *a = NULL;
        for (size_t k = 0; k < cx->node->proto->n_attribute; k++)
            if (!strcmp(cx->node->proto->attribute[k]->name, "scales"))
                a = cx->node->proto->attribute[k];
        double vals[R];
        if (!a || a->n_floats > R)
            return cm_run_fail(cx, CM_EINPUT, "scales attribute is missing");
        for (size_t k = 0; k < a->n_floats; k++)
            vals[k] = a->floats[k];
        attr_scales.rank = 1;
        attr_scales.dims[0] = attr_scales.count = (int64_t)a->n_floats;
        attr_scales.f = vals;
        scales = &attr_scales;
        st = plan_sizes(cx, x, scales, NULL, &p);
    } else {
        st = plan_sizes(cx, x, scales, NULL, &p);
    }
    if (st != CM_OK)
        return st;
    p.coord = 1;
    p.nearest = 2;
    return resize_run(cx, x, &p, out);
}
