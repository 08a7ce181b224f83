/* The JSON form of an nn2FPGA design's figures: the summary object of cli.md with the
 * backend's own keys (period, phases, layers, skip connections). `optimise --json` and
 * `evaluate --json` print it, and the design file holds it with the keys that rebuild
 * the design, so the three say the same. */
#ifndef CM_NN2FPGA_JSON_H
#define CM_NN2FPGA_JSON_H

#include <jansson.h>
#include <cnnmap/nn2fpga.h>

/* A new object, or NULL when out of memory or when a figure is not a finite number
 * (jansson refuses those; no key may silently go missing). */
json_t *cm_nn2fpga_report_json(const cm_nn2fpga_design *d);

/* Latency of the batch in seconds. */
double cm_nn2fpga_latency_s(const cm_nn2fpga_result *r);

#endif
