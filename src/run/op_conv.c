/* Convolutions and matrix products: Conv (any number of spatial axes, groups,
 * dilations, pads, auto_pad) by im2col and a BLAS product; Gemm and batched MatMul; and
 * their integer forms ConvInteger, QLinearConv, MatMulInteger and QLinearMatMul, which
 * accumulate exactly in int64 and requantise in float32 as ONNX Runtime does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_internal.h"

#define R CM_ARRAY_MAX_RANK


/* Stores v at col[i] in whichever of the two buffers is in use. */
static inline void put(double *col, float *col32, int64_t i, double v)
{
    if (col32)
        col32[i] = (float)v;
    else
        col[i] = v;
}

/* One row of the 2-D column matrix for one input row (src, or NULL in the padding) and
 * kernel column kw: the output columns whose input column lies inside the image form
 * one range [lo, hi); the rest read `fill`. */
static void im2col_2d_row(const cm_run_window *w, const double *src, int64_t kw, double fill,
                          double *dst, float *dst32)
{
    const int64_t W = w->in[1], OW = w->out[1], sw = w->stride[1];
    const int64_t first = -w->pad[1] + kw * w->dilation[1]; /* input column of ow = 0 */
    int64_t lo = 0, hi = 0;
    if (src) {
        lo = first >= 0 ? 0 : (-first + sw - 1) / sw;
        hi = first > W - 1 ? 0 : (W - 1 - first) / sw + 1;
        hi = hi < OW ? hi : OW;
        lo = lo < hi ? lo : hi;
    }
    for (int64_t ow = 0; ow < lo; ow++)
        put(dst, dst32, ow, fill);
    const double *in = src ? src + first + lo * sw : NULL;
    if (dst32)
        for (int64_t ow = lo; ow < hi; ow++, in += sw)
            dst32[ow] = (float)*in;
    else if (sw == 1 && hi > lo)
        memcpy(dst + lo, in, (size_t)(hi - lo) * sizeof *dst);
    else
        for (int64_t ow = lo; ow < hi; ow++, in += sw)
            dst[ow] = *in;
    for (int64_t ow = hi; ow < OW; ow++)
        put(dst, dst32, ow, fill);
}

/* im2col_2d_row for float32 rows read from a float32 image, padding 0. */
static void im2col_2d_row32(const cm_run_window *w, const float *src, int64_t kw, float *dst)
{
    const int64_t W = w->in[1], OW = w->out[1], sw = w->stride[1];
    const int64_t first = -w->pad[1] + kw * w->dilation[1];
    int64_t lo = 0, hi = 0;
    if (src) {
        lo = first >= 0 ? 0 : (-first + sw - 1) / sw;
        hi = first > W - 1 ? 0 : (W - 1 - first) / sw + 1;
        hi = hi < OW ? hi : OW;
        lo = lo < hi ? lo : hi;
    }
    memset(dst, 0, (size_t)lo * sizeof *dst);
    if (sw == 1 && hi > lo)
        memcpy(dst + lo, src + first + lo, (size_t)(hi - lo) * sizeof *dst);
    else
        for (int64_t ow = lo; ow < hi; ow++)
            dst[ow] = src[first + ow * sw];
    memset(dst + hi, 0, (size_t)(OW - hi) * sizeof *dst);
}

/* Column matrix of one image and one group: row (c, kernel position), column output
 * position; positions in the padding read `fill`. The input image is x (C_g channels of
 * the spatial size w->in). Written as doubles into col, or as floats into col32. */
