/* Internal state of the reference executor: a loaded model's nodes in execution order,
 * the value table they read and write, and what every operator kernel shares. */
#ifndef CM_RUN_INTERNAL_H
#define CM_RUN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/run.h>
#include <onnx/onnx.pb-c.h>

#include "util/strmap.h"

/* Elements a tensor may hold: beyond 2^40 a file is malformed, not a network. */
#define CM_RUN_ELEMENTS_MAX ((int64_t)1 << 40)
/* The most elements a constant folded at load may have (2 GiB in float64): the largest
 * weight tensor of the zoo's networks (VGG16's fc6) has 1.03e8; a fuzzed Resize of a
 * weight asked for 1.4e11 and got "out of memory" instead of a reason. */
#define CM_RUN_FOLD_ELEMENTS_MAX ((int64_t)1 << 28)

typedef struct cm_run_node cm_run_node;
typedef struct cm_run_ctx cm_run_ctx;

/* A kernel reads n_in inputs (NULL for an omitted optional input) and allocates its
 * n_out outputs (an output the graph does not use may be left NULL). */
typedef cm_status (*cm_run_kernel)(cm_run_ctx *cx, cm_array **in, int n_in, cm_array **out,
                                   int n_out);

struct cm_run_node {
    const Onnx__NodeProto *proto;
    cm_run_kernel kernel;
    int64_t opset; /* of the node's domain */
    int *in, *out; /* value indices; -1 for an omitted input or output */
    int n_in, n_out;
    float *weights32; /* float32 copy of a constant input 1 (weights), made at load */
    /* float64 weights that are integers times 2^weight_exp (see exact32.c): the largest
     * sum of their magnitudes over one output, in those units */
    bool exact32;
    int weight_exp;
    double weight_units_sum;
};

struct cm_runner {
    char *origin, *dir;
    void *file; size_t file_len; /* the mapped model file, or NULL */
    Onnx__ModelProto *model;
    bool wide;                   /* QONNX operators present: float tensors in float64 */
    cm_strmap by_name;           /* value name -> index */
    int n_values;
    const char **value_names;
    cm_array **consts;           /* per value: initializer, or NULL */
    int *last_use;               /* per value: last node reading it */
    cm_run_node *nodes;
    int n_nodes;
    cm_runner_io *inputs, *outputs;
    int *input_value, *output_value;
    int n_inputs, n_outputs;
    int64_t max_elements;        /* per tensor a kernel makes (cm_runner_set_max_elements) */
    bool lean;                   /* cm_runner_load_lean: constants only folding reads go */
    bool weights32_made;         /* the nodes' float32 weights exist (the first execute makes them) */
};

/* What a kernel sees of the node it runs. */
struct cm_run_ctx {
    cm_runner *r;
    cm_run_node *node;
    cm_error *err;
    /* input 0 is a constant nothing else reads: the kernel may overwrite it and make it
     * its output (cm_run_quant does, for a lean load's weights) */
    bool in0_spare;
};

/* cm_runner_load for a runner that is read (the HLS lowering) and run for its graph
 * outputs only: a constant that only folded nodes read is not kept (a weight quantiser
 * overwrites its weights), so no output name can ask for it. MobileNetV2's folded
 * weights need 28 MB less. */
cm_status cm_runner_load_lean(const char *path, cm_runner **out, cm_error *err);

/* The kernel for an operator of a domain at an opset, or NULL. */
cm_run_kernel cm_run_kernel_for(const char *domain, const char *op_type);
bool cm_run_is_qonnx_domain(const char *domain);

