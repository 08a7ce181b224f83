/* The integer dataflow network that HLS generation works on: the QONNX model as the
 * reference executor loaded it, lowered to tasks on integer codes (nn2FPGA thesis
 * sections 3.2-3.6). Every activation is a tensor of integer codes whose real value is
 * code * 2^-frac; weights and biases are integer constant arrays; a QONNX Quant becomes
 * a requantise task (shift, round half to even, clamp). */
#ifndef CM_HLS_IR_H
#define CM_HLS_IR_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/error.h>
#include <cnnmap/run.h>

typedef enum hl_kind {
    HL_INPUT,    /* the graph input, quantised by the testbench (the first Quant) */
    HL_CONV,     /* convolution (grouped too), also 1 x 1 and on 1 x 1 maps */
    HL_DWCONV,   /* depthwise convolution */
    HL_FC,       /* Gemm */
    HL_MAXPOOL,  /* windowed max pooling */
    HL_GMAXPOOL, /* max pooling over the whole map */
    HL_GAVGPOOL, /* global average pooling: channel sums; the divide is in the requantise */
    HL_ADD,      /* residual add */
    HL_REQUANT   /* a QONNX Quant on a sum (and the ReLU before it) */
} hl_kind;

/* A tensor of integer codes: C x H x W, values in [lo, hi], real value code * 2^-frac
 * (divided by div for a global average pool's sums). */
typedef struct hl_tensor {
    int64_t c, h, w;
    int64_t lo, hi;
    int frac;
    int64_t div;
    int producer;     /* op index */
    int n_consumers;
    bool is_codes;    /* a Quant's output (or a pool of one): other tasks may read it */
} hl_tensor;

typedef struct hl_op {
    hl_kind kind;
    char *name;      /* the ONNX node's name (the graph layer's name) */
    int in[2], n_in; /* tensor indices */
    int out;
    int fh, fw, stride, pad;
    int groups; /* HL_CONV: channel groups (1 ungrouped); the weights are OCH x ICH / groups */
    /* weights (OCH x ICH x FH x FW; depthwise CH x FH x FW; fc OCH x ICH) as integer
     * codes, read with hl_weight: the folded model's values times w_scale, a power of two
     * (w_src is the runner's constant: the net does not own it, and must not outlive the
     * runner; copying MobileNetV2's 3.5 M weights as codes cost a tenth of `simulate`);
     * a Gemm without transB keeps its ICH x OCH order, w_ich > 0 says so */
    const double *w_src;
    double w_scale;
    int64_t w_ich;
    /* biases (OCH) as integer codes, already at the accumulator's scale */
    int64_t *b;
    int64_t n_w, n_b;
    int64_t w_lo, w_hi, b_lo, b_hi;
    /* requantise: the Quant's range and the ReLU before it; shift = in frac - out frac */
    int obits;
    bool osigned, narrow, relu;
    int shift;
    /* add: left shifts that align both operands to the output's frac */
    int shift_a, shift_b;
    /* the design's parallelism (HL_CONV ... HL_GAVGPOOL) */
    int ow_par, och_par, ich_par;
} hl_op;

typedef struct hl_net {
    hl_tensor *t;
    int n_t;
    hl_op *op;
    int n_op;
    int input, output;          /* tensors */
    int64_t in_dims[4], out_dims[CM_ARRAY_MAX_RANK]; /* N = 1 x ... as the model declares */
    int out_rank;
} hl_net;

/* Lowers a QONNX model (loaded by the executor, constants folded) to integer tasks.
 * A node without a building block, a scale that is not a power of two or a nonzero zero
 * point is CM_EINPUT naming the node and why. The net reads r's constants (its
 * weights): r must outlive it. */
cm_status hl_lower(const cm_runner *r, hl_net *net, cm_error *err);
void hl_net_free(hl_net *net);

/* Weight k of op (in the templates' order, OCH-major) as an integer code. */
static inline int64_t hl_weight(const hl_op *op, int64_t k)
{
    if (op->w_ich > 0) /* w_src is ICH x OCH */
        k = k % op->w_ich * (op->n_w / op->w_ich) + k / op->w_ich;
    return (int64_t)(op->w_src[k] * op->w_scale);
}

/* Bits of the narrowest ap_int / ap_uint holding [lo, hi]; *is_signed says which. */
int hl_bits_for_range(int64_t lo, int64_t hi, bool *is_signed);

const char *hl_kind_name(hl_kind k);

#endif
