/* fpgaConvNet's layer models (fpgaconvnet-model v0.1.4.1, HLS backend), as described in
 * ../shared/docs/backend-models.md section 2: module rate balancing, latency, pipeline
 * depth and the linear/BRAM resource models, reproduced to the reference numbers except
 * where the reference is wrong (the inverted bias condition: cnnmap counts the bias
 * module when the layer has a bias). Pure functions: no allocation, no state. */
#ifndef CM_HW_FPGACONVNET_BLOCKS_H
#define CM_HW_FPGACONVNET_BLOCKS_H

#include <stdbool.h>
#include "hw/block_cost.h"

typedef enum cm_fcn_kind {
    CM_FCN_CONV,          /* SlidingWindow, Fork, Conv, Accum, Glue, Bias (2.4a) */
    CM_FCN_INNER_PRODUCT, /* Fork, Conv, Accum, Glue, Bias (2.4c) */
    CM_FCN_POOL,          /* SlidingWindow, Pool (2.4d); max and average alike */
    CM_FCN_GLOBAL_POOL,   /* whole-map pooling: one accumulator per channel stream */
    CM_FCN_RELU,          /* any pointwise activation (2.4e) */
    CM_FCN_SQUEEZE,       /* stream-width adapter between mismatched foldings (2.4f) */
    CM_FCN_SPLIT,         /* one stream set copied to several consumers (Fork) */
    CM_FCN_ELTWISE,       /* element-wise add or multiply of several inputs */
    CM_FCN_CONCAT,        /* channel concatenation of several inputs */
    CM_FCN_RESIZE,        /* upsample (any scale), nearest or bilinear, over a row buffer */
} cm_fcn_kind;

/* One fpgaConvNet layer. Dimensions are those of the layer's input feature map, except
 * for CONCAT, whose `channels` is the TOTAL output channels (the sum over its n_inputs
 * inputs). Padding is never negative. Folding factors must divide what they fold. */
typedef struct cm_fcn_layer {
    cm_fcn_kind kind;
    int rows, cols, channels;  /* input feature map */
    int filters;               /* output channels of conv and inner product */
    int kernel[2];             /* rows, cols */
    int stride[2];
    int pad[4];                /* top, left, bottom, right (ONNX begin/end order), >= 0 */
    int dilation[2];           /* conv and pool: taps spaced by dilation; window extent
                                * d*(k-1)+1, k*k taps (MACs) per output */
    bool ceil_mode;            /* pool: output rounds up, as the importer computes it */
    int groups;                /* conv only; 1 otherwise */
    bool has_bias;
    int n_inputs;              /* eltwise / concat: number of inputs; split: of outputs */
    int coarse_in, coarse_out; /* streams in and out (pool, relu, eltwise: equal) */
    int fine;                  /* conv: multipliers per filter window, 1..k0*k1 */
    int data_width, weight_width, acc_width, bias_width; /* bits, 16 in the reference */
    bool interpolate;          /* resize: bilinear (each output blends 4 inputs) */
    cm_resize_axis resize[2];  /* resize: rows and columns (cm_fcn_resize_init) */
} cm_fcn_layer;

/* A layer with the reference's defaults: 16-bit everything, folding 1, stride 1. */
void cm_fcn_layer_init(cm_fcn_layer *l, cm_fcn_kind kind);

/* Makes l (rows, cols and channels set) a resize to rows_out x cols_out. */
void cm_fcn_resize_init(cm_fcn_layer *l, int rows_out, int cols_out, bool interpolate);

/* Output feature-map rows and columns. For conv and pool this is the importer's
 * sliding-window arithmetic (src/model/import_layers.c): window extent d*(k-1)+1,
 * per-side pads, ceil_mode rounding up with a window starting in the end padding
 * dropped; fpgaconvnet-model instead uses the undilated kernel and floor rounding. */
int cm_fcn_rows_out(const cm_fcn_layer *l);
int cm_fcn_cols_out(const cm_fcn_layer *l);
int cm_fcn_channels_out(const cm_fcn_layer *l);

/* Latency per image (cycles), pipeline depth, resources and timing of one layer. */
void cm_fcn_layer_cost(const cm_fcn_layer *l, cm_block_cost *out);
/* One axis (0 rows, 1 columns) of a conv or pool layer's window as the hardware walks it. */
void cm_fcn_window_axis(const cm_fcn_layer *l, int i, cm_window_axis *out);
/* out->timing for a layer whose out->cycles are set (fpgaconvnet_timing.c). */
void cm_fcn_layer_timing(const cm_fcn_layer *l, cm_block_cost *out);

/* The valid `fine` values for a kernel: {1, k, k*k} for k x k, {1, max} for k x 1,
 * {1} for 1 x 1, and {1, max(k0,k1), k0*k1} for a non-square kernel with both sides > 1.
 * Writes at most 3 values in ascending order, without repeats; returns the count. */
int cm_fcn_fine_values(const int kernel[2], int out[3]);

/* The shared helpers of section 2.1, exposed for tests. Depth or width <= 0 gives 0;
 * a word wider than 36 bits counts as full 36-bit words plus one of the remaining bits. */
int64_t cm_fcn_bram_stream(int64_t depth, int width);
int64_t cm_fcn_bram_mem(int64_t depth, int width);
int cm_fcn_dsp_mult(int a_bits, int b_bits);

#endif
