/* Element-wise operators: activations and other unary functions, numpy-broadcast
 * arithmetic and comparisons, the variadic Min/Max/Sum/Mean, Where, Clip and Cast.
 * Integers compute in int64 and wrap to their type's width as ONNX integers do. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_internal.h"


/* ---- unary ---- */

typedef double (*unary_f)(double x, const double *p);

static cm_status unary(cm_run_ctx *cx, cm_array **in, int n_in, cm_array **out, unary_f f,
                       const double *p, bool ints_too)
{
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    if (!x->f && !ints_too)
        return cm_run_fail(cx, CM_EINPUT, "takes a float tensor, not %s", cm_dtype_name(x->dtype));
    if ((st = cm_run_new(cx, x->dtype, x->rank, x->dims, out)) != CM_OK)
        return st;
    cm_array *y = *out;
    if (x->f)
        for (int64_t k = 0; k < x->count; k++)
            y->f[k] = f(x->f[k], p);
    else
        for (int64_t k = 0; k < x->count; k++)
            y->i[k] = cm_run_wrap_int(x->dtype, (int64_t)f((double)x->i[k], p));
    return CM_OK;
}

static double f_relu(double x, const double *p) { (void)p; return x > 0 || isnan(x) ? x : 0.0; }
static double f_sigmoid(double x, const double *p)
{
    (void)p;
    return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}
static double f_tanh(double x, const double *p) { (void)p; return tanh(x); }
static double f_exp(double x, const double *p) { (void)p; return exp(x); }
static double f_sqrt(double x, const double *p) { (void)p; return sqrt(x); }
static double f_floor(double x, const double *p) { (void)p; return floor(x); }
static double f_ceil(double x, const double *p) { (void)p; return ceil(x); }
static double f_erf(double x, const double *p) { (void)p; return erf(x); }
static double f_reciprocal(double x, const double *p) { (void)p; return 1.0 / x; }
static double f_leaky(double x, const double *p) { return x >= 0 ? x : x * (float)p[0]; }
static double f_hard_sigmoid(double x, const double *p)
{
    return fmax(0.0, fmin(1.0, (float)p[0] * x + (float)p[1]));
}
static double f_hard_swish(double x, const double *p)
{
    (void)p;
    return x * fmax(0.0, fmin(1.0, x / 6.0 + 0.5));
}

#define UNARY_KERNEL(name, fn, ints)                                   \
    CM_RUN_KERNEL(name)                                                \
    {                                                                  \
        (void)n_out;                                                   \
        return unary(cx, in, n_in, out, fn, NULL, ints);               \
    }
UNARY_KERNEL(cm_run_sigmoid, f_sigmoid, false)
UNARY_KERNEL(cm_run_tanh, f_tanh, false)
UNARY_KERNEL(cm_run_exp, f_exp, false)
UNARY_KERNEL(cm_run_sqrt, f_sqrt, false)
UNARY_KERNEL(cm_run_floor, f_floor, false)
UNARY_KERNEL(cm_run_ceil, f_ceil, false)
UNARY_KERNEL(cm_run_erf, f_erf, false)
UNARY_KERNEL(cm_run_reciprocal, f_reciprocal, false)
UNARY_KERNEL(cm_run_hard_swish, f_hard_swish, false)

/* Relu, Neg and Abs also take integers: exact in int64, not through a double. */
static cm_status unary_exact(cm_run_ctx *cx, cm_array **in, int n_in, cm_array **out,
                             unary_f f, char op)
{
    if (op == 'r' && n_in >= 1 && in[0] && in[0]->f) { /* the hot one: a plain loop */
        const cm_array *x = in[0];
        cm_status st = cm_run_new(cx, x->dtype, x->rank, x->dims, out);
        if (st != CM_OK)
            return st;
        const double *xf = x->f;
        double *yf = (*out)->f;
        for (int64_t k = 0; k < x->count; k++) /* NaN passes, -0 becomes 0 */
            yf[k] = xf[k] <= 0 ? 0.0 : xf[k];
        return CM_OK;
    }
    if (n_in < 1 || !in[0] || in[0]->f)
        return unary(cx, in, n_in, out, f, NULL, false);
    const cm_array *x = in[0];
    cm_status st = cm_run_new(cx, x->dtype, x->rank, x->dims, out);
    if (st != CM_OK)
        return st;
    for (int64_t k = 0; k < x->count; k++) {
        int64_t v = x->i[k];
        uint64_t neg = 0 - (uint64_t)v;
        int64_t r = op == 'r' ? (v > 0 ? v : 0) : op == 'n' || v < 0 ? (int64_t)neg : v;
        (*out)->i[k] = cm_run_wrap_int(x->dtype, r);
    }
    return CM_OK;
}
static double f_neg(double x, const double *p) { (void)p; return -x; }
static double f_abs(double x, const double *p) { (void)p; return fabs(x); }
CM_RUN_KERNEL(cm_run_relu) { (void)n_out; return unary_exact(cx, in, n_in, out, f_relu, 'r'); }
CM_RUN_KERNEL(cm_run_neg) { (void)n_out; return unary_exact(cx, in, n_in, out, f_neg, 'n'); }
CM_RUN_KERNEL(cm_run_abs) { (void)n_out; return unary_exact(cx, in, n_in, out, f_abs, 'a'); }

