/* Internal state of one ONNX import: the tensor table that every node handler reads
 * and extends, and the helpers the handlers share. */
#ifndef CM_MODEL_IMPORT_H
#define CM_MODEL_IMPORT_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/graph.h>
#include <onnx/onnx.pb-c.h>

#include "util/strmap.h"

#define CM_MAX_RANK 8
/* Constants up to this many elements have their values decoded (shapes, scales,
 * bit widths); larger ones are weights, decoded on demand into a layer. */
#define CM_CONST_VALUES_MAX 4096
/* No dimension of a real network comes near this; larger ones are malformed. */
#define CM_DIM_MAX ((int64_t)1 << 24)
#define CM_ELEMENTS_MAX ((int64_t)1 << 40)
/* Bit widths a quantisation annotation may carry (model.h documents them): weights
 * and activations 1-32, constants that are biases or accumulators 1-64. */
#define CM_QUANT_BITS_MAX 32
#define CM_QUANT_BIAS_BITS_MAX 64
/* The default-domain opsets whose operator forms the importer knows. */
#define CM_OPSET_MIN 7
#define CM_OPSET_MAX 21

typedef enum cm_tensor_kind {
    CM_TENSOR_ACTIVATION, /* a feature map flowing from a graph input through layers */
    CM_TENSOR_CONST       /* an initializer, a Constant, or a folded shape computation */
} cm_tensor_kind;

typedef struct cm_tensor {
    const char *name;
    cm_tensor_kind kind;
    int rank;
    int64_t dims[CM_MAX_RANK]; /* full ONNX dims, batch included (as 1) */
    int64_t count;             /* element count */
    cm_source source;          /* activation: its producer */
    bool has_q;                /* quantised by a QONNX node */
    cm_quant q;
    const Onnx__TensorProto *proto; /* constant: where its stored data is, or NULL */
    double *values;                 /* constant: decoded values, when small and present */
    bool data_absent;               /* constant: stored externally, file missing */
    /* activation: dims are N x H x W x C (a Transpose moved the channels last) while the
     * layer that makes it keeps C x H x W; only channel-wise operators may read it */
    bool channels_last;
    const Onnx__NodeProto *moved_by; /* channels last: the Transpose that moved them */
    /* activation: a step of a channel shuffle under way (import_split.c): 1 after the
     * reshape to (N, g, C/g, H, W), 2 after the transpose to (N, C/g, g, H, W) */
    int shuffle_stage;
} cm_tensor;

/* A pattern of nodes made one layer (import_l2norm.c, import_groupnorm.c): found on the
 * model file's graph before any node runs. Every node but the pattern's last (its tail)
 * is passed over, defining nothing, as only the next node of the pattern reads its
 * output; the tail, once every constant is defined, makes the layer. */
#define CM_FUSED_NODES 6
struct cm_import;
typedef struct cm_fused {
    const Onnx__NodeProto *node[CM_FUSED_NODES]; /* by the pattern's roles; NULL if absent */
    const Onnx__NodeProto *last;                 /* the tail */
    cm_status (*make)(struct cm_import *im, const struct cm_fused *f);
} cm_fused;

typedef struct cm_import {
    const char *origin; /* the model file, for messages */
    const char *dir;    /* where external data lives */
    Onnx__ModelProto *model;
    int64_t opset; /* of the default domain, CM_OPSET_MIN..CM_OPSET_MAX */
    cm_tensor *tensors;
    int n_tensors, cap_tensors;
    cm_strmap by_name;
    cm_graph *g;
    cm_error *err;
    bool layer_channels_last; /* the layer being appended reads channels-last input */
    const Onnx__NodeProto *layer_moved_by; /* and the Transpose that moved them */
    cm_fused *fused; /* node patterns made one layer */
    int n_fused;
} cm_import;

/* Node handlers: `in` holds the node's resolved inputs (NULL for an omitted optional
 * input). Each defines the node's outputs with cm_import_define. */
typedef cm_status (*cm_node_handler)(cm_import *im, const Onnx__NodeProto *node,
                                     cm_tensor **in, int n_in);

cm_node_handler cm_import_handler_for(const char *domain, const char *op_type);

/* The default ONNX domain: empty, absent or "ai.onnx". */
bool cm_import_is_onnx_domain(const char *domain);

