/* The network graph: a DAG of layers in topological order, each with its 3-D feature
 * map shapes (channels x height x width; a flat vector is C x 1 x 1), geometry,
 * arithmetic cost and quantisation. This is what every later stage maps onto
 * hardware; it holds no ONNX types. */
#ifndef CNNMAP_GRAPH_H
#define CNNMAP_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <cnnmap/error.h>
#include <cnnmap/quant.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cm_op {
    CM_OP_CONV,
    CM_OP_FC,
    CM_OP_POOL_MAX,
    CM_OP_POOL_AVG,
    CM_OP_GLOBAL_POOL_AVG,
    CM_OP_GLOBAL_POOL_MAX,
    CM_OP_RELU,
    CM_OP_ACTIVATION, /* any other element-wise non-linearity: see cm_activation */
    CM_OP_ADD,
    CM_OP_MUL,
    CM_OP_CONCAT,
    CM_OP_SLICE,   /* a range of its input's channels (one output of a Split on channels) */
    CM_OP_SHUFFLE, /* a permutation of channels: ShuffleNet's shuffle of `groups` groups */
    CM_OP_UPSAMPLE,
    CM_OP_FLATTEN,
    CM_OP_SOFTMAX,
    CM_OP_BATCHNORM, /* a per-channel affine that had no convolution to fold into */
    CM_OP_LAYERNORM, /* per pixel: normalised over its C channels, then a per-channel affine */
    CM_OP_PAD,       /* a zero pad that had no convolution or pooling to fold into */
    CM_OP_RESHAPE,   /* a change of shape other than flattening */
    CM_OP_COUNT
} cm_op;

typedef enum cm_activation {
    CM_ACT_NONE,
    CM_ACT_RELU,
    CM_ACT_RELU6, /* Clip(0, 6) */
    CM_ACT_CLIP,  /* Clip with other bounds */
    CM_ACT_LEAKY_RELU,
    CM_ACT_SIGMOID,
    CM_ACT_HARD_SIGMOID,
    CM_ACT_HARD_SWISH,
    CM_ACT_TANH,
    CM_ACT_ERF,
    CM_ACT_GELU, /* x * (1 + erf(x / sqrt 2)) / 2, the exact (not tanh) form */
    CM_ACT_COUNT
} cm_activation;

/* Channels, height, width of one feature map (batch removed). */
typedef struct cm_shape {
    int64_t c, h, w;
} cm_shape;

/* A layer's producer: a layer index, or a graph input when negative (-1 - input). */
typedef int cm_source;
#define CM_SOURCE_IS_INPUT(s) ((s) < 0)
#define CM_SOURCE_INPUT_INDEX(s) (-1 - (s))

typedef struct cm_layer {
    char *name;
    cm_op op;
    cm_activation activation; /* for CM_OP_RELU and CM_OP_ACTIVATION */
    double alpha, beta;       /* activation parameters (LeakyRelu slope, Clip bounds);
                               * for a pad, its value (0, or the lowest float) */

    int n_inputs;
    cm_source *inputs; /* feature-map producers, in operand order */
    cm_shape in_shape; /* shape of the first input */
    cm_shape out_shape;

    int kernel[2];   /* KH, KW */
    int stride[2];   /* SH, SW */
    int pad[4];      /* top, left, bottom, right */
    int dilation[2]; /* DH, DW */
    int groups;
    bool ceil_mode;         /* pooling output size rounds up */
    bool count_include_pad; /* average pooling divides by the padded window */
    int upsample[2];        /* upsample factors, H and W */
    bool interpolate;       /* upsample: bilinear (each output blends 4 inputs), not nearest */
    bool norm_l2;           /* layernorm: divided by the L2 norm of the pixel's channels (at
                             * least alpha), not centred (SSD's L2Norm) */
    bool norm_map;          /* layernorm: over each of `groups` groups of channels and the
                             * whole map, not per pixel (GroupNorm) */
    int64_t channel_offset; /* slice: the first input channel it takes */

    bool has_bias;
    bool has_const_operand; /* add or mul with a constant (per-channel or scalar) */
    bool fusable;           /* an activation a hardware layer before it can absorb */
    uint64_t macs;
    uint64_t params;

    cm_quant weight_q;
    cm_quant bias_q;
    cm_quant in_q;  /* activations entering the layer (its first input) */
    cm_quant out_q; /* activations leaving it */

    /* Weight values when the model file held them, else NULL; layout as ONNX
     * (conv: O x I/g x KH x KW; fc: out x in). */
    float *weights;
    uint64_t n_weights;
    float *bias;
} cm_layer;

typedef struct cm_graph_input {
    char *name;
    cm_shape shape;
    cm_quant q;
} cm_graph_input;

typedef struct cm_graph {
    char *name;
    int n_inputs;
    cm_graph_input *inputs;
    int n_layers;
    int cap_layers;
    cm_layer *layers; /* topological order */
    int n_outputs;
    int *outputs; /* layer indices that are graph outputs */
    /* Layers the model file defined but from which no graph output is reachable (dead
     * branches); the loader removed them before anything was mapped, and counts them
     * here so that a user can be told. */
    int n_removed_unreachable;
} cm_graph;

typedef struct cm_graph_totals {
    int layers;
    uint64_t macs;
    uint64_t params;
} cm_graph_totals;

cm_graph *cm_graph_new(const char *name);
void cm_graph_free(cm_graph *g);

/* Appends a zeroed layer (stride, dilation and groups 1) and returns it, or NULL on
 * out-of-memory. The pointer is valid until the next append. */
cm_layer *cm_graph_add_layer(cm_graph *g, const char *name, cm_op op);

/* Sets a layer's producers (copied). */
cm_status cm_layer_set_inputs(cm_layer *l, const cm_source *inputs, int n, cm_error *err);

/* Removes a single-input layer, reconnecting its consumers (and graph outputs) to its
 * producer. Layer indices after it shift down by one. */
cm_status cm_graph_bypass_layer(cm_graph *g, int index, cm_error *err);

/* Removes every layer from which no graph output is reachable, keeping the order of
 * the rest, and adds their number to g->n_removed_unreachable. */
cm_status cm_graph_remove_unreachable(cm_graph *g, cm_error *err);

/* The number of layers that consume layer i's output (graph outputs not counted). */
int cm_graph_consumers(const cm_graph *g, int index, int *first_consumer);

/* Layer count and summed MACs and params; a sum that does not fit 64 bits is
 * UINT64_MAX (the loader refuses such models, see cm_graph_check_totals). */
cm_graph_totals cm_graph_totals_of(const cm_graph *g);

/* Fails (CM_EINPUT) when the summed MACs or params overflow 64 bits. */
cm_status cm_graph_check_totals(const cm_graph *g, cm_error *err);

/* The weight and input-activation bit widths that carry the most MACs over the conv
 * and fc layers: a model's nominal precision ("a4w4") even when its first and last
 * layers are wider. 0 when the graph has no such layer. */
void cm_graph_typical_bits(const cm_graph *g, int *weight_bits, int *act_bits);

/* MACs and params of a layer from its shapes and geometry (conv, fc, batchnorm; add
 * and mul keep the params their constant operand set). Fails when a count overflows. */
cm_status cm_layer_compute_cost(cm_layer *l, cm_error *err);

/* Name of a source: the producing layer's or graph input's name. */
const char *cm_graph_source_name(const cm_graph *g, cm_source s);

const char *cm_op_name(cm_op op);              /* "conv", "fc", ... as in cli.md */
const char *cm_activation_name(cm_activation a); /* "relu6", "sigmoid", ... */

#ifdef __cplusplus
}
#endif
#endif
