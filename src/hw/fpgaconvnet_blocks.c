/* fpgaConvNet's layer cost models (fpgaconvnet-model 5159e51, v0.1.4.1, HLS backend), after
 * ../shared/docs/backend-models.md sections 0 and 2.1 to 2.4. Each layer is a chain of
 * modules (SlidingWindow, Fork, Conv, Accum, Glue, Bias, Pool, ...). A layer's latency
 * comes from balancing the modules' word rates (2.1), its pipeline depth is the sum of
 * the module depths, and its resources are the per-instance module figures, each
 * trunc(dot(u, c)) or a BRAM table look-up, times the instance counts of 2.4.
 *
 * Where cnnmap departs from the reference:
 *  - Bias module: the reference counts it only when the layer has NO bias (an inverted
 *    condition, a bug). cnnmap counts it when the layer HAS a bias. The bias memory
 *    (B_bram) is still counted in both cases, as in the reference: the corrected
 *    figures of 2.7 (BRAM 144 with no bias) include it.
 *  - Words wider than 36 bits: the reference asserts width <= 36 in its BRAM models.
 *    cnnmap splits a wider word into floor(width/36) words of 36 bits plus one word of
 *    the remaining bits (ceil(width/36) words in all) and adds up their BRAMs.
 *  - Padding is a [top, left, bottom, right] list supplied by the caller and must not
 *    be negative (the reference can make it negative when it derives it from an
 *    integer pad and a stride).
 *  - Window geometry follows the graph (issue 20): a dilated window's extent is
 *    d*(k-1)+1, which sizes the SlidingWindow's line and window buffers, its depth
 *    and the output rows/cols, while the Conv module and the weights keep k*k taps;
 *    ceil_mode pooling rounds the output up as the importer does, and the hardware
 *    pads the end by the words its last window reads past the declared pad. The
 *    reference has neither dilation nor ceil_mode: it costs the undilated,
 *    floor-rounded shape. Pads stay per side (the reference's parser passes the ONNX
 *    list too).
 *  - Kinds that the reference commit lacks (global pool, split, eltwise, concat,
 *    resize) have the models described at cm_fcn_layer_cost below.
 *
 * Choices the doc leaves open (all widths are 16 in the reference, so none changes its
 * numbers): data_width is both the input and the output width; SlidingWindow, Fork, Conv
 * and Bias use data_width, Accum uses acc_width, the Conv DSP is
 * fine*dsp_mult(weight_width, data_width) and the Bias DSP dsp_mult(bias_width,
 * data_width). coarse_group is always 1. The pipeline depth sums every module of the
 * chain, zeroed or not (zeroing is a resource rule only).
 *
 * Numerics follow section 0: log2(x) is log(x)/log(2.0) (not exact, as in Python's
 * math.log(x, 2)), linear models are truncated toward zero, and the layer latency is a
 * double. Folding factors are assumed to divide what they fold (coarse_in divides
 * channels, coarse_out divides filters, ...), as the reference's setters assert;
 * quotients are integer divisions like the reference's `//`. */
#include "hw/fpgaconvnet_blocks.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* The most modules in one layer's chain: the HLS convolution's six. */
#define FCN_MAX_MODULES 6

/* One module instance: its rates (words per cycle on one stream), its pipeline depth
 * and the resources of a single instance. */
typedef struct fcn_module {
    double rate_in, rate_out;
    double depth;
    int64_t lut, ff, dsp, bram;
} fcn_module;

/* A layer under construction: its modules in chain order, with the number of
 * instances of each counted for LUT, FF and DSP (`mult`) and for BRAM (`bram_mult`),
 * 0 when a zeroing rule of 2.4 removes the module. */
typedef struct fcn_chain {
    int n;
    fcn_module m[FCN_MAX_MODULES];
    int64_t mult[FCN_MAX_MODULES];
    int64_t bram_mult[FCN_MAX_MODULES];
} fcn_chain;

/* ---- shared helpers (2.1) -------------------------------------------------------- */

/* Python's math.log(x, 2): log(x)/log(2), which is not exact for some powers of 2. */
static double ref_log2(double x)
{
    return log(x) / log(2.0);
}

/* trunc(dot(u, c)), summed in index order. */
static int64_t linear_model(const double *u, const double *c, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += u[i] * c[i];
    return (int64_t)s;
}

