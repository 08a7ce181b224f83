/* Array sizing, DYNAMAP Algorithm 1: the P_SA1 x P_SA2 within the DSP limit (one DSP
 * per 8-bit PE) and the board's BRAM that minimises the summed compute time of every
 * conv and fc layer under every allowed algorithm, each with its best dataflow. */
#ifndef CM_OVERLAY_SIZING_H
#define CM_OVERLAY_SIZING_H

#include <stdint.h>

#include <cnnmap/graph.h>

#include "overlay/ov_model.h"

/* The smallest array side: a 1-wide array has nothing to pass along. */
#define CM_OV_MIN_SIDE 2

/* BRAM18 blocks the buffers of a P1 x P2 array need: one per bank of the input buffer
 * (P1), the kernel buffer (P2) and the double-buffered output buffer (2 max(P1, P2)). */
int64_t cm_ov_buffer_bram18(int p1, int p2);

/* Algorithm 1's empirical total node cost of the graph on arr (arr->p1, arr->p2 set). */
uint64_t cm_ov_total_node_cycles(const cm_graph *g, const cm_ov_array *arr, unsigned algorithms);

/* Fills arr->p1, arr->p2. Fails with CM_EINFEASIBLE naming DSP or BRAM when no array
 * of at least 2 x 2 fits. After `work` layer costings (0: CM_OVERLAY_SIZING_WORK), or at the
 * deadline (a cm_seconds_now() value; 0: none), the search keeps the best shape tried
 * so far and sets *stopped. */
cm_status cm_ov_size_array(const cm_graph *g, cm_ov_array *arr, unsigned algorithms,
                           int64_t dsp_limit, int64_t bram18, double deadline, uint64_t work,
                           bool *stopped, cm_error *err);

#endif
