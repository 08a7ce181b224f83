/* The command handlers behind cm_api_call, one per command of cli.md; each file of
 * src/api holds a family of them. A handler reads its request with the getters of
 * request.h, runs the library's flow and gives the object the command prints with
 * --json (the same builder the CLI calls), or an error. */
#ifndef CM_API_INTERNAL_H
#define CM_API_INTERNAL_H

#include <jansson.h>

#include <cnnmap/error.h>

#include "api/request.h"
#include "map/architecture.h"

typedef cm_status (*cm_api_handler)(cm_request *req, json_t **reply, cm_error *err);

#include <stdbool.h>

/* api_model.c: the model and the boards. */
cm_status cm_api_inspect(cm_request *req, json_t **reply, cm_error *err);
cm_status cm_api_boards(cm_request *req, json_t **reply, cm_error *err);
cm_status cm_api_board(cm_request *req, json_t **reply, cm_error *err);

/* api_streaming.c: optimise (the streaming backends, the latency-driven flow, nn2FPGA),
 * and the JSON evaluate prints for their design files. */
cm_status cm_api_optimise(cm_request *req, json_t **reply, cm_error *err);
/* A streaming design file, a latency-driven one or a latency choice file. */
cm_status cm_api_evaluate_streaming(const char *path, cm_design_file *f, bool sdf,
                                    json_t **reply, cm_error *err);
cm_status cm_api_evaluate_nn2fpga(const char *path, json_t **reply, cm_error *err);

/* api_overlay.c, api_multi.c: overlay, multi and compare, and evaluate's JSON for
 * overlay and multi design files. */
cm_status cm_api_overlay(cm_request *req, json_t **reply, cm_error *err);
cm_status cm_api_multi(cm_request *req, json_t **reply, cm_error *err);
cm_status cm_api_compare(cm_request *req, json_t **reply, cm_error *err);
cm_status cm_api_evaluate_overlay(const char *path, json_t **reply, cm_error *err);
cm_status cm_api_evaluate_multi(const char *path, json_t **reply, cm_error *err);

/* api_run.c: the reference executor and the cycle-level simulator. */
cm_status cm_api_run(cm_request *req, json_t **reply, cm_error *err);
cm_status cm_api_simulate(cm_request *req, json_t **reply, cm_error *err);

/* api_lifecycle.c: evaluate and export of any design file, and sweep. */
cm_status cm_api_evaluate(cm_request *req, json_t **reply, cm_error *err);
cm_status cm_api_export(cm_request *req, json_t **reply, cm_error *err);
cm_status cm_api_sweep(cm_request *req, json_t **reply, cm_error *err);

/* A builder's NULL (out of memory, or a figure jansson cannot hold) as the error the
 * CLI reports for it. */
cm_status cm_api_built(json_t *o, json_t **reply, cm_error *err);

#endif
