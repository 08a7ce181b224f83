/* SAMO's hls4ml model (../shared/docs/backend-models.md sections 4.1 and 4.3): hls4ml's
 * reuse-factor validity rule, the kernel foldings SAMO offers (every valid RF, RF = 1
 * kept), RF = trunc(n_in*n_out / kf), latency = spatial * RF and DSP = kf; and
 * cnnmap's resource model of hls4ml's io_stream templates (SAMO counts no BRAM, LUT or
 * FF). Every constant below is a Xilinx primitive's size or an hls4ml default; the
 * README's "hls4ml resources" table gives the sources. */
#include <math.h>
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

/* A RAMB18 read 1024 deep is 18 bits wide (half of hls4ml's 1024 x 36 BRAM36). */
enum { BRAM_DEPTH = 1024, BRAM18_WIDTH = 18 };
/* An SRLC32E: one LUT shifts 32 words of one bit. */
enum { SRL_DEPTH = 32 };
/* hls4ml's default sigmoid/tanh table: 1024 entries of ap_fixed<18,8>, one RAMB18,
 * whose two ports serve two channels. */
enum { TABLE_PORTS = 2 };

/* Far above any board, far below overflow when a partition sums its nodes. */
#define RES_MAX 4.0e15

static int64_t count(double x)
{
    return x > RES_MAX ? (int64_t)RES_MAX : (int64_t)x;
}

/* depth words of width bits in 1024 x 18 RAMB18s. */
static double bram18(double depth, double width)
{
    if (depth <= 0.0 || width <= 0.0)
        return 0.0;
    return ceil(depth / BRAM_DEPTH) * ceil(width / BRAM18_WIDTH);
}

static void add(cm_resources *r, double dsp, double bram, double lut, double ff)
{
    cm_resources d = {count(dsp), count(bram), 0, count(lut), count(ff)};
    cm_resources_add(r, &d);
}

/* nnet_dense_resource.h reshapes the weights with block factor = ceil(N / RF): a memory
 * RF words deep and block_factor * bits wide, one word read per cycle of the reuse
 * loop. hls4ml's estimator counts it as ceil(N * bits / (RF * 36)) BRAM36 of 1024 x 36,
 * i.e. ceil(block_factor * bits / 18) BRAM18 of 1024 x 18; the depth factor is
 * cnnmap's (the estimator assumes RF <= 1024 words fit one block). At RF = 1 the
 * single word is a register (the estimator's "0 BRAM for RF = 1"). */
void cm_hls4ml_weights_cost(int64_t n, int64_t rf, int bits, cm_resources *r)
{
    if (n < 1 || rf < 1 || bits < 1)
        return;
    double block = ceil((double)n / (double)rf);
    if (rf == 1)
        add(r, 0, 0, 0, (double)n * bits);
    else
        add(r, 0, bram18((double)rf, block * bits), 0, 0);
}

/* Shallow FIFOs are shift registers (one SRLC32E per bit); deeper ones block RAM. */
void cm_hls4ml_fifo_cost(int64_t depth, int64_t width, cm_resources *r)
{
    if (depth < 1 || width < 1)
        return;
    if (depth <= SRL_DEPTH)
        add(r, 0, 0, (double)width, 0);
    else
        add(r, 0, bram18((double)depth, (double)width), 0, 0);
}

/* ap_shift_reg line buffers map onto SRLs: ceil(width / 32) LUTs per bit. */
void cm_hls4ml_line_buffer_cost(int64_t rows, int64_t channels, int64_t width, int bits,
                                cm_resources *r)
{
    if (rows < 1 || channels < 1 || width < 1 || bits < 1)
        return;
    add(r, 0, 0, (double)rows * channels * bits * ceil((double)width / SRL_DEPTH), 0);
}

/* Dense / Conv: the input vector (the k x k window of a convolution) in registers, one
 * b-bit adder and product register per multiplier, n_out accumulators. */
static void mac_cost(const cm_hls4ml_layer *l, int64_t rf, cm_resources *r)
{
    double b = l->bits;
    /* hls4ml's block factor: the multipliers it instantiates (kf when RF divides N) */
    double block = rf > 0 ? ceil((double)l->n_in * (double)l->n_out / (double)rf) : 0.0;
    cm_hls4ml_weights_cost(l->n_in * l->n_out, rf, l->bits, r);
    add(r, 0, 0, block * b, ((double)l->n_in + (double)l->n_out + block) * b);
    if (l->kernel_h > 1)
        cm_hls4ml_line_buffer_cost(l->kernel_h - 1, l->channels_in, l->line_width, l->bits, r);
}

/* Everything but the DSPs of a MAC node and the output FIFO. One LUT per bit of an
 * adder, comparator or select (LUT + carry chain), one FF per bit of a register. */