CM_RUN_KERNEL(cm_run_leaky_relu)
{
    (void)n_out;
    double p[1] = {cm_run_attr_float(cx, "alpha", 0.01)};
    return unary(cx, in, n_in, out, f_leaky, p, false);
}

CM_RUN_KERNEL(cm_run_hard_sigmoid)
{
    (void)n_out;
    double p[2] = {cm_run_attr_float(cx, "alpha", 0.2), cm_run_attr_float(cx, "beta", 0.5)};
    return unary(cx, in, n_in, out, f_hard_sigmoid, p, false);
}

static cm_status copy_of(cm_run_ctx *cx, const cm_array *x, cm_array **out)
{
    return cm_run_reshaped(cx, x, x->rank, x->dims, out);
}

CM_RUN_KERNEL(cm_run_identity)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    return st != CM_OK ? st : copy_of(cx, in[0], &out[0]);
}

/* Inference only: the data passes through and the mask is all true. */
CM_RUN_KERNEL(cm_run_dropout)
{
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    bool training = cm_run_opset(cx) >= 12 ? n_in > 2 && in[2] && in[2]->count &&
                                                 cm_run_getf(in[2], 0) != 0
                                           : cm_run_opset(cx) < 7 && !cm_run_attr_int(cx, "is_test", 0);
    /* Training mode is random unless nothing is dropped. */
    double ratio = cm_run_opset(cx) >= 12 ? (n_in > 1 && in[1] && in[1]->count ? cm_run_getf(in[1], 0)
                                                                                : 0.5)
                                          : cm_run_attr_float(cx, "ratio", 0.5);
    if (training && ratio != 0)
        return cm_run_fail(cx, CM_EINPUT, "training mode with ratio %g is random; the executor "
                           "runs inference", ratio);
    if ((st = copy_of(cx, in[0], &out[0])) != CM_OK)
        return st;
    if (n_out > 1) {
        if ((st = cm_run_new(cx, CM_DTYPE_BOOL, in[0]->rank, in[0]->dims, &out[1])) != CM_OK)
            return st;
        for (int64_t k = 0; k < out[1]->count; k++)
            out[1]->i[k] = 1;
    }
    return CM_OK;
}

/* ---- broadcast binary ---- */

typedef enum binary_op { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_EQ, OP_MIN, OP_MAX } binary_op;

static double float_op(binary_op op, double a, double b)
{
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    case OP_POW: return pow(a, b);
    case OP_EQ: return a == b;
    case OP_MIN: return isnan(a) || isnan(b) ? NAN : fmin(a, b);
    default: return isnan(a) || isnan(b) ? NAN : fmax(a, b);
    }
}

static int64_t int_pow(int64_t a, int64_t b)
{
    uint64_t r = 1, base = (uint64_t)a;
    for (; b > 0; b >>= 1, base *= base)
        if (b & 1)
            r *= base;
    return (int64_t)r;
}

/* Integer arithmetic wraps, as in two's complement; division by zero is refused. */
static bool int_op(binary_op op, int64_t a, int64_t b, int64_t *r)
{
    switch (op) {
    case OP_ADD: *r = (int64_t)((uint64_t)a + (uint64_t)b); return true;
    case OP_SUB: *r = (int64_t)((uint64_t)a - (uint64_t)b); return true;
    case OP_MUL: *r = (int64_t)((uint64_t)a * (uint64_t)b); return true;
    case OP_DIV:
        if (b == 0 || (a == INT64_MIN && b == -1))
            return false;
        *r = a / b;
        return true;
    case OP_POW: *r = b < 0 ? 0 : int_pow(a, b); return true;
    case OP_EQ: *r = a == b; return true;
    case OP_MIN: *r = a < b ? a : b; return true;
    default: *r = a > b ? a : b; return true;
    }
}

