/* The nn2FPGA options `optimise --backend nn2fpga` and the API read by name, with one
 * message for a wrong one and the defaults that depend on other options. */
#ifndef CM_NN2FPGA_N2_OPTIONS_H
#define CM_NN2FPGA_N2_OPTIONS_H

#include <stdbool.h>

#include <cnnmap/nn2fpga.h>

/* "bip", "exact" or "none"; CM_EUSAGE naming the three otherwise (the streaming
 * backends' optimisers included). */
cm_status cm_nn2fpga_solver_parse(const char *name, cm_nn2fpga_solver *out, cm_error *err);

/* The batch when none is given: 1 on the latency objective, 256 on throughput. */
int cm_nn2fpga_default_batch(bool latency_objective);

#endif
