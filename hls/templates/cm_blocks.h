// cm_blocks.h: all of cnnmap's nn2FPGA-style HLS building blocks (see cnnmap_hls.h for the
// vendor/compatibility switch and the stream protocol they share).
#ifndef CM_BLOCKS_H
#define CM_BLOCKS_H

#include "cnnmap_hls.h"
#include "cm_adapt.h"
#include "cm_conv.h"
#include "cm_fc.h"
#include "cm_pool.h"
#include "cm_quant.h"
#include "cm_residual.h"
#include "cm_window.h"

#endif