static void node_resources(const cm_hls4ml_layer *l, int64_t rf, cm_resources *r)
{
    double b = l->bits, c = (double)l->channels_out;
    double window = (double)l->kernel_h * l->kernel_w;
    switch (l->kind) {
    case CM_HLS4ML_MAC:
        if (l->multiplies)
            mac_cost(l, rf, r);
        return;
    case CM_HLS4ML_POOL:
        add(r, 0, 0, (window - 1.0) * c * b, window * c * b);
        if (l->kernel_h > 1)
            cm_hls4ml_line_buffer_cost(l->kernel_h - 1, l->channels_in, l->line_width, l->bits, r);
        return;
    case CM_HLS4ML_GLOBAL_POOL:
    case CM_HLS4ML_ACT:
    case CM_HLS4ML_ADD:
        add(r, 0, 0, c * b, c * b);
        return;
    case CM_HLS4ML_ACT_TABLE:
        add(r, 0, ceil(c / TABLE_PORTS), 0, c * b);
        return;
    case CM_HLS4ML_MUL: /* DSP48: the multiply and a batch norm's bias add */
        add(r, c, 0, 0, c * b);
        return;
    case CM_HLS4ML_COPY: /* a resize repeating rows holds one (hls4ml's row buffer) */
        add(r, 0, 0, 0, c * b);
        if (l->resizes && l->resize[0].n_out > l->resize[0].fresh)
            cm_hls4ml_line_buffer_cost(1, l->channels_in, l->line_width, l->bits, r);
        return;
    /* Assumed: the sums of x and x^2 over a pixel's channels (an adder and a squaring
     * multiplier per channel), then (x - mean) times the channel's scale / sigma (a
     * second multiplier); 1 / sigma from a lookup table once per pixel. */
    case CM_HLS4ML_NORM:
        add(r, 2.0 * c, 1.0, 2.0 * c * b, 2.0 * c * b);
        if (l->whole_map) /* the map, a pixel a word, as a stream buffer */
            cm_hls4ml_fifo_cost(l->spatial, l->channels_in * l->bits, r);
        return;
    /* Assumed: each output word blends the 2 x 2 nearest inputs, one multiplier per
     * corner, and the input row above stays in a line buffer. */
    case CM_HLS4ML_INTERP:
        add(r, 4.0 * c, 0, 3.0 * c * b, c * b);
        cm_hls4ml_line_buffer_cost(1, l->channels_in, l->line_width, l->bits, r);
        return;
    }
}

/* io_stream layers take one input pixel per iteration: rf cycles for a convolution
 * (its multiplications for that pixel), one for the others; a window's outputs leave
 * when the pixel completing them has been worked (src/sim/sim_streaming_hls4ml.c). A
 * layer without a spatial input takes the whole vector in one iteration. */
void cm_hls4ml_layer_timing(const cm_hls4ml_layer *l, cm_block_cost *out)
{
    cm_block_timing *t = &out->timing;
    const double rf = (double)cm_hls4ml_reuse_factor(l);
    const double c = l->channels_in > 0 ? (double)l->channels_in : 1.0;
    if (l->resizes) {
        cm_block_timing_resize(t, out->cycles, &l->resize[0], &l->resize[1], 1.0, c, c);
        return;
    }
    if (l->whole_map) {
        cm_block_timing_map(t, (double)l->spatial, (double)l->spatial * c, c, c);
        return;
    }
    if (l->spatial <= 1) {
        const double words = l->multiplies ? (double)l->n_in : c;
        t->fill_words = t->start_words = words;
        t->fill_cycles = t->start_cycles = 1.0;
        t->head_cycles = t->tail_cycles = t->rest_cycles = out->cycles;
        t->beat_words = words;
        t->burst_words = l->multiplies ? (double)l->n_out : words;
        t->take_cycles = 1.0 / words; /* the whole vector in one iteration */
        return;
    }
    if (l->kind == CM_HLS4ML_GLOBAL_POOL) {
        cm_block_timing_whole(t, out->cycles, (double)l->spatial * c, c, 1.0, c);
        return;
    }
    if (!l->windowed) {
        cm_block_timing_pointwise(t, out->cycles, (double)l->channels_out, c);
        return;
    }
    const double fill = cm_window_fill_words(&l->win[0], &l->win[1], 1);
    t->fill_words = fill * c;
    t->fill_cycles = (fill - 1.0) * rf;
    t->head_cycles = rf;
    t->start_words = c;
    t->start_cycles = 0.0;
    t->rest_cycles = out->cycles;
    /* the last pixel's work, then its completed outputs leave a pixel a cycle */
    t->tail_cycles = rf + cm_window_tail_outputs(&l->win[0], &l->win[1]);
    t->beat_words = c;
    t->burst_words = l->channels_out > 0 ? (double)l->channels_out : 1.0;
    t->out_rows = (double)l->win[0].out;
    t->row_stride = (double)l->win[0].stride;
    cm_block_timing_last_rows(t, &l->win[0], &l->win[1], false);
}

void cm_hls4ml_layer_cost(const cm_hls4ml_layer *l, cm_block_cost *out)
{
    memset(out, 0, sizeof *out);
    int64_t rf = cm_hls4ml_reuse_factor(l);
    /* a resize writes a pixel a cycle: its walk over the output (cm_resize_axis) */
    out->cycles = l->resizes     ? cm_resize_walk(&l->resize[0], &l->resize[1])
                  : l->whole_map ? 2.0 * (double)l->spatial /* read the map, then write it */
                                 : (double)l->spatial * (double)rf;
    out->res.dsp = l->multiplies && l->kernel_fold > 0 ? l->kernel_fold : 0;
    cm_hls4ml_layer_timing(l, out);
    if (l->bits < 1)
        return;
    node_resources(l, rf, &out->res);
    cm_hls4ml_fifo_cost(l->fifo_depth, l->channels_out * l->bits, &out->res);
}
