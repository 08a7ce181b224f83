/* Quantisation operators: QONNX's Quant, BipolarQuant, Trunc (versions 1 and 2) and
 * FINN's MultiThreshold, from the QONNX operator definitions; ONNX's QuantizeLinear and
 * DequantizeLinear (per tensor or per axis), computed in float32 as ONNX Runtime does
 * when their float side is float32. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_internal.h"

#define R CM_ARRAY_MAX_RANK

typedef enum round_mode {
    ROUND_HALF_EVEN, ROUND_CEIL, ROUND_FLOOR, ROUND_UP, ROUND_DOWN, ROUND_HALF_UP, ROUND_HALF_DOWN
} round_mode;

static const char *const round_names[] = {"ROUND", "CEIL", "FLOOR", "UP", "DOWN", "HALF_UP",
                                          "HALF_DOWN"};

static cm_status read_round_mode(cm_run_ctx *cx, const char *dflt, round_mode *mode)
{
    char s[32];
    cm_run_attr_string(cx, "rounding_mode", s, sizeof s);
    if (!*s)
        snprintf(s, sizeof s, "%s", dflt);
    for (char *p = s; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    if (!strcmp(s, "HALF_EVEN"))
        snprintf(s, sizeof s, "ROUND");
    for (int k = 0; k < 7; k++)
        if (!strcmp(s, round_names[k])) {
            *mode = (round_mode)k;
            return CM_OK;
        }
    return cm_run_fail(cx, CM_EINPUT, "rounding_mode '%s' is not one of ROUND, CEIL, FLOOR, UP, "
                       "DOWN, HALF_UP, HALF_DOWN", s);
}

static double round_by(round_mode m, double v)
{
    switch (m) {
    case ROUND_HALF_EVEN: return nearbyint(v); /* the default FE_TONEAREST mode */
    case ROUND_CEIL: return ceil(v);
    case ROUND_FLOOR: return floor(v);
    case ROUND_UP: return v < 0 ? floor(v) : ceil(v);
    case ROUND_DOWN: return trunc(v);
    case ROUND_HALF_UP: return round(v);
    default: return fabs(v - trunc(v)) == 0.5 ? trunc(v) : round(v);
    }
}

static double min_int(bool is_signed, bool narrow, double bits)
{
    return is_signed ? -exp2(bits - 1) + (narrow ? 1 : 0) : 0.0;
}

static double max_int(bool is_signed, bool narrow, double bits)
{
    return is_signed ? exp2(bits - 1) - 1 : exp2(bits) - (narrow ? 2 : 1);
}

/* Operands broadcast against x: strides into each for iterating x's shape. */
typedef struct operands {
    int n;
    const cm_array *a[6];
    int64_t s[6][R];
} operands;

static cm_status broadcast_operands(cm_run_ctx *cx, const cm_array *x, operands *o)
{
    for (int k = 0; k < o->n; k++) {
        const cm_array *both[2] = {x, o->a[k]};
        int rank;
        int64_t dims[R];
        cm_status st = cm_run_broadcast_shape(cx, both, 2, &rank, dims);
        if (st != CM_OK)
            return st;
        if (rank != x->rank || memcmp(dims, x->dims, (size_t)rank * sizeof *dims))
            return cm_run_fail(cx, CM_EINPUT, "operand %d does not broadcast to the input", k + 1);
        cm_run_broadcast_strides(o->a[k], x->rank, x->dims, o->s[k]);
    }
    return CM_OK;
}

/* Position in x and in each operand while walking x in order. */
typedef struct operand_walk {
    int64_t idx[R], off[6];
} operand_walk;

/* Loads the operands' values at the current position into v, then steps. */
static void walk_values(const cm_array *x, const operands *o, operand_walk *w, double *v)
{
    for (int j = 0; j < o->n; j++)
        v[j] = cm_run_getf(o->a[j], w->off[j]);
    for (int d = x->rank - 1; d >= 0; d--) {
        for (int j = 0; j < o->n; j++)
            w->off[j] += o->s[j][d];
        if (++w->idx[d] < x->dims[d])
            break;
        for (int j = 0; j < o->n; j++)
            w->off[j] -= o->s[j][d] * x->dims[d];
        w->idx[d] = 0;
    }
}

