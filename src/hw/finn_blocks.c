/* FINN v0.6 per-node estimates (../shared/docs/backend-models.md section 3.2), and
 * current FINN's StreamingConcat and ElementwiseMul (finn_blocks.h), as SAMO
 * reads them: cycles = get_exp_cycles, BRAM18/URAM/LUT/DSP = the *_estimation methods.
 * Arithmetic follows the Python: `/` is float division, `//` integer division, ceil is
 * math.ceil on a float quotient, the final int() truncates, and log2 is math.log(x, 2),
 * i.e. log(x)/log(2.0) (section 0: 29.000000000000004 for 2^29, so ceil gives 30). */
#include <math.h>
#include <string.h>

#include "hw/finn_blocks.h"

/* A divisor that is never zero or negative: folding factors below 1 count as 1. */
static int64_t at_least_1(int64_t v)
{
    return v < 1 ? 1 : v;
}

/* a * b, saturating at INT64_MAX, for products of fields that are each in range but
 * whose product need not be. */
static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

static double py_log2(double x)
{
    return log(x) / log(2.0);
}

/* Python int() of a non-negative float; NaN and negatives (invalid inputs) give 0. */
static int64_t py_trunc(double x)
{
    if (!(x > 0.0))
        return 0;
    if (x >= 9.2e18)
        return INT64_MAX;
    return (int64_t)x;
}

/* A resource count: py_trunc, capped at 2^32. The largest devices have under 10^7
 * LUTs, so a capped node is as infeasible as the exact figure says, and a design's
 * sum over its nodes (at most INT_MAX of them) stays below INT64_MAX: the formulas
 * reach 1e20 LUTs at 32-bit widths (2^32 thresholds), and an uncapped sum overflowed
 * into a small number that looked feasible. */
#define CM_FINN_RES_MAX ((int64_t)1 << 32)

static int64_t res_count(double x)
{
    if (x != x) /* inf * 0 from absurd widths: unknown, so never "fits" */
        return CM_FINN_RES_MAX;
    int64_t v = py_trunc(x);
    return v > CM_FINN_RES_MAX ? CM_FINN_RES_MAX : v;
}

/* 2^B - 1, the number of thresholds for a B-bit output. */
static double thresholds(int b)
{
    return ldexp(1.0, b < 0 ? 0 : b) - 1.0;
}

int64_t cm_finn_bram18(double words, int width)
{
    if (width < 1 || !(words > 0.0))
        return 0;
    double w = width;
    double r;
    if (width == 1)
        r = ceil(words / 16384.0);
    else if (width == 2)
        r = ceil(words / 8192.0);
    else if (width <= 4)
        r = ceil(words / 4096.0) * ceil(w / 4.0);
    else if (width <= 9)
        r = ceil(words / 2048.0) * ceil(w / 9.0);
    else if (width <= 18 || words > 512.0) /* the "or ω > 512" quirk of FINN */
        r = ceil(words / 1024.0) * ceil(w / 18.0);
    else
        r = ceil(words / 512.0) * ceil(w / 36.0);
    return res_count(r);
}

/* The VVAU's variant of the ladder: divisors 4, 8, 16, 32 on the weight width, x PE. */
static int64_t vvau_bram18(int64_t wmem, int width, int64_t pe)
{
    if (width < 1 || wmem < 1)
        return 0;
    double o = (double)wmem, w = width, r;
    if (width == 1)
        r = ceil(o / 16384.0);
    else if (width == 2)
        r = ceil(o / 8192.0);
    else if (width <= 4)
        r = ceil(o / 4096.0) * ceil(w / 4.0);
    else if (width <= 9)
        r = ceil(o / 2048.0) * ceil(w / 8.0);
    else if (width <= 18 || o > 512.0)
        r = ceil(o / 1024.0) * ceil(w / 16.0);
    else
        r = ceil(o / 512.0) * ceil(w / 32.0);
    return res_count(r * (double)pe);
}

/* FINN's LUT formula shared by MVAU and VVAU: int(300 + 1.1*(PE*(terms)) + c2), in
 * the Python evaluation order. */
static int64_t lut_300(int64_t pe, double terms, double c2)
{
    return res_count(300.0 + 1.1 * ((double)pe * terms) + c2);
}