/* Error naming the file, node and operator. */
cm_status cm_import_fail(cm_import *im, const Onnx__NodeProto *node, cm_status code,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Creates the tensor an output name refers to; rank and dims are copied. */
cm_tensor *cm_import_define(cm_import *im, const char *name, cm_tensor_kind kind, int rank,
                            const int64_t *dims);

/* Looks up a tensor by name; NULL when absent. */
cm_tensor *cm_import_find(cm_import *im, const char *name);

/* Fails, naming the node, when constant w used as a layer's weights is quantised
 * wider than CM_QUANT_BITS_MAX. */
cm_status cm_import_check_weight_bits(cm_import *im, const Onnx__NodeProto *node,
                                      const cm_tensor *w);

/* Validates dims (positive, bounded) and sets t->count. */
cm_status cm_import_check_dims(cm_import *im, const char *what, cm_tensor *t);

/* Decodes the values of a stored constant into t->values if it is small enough. */
cm_status cm_tensor_decode_values(cm_import *im, cm_tensor *t);

/* Decodes all values of a constant as floats (caller frees); *out is NULL when the
 * model file does not hold the bytes. */
cm_status cm_tensor_read_floats(cm_import *im, const cm_tensor *t, float **out);

/* A constant aliasing another (a Quant of weights): same dims and data. */
cm_tensor *cm_import_alias_const(cm_import *im, const char *name, const cm_tensor *src);

/* Attribute access with defaults. */
const Onnx__AttributeProto *cm_attr(const Onnx__NodeProto *node, const char *name);
int64_t cm_attr_int(const Onnx__NodeProto *node, const char *name, int64_t dflt);
double cm_attr_float(const Onnx__NodeProto *node, const char *name, double dflt);
/* Copies a string attribute into buf (empty when absent). */
void cm_attr_string(const Onnx__NodeProto *node, const char *name, char *buf, size_t size);
/* Number of ints (up to max) copied into out; -1 when absent. */
int cm_attr_ints(const Onnx__NodeProto *node, const char *name, int64_t *out, int max);
/* A decoded value as an integer, saturating (INT64_MAX is 2^63 as a double); NaN is 0. */
int64_t cm_to_int64(double v);

/* The layer shape (C, H, W) of a feature map tensor. */
cm_status cm_import_chw(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *t,
                        cm_shape *out);

/* Appends a layer fed by the given activation tensors, producing tensor out_name. */
cm_layer *cm_import_add_layer(cm_import *im, const Onnx__NodeProto *node, cm_op op,
                              cm_tensor **inputs, int n_inputs);

/* Defines the output activation of the layer just appended. */
cm_status cm_import_layer_output(cm_import *im, const Onnx__NodeProto *node, int rank,
                                 const int64_t *dims);

/* Channels-last feature maps (import_channels.c): fails unless the node is one of the
 * channel-wise operators that may read its channels-last inputs. */
cm_status cm_import_channels_last_guard(cm_import *im, const Onnx__NodeProto *node,
                                        cm_tensor **in, int n_in);
/* Fails, naming the Transpose that moved its channels, when graph output t keeps
 * them last over more than one pixel (the file's data order is not the layers'). */
cm_status cm_import_channels_last_output(cm_import *im, const cm_tensor *t);
/* Transpose of a 4-D feature map moving channels last (0,2,3,1) or back (0,3,1,2): an
 * alias, *done set. Other permutations leave *done false, or fail on a channels-last
 * input (a real change of layout). */
cm_status cm_import_transpose_channels(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                                       const int64_t *perm, int n, bool *done);
/* MatMul of a channels-last feature map with constant C x N weights: a 1x1 convolution. */
cm_status cm_import_pointwise_matmul(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                     int n_in);

/* The unquantised description of float32 data. */
cm_quant cm_quant_float(void);

/* The node index of the graph's first attention operator (a product of two feature
 * maps whose scores feed a Softmax: a transformer's), or -1 (attention.c). */
int cm_import_first_attention(const Onnx__GraphProto *gp);

/* Appends a pattern found (cm_fused). */
cm_status cm_import_fused_add(cm_import *im, const cm_fused *f);
/* True when node is in a pattern: *st is CM_OK for a node passed over, or the status of
 * making the layer at its tail. */
bool cm_import_fused_step(cm_import *im, const Onnx__NodeProto *node, cm_status *st);
/* Finds the graph's written-out L2 normalisations over channels (import_l2norm.c) and
 * group normalisations (import_groupnorm.c), before any node runs. */
cm_status cm_import_find_l2_norms(cm_import *im);
cm_status cm_import_find_group_norms(cm_import *im);

#endif
