/* The overlay's weight traffic: how many bytes of weights each layer reads from DRAM,
 * whether the whole network's weights fit on chip beside the array's buffers (and so
 * stay resident for the run), and the time the weights take over the bandwidth.
 *
 * A layer on the array streams its weights into the double-buffered kernel buffer
 * while the array computes on the block before (section 3.2: the next weight block is
 * pre-fetched while the current pass runs), so its time is max(compute, weights over
 * the bandwidth). Activations are not part of this: they are the loads and stores of
 * Table 2, which the cost graph's edges already add in series with the compute (section
 * 5.1.2: a layer fetches its input, computes, stores its output), so counting them here
 * too would count every activation byte twice. The latency is therefore at least the
 * compute and at least all the off-chip bytes over the bandwidth. */
#ifndef CM_OVERLAY_OV_MEMORY_H
#define CM_OVERLAY_OV_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/graph.h>

#include "overlay/ov_model.h"

/* 8-bit data in on-chip RAM, without the parity bits: a BRAM18 is 2K x 9 bits and holds
 * 2048 bytes; a URAM is 4K x 72 bits and holds 8 bytes a word, 32768 bytes. */
#define CM_OV_BRAM18_BYTES 2048
#define CM_OV_URAM_BYTES 32768

/* Bytes of weights a layer reads: its params (kernel and bias, one byte each) for a
 * conv or fc layer, which the overlay loads untransformed whatever the algorithm
 * (Winograd transforms the kernel on chip, section 3.1); 0 for any other layer. */
uint64_t cm_ov_weight_bytes(const cm_layer *l);

/* The weights of every layer of g. */
uint64_t cm_ov_total_weight_bytes(const cm_graph *g);

/* On-chip bytes left for weights: the board's BRAM18 after the array's buffers and
 * all its URAM (0 when the buffers take everything). */
int64_t cm_ov_free_onchip_bytes(const cm_ov_array *arr);

/* Whether the weights stay on chip for the whole run: all of them fit in the memory
 * cm_ov_free_onchip_bytes leaves. They are then loaded once, before the first image,
 * and no layer reads weights from DRAM. Otherwise every layer streams its own. */
bool cm_ov_weights_resident(const cm_ov_array *arr, const cm_graph *g);

/* Seconds a layer's weights take over the bandwidth; 0 when they are resident. */
double cm_ov_weight_s(const cm_ov_array *arr, const cm_layer *l, bool resident);

#endif
