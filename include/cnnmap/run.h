/* The reference executor: runs an ONNX or QONNX model file on the CPU, exactly as the
 * file says (weights included), and the tensors it reads and writes (numpy's .npy files
 * and ONNX TensorProto files).
 *
 * Float models compute in float32 (every stored value is a float32 value); models that
 * hold QONNX operators compute their float tensors in float64, so that networks with
 * power-of-two scales are exact; integer tensors (shapes, QuantizeLinear outputs,
 * QLinearConv accumulators) are exact integers. */
#ifndef CNNMAP_RUN_H
#define CNNMAP_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <cnnmap/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CM_ARRAY_MAX_RANK 8

/* Element types, numbered as ONNX's TensorProto.DataType. */
typedef enum cm_dtype {
    CM_DTYPE_FLOAT32 = 1,
    CM_DTYPE_UINT8 = 2,
    CM_DTYPE_INT8 = 3,
    CM_DTYPE_UINT16 = 4,
    CM_DTYPE_INT16 = 5,
    CM_DTYPE_INT32 = 6,
    CM_DTYPE_INT64 = 7,
    CM_DTYPE_BOOL = 9,
    CM_DTYPE_FLOAT64 = 11,
    CM_DTYPE_UINT32 = 12,
    CM_DTYPE_UINT64 = 13
} cm_dtype;

/* A dense tensor in C order. Elements are held widened: every floating type as double
 * (a float32 tensor holds only values that float32 represents), every integer and
 * boolean type as int64_t; exactly one of f and i is non-NULL (both NULL when the
 * tensor has no elements). dtype is the type the values stand for. */
typedef struct cm_array {
    cm_dtype dtype;
    int rank;
    int64_t dims[CM_ARRAY_MAX_RANK];
    int64_t count; /* product of dims; 1 for a scalar */
    double *f;
    int64_t *i;
} cm_array;

/* True for CM_DTYPE_FLOAT32 and CM_DTYPE_FLOAT64. */
int cm_dtype_is_float(cm_dtype t);
/* "float32", "int8", ...; "unknown" for anything else. */
const char *cm_dtype_name(cm_dtype t);

/* A zero-filled tensor of the given type and shape; rank 0 is a scalar. */
cm_status cm_array_new(cm_dtype dtype, int rank, const int64_t *dims, cm_array **out,
                       cm_error *err);
void cm_array_free(cm_array *a);

/* Reads numpy's .npy format (versions 1.0, 2.0 and 3.0; little-endian float32, float64,
 * int8-int64, uint8-uint64 and bool; C order). origin names the data in messages. */
cm_status cm_array_read_npy(const void *data, size_t len, const char *origin, cm_array **out,
                            cm_error *err);
cm_status cm_array_load_npy(const char *path, cm_array **out, cm_error *err);
/* Writes version 1.0 (2.0 when the header needs it), atomically: no partial file. */
cm_status cm_array_save_npy(const char *path, const cm_array *a, cm_error *err);
/* The .npy bytes of a (the caller frees *data). */
cm_status cm_array_to_npy(const cm_array *a, char **data, size_t *len, cm_error *err);

/* Reads a serialized ONNX TensorProto (the input_N.pb / output_N.pb of ONNX's node
 * tests). *name, when given, receives the tensor's name (the caller frees it). */
cm_status cm_array_load_tensor_proto(const char *path, cm_array **out, char **name,
                                     cm_error *err);

/* SHA-256 of the tensor's .npy bytes, as 64 lowercase hex digits and a NUL. */
cm_status cm_array_sha256(const cm_array *a, char hex[65], cm_error *err);

/* A model file, read and checked for execution. */
typedef struct cm_runner cm_runner;

cm_status cm_runner_load(const char *path, cm_runner **out, cm_error *err);
/* origin names the model in messages; dir (may be NULL) is where external data lives. */
cm_status cm_runner_load_buffer(const void *data, size_t len, const char *origin,
                                const char *dir, cm_runner **out, cm_error *err);
void cm_runner_free(cm_runner *r);
/* The most elements any tensor a node makes may have (default 2^40): a larger one is
 * CM_EINPUT naming the node, before anything is allocated. Bounds the work a model can
 * ask for (the fuzzer sets a small limit). n < 1 restores the default. */
void cm_runner_set_max_elements(cm_runner *r, int64_t n);
/* cm_runner_load_buffer with that limit in force from the start: loading folds the
 * model's constant subgraphs, running their kernels, so a caller that loads untrusted
 * models bounds their work here. Folding never makes a tensor of more than 2^28
 * elements, whatever the limit. */
cm_status cm_runner_load_buffer_bounded(const void *data, size_t len, const char *origin,
                                        const char *dir, int64_t max_elements, cm_runner **out,
                                        cm_error *err);

/* The graph's inputs (those without an initializer) and outputs, in file order. Each
 * dim is the declared value, or -1 when dynamic. */
typedef struct cm_runner_io {
    const char *name;
    cm_dtype dtype;
    int rank;
    int64_t dims[CM_ARRAY_MAX_RANK];
} cm_runner_io;

int cm_runner_n_inputs(const cm_runner *r);
const cm_runner_io *cm_runner_input(const cm_runner *r, int i);
int cm_runner_n_outputs(const cm_runner *r);
const cm_runner_io *cm_runner_output(const cm_runner *r, int i);

/* Executes the graph once on whole tensors: inputs[k] feeds graph input k (converted
 * to its declared type; its shape must match every declared dimension), and outputs
 * receives the tensors named in output_names (NULL: the graph outputs, n_outputs of
 * them). Any tensor of the graph may be named. The caller frees what it receives. */
cm_status cm_runner_execute(cm_runner *r, const cm_array *const *inputs, int n_inputs,
                            const char *const *output_names, int n_outputs, cm_array **outputs,
                            cm_error *err);

/* Runs a network on a batch: the first dimension of every input is the batch (any
 * size, whatever the model declares there), each frame runs on its own, and the
 * frames' results are stacked, so the output of a frame never depends on the batch it
 * came in. output_name NULL means the first graph output. */
typedef void (*cm_run_progress_fn)(void *user, int64_t frames_done, int64_t frames);
cm_status cm_runner_run_batch(cm_runner *r, const cm_array *const *inputs, int n_inputs,
                              const char *output_name, cm_array **output,
                              cm_run_progress_fn progress, void *user, cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
