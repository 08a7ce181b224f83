/* Reading ONNX and QONNX model files into a cm_graph: shape inference, constant
 * folding of shape subgraphs, quantisation annotations and graph clean-up.
 *
 * What a model may contain (anything else is refused with CM_EINPUT, naming the
 * file and the node, input or tensor at fault):
 * - the default ONNX domain imported at one opset in 7-21; operands that moved from
 *   an attribute to an input take the form of that opset (ReduceMean axes from 18,
 *   Squeeze/Unsqueeze axes and Split's split from 13, Pad pads and value from 11);
 * - graph inputs of a numeric element type (not string, bool, complex or undefined);
 * - dimensions, kernels, strides, dilations and pads of 1 (0 for pads) to 2^24, at
 *   most 2^40 elements per tensor, and per-layer and whole-network MAC and parameter
 *   counts that fit 64 bits; Conv and pool attributes with one value per spatial axis
 *   (pads: one begin and one end per axis);
 * - quantisation (Quant, Trunc, MultiThreshold) of weights and activations to 1-32
 *   bits, of other constants (biases, accumulators) to 1-64 bits.
 * Layers from which no graph output is reachable are removed and counted in
 * cm_graph.n_removed_unreachable. */
#ifndef CNNMAP_MODEL_H
#define CNNMAP_MODEL_H

#include <stddef.h>
#include <cnnmap/error.h>
#include <cnnmap/graph.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the model at path. External tensor data is looked up beside the file; when
 * its bytes are absent the tensors keep their dims and the layers have no values. */
cm_status cm_model_load(const char *path, cm_graph **out, cm_error *err);

/* Loads a model from memory; origin names it in messages, dir (may be NULL) is where
 * external data files are looked up. */
cm_status cm_model_load_buffer(const void *data, size_t len, const char *origin, const char *dir,
                               cm_graph **out, cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