/* The operands' values at element k of x (w is left positioned there). */
static void operands_at(const cm_array *x, const operands *o, int64_t k, operand_walk *w,
                        double *v)
{
    int64_t rest = k;
    for (int d = x->rank - 1; d >= 0; d--) {
        w->idx[d] = rest % x->dims[d];
        rest /= x->dims[d];
    }
    for (int j = 0; j < o->n; j++) {
        w->off[j] = 0;
        for (int d = 0; d < x->rank; d++)
            w->off[j] += w->idx[d] * o->s[j][d];
        v[j] = cm_run_getf(o->a[j], w->off[j]);
    }
}

static cm_status float_inputs(cm_run_ctx *cx, cm_array **in, int n_in, int n)
{
    cm_status st = cm_run_need(cx, in, n_in, n);
    if (st == CM_OK && !in[0]->f)
        st = cm_run_fail(cx, CM_EINPUT, "input 0 must be a float tensor");
    return st;
}

/* The common case of one scale, zero point and bit width: a plain loop. */
static cm_status quant_per_tensor(cm_run_ctx *cx, const cm_array *x, double scale, double zp,
                                  double bits, bool is_signed, bool narrow, round_mode mode,
                                  cm_array *y)
{
    if (!(bits >= 1 && bits <= 64))
        return cm_run_fail(cx, CM_EINPUT, "bit width %g is out of range 1-64", bits);
    if (!(scale != 0) || !isfinite(scale))
        return cm_run_fail(cx, CM_EINPUT, "scale %g is out of range", scale);
    double lo = min_int(is_signed, narrow, bits), hi = max_int(is_signed, narrow, bits);
    /* Dividing by a power of two is multiplying by its exact reciprocal; and below 2^51
     * adding and subtracting 1.5 * 2^52 rounds half to even in the default rounding
     * mode. Both give the bits of the plain formula, faster. */
    int e;
    bool pow2 = frexp(fabs(scale), &e) == 0.5;
    double inv = 1.0 / scale, magic = 6755399441055744.0;
    bool fast_round = mode == ROUND_HALF_EVEN && hi - zp < 0x1p51 && lo - zp > -0x1p51 &&
                      fabs(zp) < 0x1p51;
    if (pow2 && fast_round) { /* the common case, in a loop the compiler can vectorise
                                * (once per storage: getf's test does not change) */
        double *yf = y->f;
        for (int64_t k = 0; k < x->count; k++) {
            double q = cm_run_getf(x, k) * inv + zp;
            q = q > hi ? hi : q;
            q = q < lo ? lo : q;
            yf[k] = ((q + magic) - magic - zp) * scale;
        }
        return CM_OK;
    }
    for (int64_t k = 0; k < x->count; k++) {
        double xv = cm_run_getf(x, k);
        double q = (pow2 ? xv * inv : xv / scale) + zp;
        q = q > hi ? hi : q < lo ? lo : q;
        double r = fast_round ? (q + magic) - magic : round_by(mode, q);
        y->f[k] = (r - zp) * scale;
    }
    return CM_OK;
}

/* Quant's values of x into y (which may be x itself: each element is read before it is
 * written, and never again). */