static void im2col(const cm_run_window *w, int64_t channels, const double *x, double fill,
                   double *col, float *col32)
{
    int64_t in_size = 1, out_size = 1, k_size = 1;
    for (int d = 0; d < w->n; d++) {
        in_size *= w->in[d];
        out_size *= w->out[d];
        k_size *= w->kernel[d];
    }
    /* float32 columns with zero padding come from the image converted once. */
    float *img32 = w->n == 2 && col32 && fill == 0.0
                       ? malloc((size_t)(channels * in_size) * sizeof *img32 + 1) : NULL;
    if (img32) {
        for (int64_t q = 0; q < channels * in_size; q++)
            img32[q] = (float)x[q];
        const int64_t H = w->in[0], W = w->in[1], OH = w->out[0], OW = w->out[1];
        for (int64_t c = 0; c < channels; c++)
            for (int64_t kh = 0; kh < w->kernel[0]; kh++)
                for (int64_t kw = 0; kw < w->kernel[1]; kw++) {
                    int64_t row = ((c * w->kernel[0] + kh) * w->kernel[1] + kw) * out_size;
                    for (int64_t oh = 0; oh < OH; oh++) {
                        int64_t ih = oh * w->stride[0] - w->pad[0] + kh * w->dilation[0];
                        const float *src = ih < 0 || ih >= H ? NULL : img32 + c * in_size + ih * W;
                        im2col_2d_row32(w, src, kw, col32 + row + oh * OW);
                    }
                }
        free(img32);
        return;
    }
    if (w->n == 2) {
        const int64_t H = w->in[0], W = w->in[1], OH = w->out[0], OW = w->out[1];
        for (int64_t c = 0; c < channels; c++)
            for (int64_t kh = 0; kh < w->kernel[0]; kh++)
                for (int64_t kw = 0; kw < w->kernel[1]; kw++) {
                    int64_t row = ((c * w->kernel[0] + kh) * w->kernel[1] + kw) * out_size;
                    for (int64_t oh = 0; oh < OH; oh++) {
                        int64_t ih = oh * w->stride[0] - w->pad[0] + kh * w->dilation[0];
                        const double *src = ih < 0 || ih >= H ? NULL : x + c * in_size + ih * W;
                        int64_t at = row + oh * OW;
                        im2col_2d_row(w, src, kw, fill, col ? col + at : NULL,
                                      col32 ? col32 + at : NULL);
                    }
                }
        return;
    }
    for (int64_t r = 0; r < channels * k_size; r++) {
        int64_t c = r / k_size, kp = r % k_size, kidx[R];
        for (int d = w->n - 1; d >= 0; d--) {
            kidx[d] = kp % w->kernel[d];
            kp /= w->kernel[d];
        }
        int64_t oidx[R] = {0};
        for (int64_t p = 0; p < out_size; p++) {
            int64_t off = 0;
            bool inside = true;
            for (int d = 0; d < w->n; d++) {
                int64_t i = oidx[d] * w->stride[d] - w->pad[d] + kidx[d] * w->dilation[d];
                inside = inside && i >= 0 && i < w->in[d];
                off = off * w->in[d] + i;
            }
            put(col, col32, r * out_size + p, inside ? x[c * in_size + off] : fill);
            for (int d = w->n - 1; d >= 0; d--) {
                if (++oidx[d] < w->out[d])
                    break;
                oidx[d] = 0;
            }
        }
    }
}

typedef struct conv_shape {
    cm_run_window w;
    int64_t n, c, m, groups, c_g, m_g, k, p; /* k: rows of col, p: output positions */
} conv_shape;

static cm_status conv_shape_read(cm_run_ctx *cx, const cm_array *x, const cm_array *wt,
                                 conv_shape *s)
{
    if (x->rank < 3 || wt->rank != x->rank)
        return cm_run_fail(cx, CM_EINPUT, "input of rank %d and weights of rank %d", x->rank,
                           wt->rank);
    memset(s, 0, sizeof *s);
    s->n = x->dims[0];
    s->c = x->dims[1];
    s->m = wt->dims[0];
    s->groups = cm_run_attr_int(cx, "group", 1);
    if (s->groups < 1 || s->c % s->groups || s->m % s->groups ||
        wt->dims[1] * s->groups != s->c)
        return cm_run_fail(cx, CM_EINPUT, "%lld input channels, %lld groups and weights of "
                           "%lld x %lld do not agree", (long long)s->c, (long long)s->groups,
                           (long long)wt->dims[0], (long long)wt->dims[1]);
    s->c_g = s->c / s->groups;
    s->m_g = s->m / s->groups;
    cm_status st = cm_run_window_read(cx, x, wt->dims + 2, false, &s->w);
    if (st != CM_OK)
        return st;
    s->k = s->c_g;
    s->p = 1;
    for (int d = 0; d < s->w.n; d++) {
        s->k *= s->w.kernel[d];
        s->p *= s->w.out[d];
    }
    return CM_OK;
}