static void mvau_cost(const cm_finn_node *n, cm_block_cost *out)
{
    int64_t pe = at_least_1(n->pe), simd = at_least_1(n->simd);
    int64_t mw = n->mw, mh = n->mh;
    double w = n->weight_bits, a = n->in_bits;
    bool konst = n->mem_mode == CM_FINN_MEM_CONST;
    bool decoupled = n->mem_mode == CM_FINN_MEM_DECOUPLED;
    bool external = n->mem_mode == CM_FINN_MEM_EXTERNAL;

    out->cycles = (double)py_trunc(((double)mh / (double)pe) * ((double)mw / (double)simd) *
                                   (double)n->num_vectors);

    /* In double where a product of folding factors and widths can pass 2^63. */
    int64_t wmem = mw * mh / (pe * simd);
    int64_t tmem = n->no_activation ? 0 : mh / pe;
    double omega = (double)(mw * mh) / ((double)simd * (double)pe);
    double mem_width = (double)simd * (double)n->weight_bits * (double)pe;
    bool small_const = konst && wmem <= 128;

    bool no_bram = (decoupled && (n->ram_style == CM_FINN_RAM_DISTRIBUTED ||
                                  n->ram_style == CM_FINN_RAM_ULTRA)) ||
                   small_const || external;
    if (!no_bram)
        out->res.bram18 = cm_finn_bram18(omega, mem_width > INT32_MAX ? INT32_MAX : (int)mem_width);

    /* Const mode with WMEM > 128 reports URAM as well as BRAM (sic, section 3.2). */
    bool no_uram = (decoupled && n->ram_style != CM_FINN_RAM_ULTRA) || small_const || external;
    if (!no_uram)
        out->res.uram = res_count(ceil(mem_width / 72.0) * ceil(omega / 4096.0));

    double c2 = 0.0;
    if ((decoupled && n->ram_style == CM_FINN_RAM_DISTRIBUTED) || small_const)
        c2 = (double)pe * (double)simd * n->weight_bits * ceil((double)wmem / 64.0);
    double mult = n->res_dsp ? 0.0 : (double)simd * (2.0 * ceil((w + a) / 6.0) - 1.0) * (w + a);
    double adder = (w + a) * (double)(2 * simd - 1);
    double acc_bits = w + a + ceil(py_log2((double)at_least_1(mw)));
    double thr = 0.0, comp = 0.0;
    if (!n->no_activation) {
        thr = thresholds(n->out_bits) * acc_bits * ceil((double)tmem / 64.0);
        comp = thresholds(n->out_bits) * acc_bits;
    }
    out->res.lut = lut_300(pe, mult + adder + acc_bits + thr + comp, c2);

    if (n->res_dsp)
        out->res.dsp = res_count((double)pe * (double)simd * ceil((w + a) / 48.0));
}

static void vvau_cost(const cm_finn_node *n, cm_block_cost *out)
{
    int64_t pe = at_least_1(n->pe);
    int64_t ch = n->channels, kk = (int64_t)n->kernel[0] * n->kernel[1], kkch = sat_mul(kk, ch);
    double w = n->weight_bits, a = n->in_bits;

    out->cycles = (double)py_trunc(((double)kkch / (double)pe) * (double)n->num_vectors);

    int64_t wmem = kkch / pe;
    int64_t tmem = n->no_activation ? 0 : ch / pe;
    if (wmem > 128)
        out->res.bram18 = vvau_bram18(wmem, n->weight_bits, pe);

    double c2 = 0.0;
    if (wmem <= 128)
        c2 = (double)pe * n->weight_bits * ceil((double)wmem / 64.0);
    /* No SIMD factor and no adder tree in v0.6's VVAU. */
    double mult = n->res_dsp ? 0.0 : (2.0 * ceil((w + a) / 6.0) - 1.0) * (w + a);
    double acc_bits = w + a + ceil(py_log2((double)at_least_1(kk)));
    double thr = 0.0, comp = 0.0;
    if (!n->no_activation) {
        thr = thresholds(n->out_bits) * acc_bits * ceil((double)tmem / 64.0);
        comp = thresholds(n->out_bits) * acc_bits;
    }
    out->res.lut = lut_300(pe, mult + acc_bits + thr + comp, c2);

    if (n->res_dsp)
        out->res.dsp = res_count((double)pe * ceil((w + a) / 48.0));
}

/* Column-axis value of a [rows, cols] pair, the row value when unset (square). */
static double col_or_row(const int v[2])
{
    return v[1] > 0 ? v[1] : v[0];
}

/* 2-D ConvolutionInputGenerator. FINN's estimates read only index [0] (a square map)
 * and buffer k*d rows of a dilated window; cnnmap reads each axis, so that a map padded
 * asymmetrically is costed at its real width, and buffers the window extent
 * e = d*(k-1)+1 rows: cycles = IFMw*e_h*(C/SIMD) + OFMh*max(OFMw*kh*kw*(C/SIMD),
 * s_w*IFMw*(C/SIMD)), and (e_h + s_h) line buffers of IFMw*C/SIMD words. With
 * dilation 1 and a square map these are FINN's figures. */
