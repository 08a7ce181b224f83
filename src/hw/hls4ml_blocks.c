/* SAMO's hls4ml model (../shared/docs/backend-models.md sections 4.1 and 4.3): hls4ml's
 * reuse-factor validity rule, the kernel foldings SAMO offers (every valid RF, RF = 1
 * kept), RF = trunc(n_in*n_out / kf), latency = spatial * RF and DSP = kf. */
#include <string.h>

#include "hw/hls4ml_blocks.h"

/* n_in * n_out, or 0 when either is below 1 or the product does not fit. */
static int64_t weights(int64_t n_in, int64_t n_out)
{
    if (n_in < 1 || n_out < 1 || n_in > INT64_MAX / n_out)
        return 0;
    return n_in * n_out;
}

bool cm_hls4ml_rf_valid(int64_t n_in, int64_t n_out, int64_t rf)
{
    int64_t n = weights(n_in, n_out);
    if (n == 0 || rf < 1 || rf > n)
        return false;
    /* (i) multiplier_limit = ceil(n / min(n_in, RF)) must be a multiple of n_out,
     * unless RF >= n_in. The float ceil of hls4ml equals the integer one here. */
    int64_t mult_factor = rf < n_in ? rf : n_in;
    int64_t mult_limit = n / mult_factor + (n % mult_factor != 0);
    if (!(mult_limit % n_out == 0 || rf >= n_in))
        return false;
    /* (ii) RF must be a multiple of n_in once it reaches n_in. */
    if (!(rf % n_in == 0 || rf < n_in))
        return false;
    /* (iii) RF divides the number of weights. */
    return n % rf == 0;
}

static void emit(int64_t v, int64_t *out, int64_t cap, int64_t *count)
{
    if (out && *count < cap)
        out[*count] = v;
    (*count)++;
}

/* Only divisors of N = n_in*n_out can pass (iii), so instead of scanning 1..N this walks
 * the divisors in ascending order: d <= sqrt(N) upwards, then N/d for d going back
 * down (O(sqrt N), no storage). */
int64_t cm_hls4ml_kernel_folds(int64_t n_in, int64_t n_out, int64_t *out, int64_t cap)
{
    int64_t n = weights(n_in, n_out);
    int64_t count = 0;
    if (n == 0)
        return 0;
    int64_t d = 1;
    for (; d <= n / d; d++)
        if (n % d == 0 && cm_hls4ml_rf_valid(n_in, n_out, d))
            emit(d, out, cap, &count);
    for (d--; d >= 1; d--) {
        if (n % d != 0)
            continue;
        int64_t big = n / d;
        if (big != d && cm_hls4ml_rf_valid(n_in, n_out, big))
            emit(big, out, cap, &count);
    }
    return count;
}

int64_t cm_hls4ml_reuse_factor(const cm_hls4ml_layer *l)
{
    int64_t n = weights(l->n_in, l->n_out);
    if (n == 0 || l->kernel_fold < 1)
        return 0;
    /* Python int(N / kf): for N < 2^53 the float quotient truncates to N // kf. */
    return n / l->kernel_fold;
}

void cm_hls4ml_layer_cost(const cm_hls4ml_layer *l, cm_block_cost *out)
{
    memset(out, 0, sizeof *out);
    int64_t rf = cm_hls4ml_reuse_factor(l);
    out->cycles = (double)l->spatial * (double)rf;
    out->res.dsp = l->multiplies && l->kernel_fold > 0 ? l->kernel_fold : 0;
}
