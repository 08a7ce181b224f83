/* The streaming-architecture backends a design can target, and their names on the
 * command line. Each backend contributes its own building blocks and cost models
 * (src/hw); everything above that layer works on the backend-neutral HD-graph. */
#ifndef CNNMAP_BACKEND_H
#define CNNMAP_BACKEND_H

#include <cnnmap/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cm_backend {
    CM_BACKEND_FPGACONVNET,
    CM_BACKEND_FINN,
    CM_BACKEND_HLS4ML,
    CM_BACKEND_NN2FPGA,
    CM_BACKEND_COUNT
} cm_backend;

/* "fpgaconvnet", "finn", "hls4ml", "nn2fpga". */
const char *cm_backend_name(cm_backend b);

/* Parses a backend name (case-insensitive); CM_EUSAGE naming the choices otherwise. */
cm_status cm_backend_parse(const char *name, cm_backend *out, cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