static cm_status conv_output(cm_run_ctx *cx, const conv_shape *s, cm_dtype t, cm_array **out)
{
    int64_t dims[R] = {s->n, s->m};
    for (int d = 0; d < s->w.n; d++)
        dims[2 + d] = s->w.out[d];
    return cm_run_new(cx, t, 2 + s->w.n, dims, out);
}

/* True when the column matrix is the image itself (1x1 kernel, stride 1, no pad). */
static bool pointwise(const conv_shape *s)
{
    for (int d = 0; d < s->w.n; d++)
        if (s->w.kernel[d] != 1 || s->w.stride[d] != 1 || s->w.pad[d] || s->w.pad_end[d])
            return false;
    return true;
}

/* A depthwise convolution (one input channel per output channel) directly: a matrix
 * product of one row per channel would waste the BLAS. Each tap (kh, kw) adds its
 * weight times a shifted input row into the output row, in tap order, so every output
 * sums its taps in the same order as a plain loop would. */
static void depthwise_2d(const conv_shape *s, const double *x, const double *wt, double *y)
{
    const cm_run_window *w = &s->w;
    const int64_t H = w->in[0], W = w->in[1], OH = w->out[0], OW = w->out[1];
    const int64_t KH = w->kernel[0], KW = w->kernel[1], sw = w->stride[1];
    for (int64_t img = 0; img < s->n * s->m; img++) {
        const double *src = x + img * H * W, *k = wt + (img % s->m) * KH * KW;
        double *dst = y + img * OH * OW;
        memset(dst, 0, (size_t)(OH * OW) * sizeof *dst);
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t kh = 0; kh < KH; kh++) {
                int64_t ih = oh * w->stride[0] - w->pad[0] + kh * w->dilation[0];
                if (ih < 0 || ih >= H)
                    continue;
                for (int64_t kw = 0; kw < KW; kw++) {
                    int64_t first = -w->pad[1] + kw * w->dilation[1];
                    int64_t lo = first >= 0 ? 0 : (-first + sw - 1) / sw;
                    int64_t hi = first > W - 1 ? 0 : (W - 1 - first) / sw + 1;
                    hi = hi < OW ? hi : OW;
                    const double *row = src + ih * W + first;
                    double *out = dst + oh * OW, tap = k[kh * KW + kw];
                    if (sw == 1)
                        for (int64_t ow = lo; ow < hi; ow++)
                            out[ow] += row[ow] * tap;
                    else
                        for (int64_t ow = lo; ow < hi; ow++)
                            out[ow] += row[ow * sw] * tap;
                }
            }
    }
}

/* Adds the bias per output channel, as float32 arithmetic when f32. */
static void add_bias(const conv_shape *s, const cm_array *b, bool f32, double *y)
{
    if (!b)
        return;
    for (int64_t n = 0; n < s->n; n++)
        for (int64_t m = 0; m < s->m; m++) {
            double *row = y + (n * s->m + m) * s->p, bias = b->f[m];
            float bias32 = (float)bias;
            if (f32)
                for (int64_t p = 0; p < s->p; p++)
                    row[p] = (double)((float)row[p] + bias32);
            else
                for (int64_t p = 0; p < s->p; p++)
                    row[p] += bias;
        }
}

