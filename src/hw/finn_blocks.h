/* FINN's per-node estimates (Xilinx/finn v0.6, the fork SAMO pins), as described in
 * ../shared/docs/backend-models.md section 3: cycles, BRAM18, URAM, LUT and DSP of each
 * HLS custom op; and two ops v0.6 did not have, from current FINN (v0.10 / main):
 * StreamingConcat and ElementwiseMul. FINN has no FF estimate, so FF is always 0. Pure
 * functions. */
#ifndef CM_HW_FINN_BLOCKS_H
#define CM_HW_FINN_BLOCKS_H

#include <stdbool.h>
#include "hw/block_cost.h"

typedef enum cm_finn_kind {
    CM_FINN_MVAU,          /* StreamingFCLayer_Batch: conv (lowered) or dense */
    CM_FINN_VVAU,          /* Vector_Vector_Activate_Batch: depthwise conv */
    CM_FINN_SWG,           /* ConvolutionInputGenerator (2-D sliding window) */
    CM_FINN_THRESHOLDING,  /* Thresholding_Batch (ChannelwiseOp_Batch alike) */
    CM_FINN_MAXPOOL,       /* StreamingMaxPool_Batch */
    CM_FINN_POOL,          /* Pool_Batch (average and strided pools) */
    CM_FINN_DUPLICATE,     /* DuplicateStreams_Batch */
    CM_FINN_ADD,           /* AddStreams_Batch */
    CM_FINN_FMPADDING,     /* FMPadding_Batch */
    CM_FINN_LABELSELECT,   /* LabelSelect_Batch */
    CM_FINN_GLOBALACCPOOL, /* GlobalAccPool_Batch */
    CM_FINN_CONCAT,        /* StreamingConcat (FINN >= v0.7): channel concatenation */
    CM_FINN_MUL,           /* ElementwiseMul (FINN main): product of two streams */
    CM_FINN_UPSAMPLE,      /* UpsampleNearestNeighbour_Batch: nearest upsample, square */
} cm_finn_kind;

/* Most inputs of one StreamingConcat node (a wider concat is a cascade, hd_finn_wide.c). */
#define CM_FINN_CONCAT_MAX 4

typedef enum cm_finn_ram_style {
    CM_FINN_RAM_AUTO, CM_FINN_RAM_BLOCK, CM_FINN_RAM_DISTRIBUTED, CM_FINN_RAM_ULTRA
} cm_finn_ram_style;

typedef enum cm_finn_mem_mode { CM_FINN_MEM_CONST, CM_FINN_MEM_DECOUPLED, CM_FINN_MEM_EXTERNAL } cm_finn_mem_mode;

typedef struct cm_finn_node {
    cm_finn_kind kind;
    /* MVAU: matrix width (k*k*C) and height (outputs). */
    int mw, mh;
    int64_t num_vectors;   /* product of numInputVectors (MVAU, VVAU, thresholding, ...) */
    int channels;          /* NumChannels / IFMChannels / Channels / Labels */
    int kernel[2];         /* kh, kw (SWG, VVAU, Pool_Batch) */
    int ifm_dim[2];        /* input rows, cols (SWG, maxpool, padding) */
    int ofm_dim[2];        /* output rows, cols */
    int stride[2];
    int dilation[2];       /* SWG: dh, dw */
    int pad[4];            /* FMPadding: top, left, bottom, right */
    int in_pad[4];         /* SWG: the padding of ifm_dim, which an FMPadding before it adds */
    int pool_dim;          /* StreamingMaxPool */
    int simd, pe;          /* folding; 1 where the op has none */
    int weight_bits, in_bits, out_bits; /* W, A, B */
    bool no_activation;    /* MVAU/VVAU without thresholds */
    cm_finn_mem_mode mem_mode;
    cm_finn_ram_style ram_style;
    bool res_dsp;          /* resType dsp (true) or lut */
    int n_inputs;                          /* CONCAT: streams concatenated */
    int in_channels[CM_FINN_CONCAT_MAX];   /* CONCAT: ChannelsPerStream */
    int broadcast_port;    /* MUL: the input that is one C-vector per frame (squeeze-
                            * excitation's scale), -1 when both are whole maps */
    cm_resize_axis resize[2]; /* UPSAMPLE: rows and columns (ifm_dim to ofm_dim) */
} cm_finn_node;