static void swg_cost(const cm_finn_node *n, cm_block_cost *out)
{
    double simd = (double)at_least_1(n->simd);
    double c = n->channels, a = n->in_bits;
    double ifm_w = col_or_row(n->ifm_dim), ofm_h = n->ofm_dim[0], ofm_w = col_or_row(n->ofm_dim);
    double kh = n->kernel[0], kw = col_or_row(n->kernel);
    double s_h = n->stride[0], s_w = col_or_row(n->stride);
    double ext = (double)at_least_1(n->dilation[0]) * (kh - 1.0) + 1.0;
    double cf = c / simd;

    double write_block = ofm_w * kh * kw * cf;
    double read_block = s_w * ifm_w * cf;
    double max_block = write_block > read_block ? write_block : read_block;
    out->cycles = (double)py_trunc(ifm_w * ext * cf + ofm_h * max_block);

    double lines = ext + s_h;
    double depth = ifm_w * c / simd;
    switch (n->ram_style) {
    case CM_FINN_RAM_BLOCK:
    case CM_FINN_RAM_AUTO:
        if (depth > 0.0) {
            double width = depth <= 512    ? 36.0
                           : depth <= 1024 ? 18.0
                           : depth <= 2048 ? 9.0
                           : depth <= 4096 ? 4.0
                           : depth <= 8192 ? 2.0
                                           : 1.0;
            out->res.bram18 =
                res_count(lines * (ceil(simd * a / width) * ceil(ifm_w * c / simd / depth)));
        }
        out->res.lut = 300;
        break;
    case CM_FINN_RAM_DISTRIBUTED:
        out->res.lut =
            res_count(300.0 + (double)py_trunc(lines * simd * a * ceil(ifm_w * c / simd / 64.0)));
        break;
    case CM_FINN_RAM_ULTRA:
        out->res.uram = res_count(lines * ceil(simd * a / 64.0) * ceil(ifm_w * c / simd / 4096.0));
        out->res.lut = 300;
        break;
    }
}

/* Thresholding_Batch; ChannelwiseOp_Batch uses the same formulas. A = input width. */
static void thresholding_cost(const cm_finn_node *n, cm_block_cost *out)
{
    int64_t pe = at_least_1(n->pe);
    int64_t tmem = n->channels / pe;
    double a = n->in_bits;
    out->cycles = (double)n->num_vectors * (double)tmem;
    if (n->ram_style == CM_FINN_RAM_BLOCK && tmem > 1)
        out->res.bram18 = res_count(ceil(a * (double)pe / 16.0) * ceil((double)tmem / 1024.0));
    double lut = a * (double)pe;
    if (n->ram_style == CM_FINN_RAM_DISTRIBUTED && tmem > 1)
        lut += (double)pe * a * ceil((double)tmem / 64.0);
    out->res.lut = res_count(lut);
}

/* StreamingConcat: SIMD words of one input a cycle, the inputs in turn per pixel. */
static void concat_cost(const cm_finn_node *n, cm_block_cost *out)
{
    int64_t total = 0;
    for (int i = 0; i < n->n_inputs && i < CM_FINN_CONCAT_MAX; i++)
        total += n->in_channels[i];
    out->cycles = (double)n->num_vectors * (double)(total / at_least_1(n->simd));
}

/* ElementwiseMul (header: FINN's cycles; cnnmap's resources, FINN having none). */
static void mul_cost(const cm_finn_node *n, cm_block_cost *out)
{
    int64_t pe = at_least_1(n->pe);
    double w = n->weight_bits, a = n->in_bits;
    out->cycles = (double)n->num_vectors * (double)(n->channels / pe);
    double lut = 0.0;
    if (n->res_dsp)
        out->res.dsp = res_count((double)pe * ceil((w + a) / 48.0));
    else
        lut = (double)pe * (2.0 * ceil((w + a) / 6.0) - 1.0) * (w + a);
    if (n->broadcast_port >= 0)
        lut += (double)pe * w * ceil((double)(n->channels / pe) / 64.0);
    out->res.lut = res_count(lut);
}