static cm_status binary(cm_run_ctx *cx, const cm_array *a, const cm_array *b, binary_op op,
                        cm_array **out)
{
    const cm_array *both[2] = {a, b};
    int rank;
    int64_t dims[CM_ARRAY_MAX_RANK], sa[CM_ARRAY_MAX_RANK], sb[CM_ARRAY_MAX_RANK];
    cm_status st = cm_run_broadcast_shape(cx, both, 2, &rank, dims);
    if (st != CM_OK)
        return st;
    /* Pow keeps its base's type; the others need operands of one kind. */
    bool floats = a->f != NULL || (op != OP_POW && b->f != NULL);
    cm_dtype t = op == OP_EQ ? CM_DTYPE_BOOL : a->dtype;
    if ((st = cm_run_new(cx, t, rank, dims, out)) != CM_OK)
        return st;
    cm_run_broadcast_strides(a, rank, dims, sa);
    cm_run_broadcast_strides(b, rank, dims, sb);
    cm_array *y = *out;
    if (floats && y->f && a->f && b->f && a->count == y->count &&
        (b->count == y->count || b->count == 1)) { /* same shapes, or a scalar: no indexing */
        int64_t step = b->count == 1 ? 0 : 1;
        for (int64_t k = 0; k < y->count; k++)
            y->f[k] = float_op(op, a->f[k], b->f[k * step]);
        return CM_OK;
    }
    int64_t idx[CM_ARRAY_MAX_RANK] = {0}, oa = 0, ob = 0;
    for (int64_t k = 0; k < y->count; k++) {
        if (floats) {
            double v = float_op(op, cm_run_getf(a, oa), cm_run_getf(b, ob));
            if (y->f)
                y->f[k] = v;
            else
                y->i[k] = (int64_t)v;
        } else {
            int64_t v;
            if (!int_op(op, a->i[oa], cm_run_geti(b, ob), &v))
                return cm_run_fail(cx, CM_EINPUT, "integer division by zero");
            y->i[k] = cm_run_wrap_int(t, v);
        }
        for (int d = rank - 1; d >= 0; d--) {
            oa += sa[d];
            ob += sb[d];
            if (++idx[d] < dims[d])
                break;
            oa -= sa[d] * dims[d];
            ob -= sb[d] * dims[d];
            idx[d] = 0;
        }
    }
    return CM_OK;
}

static cm_status binary_kernel(cm_run_ctx *cx, cm_array **in, int n_in, cm_array **out,
                               binary_op op)
{
    cm_status st = cm_run_need(cx, in, n_in, 2);
    if (st != CM_OK)
        return st;
    if (op != OP_POW && (in[0]->f != NULL) != (in[1]->f != NULL))
        return cm_run_fail(cx, CM_EINPUT, "operands of types %s and %s",
                           cm_dtype_name(in[0]->dtype), cm_dtype_name(in[1]->dtype));
    return binary(cx, in[0], in[1], op, out);
}

CM_RUN_KERNEL(cm_run_add) { (void)n_out; return binary_kernel(cx, in, n_in, out, OP_ADD); }
CM_RUN_KERNEL(cm_run_sub) { (void)n_out; return binary_kernel(cx, in, n_in, out, OP_SUB); }
CM_RUN_KERNEL(cm_run_mul) { (void)n_out; return binary_kernel(cx, in, n_in, out, OP_MUL); }
CM_RUN_KERNEL(cm_run_div) { (void)n_out; return binary_kernel(cx, in, n_in, out, OP_DIV); }
CM_RUN_KERNEL(cm_run_pow) { (void)n_out; return binary_kernel(cx, in, n_in, out, OP_POW); }
CM_RUN_KERNEL(cm_run_equal) { (void)n_out; return binary_kernel(cx, in, n_in, out, OP_EQ); }

/* Min, Max, Sum and Mean fold their inputs left to right. */
static cm_status variadic(cm_run_ctx *cx, cm_array **in, int n_in, cm_array **out, binary_op op,
                          bool mean)
{
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    cm_array *acc = NULL;
    if ((st = copy_of(cx, in[0], &acc)) != CM_OK)
        return st;
    for (int k = 1; k < n_in && st == CM_OK; k++) {
        cm_array *next = NULL;
        if (!in[k])
            st = cm_run_fail(cx, CM_EINPUT, "input %d is missing", k);
        else
            st = binary_kernel(cx, (cm_array *[]){acc, in[k]}, 2, &next, op);
        cm_array_free(acc);
        acc = next;
        if (st == CM_OK && acc->dtype == CM_DTYPE_FLOAT32)
            cm_run_round_f32(acc);
    }
    if (st == CM_OK && mean && acc->f)
        for (int64_t k = 0; k < acc->count; k++)
            acc->f[k] /= n_in;
    if (st != CM_OK) {
        cm_array_free(acc);
        return st;
    }
    *out = acc;
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_min) { (void)n_out; return variadic(cx, in, n_in, out, OP_MIN, false); }
CM_RUN_KERNEL(cm_run_max) { (void)n_out; return variadic(cx, in, n_in, out, OP_MAX, false); }
CM_RUN_KERNEL(cm_run_sum) { (void)n_out; return variadic(cx, in, n_in, out, OP_ADD, false); }
CM_RUN_KERNEL(cm_run_mean) { (void)n_out; return variadic(cx, in, n_in, out, OP_ADD, true); }