static cm_status quant_values(cm_run_ctx *cx, const cm_array *x, const operands *o,
                              bool is_signed, bool narrow, round_mode mode, cm_array *y)
{
    /* Scale, zero point and bit width are constant over runs of the innermost axes
     * where none of them varies (all of x for per-tensor, a channel for per-channel):
     * each run is one per-tensor loop. */
    int64_t run = 1;
    for (int d = x->rank - 1; d >= 0; d--) {
        bool varies = x->dims[d] > 1 && (o->s[0][d] || o->s[1][d] || o->s[2][d]);
        if (varies)
            break;
        run *= x->dims[d];
    }
    cm_status st = CM_OK;
    if (run > 1 || x->count <= 1) {
        for (int64_t k = 0; k < x->count && st == CM_OK; k += run) {
            double v[6];
            operand_walk w = {0};
            operands_at(x, o, k, &w, v);
            cm_array xs = {.dtype = x->dtype, .count = run, .f = x->f ? x->f + k : NULL,
                           .i = x->i ? x->i + k : NULL};
            cm_array ys = {.dtype = y->dtype, .count = run, .f = y->f + k};
            st = quant_per_tensor(cx, &xs, v[0], v[1], v[2], is_signed, narrow, mode, &ys);
        }
        return st;
    }
    double v[6], bits = NAN, lo = 0, hi = 0;
    operand_walk w = {0};
    for (int64_t k = 0; k < x->count; k++) {
        walk_values(x, o, &w, v);
        double scale = v[0], zp = v[1];
        if (v[2] != bits) { /* the range changes only with the bit width */
            bits = v[2];
            if (!(bits >= 1 && bits <= 64))
                return cm_run_fail(cx, CM_EINPUT, "bit width %g is out of range 1-64", bits);
            lo = min_int(is_signed, narrow, bits);
            hi = max_int(is_signed, narrow, bits);
        }
        if (!(scale != 0) || !isfinite(scale))
            return cm_run_fail(cx, CM_EINPUT, "scale %g is out of range", scale);
        double q = cm_run_getf(x, k) / scale + zp;
        q = q > hi ? hi : q < lo ? lo : q;
        y->f[k] = (round_by(mode, q) - zp) * scale;
    }
    return CM_OK;
}

/* x's values as floats of type t in its own storage (an integer's int64 slots become
 * doubles), so that it can be a float output. */
static void widen_in_place(cm_array *x, cm_dtype t)
{
    _Static_assert(sizeof(double) == sizeof(int64_t), "a double fills an int64 slot");
    if (!x->f && x->i) {
        unsigned char *p = (unsigned char *)x->i;
        for (int64_t k = 0; k < x->count; k++) {
            int64_t iv;
            memcpy(&iv, p + (size_t)k * sizeof iv, sizeof iv);
            double fv = (double)iv;
            memcpy(p + (size_t)k * sizeof fv, &fv, sizeof fv);
        }
        x->f = (double *)(void *)p;
        x->i = NULL;
    }
    x->dtype = t;
}

/* Quant (IntQuant): clamp x / scale + zero_point to the integer range of the bit width,
 * round, and return to the scale. */
CM_RUN_KERNEL(cm_run_quant)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 4);
    if (st != CM_OK)
        return st;
    round_mode mode;
    st = read_round_mode(cx, "ROUND", &mode);
    if (st != CM_OK)
        return st;
    bool is_signed = cm_run_attr_int(cx, "signed", 1) != 0;
    bool narrow = cm_run_attr_int(cx, "narrow", 0) != 0;
    /* Exporters store quantised weights as integers too (int8 x, int8 zero point). */
    cm_array *x = in[0], *y = NULL;
    cm_dtype t = x->f ? x->dtype : cm_run_float_type(cx, CM_DTYPE_FLOAT32);
    operands o = {.n = 3, .a = {in[1], in[2], in[3]}};
    if ((st = broadcast_operands(cx, x, &o)) != CM_OK)
        return st;
    if (cx->in0_spare) { /* weights nothing else reads: quantised where they are */
        widen_in_place(x, t);
        y = x;
    } else if ((st = cm_run_new(cx, t, x->rank, x->dims, &y)) != CM_OK) {
        return st;
    }
    st = quant_values(cx, x, &o, is_signed, narrow, mode, y);
    if (st == CM_OK || y != x) /* (a failed output is the runner's to free; x is not) */
        *out = y;
    return st;
}

CM_RUN_KERNEL(cm_run_bipolar_quant)
{
    (void)n_out;
    cm_status st = float_inputs(cx, in, n_in, 2);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    operands o = {.n = 1, .a = {in[1]}};
    if ((st = broadcast_operands(cx, x, &o)) != CM_OK ||
        (st = cm_run_new(cx, x->dtype, x->rank, x->dims, out)) != CM_OK)
        return st;
    double v[6];
    operand_walk w = {0};
    for (int64_t k = 0; k < x->count; k++) {
        walk_values(x, &o, &w, v);
        (*out)->f[k] = (x->f[k] >= 0 ? 1.0 : -1.0) * v[0];
    }
    return CM_OK;
}