CM_RUN_KERNEL(cm_run_conv)
{
    (void)n_out;
    cm_status st;
    if ((st = cm_run_need(cx, in, n_in, 2)) != CM_OK)
        return st;
    const cm_array *x = in[0], *wt = in[1], *b = n_in > 2 ? in[2] : NULL;
    if (!x->f || !wt->f)
        return cm_run_fail(cx, CM_EINPUT, "Conv takes float tensors");
    conv_shape s;
    if ((st = conv_shape_read(cx, x, wt, &s)) != CM_OK)
        return st;
    if (b && b->count != s.m)
        return cm_run_fail(cx, CM_EINPUT, "bias has %lld values for %lld channels",
                           (long long)b->count, (long long)s.m);
    if ((st = conv_output(cx, &s, x->dtype, out)) != CM_OK)
        return st;
    if (s.c_g == 1 && s.m_g == 1 && s.w.n == 2) {
        depthwise_2d(&s, x->f, wt->f, (*out)->f);
        add_bias(&s, b, x->dtype == CM_DTYPE_FLOAT32, (*out)->f);
        return CM_OK;
    }
    bool direct = pointwise(&s);
    /* float32 products for float32 data, and for float64 data when they are exact. */
    bool out32 = x->dtype == CM_DTYPE_FLOAT32;
    bool f32 = out32 || cm_run_exact32(cx, x->f, x->count);
    /* The column matrix is built in the product's own precision. */
    double *col = direct || f32 ? NULL : malloc((size_t)(s.k * s.p) * sizeof *col);
    float *col32 = direct || !f32 ? NULL : malloc((size_t)(s.k * s.p) * sizeof *col32);
    if (!direct && !col && !col32)
        return cm_error_nomem(cx->err);
    const float *w32 = cm_run_weights32(cx, wt);
    int64_t in_size = s.p;
    if (!direct) {
        in_size = 1;
        for (int d = 0; d < s.w.n; d++)
            in_size *= s.w.in[d];
    }
    for (int64_t n = 0; n < s.n && st == CM_OK; n++)
        for (int64_t g = 0; g < s.groups && st == CM_OK; g++) {
            const double *img = x->f + (n * s.c + g * s.c_g) * in_size;
            if (!direct)
                im2col(&s.w, s.c_g, img, 0.0, col, col32);
            double *y = (*out)->f + (n * s.m + g * s.m_g) * s.p;
            cm_run_matrix a = {wt->f + g * s.m_g * s.k, w32 ? w32 + g * s.m_g * s.k : NULL, s.k,
                               false};
            cm_run_matrix cols = {direct ? img : col, col32, s.p, false};
            st = cm_run_gemm(cx, f32, s.m_g, s.p, s.k, a, cols, y);
        }
    if (st == CM_OK)
        add_bias(&s, b, out32, (*out)->f);
    free(col);
    free(col32);
    return st;
}

/* Per-channel (or one) zero point of a quantised operand; 0 when absent. */
static int64_t zero_point(const cm_array *zp, int64_t channel)
{
    if (!zp || zp->count == 0)
        return 0;
    return cm_run_geti(zp, zp->count == 1 ? 0 : channel);
}

static double scale_of(const cm_array *s, int64_t channel)
{
    return cm_run_getf(s, s->count == 1 ? 0 : channel);
}

