/* Reading ONNX and QONNX model files into a cm_graph: shape inference, constant
 * folding of shape subgraphs, quantisation annotations and graph clean-up. */
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
