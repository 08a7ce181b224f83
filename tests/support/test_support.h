/* Helpers shared by the unit tests: where the reference models are, and what to do
 * when they are missing (fail under CI, skip elsewhere). */
#ifndef CM_TEST_SUPPORT_H
#define CM_TEST_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* Writes the path of ../shared/models/NAME into buf; when the file is absent, fails
 * the test under CI (CI=true) and skips it otherwise. */
void cm_test_shared_model(const char *name, char *buf, size_t size);

/* Same for a model generated into the build tree by tests/models (CM_TEST_MODELS_DIR). */
void cm_test_generated_model(const char *name, char *buf, size_t size);

/* Writes len bytes to a fresh temporary file and returns its path in buf. */
void cm_test_write_temp(const void *data, size_t len, const char *suffix, char *buf, size_t size);

/* Loads the model at `path` and builds its resource-minimal design for a built-in
 * board (bits: width of unquantised layers, 0 for the backend default); fails the
 * test on any error. */
#include <stdbool.h>
#include <cnnmap/design.h>
cm_design *cm_test_design(const char *path, const char *board, cm_backend backend, int bits,
                          bool reconfiguration);

/* Packs a model built with tests/support/onnx_builder.h, frees it and loads the bytes as
 * `name`; fails the test on any error. */
struct Onnx__ModelProto;
struct cm_graph;
struct cm_graph *cm_test_load_built(struct Onnx__ModelProto *m, const char *name);

/* Loads ../shared/models/NAME (cm_test_shared_model's rules when it is absent). */
struct cm_graph *cm_test_load_shared(const char *name);

#endif