/* Trunc version 1 (x, scale, zeropt, in_bits, out_bits) drops in_bits - out_bits low
 * bits; version 2 (x, scale, zeropt, in_bits, out_scale, out_bits) derives the dropped
 * bits from the scales and clamps to the output range. */
CM_RUN_KERNEL(cm_run_trunc)
{
    (void)n_out;
    cm_status st = float_inputs(cx, in, n_in, 5);
    if (st != CM_OK)
        return st;
    round_mode mode;
    if ((st = read_round_mode(cx, "FLOOR", &mode)) != CM_OK)
        return st;
    bool v2 = n_in >= 6 && in[5];
    bool is_signed = cm_run_attr_int(cx, "signed", 1) != 0;
    bool narrow = cm_run_attr_int(cx, "narrow", 0) != 0;
    const cm_array *x = in[0];
    operands o = {.n = v2 ? 5 : 4, .a = {in[1], in[2], in[3], in[4], v2 ? in[5] : NULL}};
    if ((st = broadcast_operands(cx, x, &o)) != CM_OK ||
        (st = cm_run_new(cx, x->dtype, x->rank, x->dims, out)) != CM_OK)
        return st;
    double v[6];
    operand_walk w = {0};
    for (int64_t k = 0; k < x->count; k++) {
        walk_values(x, &o, &w, v);
        double scale = v[0], zp = v[1], in_bits = v[2];
        if (!(scale != 0) || !isfinite(scale))
            return cm_run_fail(cx, CM_EINPUT, "scale %g is out of range", scale);
        double y = nearbyint(x->f[k] / scale + zp);
        if (!v2) {
            y = round_by(mode, y / exp2(in_bits - v[3]));
            (*out)->f[k] = (y - zp) * scale;
        } else {
            double out_scale = v[3], out_bits = v[4];
            double t = exp2(nearbyint(log2(out_scale / scale)));
            y /= t;
            double lo = min_int(is_signed, narrow, out_bits);
            double hi = max_int(is_signed, narrow, out_bits);
            y = y > hi ? hi : y < lo ? lo : y;
            (*out)->f[k] = (round_by(mode, y) - zp / t) * out_scale;
        }
    }
    return CM_OK;
}

/* MultiThreshold: out_scale times the number of the channel's thresholds that x reaches,
 * plus out_bias. */
CM_RUN_KERNEL(cm_run_multi_threshold)
{
    (void)n_out;
    cm_status st = float_inputs(cx, in, n_in, 2);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0], *thr = in[1];
    if (thr->rank != 2)
        return cm_run_fail(cx, CM_EINPUT, "thresholds must be a channels x steps matrix");
    char layout[16];
    cm_run_attr_string(cx, "data_layout", layout, sizeof layout);
    bool last = !strcmp(layout, "NHWC") || !strcmp(layout, "NC") ? !strcmp(layout, "NHWC") : false;
    int axis = x->rank < 2 ? 0 : last ? x->rank - 1 : 1;
    int64_t channels = x->rank ? x->dims[axis] : 1, inner = 1;
    for (int d = axis + 1; d < x->rank; d++)
        inner *= x->dims[d];
    if (thr->dims[0] != channels && thr->dims[0] != 1)
        return cm_run_fail(cx, CM_EINPUT, "%lld threshold rows for %lld channels",
                           (long long)thr->dims[0], (long long)channels);
    double scale = cm_run_attr_float(cx, "out_scale", 1.0);
    double bias = cm_run_attr_float(cx, "out_bias", 0.0);
    if ((st = cm_run_new(cx, cm_run_float_type(cx, CM_DTYPE_FLOAT32), x->rank, x->dims, out)) != CM_OK)
        return st;
    int64_t steps = thr->dims[1];
    for (int64_t k = 0; k < x->count; k++) {
        int64_t c = thr->dims[0] == 1 ? 0 : (k / inner) % channels;
        int64_t n = 0;
        for (int64_t t = 0; t < steps; t++)
            n += x->f[k] >= thr->f[c * steps + t];
        (*out)->f[k] = scale * (double)n + bias;
    }
    return CM_OK;
}