/* acc[n][m][p] = sum over (c, kernel) of (x - x_zp) (w - w_zp[m]), exactly. */
static cm_status conv_integer(cm_run_ctx *cx, const cm_array *x, const cm_array *wt,
                              const cm_array *x_zp, const cm_array *w_zp, conv_shape *s,
                              int64_t **acc_out)
{
    if (x->f || wt->f)
        return cm_run_fail(cx, CM_EINPUT, "takes integer tensors");
    cm_status st = conv_shape_read(cx, x, wt, s);
    if (st != CM_OK)
        return st;
    int64_t in_size = 1;
    for (int d = 0; d < s->w.n; d++)
        in_size *= s->w.in[d];
    double *img = malloc((size_t)(s->c_g * in_size) * sizeof *img);
    double *col = malloc((size_t)(s->k * s->p) * sizeof *col);
    int64_t *acc = calloc((size_t)(s->n * s->m * s->p) + 1, sizeof *acc);
    if (!img || !col || !acc) {
        free(img);
        free(col);
        free(acc);
        return cm_error_nomem(cx->err);
    }
    int64_t xz = zero_point(x_zp, 0);
    for (int64_t n = 0; n < s->n; n++)
        for (int64_t g = 0; g < s->groups; g++) {
            /* Shifted by the zero point, the padding (which holds x_zp) reads 0. */
            const int64_t *src = x->i + (n * s->c + g * s->c_g) * in_size;
            for (int64_t q = 0; q < s->c_g * in_size; q++)
                img[q] = (double)(src[q] - xz);
            im2col(&s->w, s->c_g, img, 0.0, col, NULL);
            for (int64_t m = g * s->m_g; m < (g + 1) * s->m_g; m++) {
                int64_t wz = zero_point(w_zp, m);
                int64_t *dst = acc + (n * s->m + m) * s->p;
                const int64_t *wrow = wt->i + m * s->k;
                for (int64_t kk = 0; kk < s->k; kk++) {
                    int64_t wv = wrow[kk] - wz;
                    if (!wv)
                        continue;
                    const double *crow = col + kk * s->p;
                    for (int64_t p = 0; p < s->p; p++)
                        dst[p] += wv * (int64_t)crow[p];
                }
            }
        }
    free(img);
    free(col);
    *acc_out = acc;
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_conv_integer)
{
    (void)n_out;
    cm_status st;
    if ((st = cm_run_need(cx, in, n_in, 2)) != CM_OK)
        return st;
    conv_shape s;
    int64_t *acc;
    if ((st = conv_integer(cx, in[0], in[1], n_in > 2 ? in[2] : NULL, n_in > 3 ? in[3] : NULL,
                           &s, &acc)) != CM_OK)
        return st;
    if ((st = conv_output(cx, &s, CM_DTYPE_INT32, out)) == CM_OK)
        memcpy((*out)->i, acc, (size_t)(*out)->count * sizeof *acc);
    free(acc);
    return st;
}

static void int_range(cm_dtype t, int64_t *lo, int64_t *hi)
{
    *lo = t == CM_DTYPE_INT8 ? -128 : 0;
    *hi = t == CM_DTYPE_INT8 ? 127 : 255;
}

/* ONNX Runtime's requantisation: the scale x_s * w_s / y_s in float32, the accumulator
 * converted to float32, multiplied, clamped to the output range and rounded half to
 * even. */
static int64_t requantise(int64_t acc, float scale, int64_t zp, cm_dtype t)
{
    int64_t lo, hi;
    int_range(t, &lo, &hi);
    float v = (float)acc * scale;
    float flo = (float)(lo - zp), fhi = (float)(hi - zp);
    v = v < flo ? flo : v > fhi ? fhi : v;
    return (int64_t)nearbyintf(v) + zp;
}