CM_RUN_KERNEL(cm_run_where)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 3);
    if (st != CM_OK)
        return st;
    const cm_array *c = in[0], *x = in[1], *y = in[2];
    if ((x->f != NULL) != (y->f != NULL))
        return cm_run_fail(cx, CM_EINPUT, "X and Y have different types");
    const cm_array *all[3] = {c, x, y};
    int rank;
    int64_t dims[CM_ARRAY_MAX_RANK], s[3][CM_ARRAY_MAX_RANK];
    if ((st = cm_run_broadcast_shape(cx, all, 3, &rank, dims)) != CM_OK ||
        (st = cm_run_new(cx, x->dtype, rank, dims, out)) != CM_OK)
        return st;
    for (int j = 0; j < 3; j++)
        cm_run_broadcast_strides(all[j], rank, dims, s[j]);
    int64_t idx[CM_ARRAY_MAX_RANK] = {0}, o[3] = {0, 0, 0};
    cm_array *r = *out;
    for (int64_t k = 0; k < r->count; k++) {
        bool take_x = cm_run_getf(c, o[0]) != 0;
        if (r->f)
            r->f[k] = take_x ? x->f[o[1]] : y->f[o[2]];
        else
            r->i[k] = take_x ? x->i[o[1]] : y->i[o[2]];
        for (int d = rank - 1; d >= 0; d--) {
            for (int j = 0; j < 3; j++)
                o[j] += s[j][d];
            if (++idx[d] < dims[d])
                break;
            for (int j = 0; j < 3; j++)
                o[j] -= s[j][d] * dims[d];
            idx[d] = 0;
        }
    }
    return CM_OK;
}

/* Clip: bounds as attributes before opset 11, as optional inputs after. */
CM_RUN_KERNEL(cm_run_clip)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    double lo = -INFINITY, hi = INFINITY;
    int64_t ilo = INT64_MIN, ihi = INT64_MAX;
    if (cm_run_opset(cx) < 11) {
        lo = cm_run_attr_float(cx, "min", -INFINITY);
        hi = cm_run_attr_float(cx, "max", INFINITY);
    } else {
        if (n_in > 1 && in[1] && in[1]->count)
            lo = cm_run_getf(in[1], 0), ilo = cm_run_geti(in[1], 0);
        if (n_in > 2 && in[2] && in[2]->count)
            hi = cm_run_getf(in[2], 0), ihi = cm_run_geti(in[2], 0);
    }
    if ((st = cm_run_new(cx, x->dtype, x->rank, x->dims, out)) != CM_OK)
        return st;
    for (int64_t k = 0; k < x->count; k++) {
        if (x->f) {
            double v = x->f[k];
            (*out)->f[k] = v < lo ? lo : v > hi ? hi : v;
        } else {
            int64_t v = x->i[k];
            (*out)->i[k] = v < ilo ? ilo : v > ihi ? ihi : v;
        }
    }
    return CM_OK;
}

/* A double to int64 without undefined behaviour: truncated, saturated, NaN to 0. */
static int64_t float_to_int(double v)
{
    if (isnan(v))
        return 0;
    if (v >= 9223372036854775807.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

CM_RUN_KERNEL(cm_run_cast)
{
    (void)n_out;
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    cm_dtype to = (cm_dtype)cm_run_attr_int(cx, "to", 0);
    if (strcmp(cm_dtype_name(to), "unknown") == 0)
        return cm_run_fail(cx, CM_EINPUT, "cast to data type %d is not supported", (int)to);
    const cm_array *x = in[0];
    if ((st = cm_run_new(cx, cm_run_float_type(cx, to), x->rank, x->dims, out)) != CM_OK)
        return st;
    cm_array *y = *out;
    for (int64_t k = 0; k < x->count; k++) {
        if (y->f)
            y->f[k] = cm_run_getf(x, k);
        else if (to == CM_DTYPE_BOOL)
            y->i[k] = cm_run_getf(x, k) != 0;
        else
            y->i[k] = cm_run_wrap_int(to, x->f ? float_to_int(x->f[k]) : x->i[k]);
    }
    return CM_OK;
}