/* Channel of element k along axis for per-axis parameters of n values. */
static int64_t param_index(const cm_array *x, int axis, int64_t n, int64_t k)
{
    if (n == 1)
        return 0;
    int64_t inner = 1;
    for (int d = axis + 1; d < x->rank; d++)
        inner *= x->dims[d];
    return (k / inner) % x->dims[axis];
}

static cm_status linear_params(cm_run_ctx *cx, const cm_array *x, const cm_array *scale,
                               const cm_array *zp, int *axis)
{
    *axis = 0;
    if (scale->count == 1 && (!zp || zp->count <= 1))
        return CM_OK;
    int a = cm_run_axis(cx, cm_run_attr_int(cx, "axis", 1), x->rank ? x->rank : 1);
    if (a < 0)
        return cx->err->code;
    if (scale->count != x->dims[a] || (zp && zp->count > 1 && zp->count != scale->count))
        return cm_run_fail(cx, CM_EINPUT, "per-axis scale of %lld values for %lld channels",
                           (long long)scale->count, (long long)x->dims[a]);
    *axis = a;
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_quantize_linear)
{
    (void)n_out;
    if (n_in < 2 || !in[0] || !in[1])
        return cm_run_fail(cx, CM_EINPUT, "x and y_scale are needed");
    const cm_array *x = in[0], *scale = in[1], *zp = n_in > 2 ? in[2] : NULL;
    cm_dtype t = zp ? zp->dtype : CM_DTYPE_UINT8;
    if (t != CM_DTYPE_UINT8 && t != CM_DTYPE_INT8)
        return cm_run_fail(cx, CM_EINPUT, "output type %s is not int8 or uint8", cm_dtype_name(t));
    int axis;
    cm_status st = linear_params(cx, x, scale, zp, &axis);
    if (st != CM_OK || (st = cm_run_new(cx, t, x->rank, x->dims, out)) != CM_OK)
        return st;
    double lo = t == CM_DTYPE_INT8 ? -128 : 0, hi = t == CM_DTYPE_INT8 ? 127 : 255;
    bool f32 = x->dtype == CM_DTYPE_FLOAT32 || (!x->f && scale->dtype == CM_DTYPE_FLOAT32);
    for (int64_t k = 0; k < x->count; k++) {
        int64_t c = param_index(x, axis, scale->count, k);
        double s = cm_run_getf(scale, c);
        double q = f32 ? (double)((float)cm_run_getf(x, k) / (float)s) : cm_run_getf(x, k) / s;
        q = nearbyint(q) + (double)(zp ? cm_run_geti(zp, zp->count == 1 ? 0 : c) : 0);
        q = q < lo ? lo : q > hi ? hi : q;
        (*out)->i[k] = isnan(q) ? 0 : (int64_t)q;
    }
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_dequantize_linear)
{
    (void)n_out;
    if (n_in < 2 || !in[0] || !in[1])
        return cm_run_fail(cx, CM_EINPUT, "x and x_scale are needed");
    const cm_array *x = in[0], *scale = in[1], *zp = n_in > 2 ? in[2] : NULL;
    if (x->f)
        return cm_run_fail(cx, CM_EINPUT, "x must be an integer tensor");
    int axis;
    cm_status st = linear_params(cx, x, scale, zp, &axis);
    if (st != CM_OK ||
        (st = cm_run_new(cx, scale->dtype, x->rank, x->dims, out)) != CM_OK)
        return st;
    bool f32 = scale->dtype == CM_DTYPE_FLOAT32;
    for (int64_t k = 0; k < x->count; k++) {
        int64_t c = param_index(x, axis, scale->count, k);
        int64_t q = x->i[k] - (zp ? cm_run_geti(zp, zp->count == 1 ? 0 : c) : 0);
        double s = cm_run_getf(scale, c);
        (*out)->f[k] = f32 ? (double)((float)q * (float)s) : (double)q * s;
    }
    return CM_OK;
}
