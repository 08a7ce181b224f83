/* What a backend's cost model says about one hardware building block: its latency per
 * sample in clock cycles and the FPGA resources it occupies. Every backend model in
 * src/hw fills this one record, so the design layer never looks inside a backend. */
#ifndef CM_HW_BLOCK_COST_H
#define CM_HW_BLOCK_COST_H

#include <stdint.h>
#include <cnnmap/board.h>

typedef struct cm_block_cost {
    double cycles;          /* latency of one sample (one feature map), clock cycles */
    double pipeline_depth;  /* cycles from first input to first output; 0 if not modelled */
    cm_resources res;       /* DSP, BRAM18, URAM, LUT, FF */
} cm_block_cost;

#endif
