/* When float32 products are exact in a float64 (QONNX) run.
 *
 * Quantised tensors hold integers times a power of two. If every input value is a_i 2^ex
 * and every weight b_j 2^ew with integers a, b, then every product and every partial sum
 * of an output is an integer multiple of 2^(ex + ew) no larger than max|a| * sum|b| over
 * that output's weights. Below 2^24 such a number is a float32, so a float32 product (in
 * any order, with or without fused multiply-adds) gives the float64 result bit for bit,
 * at twice BLAS's float64 speed. The weights' part is worked out once at load; the input's
 * part is one pass over the input per product. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_internal.h"

/* 2^24: the integers float32 holds exactly lie below it. */
#define EXACT32_UNITS 16777216.0
/* The smallest unit kept well inside float32's normal range. */
#define EXACT32_MIN_EXP -100

/* Exponent of the largest power of two dividing v (v finite, non-zero), from its bits:
 * one pass over every input of a product must cost next to nothing. */
static int quantum_exp(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t mantissa = bits & ((UINT64_C(1) << 52) - 1);
    if (biased == 0) /* subnormal: no implicit bit */
        return -1074 + __builtin_ctzll(mantissa);
    return biased - 1075 + __builtin_ctzll(mantissa | (UINT64_C(1) << 52));
}

/* The common power-of-two quantum of v[0..n) and the largest magnitude in units of it;
 * false for a non-finite value. An all-zero v has no quantum: *exp is INT32_MAX and
 * *units 0. */
static bool quantum_of(const double *v, int64_t n, int *exp, double *units)
{
    int q = INT32_MAX;
    double top = 0.0;
    for (int64_t k = 0; k < n; k++) {
        double x = v[k];
        if (x == 0.0)
            continue;
        if (!isfinite(x))
            return false;
        int e = quantum_exp(x);
        q = e < q ? e : q;
        top = fabs(x) > top ? fabs(x) : top;
    }
    *exp = q;
    *units = q == INT32_MAX ? 0.0 : ldexp(top, -q);
    return true;
}

void cm_run_exact32_prepare(cm_run_node *n, const cm_array *w, int64_t outputs, int64_t inner,
                            bool outputs_are_rows)
{
    n->exact32 = false;
    int exp;
    double units;
    if (!quantum_of(w->f, w->count, &exp, &units) || units >= EXACT32_UNITS)
        return;
    double worst = 0.0;
    for (int64_t o = 0; o < outputs; o++) {
        double sum = 0.0;
        for (int64_t k = 0; k < inner; k++)
            sum += fabs(w->f[outputs_are_rows ? o * inner + k : k * outputs + o]);
        worst = sum > worst ? sum : worst;
    }
    n->exact32 = true;
    n->weight_exp = exp;
    n->weight_units_sum = exp == INT32_MAX ? 0.0 : ldexp(worst, -exp);
}

bool cm_run_exact32(cm_run_ctx *cx, const double *x, int64_t count)
{
    const cm_run_node *n = cx->node;
    if (!n->exact32 || !n->weights32)
        return false;
    int exp;
    double units;
    if (!quantum_of(x, count, &exp, &units) || units >= EXACT32_UNITS)
        return false;
    if (units == 0.0 || n->weight_units_sum == 0.0)
        return true; /* every product is 0 */
    /* units * sum < 2^24 holds with room: both factors are below 2^24 and exact. */
    return units * n->weight_units_sum < EXACT32_UNITS &&
           (int64_t)exp + n->weight_exp >= EXACT32_MIN_EXP && exp + n->weight_exp <= 60;
}
