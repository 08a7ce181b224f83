/* Building small ONNX models in C for tests: a graph with inputs, initializers, nodes
 * (with attributes) and outputs, packed to protobuf bytes.
 *
 * Every part of the model is malloc'd the way protobuf-c's unpack would allocate it,
 * so ob_model_free (onnx__model_proto__free_unpacked underneath) frees the whole tree,
 * including anything a test hangs on it with malloc/strdup. Allocation failure aborts. */
#ifndef CM_TEST_ONNX_BUILDER_H
#define CM_TEST_ONNX_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include <onnx/onnx.pb-c.h>

/* A model of IR version 8 importing opset 13 of the default domain, with an empty
 * graph named "test". */
Onnx__ModelProto *ob_model_new(void);
void ob_model_free(Onnx__ModelProto *m);

/* Appends a float32 graph input with the given dims (dim_value each, so zero and
 * negative dims are written as they are). */
Onnx__ValueInfoProto *ob_input(Onnx__ModelProto *m, const char *name, int rank,
                               const int64_t *dims);

/* Appends a float32 graph output; dims may be NULL for a known rank only (the
 * importer does not read output shapes). */
Onnx__ValueInfoProto *ob_output(Onnx__ModelProto *m, const char *name, int rank,
                                const int64_t *dims);

/* Initializers. The element count is the product of dims (1 for rank 0).
 * ob_init_float: float_data copied from data, or a fixed pattern when data is NULL.
 * ob_init_int64: int64_data copied from data.
 * ob_init_raw:   raw_data holding len bytes, with any data_type (1 float, 7 int64).
 * ob_init_external: float dims only, the data "stored" in file `location` beside the
 *                model (absent when the model is loaded from memory). */
Onnx__TensorProto *ob_init_float(Onnx__ModelProto *m, const char *name, int rank,
                                 const int64_t *dims, const float *data);
Onnx__TensorProto *ob_init_int64(Onnx__ModelProto *m, const char *name, int rank,
                                 const int64_t *dims, const int64_t *data);
Onnx__TensorProto *ob_init_raw(Onnx__ModelProto *m, const char *name, int rank,
                               const int64_t *dims, int32_t data_type, const void *bytes,
                               size_t len);
Onnx__TensorProto *ob_init_external(Onnx__ModelProto *m, const char *name, int rank,
                                    const int64_t *dims, const char *location);

/* Appends a node. inputs and outputs are comma-separated tensor names ("x,W,B");
 * an empty field is an omitted optional input ("x,,scales"), NULL or "" none at
 * all. name may be NULL for an unnamed node. */
Onnx__NodeProto *ob_node(Onnx__ModelProto *m, const char *op_type, const char *name,
                         const char *inputs, const char *outputs);
/* Sets the default domain's imported opset (ob_model_new imports 13). */
void ob_opset(Onnx__ModelProto *m, int64_t version);

/* Puts the node in a custom domain, imported at version 1. */
void ob_domain(Onnx__ModelProto *m, Onnx__NodeProto *n, const char *domain);

/* Node attributes. */
void ob_attr_int(Onnx__NodeProto *n, const char *name, int64_t v);
void ob_attr_ints(Onnx__NodeProto *n, const char *name, int count, const int64_t *v);
void ob_attr_float(Onnx__NodeProto *n, const char *name, float v);
void ob_attr_string(Onnx__NodeProto *n, const char *name, const char *v);

/* nn.GroupNorm as torch.onnx writes it, from map x (1 x channels x H x W) to y: nodes
 * y_split (Reshape to `split_to`, NULL for (0, groups, -1)), y_norm
 * (InstanceNormalization, scale in_scale and bias 0 per group), y_shape, y_back (Reshape
 * to Shape(x)), y_scale (Mul gamma, channels x 1 x 1; NULL: a fixed pattern) and y (Add
 * beta, likewise). */
void ob_group_norm(Onnx__ModelProto *m, const char *x, const char *y, int64_t channels,
                   int64_t groups, const int64_t *split_to, float in_scale, const float *gamma,
                   const float *beta);

/* The packed model; the caller frees it. */
uint8_t *ob_pack(const Onnx__ModelProto *m, size_t *len);

#endif
