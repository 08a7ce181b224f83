/* The overlay's latency model (DYNAMAP sections 3 and 5.1): GEMM cycles per dataflow
 * (eq. 9), a layer's compute cycles per algorithm (eqs. 10-12), the pooling module,
 * the data layouts the algorithms load, and the load/store costs between them
 * (Table 2 with the burst-length waste of eq. 13). */
#ifndef CM_OVERLAY_OV_MODEL_H
#define CM_OVERLAY_OV_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/graph.h>
#include <cnnmap/overlay.h>

/* One DDR4 burst: BL8 on a 64-bit channel. */
#define CM_OV_BURST_BYTES 64

/* The fixed parameters every cost depends on. Elements are 8-bit: one byte each. */
typedef struct cm_ov_array {
    int p1, p2;          /* P_SA1 x P_SA2 */
    double freq_hz;
    double bw_bytes_s;   /* off-chip bandwidth */
    int burst_bytes;     /* BL of eq. 13 */
    int wino_m, wino_r;
    int64_t bram18, uram; /* the board's on-chip RAM blocks, for weights beside the
                           * array's buffers (ov_memory.h); 0 and 0: none */
} cm_ov_array;

/* GEMM of an a x b input by a b x c weight matrix (eq. 9), in cycles, with the one-time
 * initialisation I_SA included. */
uint64_t cm_ov_gemm_cycles(const cm_ov_array *arr, cm_overlay_dataflow df, int64_t a, int64_t b,
                           int64_t c);

/* I_SA: filling and draining the array once, P_SA1 + P_SA2 cycles. */
uint64_t cm_ov_init_cycles(const cm_ov_array *arr);

/* Whether a conv or fc layer can use the algorithm: Winograd needs a square kernel of
 * at least 2 x 2, stride 1, no dilation and no groups. */
bool cm_ov_applicable(const cm_ov_array *arr, const cm_layer *l, cm_overlay_algorithm a);

/* A conv or fc layer's compute cycles under the algorithm with its best dataflow
 * (eqs. 10-12 and Algorithm 1 lines 7-9); 0 when not applicable. */
uint64_t cm_ov_layer_cycles(const cm_ov_array *arr, const cm_layer *l, cm_overlay_algorithm a,
                            cm_overlay_dataflow *best);

/* The same under the given dataflow (NS, WS or IS) instead of the fastest; 0 when not
 * applicable. */
uint64_t cm_ov_layer_cycles_as(const cm_ov_array *arr, const cm_layer *l, cm_overlay_algorithm a,
                               cm_overlay_dataflow df);

/* The largest GEMM dimension (rows, inner or columns) any algorithm gives a conv or fc
 * layer: an array side beyond it only adds fill cycles (I_SA) to that layer. */
int64_t cm_ov_gemm_extent(const cm_layer *l);

/* Winograd's linear-transform overhead LT of eq. 12 for one of the (m+r-1)^2 GEMMs:
 * the part of the transforms the GEMM does not hide, Cin + Cout cycles. */
uint64_t cm_ov_winograd_lt(const cm_ov_array *arr, int64_t tiles, int64_t cin, int64_t cout);

/* Rounds of F(m, r) a K1 x K2 kernel needs: ceil(K1/r) x ceil(K2/r). */
int64_t cm_ov_winograd_rounds(const cm_ov_array *arr, const cm_layer *l);

/* Output tiles of F(m, r): ceil(O1/m) x ceil(O2/m). */
int64_t cm_ov_winograd_tiles(const cm_ov_array *arr, int64_t o1, int64_t o2);

/* The pooling module (and, at the same rate, element-wise layers): P_SA1 pooling units,
 * one input element per unit per cycle. */
uint64_t cm_ov_stream_cycles(const cm_ov_array *arr, cm_shape s);

/* A layout data sits in off-chip memory: the 3-D tensor that kn2row and the pooling
 * module read and im2col and kn2row write, the Toeplitz matrix im2col reads, the tiles
 * Winograd reads. Toeplitz and Winograd layouts belong to the reading layer's geometry. */
typedef enum cm_ov_layout_kind {
    CM_OV_TENSOR,
    CM_OV_TOEPLITZ,
    CM_OV_WINOGRAD
} cm_ov_layout_kind;

typedef struct cm_ov_layout {
    cm_ov_layout_kind kind;
    int kernel[2], stride[2], pad[4], dilation[2];
    int64_t out_h, out_w; /* the reading layer's output, for the Toeplitz and tile counts */
} cm_ov_layout;

/* The layout the layer reads under the algorithm. A 1x1, stride-1, unpadded Toeplitz
 * matrix is the tensor itself and is returned as such. */
cm_ov_layout cm_ov_input_layout(const cm_layer *l, cm_overlay_algorithm a);

bool cm_ov_layout_equal(const cm_ov_layout *x, const cm_ov_layout *y);

/* Elements of data of shape s (c channels) held in the layout. */
double cm_ov_layout_elements(const cm_ov_array *arr, const cm_ov_layout *lay, cm_shape s);

/* eq. 13: the bandwidth left when each address step moves `channels` bytes. */
double cm_ov_burst_bandwidth(const cm_ov_array *arr, int64_t channels);

/* Storing data of shape s, computed by algorithm a, into layout `to` (Table 2, with
 * layer i+1's geometry in the layout). */
double cm_ov_store_s(const cm_ov_array *arr, cm_overlay_algorithm a, const cm_ov_layout *to,
                     cm_shape s);

/* Loading data of shape s stored in layout `from` for a layer that reads layout `want`:
 * a stream when they are equal; converted on the load side (address by address, so
 * with eq. 13's burst waste) from a 3-D tensor; impossible (INFINITY) otherwise. */
double cm_ov_load_s(const cm_ov_array *arr, const cm_ov_layout *from, const cm_ov_layout *want,
                    cm_shape s);

#endif