CM_RUN_KERNEL(cm_run_qlinear_conv)
{
    (void)n_out;
    cm_status st;
    /* x, its scale, w, its scale and y's scale; the zero points (2, 5, 7) may be omitted. */
    static const int required[] = {0, 1, 3, 4, 6};
    for (int j = 0; j < 5; j++)
        if (required[j] >= n_in || !in[required[j]])
            return cm_run_fail(cx, CM_EINPUT, "input %d is missing", required[j]);
    const cm_array *y_zp = n_in > 7 ? in[7] : NULL, *b = n_in > 8 ? in[8] : NULL;
    cm_dtype t = y_zp ? y_zp->dtype : CM_DTYPE_UINT8;
    conv_shape s;
    int64_t *acc;
    if ((st = conv_integer(cx, in[0], in[3], in[2], in[5], &s, &acc)) != CM_OK)
        return st;
    if (b && b->count != s.m)
        st = cm_run_fail(cx, CM_EINPUT, "bias has %lld values for %lld channels",
                         (long long)b->count, (long long)s.m);
    if (st == CM_OK)
        st = conv_output(cx, &s, t, out);
    for (int64_t n = 0; n < s.n && st == CM_OK; n++)
        for (int64_t m = 0; m < s.m; m++) {
            float scale = (float)scale_of(in[1], 0) * (float)scale_of(in[4], m);
            scale = scale / (float)scale_of(in[6], 0);
            int64_t bias = b ? cm_run_geti(b, m) : 0;
            for (int64_t p = 0; p < s.p; p++) {
                int64_t q = (n * s.m + m) * s.p + p;
                (*out)->i[q] = requantise(acc[q] + bias, scale, zero_point(y_zp, 0), t);
            }
        }
    free(acc);
    return st;
}

CM_RUN_KERNEL(cm_run_gemm_op)
{
    (void)n_out;
    cm_status st;
    if ((st = cm_run_need(cx, in, n_in, 2)) != CM_OK)
        return st;
    const cm_array *a = in[0], *b = in[1], *c = n_in > 2 ? in[2] : NULL;
    if (!a->f || !b->f || a->rank != 2 || b->rank != 2)
        return cm_run_fail(cx, CM_EINPUT, "Gemm takes two float matrices");
    bool ta = cm_run_attr_int(cx, "transA", 0) != 0, tb = cm_run_attr_int(cx, "transB", 0) != 0;
    double alpha = cm_run_attr_float(cx, "alpha", 1.0), beta = cm_run_attr_float(cx, "beta", 1.0);
    int64_t m = ta ? a->dims[1] : a->dims[0], k = ta ? a->dims[0] : a->dims[1];
    int64_t kb = tb ? b->dims[1] : b->dims[0], n = tb ? b->dims[0] : b->dims[1];
    if (k != kb)
        return cm_run_fail(cx, CM_EINPUT, "inner dimensions %lld and %lld differ", (long long)k,
                           (long long)kb);
    int64_t dims[2] = {m, n};
    if ((st = cm_run_new(cx, a->dtype, 2, dims, out)) != CM_OK)
        return st;
    bool f32 = a->dtype == CM_DTYPE_FLOAT32;
    const float *b32 = cm_run_weights32(cx, b);
    bool product32 = f32 || (b32 && cm_run_exact32(cx, a->f, a->count));
    cm_run_matrix ma = {a->f, NULL, a->dims[1], ta};
    cm_run_matrix mb = {b->f, b32, b->dims[1], tb};
    if ((st = cm_run_gemm(cx, product32, m, n, k, ma, mb, (*out)->f)) != CM_OK)
        return st;
    int64_t cs[R] = {0, 0};
    if (c) {
        const cm_array *both[2] = {c, *out};
        int rank;
        int64_t bd[R];
        if ((st = cm_run_broadcast_shape(cx, both, 2, &rank, bd)) != CM_OK)
            return st;
        if (rank != 2 || bd[0] != m || bd[1] != n)
            return cm_run_fail(cx, CM_EINPUT, "C does not broadcast to %lld x %lld",
                               (long long)m, (long long)n);
        cm_run_broadcast_strides(c, 2, dims, cs);
    }
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double *y = &(*out)->f[i * n + j];
            double v = alpha == 1.0 ? *y : (f32 ? (double)((float)alpha * (float)*y) : alpha * *y);
            if (c) {
                double cv = cm_run_getf(c, i * cs[0] + j * cs[1]);
                cv = beta == 1.0 ? cv : (f32 ? (double)((float)beta * (float)cv) : beta * cv);
                v = f32 ? (double)((float)v + (float)cv) : v + cv;
            }
            *y = v;
        }
    return CM_OK;
}

