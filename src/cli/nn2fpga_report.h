/* What `optimise --backend nn2fpga` and `evaluate` print about an nn2FPGA design: one
 * printer for both, so that evaluating a design file prints what optimising printed. */
#ifndef CM_CLI_NN2FPGA_REPORT_H
#define CM_CLI_NN2FPGA_REPORT_H

#include <stdbool.h>

#include "cli/cli.h"
#include <cnnmap/nn2fpga.h>

/* Prints the summary, the layers of G and the skip connections, or with `json` the
 * summary object of cli.md with the backend's own keys. Returns the exit code. */
int cm_cli_nn2fpga_print(const cm_nn2fpga_design *d, cm_cli_format format);

#endif