void cm_finn_node_init(cm_finn_node *n, cm_finn_kind kind)
{
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->num_vectors = 1;
    n->kernel[0] = n->kernel[1] = 1;
    n->stride[0] = n->stride[1] = 1;
    n->dilation[0] = n->dilation[1] = 1;
    n->pool_dim = 1;
    n->simd = n->pe = 1;
    n->weight_bits = n->in_bits = n->out_bits = 4;
    n->mem_mode = CM_FINN_MEM_CONST;
    n->broadcast_port = -1;
    switch (kind) {
    case CM_FINN_THRESHOLDING:
        n->ram_style = CM_FINN_RAM_DISTRIBUTED; /* FINN's default; SAMO keeps it */
        break;
    case CM_FINN_VVAU:
        /* SAMO sets no resType on the VVAU; FINN's default "auto" behaves as "lut" in
         * the estimates (LUT multipliers, no DSP). */
        n->ram_style = CM_FINN_RAM_AUTO;
        n->res_dsp = false;
        break;
    default:
        n->ram_style = CM_FINN_RAM_AUTO;
        break;
    }
    cm_finn_node_apply_samo_styles(n);
}

void cm_finn_node_apply_samo_styles(cm_finn_node *n)
{
    bool narrow = n->weight_bits < 4; /* SAMO: weight_width = acc_width = wordlength */
    switch (n->kind) {
    case CM_FINN_MVAU:
        n->ram_style = narrow ? CM_FINN_RAM_DISTRIBUTED : CM_FINN_RAM_BLOCK;
        n->res_dsp = !narrow; /* lut only if acc_width < 4 and weight_width < 4 */
        break;
    case CM_FINN_MUL: /* the MVAU's rule for its multipliers */
        n->res_dsp = !narrow;
        break;
    case CM_FINN_SWG:
        n->ram_style = narrow ? CM_FINN_RAM_DISTRIBUTED : CM_FINN_RAM_BLOCK;
        break;
    default:
        break;
    }
}

void cm_finn_node_cost(const cm_finn_node *n, cm_block_cost *out)
{
    memset(out, 0, sizeof *out);
    int64_t pe = at_least_1(n->pe), simd = at_least_1(n->simd);
    switch (n->kind) {
    case CM_FINN_MVAU:
        mvau_cost(n, out);
        break;
    case CM_FINN_VVAU:
        vvau_cost(n, out);
        break;
    case CM_FINN_SWG:
        swg_cost(n, out);
        break;
    case CM_FINN_THRESHOLDING:
        thresholding_cost(n, out);
        break;
    case CM_FINN_MAXPOOL: {
        double img = n->ifm_dim[0];
        out->cycles =
            (double)py_trunc(img * (img + img / (double)at_least_1(n->pool_dim)));
        break;
    }
    case CM_FINN_POOL: {
        double kk = n->kernel[0] * col_or_row(n->kernel);
        double pixels = n->ofm_dim[0] * col_or_row(n->ofm_dim);
        out->cycles = (double)py_trunc(((double)n->channels * kk / (double)pe) * pixels *
                                       (double)n->num_vectors);
        break;
    }
    case CM_FINN_DUPLICATE:
    case CM_FINN_ADD:
        out->cycles = (double)n->num_vectors * (double)(n->channels / pe);
        break;
    case CM_FINN_FMPADDING: {
        int h = n->ifm_dim[0], w = n->ifm_dim[1] > 0 ? n->ifm_dim[1] : n->ifm_dim[0];
        double rows = (double)h + n->pad[0] + n->pad[2], cols = (double)w + n->pad[1] + n->pad[3];
        out->cycles = (double)py_trunc(((double)n->channels / (double)simd) *
                                       (double)n->num_vectors * rows * cols);
        break;
    }
    case CM_FINN_LABELSELECT:
        out->cycles = (double)py_trunc((double)n->channels / (double)pe);
        break;
    case CM_FINN_GLOBALACCPOOL: {
        /* Π(folded input shape[:-1]) + folds, where the folded input shape is
         * numInputVectors + [C/PE, PE]: dropping the last dim (PE) leaves nv * C/PE. */
        int64_t folds = py_trunc((double)n->channels / (double)pe);
        out->cycles = (double)n->num_vectors * (double)folds + (double)folds;
        break;
    }
    case CM_FINN_CONCAT:
        concat_cost(n, out);
        break;
    case CM_FINN_MUL:
        mul_cost(n, out);
        break;
    case CM_FINN_UPSAMPLE:
        /* FINN's get_exp_cycles: a pixel a cycle out, OFMDim^2 (the walk of an
         * upsample, cm_resize_axis). FINN estimates no resources; cnnmap counts the
         * row it repeats (finn-hlslib's row buffer: IFMDim pixels of C x A bits). */
        out->cycles = cm_resize_walk(&n->resize[0], &n->resize[1]);
        out->res.bram18 = cm_finn_bram18((double)n->resize[1].n_in,
                                         n->channels * n->in_bits > INT32_MAX / 2
                                             ? INT32_MAX / 2
                                             : n->channels * n->in_bits);
        break;
    }
    cm_finn_node_timing(n, out);
}
