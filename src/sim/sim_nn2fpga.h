/* nn2FPGA designs in the simulator: the stream depths a simulation chose, written back
 * into the design (cm_simulate_save_depths), so that its file and the HLS export use
 * them. The builder itself is sim_build_nn2fpga (build.h). */
#ifndef CM_SIM_NN2FPGA_H
#define CM_SIM_NN2FPGA_H

#include <stdint.h>

#include <cnnmap/error.h>
#include <cnnmap/nn2fpga.h>

/* Sets d's fifo_depths to depths[k] for the stream names[k] (k < n), the names of
 * sim_build_nn2fpga's graph: the top function's ports "in" and "out" are skipped (the
 * export gives them no depth); every other name must be a generated stream, every depth
 * 1 .. 2^31 (else CM_EINPUT naming the design's model, d unchanged). */
cm_status sim_nn2fpga_set_depths(cm_nn2fpga_design *d, const char *const *names,
                                 const int64_t *depths, int n, cm_error *err);

#endif
