/* The cost of one layer configuration: computation and window-buffer latency (eqs.
 * 4.8, 4.9), DSPs with packing (eq. 4.10, section 3.5.2) and the memory banks of the
 * weights and of the partitioned window buffer (sections 3.6.1-3.6.2). */
#include <stdio.h>

#include "nn2fpga/n2_internal.h"

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

int64_t n2_bram18_banks(int64_t width, int64_t depth)
{
    /* A BRAM18 is 18 Kb in one of these shapes; the tool picks the cheapest tiling. */
    static const int64_t widths[] = {1, 2, 4, 9, 18, 36};
    static const int64_t depths[] = {16384, 8192, 4096, 2048, 1024, 512};
    if (width * depth < N2_LUT_MEMORY_BITS)
        return 0;
    int64_t best = INT64_MAX;
    for (int i = 0; i < 6; i++) {
        int64_t n = ceil_div(width, widths[i]) * ceil_div(depth, depths[i]);
        if (n < best)
            best = n;
    }
    return best;
}

int64_t n2_uram_banks(int64_t width, int64_t depth)
{
    if (width * depth < N2_LUT_MEMORY_BITS)
        return 0;
    return ceil_div(width, 72) * ceil_div(depth, 4096);
}

const char *cm_nn2fpga_kind_name(cm_nn2fpga_kind k)
{
    static const char *const names[] = {"conv", "dwconv", "pool", "gpool"};
    return (unsigned)k < 4 ? names[k] : "?";
}

/* A layer made by hand (zeroed, groups unset) is one group. */
static int64_t groups_of(const cm_nn2fpga_layer *l)
{
    return l->groups > 1 ? l->groups : 1;
}

static bool has_weights(const cm_nn2fpga_layer *l)
{
    return l->kind == CM_NN2FPGA_CONV || l->kind == CM_NN2FPGA_DWCONV;
}

static cm_status check_factors(const cm_nn2fpga_layer *l, int owp, int ochp, int ichp,
                               bool uram, cm_error *err)
{
    int64_t och = l->och / groups_of(l), ich = l->ich / groups_of(l);
    if (owp < 1 || ochp < 1 || ichp < 1 || l->ow % owp || och % ochp || ich % ichp)
        return cm_error_set(err, CM_EUSAGE,
                            "%s: unroll factors %d, %d, %d do not divide ow %lld, och %lld, ich %lld%s",
                            l->name, owp, ochp, ichp, (long long)l->ow, (long long)och,
                            (long long)ich, groups_of(l) > 1 ? " (a group's channels)" : "");
    if (ochp != 1 && l->kind != CM_NN2FPGA_CONV)
        return cm_error_set(err, CM_EUSAGE, "%s: och_par must be 1 for a %s layer", l->name,
                            cm_nn2fpga_kind_name(l->kind));
    if (uram && !has_weights(l))
        return cm_error_set(err, CM_EUSAGE, "%s: a layer without weights has no URAM", l->name);
    return CM_OK;
}

/* Products that share an operand (the och_par filters of one activation, the ow_par
 * windows of one weight) are what a DSP packs together; the input-channel and kernel
 * taps form the DSP chain (fig. 3.4), so the count is eq. 4.10 when pack divides
 * och_par * ow_par. */
static int64_t dsp_count(const cm_nn2fpga_layer *l)
{
    if (!has_weights(l))
        return 0;
    int64_t lanes = ceil_div((int64_t)l->och_par * l->ow_par, l->pack);
    int64_t taps = l->fh * l->fw + l->merged_fh * l->merged_fw;
    return (int64_t)l->ich_par * taps * lanes;
}

/* The weight arrays are reshaped so that one word holds every weight one cycle reads:
 * och_par x ich_par x fh x fw (Algorithm 1); ow_par reuses them. */
static void weight_banks(cm_nn2fpga_layer *l)
{
    l->bram_weights = l->uram_weights = 0;
    if (!has_weights(l))
        return;
    /* a group's filters read only its ich / groups channels */
    int64_t och = l->kind == CM_NN2FPGA_DWCONV ? 1 : l->och;
    int64_t depth = (och / l->och_par) * (l->ich / groups_of(l) / l->ich_par);
    int64_t lane = (int64_t)l->och_par * l->ich_par * l->weight_bits;
    int64_t widths[2] = {lane * l->fh * l->fw, lane * l->merged_fh * l->merged_fw};
    for (int i = 0; i < 2; i++) {
        if (widths[i] == 0)
            continue;
        if (l->weights_in_uram)
            l->uram_weights += n2_uram_banks(widths[i], depth);
        else
            l->bram_weights += n2_bram18_banks(widths[i], depth);
    }
}

/* Eq. 3.5's buffer split at the window's read points: fh - 1 long segments of
 * iw - fw + 1 pixels, spread over ow_par lanes (fig. 3.7), and fh x (fw - 1) one-pixel
 * segments; each FIFO word holds ich_par activations. The segments add up to B_i. */
static int64_t window_banks(const cm_nn2fpga_layer *l)
{
    if (l->kind == CM_NN2FPGA_GLOBAL_POOL)
        return 0;
    int64_t width = (int64_t)l->ich_par * l->act_bits;
    int64_t words_per_pixel = l->ich / l->ich_par;
    int64_t long_depth = ceil_div(l->iw - l->fw + 1, l->ow_par) * words_per_pixel;
    int64_t banks = (l->fh - 1) * l->ow_par * n2_bram18_banks(width, long_depth);
    return banks + l->fh * (l->fw - 1) * n2_bram18_banks(width, words_per_pixel);
}

cm_status cm_nn2fpga_configure(cm_nn2fpga_layer *l, int ow_par, int och_par, int ich_par,
                               bool weights_in_uram, cm_error *err)
{
    cm_status st = check_factors(l, ow_par, och_par, ich_par, weights_in_uram, err);
    if (st != CM_OK)
        return st;
    l->ow_par = ow_par;
    l->och_par = och_par;
    l->ich_par = ich_par;
    l->weights_in_uram = weights_in_uram;
    /* Eq. 4.8: c_i / c_i^par, the kernel taps cancelling; a depthwise or pooling layer
     * has one filter per channel, a grouped one's filters ich / groups channels each.
     * epsilon is the DSP chain's depth (section 4.2.3). */
    int64_t och = l->kind == CM_NN2FPGA_CONV ? l->och : 1;
    int64_t epsilon = has_weights(l) ? (int64_t)ich_par * l->fh * l->fw : 0;
    l->lc = l->oh * l->ow * och * (l->ich / groups_of(l)) / ((int64_t)ow_par * och_par * ich_par) +
            epsilon;
    l->lw = ceil_div(l->ich * l->ih * l->iw, (int64_t)ich_par * ow_par); /* eq. 4.9 */
    l->dsp = dsp_count(l);
    weight_banks(l);
    l->bram_window = window_banks(l);
    return CM_OK;
}