/* Error naming the model file, node and operator. */
cm_status cm_run_fail(cm_run_ctx *cx, cm_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Decodes a TensorProto (raw, typed or external data under dir) into a new array. */
cm_status cm_array_from_tensor_proto(const Onnx__TensorProto *tp, const char *dir,
                                     const char *origin, cm_array **out, cm_error *err);

/* cm_array_new, with the elements left uninitialised unless zero. */
cm_status cm_array_alloc(cm_dtype dtype, int rank, const int64_t *dims, bool zero,
                         cm_array **out, cm_error *err);

/* New array for a kernel's output, which the kernel writes whole (its elements start
 * uninitialised); fails with the node named. */
cm_status cm_run_new(cm_run_ctx *cx, cm_dtype dtype, int rank, const int64_t *dims,
                     cm_array **out);
/* A copy of a with another shape of the same element count. */
cm_status cm_run_reshaped(cm_run_ctx *cx, const cm_array *a, int rank, const int64_t *dims,
                          cm_array **out);
/* The float type of the node's float tensors: FLOAT64 in a wide (QONNX) run. */
cm_dtype cm_run_float_type(cm_run_ctx *cx, cm_dtype declared);

/* An integer reduced to its type's width, as a two's complement store wraps it. */
int64_t cm_run_wrap_int(cm_dtype t, int64_t v);

/* Element k as a double or an integer, whatever the storage. */
static inline double cm_run_getf(const cm_array *a, int64_t k)
{
    return a->f ? a->f[k] : (double)a->i[k];
}
/* (a float element out of int64's range saturates; NaN is 0) */
static inline int64_t cm_run_geti(const cm_array *a, int64_t k)
{
    if (a->i)
        return a->i[k];
    double v = a->f[k];
    if (!(v == v))
        return 0;
    if (v >= 9223372036854775807.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

/* Each of the node's first n inputs is present; else "input K is missing". */
cm_status cm_run_need(cm_run_ctx *cx, cm_array **in, int n_in, int n);

/* Integer values of a 0-D or 1-D input (shapes, axes, pads); at most max of them.
 * Returns the count, or -1 after setting an error. */
int cm_run_ints(cm_run_ctx *cx, const cm_array *a, const char *what, int64_t *out, int max);
/* Normalises a possibly negative axis for a rank; -1 after an error. */
int cm_run_axis(cm_run_ctx *cx, int64_t axis, int rank);
/* Attributes at this node (wrappers over the importer's readers). */
int64_t cm_run_attr_int(cm_run_ctx *cx, const char *name, int64_t dflt);
double cm_run_attr_float(cm_run_ctx *cx, const char *name, double dflt);
int cm_run_attr_ints(cm_run_ctx *cx, const char *name, int64_t *out, int max);
void cm_run_attr_string(cm_run_ctx *cx, const char *name, char *buf, size_t size);
bool cm_run_has_attr(cm_run_ctx *cx, const char *name);
/* The node's opset for its domain. */
int64_t cm_run_opset(cm_run_ctx *cx);

/* numpy broadcasting of ranks and dims over n shapes into out_rank/out_dims. */
cm_status cm_run_broadcast_shape(cm_run_ctx *cx, const cm_array *const *a, int n, int *out_rank,
                                 int64_t *out_dims);
/* Strides of a for iterating the broadcast shape (0 along broadcast axes). */
void cm_run_broadcast_strides(const cm_array *a, int rank, const int64_t *dims, int64_t *strides);

/* Rounds a float32 tensor's values to float32 (the kernels compute in double). */
void cm_run_round_f32(cm_array *a);

/* One operand of a matrix product: row-major values `ld` apart, transposed or not, and
 * optionally the same values already in float32 (a constant's copy). */
typedef struct cm_run_matrix {
    const double *v;
    const float *v32;
    int64_t ld;
    bool trans;
} cm_run_matrix;

/* C[m x n] = A[m x k] * B[k x n] in float32 when f32 (operands and result as float32
 * arithmetic gives them) or float64. */
cm_status cm_run_gemm(cm_run_ctx *cx, bool f32, int64_t m, int64_t n, int64_t k,
                      cm_run_matrix a, cm_run_matrix b, double *c);
/* Records in n whether the float64 weights w (outputs x inner values, one output's
 * weights a row when outputs_are_rows, else a column) allow exact float32 products. */
void cm_run_exact32_prepare(cm_run_node *n, const cm_array *w, int64_t outputs, int64_t inner,
                            bool outputs_are_rows);
/* True when the node's float32 product with input values x[0..count) equals the float64
 * one bit for bit (exact32.c). */
bool cm_run_exact32(cm_run_ctx *cx, const double *x, int64_t count);

/* The float32 copy of input 1 when it is that constant, else NULL. */
const float *cm_run_weights32(cm_run_ctx *cx, const cm_array *w);

/* The sliding window of a convolution or pooling over the spatial axes (2 onwards) of
 * an N x C x ... input: kernel (from kernel_shape, else `kernel`), strides, dilations,
 * pads or auto_pad, and the output size, with ceil_mode for pooling. */
typedef struct cm_run_window {
    int n;
    int64_t in[CM_ARRAY_MAX_RANK], out[CM_ARRAY_MAX_RANK], kernel[CM_ARRAY_MAX_RANK];
    int64_t stride[CM_ARRAY_MAX_RANK], dilation[CM_ARRAY_MAX_RANK];
    int64_t pad[CM_ARRAY_MAX_RANK], pad_end[CM_ARRAY_MAX_RANK];
} cm_run_window;
cm_status cm_run_window_read(cm_run_ctx *cx, const cm_array *x, const int64_t *kernel,
                             bool ceil_mode, cm_run_window *w);

/* Kernels, by group. */
#define CM_RUN_KERNEL(name) \
    cm_status name(cm_run_ctx *cx, cm_array **in, int n_in, cm_array **out, int n_out)
/* op_elementwise.c */
CM_RUN_KERNEL(cm_run_relu); CM_RUN_KERNEL(cm_run_sigmoid); CM_RUN_KERNEL(cm_run_tanh);
CM_RUN_KERNEL(cm_run_exp); CM_RUN_KERNEL(cm_run_sqrt); CM_RUN_KERNEL(cm_run_neg);
CM_RUN_KERNEL(cm_run_abs); CM_RUN_KERNEL(cm_run_floor); CM_RUN_KERNEL(cm_run_ceil);
CM_RUN_KERNEL(cm_run_erf); CM_RUN_KERNEL(cm_run_leaky_relu); CM_RUN_KERNEL(cm_run_hard_sigmoid);
CM_RUN_KERNEL(cm_run_hard_swish); CM_RUN_KERNEL(cm_run_clip); CM_RUN_KERNEL(cm_run_identity);
CM_RUN_KERNEL(cm_run_dropout); CM_RUN_KERNEL(cm_run_cast); CM_RUN_KERNEL(cm_run_add);
CM_RUN_KERNEL(cm_run_sub); CM_RUN_KERNEL(cm_run_mul); CM_RUN_KERNEL(cm_run_div);
CM_RUN_KERNEL(cm_run_pow); CM_RUN_KERNEL(cm_run_equal); CM_RUN_KERNEL(cm_run_where);
CM_RUN_KERNEL(cm_run_min); CM_RUN_KERNEL(cm_run_max); CM_RUN_KERNEL(cm_run_sum);
CM_RUN_KERNEL(cm_run_mean); CM_RUN_KERNEL(cm_run_reciprocal);
/* op_shape.c */
CM_RUN_KERNEL(cm_run_reshape); CM_RUN_KERNEL(cm_run_flatten); CM_RUN_KERNEL(cm_run_squeeze);
CM_RUN_KERNEL(cm_run_unsqueeze); CM_RUN_KERNEL(cm_run_transpose); CM_RUN_KERNEL(cm_run_concat);
CM_RUN_KERNEL(cm_run_shape); CM_RUN_KERNEL(cm_run_gather); CM_RUN_KERNEL(cm_run_slice);
CM_RUN_KERNEL(cm_run_expand); CM_RUN_KERNEL(cm_run_constant_of_shape);
CM_RUN_KERNEL(cm_run_range); CM_RUN_KERNEL(cm_run_constant); CM_RUN_KERNEL(cm_run_pad);
CM_RUN_KERNEL(cm_run_size);
/* op_split.c */
CM_RUN_KERNEL(cm_run_split);
/* op_conv.c */
CM_RUN_KERNEL(cm_run_conv); CM_RUN_KERNEL(cm_run_conv_integer); CM_RUN_KERNEL(cm_run_qlinear_conv);
CM_RUN_KERNEL(cm_run_gemm_op); CM_RUN_KERNEL(cm_run_matmul); CM_RUN_KERNEL(cm_run_matmul_integer);
CM_RUN_KERNEL(cm_run_qlinear_matmul);
/* op_pool.c */
CM_RUN_KERNEL(cm_run_max_pool); CM_RUN_KERNEL(cm_run_average_pool);
CM_RUN_KERNEL(cm_run_global_average_pool); CM_RUN_KERNEL(cm_run_global_max_pool);
CM_RUN_KERNEL(cm_run_reduce_mean); CM_RUN_KERNEL(cm_run_reduce_sum);
CM_RUN_KERNEL(cm_run_reduce_l2);
CM_RUN_KERNEL(cm_run_reduce_max); CM_RUN_KERNEL(cm_run_softmax);
CM_RUN_KERNEL(cm_run_batch_norm); CM_RUN_KERNEL(cm_run_resize); CM_RUN_KERNEL(cm_run_upsample);
CM_RUN_KERNEL(cm_run_layer_norm);
CM_RUN_KERNEL(cm_run_instance_norm);
/* op_quant.c */
CM_RUN_KERNEL(cm_run_quant); CM_RUN_KERNEL(cm_run_bipolar_quant); CM_RUN_KERNEL(cm_run_trunc);
CM_RUN_KERNEL(cm_run_multi_threshold); CM_RUN_KERNEL(cm_run_quantize_linear);
CM_RUN_KERNEL(cm_run_dequantize_linear);

#endif
