/* The operator tables the import dispatches on, and the handlers shared between the
 * layer, constant and QONNX groups. */
#ifndef CM_MODEL_IMPORT_OPS_H
#define CM_MODEL_IMPORT_OPS_H

#include "model/import.h"

typedef struct cm_op_entry {
    const char *op_type;
    cm_node_handler handler;
} cm_op_entry;

extern const cm_op_entry cm_layer_ops[]; /* import_layers.c */
extern const cm_op_entry cm_shape_ops[]; /* import_const.c: work on constants or feature maps */
extern const cm_op_entry cm_qonnx_ops[]; /* import_qonnx.c */
/* import_channels.c: Erf, LayerNormalization, and the steps of a LayerNorm written out
 * (ReduceMean, Sub, Pow, Add, Sqrt, Div, Mul, handing other nodes to their own handler) */
extern const cm_op_entry cm_channel_ops[];
/* import_qcdq.c: QuantizeLinear, DequantizeLinear, integer Clip, QLinearConv, ... */
extern const cm_op_entry cm_qcdq_ops[];

/* The handler of an ONNX-domain op_type in the layer and shape tables, under the QCDQ and
 * pattern handlers that look at a node first and hand the rest on; NULL if none. */
cm_node_handler cm_import_base_handler(const char *op_type);

/* Output 0 of node is x carrying annotation q: an alias of constant x, or of feature map
 * x whose producer (layer or graph input) then has q as its output annotation. */
cm_status cm_import_annotate(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                             cm_quant q);

cm_status cm_import_need(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in,
                         int k, cm_tensor_kind kind);
cm_status cm_import_broadcast(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *a,
                              const cm_tensor *b, int *rank, int64_t *dims);
cm_status cm_import_elementwise(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                int n_in, char arith);
cm_status cm_import_reshape_activation(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                                       int rank, const int64_t *dims);
cm_status cm_import_concat_activations(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                       int n_in);
cm_status cm_import_transpose_activation(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x);

/* import_split.c: Split and Slice of a feature map's channels (slice layers), and
 * ShuffleNet's channel shuffle, Reshape (N, g, C/g, H, W) -> Transpose (0, 2, 1, 3, 4)
 * -> Reshape (N, C, H, W), which becomes one shuffle layer. */
/* A layer norm layer over the channels of x (import_channels.c): per-channel gamma and
 * beta when given, eps, and for an L2 normalisation (divided by the channels' L2 norm,
 * at least eps, not centred) l2; produces node's output 0. */
cm_status cm_import_norm_layer(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                               const cm_tensor *gamma, const cm_tensor *beta, double eps,
                               bool l2);
/* The only reader of node n's output, if it is an `op` that reads it as input k (k -1:
 * as either input of a binary operator); a graph output counts as a reader that is no
 * node (import_channels.c). */
const Onnx__NodeProto *cm_import_sole_reader(cm_import *im, const Onnx__NodeProto *n,
                                             const char *op, int k);
/* The node whose output `name` is, if it is an `op` (import_channels.c). */
const Onnx__NodeProto *cm_import_producer(cm_import *im, const char *name, const char *op);
/* The optional affine step after n: its sole reader, if an `op` (Mul by gamma, Add of
 * beta) whose other operand is a constant (import_channels.c). */
const Onnx__NodeProto *cm_import_affine_step(cm_import *im, const Onnx__NodeProto *n,
                                             const char *op);
cm_status cm_import_split(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in);
cm_status cm_import_slice_activation(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                     int n_in);
/* True when a reshape of x to `rank` axes, or a transpose of x, is a step of a channel
 * shuffle, which the two functions below then make (or refuse, naming the node). */
bool cm_import_is_shuffle_step(const cm_tensor *x, int rank);
cm_status cm_import_shuffle_reshape(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                                    int rank, const int64_t *dims);
cm_status cm_import_shuffle_transpose(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x);

#endif