/* Which fields each kind reads (all others are ignored). A = in_bits, W = weight_bits,
 * B = out_bits. Non-positive simd/pe/pool_dim are treated as 1 (no division by zero).
 * - MVAU: mw, mh, simd, pe, num_vectors, W, A, B, no_activation, mem_mode, ram_style, res_dsp.
 * - VVAU: channels, kernel[0] x kernel[1], pe, num_vectors (= FINN's Dim h*w, the output
 *   pixels), W, A, B, no_activation, res_dsp. Weight BRAM ignores mem_mode/ram_style (3.2).
 * - SWG: ifm_dim, ofm_dim, kernel, stride, dilation (rows [0], cols [1]; an ifm/ofm
 *   [1] <= 0 means square), channels, simd, A, ram_style. FINN's estimates read only
 *   [0] and buffer k*d rows of a dilated window; cnnmap reads each axis (a map padded
 *   asymmetrically is not square) and buffers the window extent d*(k-1)+1 (issue 20).
 * - THRESHOLDING (and ChannelwiseOp): channels, pe, num_vectors, A, ram_style.
 * - MAXPOOL: ifm_dim[0] (ImgDim), pool_dim.
 * - UPSAMPLE: resize[] (IFMDim, OFMDim), channels, A.
 * - POOL: channels, kernel, ofm_dim (OutImgDim; [1] <= 0 means square), pe, num_vectors
 *   (BatchSize). FINN reads [0] only (k^2, OutImgDim^2); the same for a square.
 * - DUPLICATE, ADD: channels, pe, num_vectors.
 * - FMPADDING: channels, simd, num_vectors, ifm_dim[0..1] (ifm_dim[1] <= 0 means square),
 *   pad[0..3] = top, left, bottom, right.
 * - LABELSELECT: channels (Labels), pe.
 * - GLOBALACCPOOL: channels, pe, num_vectors (h*w): cycles = nv*(C/PE) + C/PE.
 * - CONCAT: n_inputs, in_channels, simd, num_vectors (h*w): FINN's get_exp_cycles,
 *   nv * (sum of ChannelsPerStream) / SIMD; FINN estimates no LUT or BRAM for it (the
 *   HWCustomOp defaults, 0): it only moves SIMD words a cycle.
 * - MUL: channels, pe, num_vectors, A (lhs), W (rhs width, = A for two activations),
 *   res_dsp: FINN's get_exp_cycles, nv * C/PE (the folded output shape but its PE axis;
 *   a broadcast input's vector is read alongside the first pixel). FINN has no
 *   estimate for it; cnnmap counts what its HLS loop instantiates: PE multipliers, as
 *   DSPs (ceil((A+W)/48) each, FINN's MVAU rule) when res_dsp, else LUTs by FINN's
 *   LUT-multiplier formula (2 ceil((A+W)/6) - 1)(A+W); plus, with a broadcast input, its
 *   vector held for the frame, C x W bits, in LUTRAM (C/PE deep x PE*W wide:
 *   PE*W*ceil((C/PE)/64) LUTs, FINN's distributed-RAM rule). */

/* SAMO's FINN configuration for a node kind (const mode, block RAM, resType dsp at
 * 4-bit; section 3.0), folding 1. Sets W = A = B = 4, num_vectors, kernel, stride,
 * dilation and pool_dim to 1, everything else 0; MVAU block + res_dsp, SWG block,
 * Thresholding distributed, VVAU res_dsp false (SAMO leaves its resType at auto). */
void cm_finn_node_init(cm_finn_node *n, cm_finn_kind kind);

/* Re-applies SAMO's style rules of section 3.0 after the widths have changed. SAMO has a
 * single weight_width = acc_width (its wordlength); weight_bits stands for both:
 * MVAU ram_style = distributed if weight_bits < 4 else block, res_dsp = !(weight_bits < 4);
 * SWG ram_style = distributed if weight_bits < 4 else block. Other kinds are unchanged
 * (Thresholding keeps distributed, VVAU keeps resType auto, i.e. res_dsp false). */
void cm_finn_node_apply_samo_styles(cm_finn_node *n);

void cm_finn_node_cost(const cm_finn_node *n, cm_block_cost *out);
/* out->timing for a node whose out->cycles are set (finn_timing.c). */
void cm_finn_node_timing(const cm_finn_node *n, cm_block_cost *out);

/* The BRAM18 table of section 3.1, exposed for tests. */
int64_t cm_finn_bram18(double words, int width);

#endif
