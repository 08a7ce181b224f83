/* What cm_overlay_map (searching) and cm_overlay_cost (a given mapping) share: the
 * array from the options and the board, and the result filled in from a cost graph and
 * one option per vertex, so that a mapping costed either way gives the same figures. */
#ifndef CM_OVERLAY_OV_RESULT_H
#define CM_OVERLAY_OV_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/board.h>
#include <cnnmap/overlay.h>

#include "overlay/costgraph.h"

/* Checks the options and sets the array's clock, bandwidth, burst and Winograd
 * transform from the board and the options (not its sides); *limit is the DSP limit. */
cm_status cm_ov_array_setup(const cm_overlay_options *opt, const cm_board *b, int64_t *limit,
                            cm_ov_array *arr, cm_error *err);

/* The forced shape opt->array within the DSP limit and the board's BRAM (CM_EINFEASIBLE
 * naming the resource), written to arr. */
cm_status cm_ov_fixed_array(const cm_overlay_options *opt, const cm_board *b, int64_t limit,
                            cm_ov_array *arr, cm_error *err);

/* A result for the array, with the clock and the resources; NULL when out of memory. */
cm_overlay_result *cm_ov_result_new(const cm_ov_array *arr, const cm_board *b);

/* The latency, the rows of the layers, the format vertices' layouts and the cost
 * graph's size for option choice[n] at each vertex. */
cm_status cm_ov_fill_result(const cm_ov_costgraph *cg, const int *choice, cm_overlay_result *r,
                            cm_error *err);

/* The layout a format records: the tensor, or the Toeplitz or Winograd layout its
 * reader reads. False when the reader reads no such layout. */
bool cm_ov_format_layout(const cm_graph *g, const cm_overlay_format *f, cm_ov_layout *out);

#endif