static int64_t ceil_div64(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Depth classes of the FIFO model and the word width that fits each in one BRAM18. */
static const int64_t stream_depths[] = {512, 1000, 2000, 4000, 8000, 16000};
static const int stream_widths[] = {36, 18, 9, 4, 2, 1};
#define N_BRAM_CLASSES 6

/* bram_stream for 1 <= width <= 36, depth >= 1. */
static int64_t bram_stream_word(int64_t depth, int width)
{
    int cls = N_BRAM_CLASSES - 1; /* depth > 16000 uses the 16000 class (sic) */
    for (int i = 0; i < N_BRAM_CLASSES; i++) {
        if (depth <= stream_depths[i]) {
            cls = i;
            break;
        }
    }
    return ceil_div64(width, stream_widths[cls]);
}

/* bram_mem for 1 <= width <= 36, depth >= 1: the same table read the other way. */
static int64_t bram_mem_word(int64_t depth, int width)
{
    int cls = 0;
    for (int i = N_BRAM_CLASSES - 1; i >= 0; i--) {
        if (width <= stream_widths[i]) {
            cls = i;
            break;
        }
    }
    return ceil_div64(depth, stream_depths[cls]);
}

int64_t cm_fcn_bram_stream(int64_t depth, int width)
{
    if (depth <= 0 || width <= 0)
        return 0;
    /* A word wider than 36 bits is stored as full 36-bit words plus the rest. */
    int64_t n = (int64_t)(width / 36) * bram_stream_word(depth, 36);
    return width % 36 ? n + bram_stream_word(depth, width % 36) : n;
}

int64_t cm_fcn_bram_mem(int64_t depth, int width)
{
    if (depth <= 0 || width <= 0)
        return 0;
    int64_t n = (int64_t)(width / 36) * bram_mem_word(depth, 36);
    return width % 36 ? n + bram_mem_word(depth, width % 36) : n;
}

int cm_fcn_dsp_mult(int a_bits, int b_bits)
{
    int s = a_bits + b_bits;
    return s <= 0 ? 0 : (s + 47) / 48;
}

/* ---- modules (2.2); dimensions are per stream ------------------------------------ */

/* One spatial axis of a layer's window as the importer sees it: the window extent
 * (d*(k-1)+1 for a dilated window), the output length, and the end pad the hardware
 * must add, which for ceil_mode includes the words the last window reads beyond the
 * declared pad. */
typedef struct fcn_axis {
    int64_t extent, out, pad_before, pad_after;
} fcn_axis;

static fcn_axis window_axis(const cm_fcn_layer *l, int i)
{
    const int n = i == 0 ? l->rows : l->cols, s = l->stride[i];
    const int d = l->dilation[i] > 0 ? l->dilation[i] : 1;
    fcn_axis a = {(int64_t)d * (l->kernel[i] - 1) + 1, 0, l->pad[i], l->pad[i + 2]};
    const int64_t room = n + a.pad_before + a.pad_after - a.extent;
    if (!l->ceil_mode || room < 0) {
        /* trunc(room/s + 1) in double as the reference does (also for room < 0) */
        a.out = (int64_t)((double)room / s + 1);
        return a;
    }
    a.out = (room + s - 1) / s + 1;
    if ((a.out - 1) * s >= n + a.pad_before) /* a window starting in the end padding */
        a.out--;
    const int64_t reach = (a.out - 1) * s + a.extent - n - a.pad_before;
    if (reach > a.pad_after)
        a.pad_after = reach;
    return a;
}

void cm_fcn_window_axis(const cm_fcn_layer *l, int i, cm_window_axis *out)
{
    const fcn_axis a = window_axis(l, i);
    out->n = i == 0 ? l->rows : l->cols;
    out->before = a.pad_before;
    out->after = a.pad_after;
    out->extent = a.extent;
    out->stride = l->stride[i];
    out->out = a.out;
}

/* SlidingWindow of a conv or pool layer over ch channels per stream. The line and
 * window buffers span the window extent (dilation), the output port carries the
 * k0*k1 taps; with dilation 1 this is the reference's model. */
static fcn_module mod_sliding_window(const cm_fcn_layer *l, int ch)
{
    static const double lut_c[5] = {2.8237269452240663, 0, 0, 0, 189.28066965353236};
    static const double ff_c[5] = {2.2412811014433096, 0, 0, 0, 268.9912287045314};
    const fcn_axis ar = window_axis(l, 0), ac = window_axis(l, 1);
    const int r = l->rows, c = l->cols, dw = l->data_width, k0 = l->kernel[0];
    const int64_t rp = r + ar.pad_before + ar.pad_after, cp = c + ac.pad_before + ac.pad_after;
    const int64_t e0 = ar.extent, e1 = ac.extent;
    fcn_module m = {0};

    m.rate_in = (double)((int64_t)r * c) / (double)(rp * cp);
    m.rate_out = (double)(ar.out * ac.out) / (double)((int64_t)r * c);
    m.depth = (double)(cp * ch * (e0 - 1) + (int64_t)ch * k0 * (e1 - 1));

    const double u[5] = {
        (double)dw * k0 * l->kernel[1],
        (double)k0 * (e1 - 1) * (dw + floor(ref_log2(ch))),
        (double)(e1 - 1) * (dw + floor(ref_log2((double)ch * c))),
        (double)k0 * (e1 - 1),
        (double)(e1 - 1),
    };
    m.lut = linear_model(u, lut_c, 5);
    m.ff = linear_model(u, ff_c, 5);
    /* line buffers plus window buffers */
    m.bram = (e0 - 1) * cm_fcn_bram_stream(cp * ch + 1, dw) +
             k0 * (e1 - 1) * cm_fcn_bram_stream((int64_t)ch + 1, dw);
    return m;
}

/* Fork copying an r x c x ch stream to several consumers (rates 1, depth 0). */
static fcn_module mod_fork(int64_t r, int64_t c, int64_t ch)
{
    fcn_module m = {0};
    m.rate_in = m.rate_out = 1.0;
    const double u = ceil(ref_log2((double)(ch * r * c)));
    m.lut = linear_model(&u, (const double[]){0.810999165259251}, 1);
    m.ff = linear_model(&u, (const double[]){1.3411598366755253}, 1);
    return m;
}

/* HLS Conv: ch channels of an r x c output map, f filters, fine, k, groups g. */
static fcn_module mod_conv(int64_t r, int64_t c, int64_t ch, int64_t f, int fine, const int k[2],
                           int g, int weight_width, int dw)
{
    static const double lut_c[3] = {463.1637645632311, 142.83476476224536, 0};
    static const double ff_c[3] = {658.8505776447937, 164.64079782697917, 0};
    const int64_t kk = (int64_t)k[0] * k[1];
    fcn_module m = {0};
    m.rate_in = (double)((int64_t)fine * g) / (double)(kk * f);
    m.rate_out = (double)fine / (double)kk;
    m.depth = fine;
    const double u[3] = {ref_log2((double)f), ref_log2((double)(r * c)), ref_log2((double)ch)};
    m.lut = linear_model(u, lut_c, 3);
    m.ff = linear_model(u, ff_c, 3);
    m.dsp = (int64_t)fine * cm_fcn_dsp_mult(weight_width, dw);
    return m; /* BRAM 0: the weights are counted at layer level */
}

/* Accum's coefficients, shared by Bias and by cnnmap's global pool. */
static const double accum_lut_c[6] = {0.020092171280126365, 0, 8.078144840943313,
                                      0.02301459343890422, 0.0038400241723048263,
                                      0.04743935421668812};
static const double accum_ff_c[6] = {0.016822299553116336, 0, 9.642558669866036,
                                     0.0025609528029674348, 0, 0.06233321802163449};
static const double accum_dsp_c[6] = {3.1176946061982637e-06, 6.35983654546467e-05, 0, 0, 0, 0};

/* Resources of an Accum-like module with utilisation vector u = [F, g, dw, c, r, ch]. */
static void accum_resources(const double u[6], fcn_module *m)
{
    m->lut = linear_model(u, accum_lut_c, 6);
    m->ff = linear_model(u, accum_ff_c, 6);
    m->dsp = linear_model(u, accum_dsp_c, 6);
}

/* Accum: ch channels of an r x c map, f filters, g groups, acc_width bits. */
static fcn_module mod_accum(int64_t r, int64_t c, int64_t ch, int64_t f, int g, int dw)
{
    fcn_module m = {0};
    m.rate_in = 1.0;
    m.rate_out = (double)g / (double)ch;
    m.depth = (double)(ch * f / ((int64_t)g * g));
    const double u[6] = {(double)f, g, dw, (double)c, (double)r, (double)ch};
    accum_resources(u, &m);
    m.bram = cm_fcn_bram_mem(f / g, dw); /* the accumulation buffer */
    return m;
}

/* Glue: only coarse_in enters its model. */
static fcn_module mod_glue(int coarse_in)
{
    fcn_module m = {0};
    m.rate_in = m.rate_out = 1.0;
    const double u = coarse_in;
    m.lut = linear_model(&u, (const double[]){733.7549959216965}, 1);
    m.ff = linear_model(&u, (const double[]){648.9383156606852}, 1);
    return m;
}

/* Bias over an r x c map of f filters: Accum's coefficients with u = [F, 1, dw, c, r, 1]. */
static fcn_module mod_bias(int64_t r, int64_t c, int64_t f, int dw, int bias_width)
{
    fcn_module m = {0};
    m.rate_in = m.rate_out = 1.0;
    const double u[6] = {(double)f, 1, dw, (double)c, (double)r, 1};
    accum_resources(u, &m);
    m.dsp = cm_fcn_dsp_mult(bias_width, dw);
    return m;
}

/* Pool with kernel k: only k[1] enters its model (u = [k0, k1, c, r, ch, dw]). */
static fcn_module mod_pool(const int k[2])
{
    fcn_module m = {0};
    m.rate_in = m.rate_out = 1.0;
    const double u = k[1];
    m.lut = linear_model(&u, (const double[]){267.444956382848}, 1);
    m.ff = linear_model(&u, (const double[]){447.79831674652934}, 1);
    return m;
}

/* ---- layers (2.1, 2.4) ------------------------------------------------------------ */

static void chain_add(fcn_chain *chain, fcn_module m, int64_t mult, int64_t bram_mult)
{
    assert(chain->n < FCN_MAX_MODULES);
    chain->m[chain->n] = m;
    chain->mult[chain->n] = mult;
    chain->bram_mult[chain->n] = bram_mult;
    chain->n++;
}

/* Rate balancing, closed form of 2.1: the layer's in-rate is the largest flow that
 * respects every module's in-rate while keeping each module's out/in ratio,
 * rate_in = min_i in_i / prod_{j<i} rho_j and rate_out = rate_in * prod_j rho_j. */
static void chain_balance(const fcn_chain *chain, double *rate_in, double *rate_out)
{
    double gain = 1.0, best = 0.0;
    for (int i = 0; i < chain->n; i++) {
        const double r = chain->m[i].rate_in / gain;
        if (i == 0 || r < best)
            best = r;
        gain *= fabs(chain->m[i].rate_out / chain->m[i].rate_in);
    }
    *rate_in = best;
    *rate_out = best * gain;
}

/* Latency, pipeline depth and resources of a module chain moving w_in words in on s_in
 * streams and w_out words out on s_out streams; extra_bram is layer-level memory. */
static void chain_cost(const fcn_chain *chain, double w_in, int s_in, double w_out, int s_out,
                       int64_t extra_bram, cm_block_cost *out)
{
    double rate_in, rate_out;
    chain_balance(chain, &rate_in, &rate_out);
    const double lat_in = w_in / (rate_in * s_in), lat_out = w_out / (rate_out * s_out);
    out->cycles = lat_in > lat_out ? lat_in : lat_out;
    out->pipeline_depth = 0.0;
    out->res.bram18 = extra_bram;
    for (int i = 0; i < chain->n; i++) {
        const fcn_module *m = &chain->m[i];
        out->pipeline_depth += m->depth;
        out->res.lut += m->lut * chain->mult[i];
        out->res.ff += m->ff * chain->mult[i];
        out->res.dsp += m->dsp * chain->mult[i];
        out->res.bram18 += m->bram * chain->bram_mult[i];
    }
}

/* (2.4a) HLS convolution: SlidingWindow -> Fork -> Conv -> Accum -> Glue -> Bias, with
 * coarse_group = 1 (SAMO never changes it). */
static void conv_cost(const cm_fcn_layer *l, cm_block_cost *out)
{
    const int ci = l->coarse_in, co = l->coarse_out, cg = 1, g = l->groups;
    const int64_t ch = l->channels / (ci * cg), f = l->filters / (co * cg);
    const int64_t ro = cm_fcn_rows_out(l), cols_o = cm_fcn_cols_out(l);
    fcn_chain chain = {0};

    const bool zero_sw = l->kernel[0] == 1 && l->kernel[1] == 1;
    const int64_t sw_n = zero_sw ? 0 : (int64_t)ci * cg;
    chain_add(&chain, mod_sliding_window(l, (int)ch), sw_n, sw_n);
    chain_add(&chain, mod_fork(ro, cols_o, ch), co == 1 ? 0 : (int64_t)ci * cg, 0);
    chain_add(&chain, mod_conv(ro, cols_o, ch, f, l->fine, l->kernel, g / cg, l->weight_width,
                               l->data_width), (int64_t)ci * co * cg, 0);
    const bool zero_accum = ch == 1;
    chain_add(&chain, mod_accum(ro, cols_o, ch, f, g / cg, l->acc_width),
              zero_accum ? 0 : (int64_t)ci * co * cg, zero_accum ? 0 : (int64_t)co * cg); /* sic */
    chain_add(&chain, mod_glue(ci), ci == 1 ? 0 : cg, 0);
    /* cnnmap: the Bias module exists when the layer has a bias (the reference inverts it) */
    chain_add(&chain, mod_bias(ro, cols_o, l->filters, l->data_width, l->bias_width),
              l->has_bias ? co : 0, l->has_bias ? co : 0);

    /* weight memory, split over the ci*co*cg streams and fine multipliers, and the
     * bias memory (counted even without a bias, as in the reference) */
    const int64_t w_depth = (int64_t)((double)l->filters / g * l->channels * l->kernel[0] *
                                      l->kernel[1] / ((double)l->fine * ci * co * cg));
    const int64_t w_bram =
        cm_fcn_bram_mem(w_depth, l->weight_width) * ci * co * cg * (int64_t)l->fine;
    const int64_t b_bram = cm_fcn_bram_mem(l->filters / co, l->bias_width) * co;

    chain_cost(&chain, (double)l->rows * l->cols * l->channels, ci * cg,
               (double)(ro * cols_o * l->filters), co * cg, w_bram + b_bram, out);
}

/* (2.4c) InnerProduct: Fork -> Conv -> Accum -> Glue -> Bias over the flattened input. */
static void inner_product_cost(const cm_fcn_layer *l, cm_block_cost *out)
{
    static const int one[2] = {1, 1};
    const int ci = l->coarse_in, co = l->coarse_out;
    const int64_t rc = (int64_t)l->rows * l->cols;
    const int64_t ch = rc * l->channels / ci, f = l->filters / co;
    fcn_chain chain = {0};

    chain_add(&chain, mod_fork(l->rows, l->cols, l->channels / ci), ci, 0); /* never zeroed */
    chain_add(&chain, mod_conv(1, 1, ch, f, 1, one, 1, l->weight_width, l->data_width),
              (int64_t)ci * co, 0);
    const bool zero_accum = ch == 1;
    chain_add(&chain, mod_accum(1, 1, ch, f, 1, l->acc_width), zero_accum ? 0 : (int64_t)ci * co,
              zero_accum ? 0 : co);
    chain_add(&chain, mod_glue(ci), ci == 1 ? 0 : 1, 0);
    /* cnnmap: the Bias module exists when the layer has a bias (the reference inverts it) */
    chain_add(&chain, mod_bias(1, 1, l->filters, l->data_width, l->bias_width),
              l->has_bias ? co : 0, l->has_bias ? co : 0);

    const int64_t w_depth = (int64_t)((double)((int64_t)l->filters * l->channels * rc) / (ci * co));
    const int64_t b_depth = (int64_t)((double)(l->filters * rc) / co);
    const int64_t mem = cm_fcn_bram_mem(w_depth, l->weight_width) * ci * co +
                        cm_fcn_bram_mem(b_depth, l->bias_width) * co;

    chain_cost(&chain, (double)rc * l->channels, ci, (double)l->filters, co, mem, out);
}

/* (2.4d) Pooling, max and average alike: SlidingWindow -> Pool on each of the coarse
 * streams, no zeroing rules. */
static void pool_cost(const cm_fcn_layer *l, cm_block_cost *out)
{
    const int coarse = l->coarse_in;
    fcn_chain chain = {0};
    chain_add(&chain, mod_sliding_window(l, l->channels / coarse), coarse, coarse);
    chain_add(&chain, mod_pool(l->kernel), coarse, coarse);
    chain_cost(&chain, (double)l->rows * l->cols * l->channels, coarse,
               (double)cm_fcn_rows_out(l) * cm_fcn_cols_out(l) * l->channels, coarse, 0, out);
}

/* Resize: one module per stream walks the output (cm_resize_axis) at a word a cycle in
 * or out, ch = channels / coarse cycles a pixel: R_o C_o ch cycles, the output words over
 * the streams, for any upsample. A repeated row is held in a row buffer (C ch words a
 * stream) and a bilinear resize keeps the row above as well; its four multipliers a
 * stream weight the corners. LUT and FF are 0, as for the other kinds without
 * coefficients in the reference. */
static void resize_cost(const cm_fcn_layer *l, cm_block_cost *out)
{
    const int coarse = l->coarse_in;
    const int64_t ch = l->channels / coarse;
    const cm_resize_axis *r = &l->resize[0], *c = &l->resize[1];
    out->cycles = cm_resize_walk(r, c) * (double)ch;
    const int64_t rows = (r->n_out > r->fresh) + (l->interpolate && r->n_in > 1);
    out->res.bram18 = rows * cm_fcn_bram_mem(c->n_in * ch, l->data_width) * coarse;
    out->res.dsp = l->interpolate ? 4 * cm_fcn_dsp_mult(l->data_width, l->data_width) * coarse
                                  : 0;
}

void cm_fcn_resize_init(cm_fcn_layer *l, int rows_out, int cols_out, bool interpolate)
{
    l->kind = CM_FCN_RESIZE;
    l->interpolate = interpolate;
    cm_resize_axis_make(l->rows, rows_out, interpolate, &l->resize[0]);
    cm_resize_axis_make(l->cols, cols_out, interpolate, &l->resize[1]);
}

void cm_fcn_layer_init(cm_fcn_layer *l, cm_fcn_kind kind)
{
    memset(l, 0, sizeof *l);
    l->kind = kind;
    l->groups = 1;
    l->stride[0] = l->stride[1] = 1;
    l->kernel[0] = l->kernel[1] = 1;
    l->dilation[0] = l->dilation[1] = 1;
    l->coarse_in = l->coarse_out = 1;
    l->fine = 1;
    l->n_inputs = 1;
    l->data_width = l->weight_width = l->acc_width = l->bias_width = 16;
    l->has_bias = false;
}

int cm_fcn_rows_out(const cm_fcn_layer *l)
{
    switch (l->kind) {
    case CM_FCN_CONV:
    case CM_FCN_POOL:
        return (int)window_axis(l, 0).out;
    case CM_FCN_INNER_PRODUCT:
    case CM_FCN_GLOBAL_POOL:
        return 1;
    case CM_FCN_RESIZE:
        return (int)l->resize[0].n_out;
    default:
        return l->rows;
    }
}

int cm_fcn_cols_out(const cm_fcn_layer *l)
{
    switch (l->kind) {
    case CM_FCN_CONV:
    case CM_FCN_POOL:
        return (int)window_axis(l, 1).out;
    case CM_FCN_INNER_PRODUCT:
    case CM_FCN_GLOBAL_POOL:
        return 1;
    case CM_FCN_RESIZE:
        return (int)l->resize[1].n_out;
    default:
        return l->cols;
    }
}

int cm_fcn_channels_out(const cm_fcn_layer *l)
{
    switch (l->kind) {
    case CM_FCN_CONV:
    case CM_FCN_INNER_PRODUCT:
        return l->filters;
    default:
        return l->channels; /* for CONCAT, `channels` is already the total */
    }
}

/* Layer cost. The kinds the reference commit lacks are modelled as follows (all with a
 * single `coarse` = coarse_in, and W = rows*cols*channels words):
 *  - GLOBAL_POOL: latency W/coarse. Each stream has one Accum-like accumulator whose
 *    "filters" are its ch = channels/coarse channels, accumulated over the rows x cols
 *    map: Accum's LUT/FF/DSP model with u = [ch, 1, acc_width, cols, rows, ch] and
 *    BRAM = bram_mem(ch, acc_width), times coarse. Pipeline depth rows*cols*ch, the words
 *    a stream reads before its sums are complete (as Accum's depth is the words per
 *    accumulation, ch*F/g^2).
 *  - SPLIT: a Fork to n_inputs consumers on each stream (the October-2022 SplitLayer):
 *    latency W/coarse, Fork(rows, cols, channels/coarse) resources times coarse, depth 0.
 *  - ELTWISE: latency W/coarse, resources 0, depth 0 (October-2022 fpgaConvNet).
 *  - CONCAT: `channels` is the total output channels, so latency W/coarse (all output
 *    words over the streams), resources 0, depth 0.
 *  - RESIZE: at resize_cost above.
 *  - ReLU and Squeeze are the reference's (2.4e, 2.4f): resources 0. */
void cm_fcn_layer_cost(const cm_fcn_layer *l, cm_block_cost *out)
{
    assert(l->coarse_in >= 1 && l->coarse_out >= 1 && l->groups >= 1 && l->fine >= 1);
    assert(l->stride[0] >= 1 && l->stride[1] >= 1 && l->kernel[0] >= 1 && l->kernel[1] >= 1);
    assert(l->pad[0] >= 0 && l->pad[1] >= 0 && l->pad[2] >= 0 && l->pad[3] >= 0);
    memset(out, 0, sizeof *out);
    const double words = (double)l->rows * l->cols * l->channels;
    const int coarse = l->coarse_in;

    switch (l->kind) {
    case CM_FCN_CONV:
        conv_cost(l, out);
        break;
    case CM_FCN_INNER_PRODUCT:
        inner_product_cost(l, out);
        break;
    case CM_FCN_POOL:
        pool_cost(l, out);
        break;
    case CM_FCN_GLOBAL_POOL: {
        const int64_t ch = l->channels / coarse;
        const double u[6] = {(double)ch, 1, l->acc_width, l->cols, l->rows, (double)ch};
        fcn_module m = {0};
        accum_resources(u, &m);
        out->cycles = words / coarse;
        out->pipeline_depth = (double)l->rows * l->cols * (double)ch;
        out->res.lut = m.lut * coarse;
        out->res.ff = m.ff * coarse;
        out->res.dsp = m.dsp * coarse;
        out->res.bram18 = cm_fcn_bram_mem(ch, l->acc_width) * coarse;
        break;
    }
    case CM_FCN_SPLIT: {
        const fcn_module m = mod_fork(l->rows, l->cols, l->channels / coarse);
        out->cycles = words / coarse;
        out->res.lut = m.lut * coarse;
        out->res.ff = m.ff * coarse;
        break;
    }
    case CM_FCN_RELU:
    case CM_FCN_ELTWISE:
    case CM_FCN_CONCAT:
        out->cycles = words / coarse;
        break;
    case CM_FCN_SQUEEZE: {
        const double a = words / l->coarse_in, b = words / l->coarse_out;
        out->cycles = a > b ? a : b;
        break;
    }
    case CM_FCN_RESIZE:
        resize_cost(l, out);
        break;
    }
    cm_fcn_layer_timing(l, out);
}

/* {1, max(k0,k1), k0*k1} without repeats: {1, k, k*k} for a square kernel, {1, max}
 * when one side is 1, {1} for 1x1. For a non-square kernel with both sides > 1 (which
 * the reference's HLS layer does not expect) this gives {1, max(k0,k1), k0*k1}, each
 * of which divides the window, so it stays at most 3 values. Ascending. */
int cm_fcn_fine_values(const int kernel[2], int out[3])
{
    const int k = kernel[0] > kernel[1] ? kernel[0] : kernel[1];
    const int cand[3] = {1, k, kernel[0] * kernel[1]};
    int n = 0;
    for (int i = 0; i < 3; i++)
        if (n == 0 || cand[i] > out[n - 1])
            out[n++] = cand[i];
    return n;
}