/* Batched matrix product with numpy's rules: 1-D operands gain and lose an axis, the
 * batch axes broadcast. mode 'f' float, 'i' integer with zero points. */
typedef struct matmul_plan {
    int rank;
    int64_t dims[R], batch, m, k, n, a_step[R], b_step[R];
} matmul_plan;

static cm_status matmul_plan_make(cm_run_ctx *cx, const cm_array *a, const cm_array *b,
                                  matmul_plan *p)
{
    if (a->rank < 1 || b->rank < 1)
        return cm_run_fail(cx, CM_EINPUT, "MatMul operands must have rank 1 or more");
    cm_array av = {.rank = a->rank < 2 ? 2 : a->rank}, bv = {.rank = b->rank < 2 ? 2 : b->rank};
    if (a->rank == 1) {
        av.dims[0] = 1;
        av.dims[1] = a->dims[0];
    } else {
        memcpy(av.dims, a->dims, sizeof av.dims);
    }
    if (b->rank == 1) {
        bv.dims[0] = b->dims[0];
        bv.dims[1] = 1;
    } else {
        memcpy(bv.dims, b->dims, sizeof bv.dims);
    }
    p->m = av.dims[av.rank - 2];
    p->k = av.dims[av.rank - 1];
    p->n = bv.dims[bv.rank - 1];
    if (bv.dims[bv.rank - 2] != p->k)
        return cm_run_fail(cx, CM_EINPUT, "inner dimensions %lld and %lld differ",
                           (long long)p->k, (long long)bv.dims[bv.rank - 2]);
    cm_array ab = {.rank = av.rank - 2}, bb = {.rank = bv.rank - 2};
    memcpy(ab.dims, av.dims, sizeof ab.dims);
    memcpy(bb.dims, bv.dims, sizeof bb.dims);
    const cm_array *both[2] = {&ab, &bb};
    int brank;
    int64_t bdims[R];
    cm_status st = cm_run_broadcast_shape(cx, both, 2, &brank, bdims);
    if (st != CM_OK)
        return st;
    int64_t sa[R], sb[R];
    cm_run_broadcast_strides(&ab, brank, bdims, sa);
    cm_run_broadcast_strides(&bb, brank, bdims, sb);
    p->batch = 1;
    p->rank = 0;
    for (int d = 0; d < brank; d++) {
        p->batch *= bdims[d];
        p->dims[p->rank++] = bdims[d];
        p->a_step[d] = sa[d] * p->m * p->k;
        p->b_step[d] = sb[d] * p->k * p->n;
    }
    if (a->rank > 1)
        p->dims[p->rank++] = p->m;
    if (b->rank > 1)
        p->dims[p->rank++] = p->n;
    return CM_OK;
}

/* Offsets of batch element q's operands. */
static void matmul_offsets(const matmul_plan *p, int brank, int64_t q, int64_t *ao, int64_t *bo)
{
    *ao = *bo = 0;
    for (int d = brank - 1; d >= 0; d--) {
        int64_t i = q % p->dims[d];
        q /= p->dims[d];
        *ao += i * p->a_step[d];
        *bo += i * p->b_step[d];
    }
}

static int batch_rank(const matmul_plan *p, const cm_array *a, const cm_array *b)
{
    return p->rank - (a->rank > 1) - (b->rank > 1);
}

