/* The systolic-array overlay (DYNAMAP): one P_SA1 x P_SA2 array of 8-bit MAC units
 * reused by every layer, each convolution run by im2col, kn2row or Winograd with the
 * NS, WS or IS dataflow, and the algorithms chosen together so that the data-layout
 * transitions between neighbouring layers are paid for. The choice is a PBQP problem,
 * solved exactly on series-parallel cost graphs and heuristically elsewhere. */
#ifndef CNNMAP_OVERLAY_H
#define CNNMAP_OVERLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/board.h>
#include <cnnmap/error.h>
#include <cnnmap/graph.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a layer runs on the overlay. The first three are the convolution algorithms a
 * user may choose from; pooling runs on the pooling module and the remaining
 * element-wise layers (a residual add, say) stream through the accumulation buffer. */
typedef enum cm_overlay_algorithm {
    CM_OVERLAY_IM2COL,
    CM_OVERLAY_KN2ROW,
    CM_OVERLAY_WINOGRAD,
    CM_OVERLAY_POOL,
    CM_OVERLAY_ELTWISE,
    CM_OVERLAY_ALGORITHM_COUNT
} cm_overlay_algorithm;

#define CM_OVERLAY_CONV_ALGORITHMS 3 /* im2col, kn2row, winograd */
#define CM_OVERLAY_ALL_ALGORITHMS 0x7u

typedef enum cm_overlay_dataflow {
    CM_OVERLAY_NS, /* non-stationary */
    CM_OVERLAY_WS, /* weight-stationary */
    CM_OVERLAY_IS, /* input-stationary */
    CM_OVERLAY_NO_DATAFLOW /* a layer that does not use the array */
} cm_overlay_dataflow;

typedef struct cm_overlay_options {
    int64_t dsp_limit;   /* DSPs the array may use, one per PE; negative: the board's */
    unsigned algorithms; /* bit (1u << cm_overlay_algorithm) per allowed conv algorithm */
    int wino_m, wino_r;  /* Winograd F(m x m, r x r); DYNAMAP uses F(2x2, 3x3) */
    int array[2];        /* a fixed P_SA1 x P_SA2, or 0 x 0 to size it by Algorithm 1 */
    double time_limit_s; /* wall-clock budget of the array sizing; 0: the default */
} cm_overlay_options;

/* Sizing takes milliseconds on the papers' networks; the limit only guards networks of
 * thousands of distinct layers. */
#define CM_OVERLAY_DEFAULT_TIME_LIMIT_S 10.0

typedef struct cm_overlay_layer {
    int layer; /* index into the graph's layers */
    cm_overlay_algorithm algorithm;
    cm_overlay_dataflow dataflow;
    uint64_t cycles;     /* compute cycles */
    double compute_s;
    double transition_s; /* loads into it, stores out of it */
    double utilisation;  /* eq. 14; 0 for layers off the array; above 1 with Winograd */
} cm_overlay_layer;

/* The latency of each single-algorithm mapping and of the greedy per-layer choice, all
 * on the chosen array; a baseline is absent when its algorithm was not allowed. */
typedef struct cm_overlay_baseline {
    bool present;
    double latency_s;
} cm_overlay_baseline;

#define CM_OVERLAY_REASON_MAX 384

typedef struct cm_overlay_result {
    int array[2]; /* P_SA1, P_SA2 */
    double clock_mhz;
    double latency_s;
    double gops;  /* 2 x MACs of the conv and fc layers / latency */
    bool optimal; /* proven optimal: the cost graph reduced completely */
    char not_optimal_reason[CM_OVERLAY_REASON_MAX];
    int n_layers; /* rows: the layers that cost time, in graph order */
    cm_overlay_layer *layers;
    cm_overlay_baseline baselines[CM_OVERLAY_CONV_ALGORITHMS]; /* by algorithm */
    cm_overlay_baseline greedy;
    int cost_graph_vertices;
    int cost_graph_edges;
    double time_limit_s;
    bool stopped_early;  /* the time limit ended the array sizing: the array is the best
                          * of the shapes tried by then */
} cm_overlay_result;

/* All conv algorithms, Winograd F(2x2, 3x3), the board's DSPs, Algorithm 1 sizing
 * within CM_OVERLAY_DEFAULT_TIME_LIMIT_S.
 * The off-chip data is 8-bit and moves at the board's bandwidth; the clock is the board's. */
void cm_overlay_options_default(cm_overlay_options *opt);

/* Parses "im2col,kn2row,winograd" (any non-empty subset) into a bit mask. */
cm_status cm_overlay_parse_algorithms(const char *list, unsigned *mask, cm_error *err);

/* Sizes the array, maps every layer and evaluates the baselines. Fails with
 * CM_EINFEASIBLE (naming the resource) when no array fits the DSP limit or the board's
 * BRAM, or when a convolution can use none of the allowed algorithms. */
cm_status cm_overlay_map(const cm_graph *g, const cm_board *board, const cm_overlay_options *opt,
                         cm_overlay_result **out, cm_error *err);

void cm_overlay_result_free(cm_overlay_result *r);

const char *cm_overlay_algorithm_name(cm_overlay_algorithm a); /* "im2col", ... */
const char *cm_overlay_dataflow_name(cm_overlay_dataflow d);   /* "NS", ... or NULL */

#ifdef __cplusplus
}
#endif
#endif
