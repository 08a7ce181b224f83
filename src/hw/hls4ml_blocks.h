/* hls4ml's building blocks (io_stream, Resource strategy): SAMO's analytic model for
 * latency and DSPs (hls4ml has none of its own; section 4 of
 * ../shared/docs/backend-models.md), hls4ml's rule for which reuse factors are valid,
 * and cnnmap's resource model of what hls4ml's templates instantiate: weight memories,
 * stream FIFOs, line buffers, accumulators and pointwise logic (README, "hls4ml
 * resources"). */
#ifndef CM_HW_HLS4ML_BLOCKS_H
#define CM_HW_HLS4ML_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/block_cost.h"

/* hls4ml's word: ap_fixed<16,6> for weights, activations and accumulators, the
 * precision the exporter writes. */
#define CM_HLS4ML_BITS 16

/* What a node instantiates besides its output FIFO. */
typedef enum cm_hls4ml_kind {
    CM_HLS4ML_MAC = 0,     /* Dense / Conv: weights, multipliers, accumulators */
    CM_HLS4ML_POOL,        /* max or average over a window (line buffer) */
    CM_HLS4ML_GLOBAL_POOL, /* one accumulator per channel */
    CM_HLS4ML_ACT,         /* ReLU-like: logic per channel */
    CM_HLS4ML_ACT_TABLE,   /* sigmoid / tanh: a lookup table per channel pair */
    CM_HLS4ML_ADD,         /* element-wise add: an adder per channel */
    CM_HLS4ML_MUL,         /* element-wise multiply, batch norm: a multiplier per channel */
    CM_HLS4ML_COPY,        /* concat, resize: words passed through */
    CM_HLS4ML_NORM,        /* layer norm: per channel an accumulator and 2 multipliers */
    CM_HLS4ML_INTERP,      /* bilinear resize: a row of input and 4 multipliers per channel */
} cm_hls4ml_kind;

typedef struct cm_hls4ml_layer {
    bool multiplies;     /* Dense / Conv1D / Conv2D: DSPs are instantiated */
    int64_t spatial;     /* input rows x cols for 3-D inputs, else 1 */
    int64_t n_in;        /* C_in * k * k */
    int64_t n_out;       /* C_out */
    int64_t kernel_fold; /* the HD-graph's kernel folding kf; RF = trunc(n_in*n_out / kf) */
    /* Resources; bits = 0 leaves everything but the DSPs at 0 (SAMO's model). */
    cm_hls4ml_kind kind;
    int bits;               /* word width, CM_HLS4ML_BITS */
    int64_t channels_in;    /* words per input pixel */
    int64_t channels_out;   /* words per output pixel: the FIFO's width / bits */
    int64_t line_width;     /* pixels per input row (with padding), for line buffers */
    int kernel_h, kernel_w; /* window of a convolution or pooling, else 1 x 1 */
    int64_t fifo_depth;     /* output stream depth: output pixels (hls4ml's default) */
    bool windowed;          /* a convolution or pooling over a map: win[] holds its axes */
    cm_window_axis win[2];  /* rows, columns */
    bool resizes;           /* a resize: resize[] holds its axes, walked a pixel a cycle */
    bool whole_map;         /* NORM over the map (group norm): the map held, read, then written */
    cm_resize_axis resize[2];
} cm_hls4ml_layer;

/* hls4ml's validity rule for a reuse factor (section 4.1, conditions i-iii). */
bool cm_hls4ml_rf_valid(int64_t n_in, int64_t n_out, int64_t rf);

/* The valid kernel foldings: RF values 1..n_in*n_out that pass the rule, ascending.
 * Writes at most `cap` values to `out` (may be NULL to count); returns the total. */
int64_t cm_hls4ml_kernel_folds(int64_t n_in, int64_t n_out, int64_t *out, int64_t cap);

int64_t cm_hls4ml_reuse_factor(const cm_hls4ml_layer *l);

void cm_hls4ml_layer_cost(const cm_hls4ml_layer *l, cm_block_cost *out);
/* out->timing for a layer whose out->cycles are set (in hls4ml_blocks.c). */
void cm_hls4ml_layer_timing(const cm_hls4ml_layer *l, cm_block_cost *out);

/* The parts of the resource model, exposed for tests. Each adds to *r. */
/* n weights of `bits` at reuse factor rf: BRAM18 for rf > 1, registers at rf = 1. */
void cm_hls4ml_weights_cost(int64_t n, int64_t rf, int bits, cm_resources *r);
/* An hls::stream FIFO of depth words of width bits. */
void cm_hls4ml_fifo_cost(int64_t depth, int64_t width, cm_resources *r);
/* rows x channels ap_shift_reg line buffers of `width` words of `bits`. */
void cm_hls4ml_line_buffer_cost(int64_t rows, int64_t channels, int64_t width, int bits,
                                cm_resources *r);

#endif
