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
    double time_limit_s; /* wall-clock cap of the array sizing; 0: the default */
    uint64_t sizing_work; /* layer costings the sizing may spend; 0: CM_OVERLAY_SIZING_WORK */
} cm_overlay_options;

/* The array sizing stops by its budget of CM_OVERLAY_SIZING_WORK layer costings (shapes
 * tried times distinct layers), so the same inputs give the same array on any machine;
 * the papers' networks take milliseconds and under a million costings. The time limit is
 * only a safety cap far beyond what the budget takes (a few seconds); --time-limit
 * lowers it. */
#define CM_OVERLAY_DEFAULT_TIME_LIMIT_S 600.0
#define CM_OVERLAY_SIZING_WORK 20000000ull

typedef struct cm_overlay_layer {
    int layer; /* index into the graph's layers */
    cm_overlay_algorithm algorithm;
    cm_overlay_dataflow dataflow;
    uint64_t cycles;     /* compute cycles */
    double compute_s;
    double memory_s;     /* its weights read from DRAM over the bandwidth; 0 when the
                          * weights are resident. The layer takes max(compute_s,
                          * memory_s): the kernel buffer is double-buffered */
    double transition_s; /* loads into it, stores out of it: its activations' traffic */
    double utilisation;  /* eq. 14; 0 for layers off the array; above 1 with Winograd */
} cm_overlay_layer;

/* The latency of each single-algorithm mapping and of the greedy per-layer choice, all
 * on the chosen array; a baseline is absent when its algorithm was not allowed. */
typedef struct cm_overlay_baseline {
    bool present;
    double latency_s;
} cm_overlay_baseline;

/* Where data waits off-chip between layers, and how it is laid out there: the cost
 * graph's format vertices (section 5.1). A graph input (the host writes it), the store
 * after a layer that several layers read, and a concatenation (its producers write
 * slices of one buffer) each hold their data in one layout for all their readers. */
typedef enum cm_overlay_vertex {
    CM_OVERLAY_INPUT_VERTEX,
    CM_OVERLAY_STORE_VERTEX,
    CM_OVERLAY_CONCAT_VERTEX
} cm_overlay_vertex;

typedef enum cm_overlay_layout {
    CM_OVERLAY_TENSOR,   /* the 3-D tensor, which every reader can convert on load */
    CM_OVERLAY_TOEPLITZ, /* the Toeplitz matrix im2col reads */
    CM_OVERLAY_WINOGRAD_TILES
} cm_overlay_layout;

typedef struct cm_overlay_format {
    cm_overlay_vertex vertex;
    int index;  /* the graph input; the layer whose output is stored; the concat layer */
    cm_overlay_layout layout;
    int reader; /* a conv layer that reads this Toeplitz or Winograd layout, which is
                 * shaped by that layer's kernel, stride, pads and output; -1: tensor */
} cm_overlay_format;

#define CM_OVERLAY_REASON_MAX 384

typedef struct cm_overlay_result {
    int array[2]; /* P_SA1, P_SA2 */
    double clock_mhz;
    double latency_s; /* the sum over the rows of max(compute_s, memory_s) + transition_s */
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
    int n_formats;       /* the layout each format vertex holds, in cost-graph order */
    cm_overlay_format *formats;
    int64_t dsp, bram18; /* the array's PEs (one DSP each) and its buffers' BRAM18 */
    uint64_t weight_bytes;  /* every conv and fc layer's weights, 8-bit */
    int64_t onchip_bytes;   /* the board's BRAM and URAM left beside the buffers */
    bool weights_resident;  /* weight_bytes <= onchip_bytes: the weights are loaded once,
                             * before the first image, and no layer reads them again */
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

/* Costs a given mapping without searching: on the array opt->array (which must be
 * set), each conv and fc layer under its row's algorithm and dataflow (rows[k].layer,
 * .algorithm, .dataflow; their figures are not read), pooling and element-wise layers
 * as pool and eltwise, and each format vertex holding its recorded layout. Missing,
 * repeated or foreign rows or formats are CM_EINPUT naming the layer; a mapping that
 * breaks a constraint is CM_EINFEASIBLE naming the layer or resource: an array beyond
 * the DSP limit, the board's DSPs or its BRAM, an algorithm that is not allowed or does
 * not apply to the layer, a dataflow on a layer off the array or none on one on it, a
 * layout no reader reads or a reader cannot load. The result has no baselines and is
 * not marked optimal: those belong to a search. */
cm_status cm_overlay_cost(const cm_graph *g, const cm_board *board, const cm_overlay_options *opt,
                          const cm_overlay_layer *rows, int n_rows, const cm_overlay_format *formats,
                          int n_formats, cm_overlay_result **out, cm_error *err);

void cm_overlay_result_free(cm_overlay_result *r);

const char *cm_overlay_algorithm_name(cm_overlay_algorithm a); /* "im2col", ... */
const char *cm_overlay_dataflow_name(cm_overlay_dataflow d);   /* "NS", ... or NULL */
const char *cm_overlay_vertex_name(cm_overlay_vertex v);       /* "input", "store", "concat" */
const char *cm_overlay_layout_name(cm_overlay_layout l);       /* "tensor", "toeplitz", "winograd" */

/* ---- design files: a mapping as data (written by `overlay -o`, read by `evaluate`
 * and `export`) ---- */

/* An overlay design: the model and board it was made for, the options, and the mapping
 * with the figures it costs (`result`). */
typedef struct cm_overlay_design {
    char *model_path; /* as the file records it (create: the absolute path); a relative
                       * one is relative to the design file's folder */
    char *model_file; /* model_path resolved to a path that opens */
    char *board_ref;  /* a built-in board name or a board file path (create: absolute) */
    cm_board board;
    cm_graph *graph;
    cm_overlay_options options; /* array: 0 x 0 unless the shape was forced */
    cm_overlay_result *result;
    double time_s; /* wall-clock time of the mapping (loaded: the recorded one) */
} cm_overlay_design;

/* Maps (cm_overlay_map) and records where the model and board came from. */
cm_status cm_overlay_design_create(const char *model_path, const char *board_ref,
                                   const cm_overlay_options *o, cm_overlay_design *out,
                                   cm_error *err);

/* Writes the design file ("format": "cnnmap-overlay-design") through a temporary file
 * renamed into place; nothing is written when its object cannot be built. */
cm_status cm_overlay_design_save(const cm_overlay_design *d, const char *path, cm_error *err);

/* Reads a design file: loads its model and board and costs the recorded array and
 * mapping with cm_overlay_cost, without searching. Malformed files, unknown or missing
 * layers, unknown algorithm names, wrong types and out-of-range values are CM_EINPUT
 * naming the file and the field; a mapping that breaks a constraint is CM_EINFEASIBLE
 * naming the file, the layer or resource and the constraint. The search's records
 * (optimal, baselines, time) are kept for printing; when the mapping costs another
 * latency than the one recorded, it is no longer called optimal. */
cm_status cm_overlay_design_load(const char *path, cm_overlay_design *out, cm_error *err);

/* True when the file at path is an overlay design file (its "format" says so). */
bool cm_overlay_is_design_file(const char *path);

void cm_overlay_design_free(cm_overlay_design *d);

/* Writes the design as a Markdown report: the array and its resources, the latency,
 * the baselines, every layer's algorithm, dataflow and times, the format vertices. */
cm_status cm_overlay_export_md(const cm_overlay_design *d, const char *path, cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