CM_RUN_KERNEL(cm_run_matmul)
{
    (void)n_out;
    cm_status st;
    if ((st = cm_run_need(cx, in, n_in, 2)) != CM_OK)
        return st;
    const cm_array *a = in[0], *b = in[1];
    if (!a->f || !b->f)
        return cm_run_fail(cx, CM_EINPUT, "MatMul takes float tensors");
    matmul_plan p;
    if ((st = matmul_plan_make(cx, a, b, &p)) != CM_OK ||
        (st = cm_run_new(cx, a->dtype, p.rank, p.dims, out)) != CM_OK)
        return st;
    int brank = batch_rank(&p, a, b);
    for (int64_t q = 0; q < p.batch && st == CM_OK; q++) {
        int64_t ao, bo;
        matmul_offsets(&p, brank, q, &ao, &bo);
        const float *b32 = a->dtype == CM_DTYPE_FLOAT32 ? cm_run_weights32(cx, b) : NULL;
        cm_run_matrix ma = {a->f + ao, NULL, p.k, false};
        cm_run_matrix mb = {b->f + bo, b32 ? b32 + bo : NULL, p.n, false};
        st = cm_run_gemm(cx, a->dtype == CM_DTYPE_FLOAT32, p.m, p.n, p.k, ma, mb,
                         (*out)->f + q * p.m * p.n);
    }
    return st;
}

/* Exact integer batched product with zero points (per row of A or column of B). */
static cm_status matmul_int(cm_run_ctx *cx, const cm_array *a, const cm_array *b,
                            const cm_array *a_zp, const cm_array *b_zp, matmul_plan *p,
                            int64_t **acc_out)
{
    if (a->f || b->f)
        return cm_run_fail(cx, CM_EINPUT, "takes integer tensors");
    cm_status st = matmul_plan_make(cx, a, b, p);
    if (st != CM_OK)
        return st;
    int64_t *acc = calloc((size_t)(p->batch * p->m * p->n) + 1, sizeof *acc);
    if (!acc)
        return cm_error_nomem(cx->err);
    int brank = batch_rank(p, a, b);
    for (int64_t q = 0; q < p->batch; q++) {
        int64_t ao, bo;
        matmul_offsets(p, brank, q, &ao, &bo);
        for (int64_t i = 0; i < p->m; i++)
            for (int64_t j = 0; j < p->n; j++) {
                int64_t sum = 0, az = zero_point(a_zp, i), bz = zero_point(b_zp, j);
                for (int64_t kk = 0; kk < p->k; kk++)
                    sum += (a->i[ao + i * p->k + kk] - az) * (b->i[bo + kk * p->n + j] - bz);
                acc[(q * p->m + i) * p->n + j] = sum;
            }
    }
    *acc_out = acc;
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_matmul_integer)
{
    (void)n_out;
    cm_status st;
    if ((st = cm_run_need(cx, in, n_in, 2)) != CM_OK)
        return st;
    matmul_plan p;
    int64_t *acc;
    if ((st = matmul_int(cx, in[0], in[1], n_in > 2 ? in[2] : NULL, n_in > 3 ? in[3] : NULL, &p,
                         &acc)) != CM_OK)
        return st;
    if ((st = cm_run_new(cx, CM_DTYPE_INT32, p.rank, p.dims, out)) == CM_OK)
        memcpy((*out)->i, acc, (size_t)(*out)->count * sizeof *acc);
    free(acc);
    return st;
}

CM_RUN_KERNEL(cm_run_qlinear_matmul)
{
    (void)n_out;
    cm_status st;
    if ((st = cm_run_need(cx, in, n_in, 8)) != CM_OK)
        return st;
    matmul_plan p;
    int64_t *acc;
    if ((st = matmul_int(cx, in[0], in[3], in[2], in[5], &p, &acc)) != CM_OK)
        return st;
    cm_dtype t = in[7]->dtype;
    if ((st = cm_run_new(cx, t, p.rank, p.dims, out)) == CM_OK) {
        int64_t cols = p.n;
        for (int64_t q = 0; q < (*out)->count; q++) {
            float scale = (float)scale_of(in[1], 0) * (float)scale_of(in[4], q % cols);
            scale = scale / (float)scale_of(in[6], 0);
            (*out)->i[q] = requantise(acc[q], scale, zero_point(in[7], 0), t);
        }
    }
    free(acc);
    return st;
}
