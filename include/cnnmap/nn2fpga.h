/* The nn2FPGA backend: a static dataflow accelerator for quantised CNNs in which every
 * convolution and pooling layer is a computation task fed by a window-buffer task,
 * sized by a two-phase binary integer program (nn2FPGA thesis, chapters 3 and 4).
 *
 * Phase 1 picks one (ow_par, och_par, ich_par) configuration per layer so that the
 * pipeline period S (the latency of the slowest task, eqs. 4.28-4.33) is minimal under
 * the board's DSPs and memory banks; phase 2 keeps S and minimises the resources of
 * the layers that are not critical. Residual blocks can be rewritten by temporal reuse
 * and loop merge (section 3.6.4), which shrink the skip-connection buffers. */
#ifndef CNNMAP_NN2FPGA_H
#define CNNMAP_NN2FPGA_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/board.h>
#include <cnnmap/error.h>
#include <cnnmap/graph.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The time limit of an optimisation when the options give none (time_limit_s 0): only a
 * safety cap. Every GLPK program stops after a budget of 5,000 branch-and-bound nodes, and
 * the bisection's probes after 5,000 together (n2_bip.c), which ends them alike on any
 * machine and far sooner on the thesis' models. */
#define CM_NN2FPGA_DEFAULT_TIME_LIMIT_S 600.0

typedef enum cm_nn2fpga_solver {
    CM_NN2FPGA_BIP,   /* phase 1 (min S) as a bisection over the candidate periods, one
                       * program per probe; phase 2 (min resources at that S) */
    CM_NN2FPGA_EXACT, /* phase 1 as the single program of eqs. 4.28-4.33 (S a variable)
                       * over the non-dominated configurations; then phase 2 */
    CM_NN2FPGA_NONE   /* every unroll factor 1: the resource-minimal design */
} cm_nn2fpga_solver;

typedef struct cm_nn2fpga_options {
    cm_nn2fpga_solver solver;
    int default_bits;    /* bit width of weights and activations the model leaves as float */
    bool temporal_reuse; /* skip connections without downsampling (fig. 3.8a) */
    bool loop_merge;     /* downsampling convolution fused into the main branch (fig. 3.8b) */
    double clock_mhz;    /* 0: the board's clock */
    int batch;           /* frames per run for latency_s (>= 1) */
    /* The whole optimisation (G, enumeration, every integer program), which returns
     * within it plus 10 % with the best design found, stopped_early; 0:
     * CM_NN2FPGA_DEFAULT_TIME_LIMIT_S. Each GLPK program gets the time left (phase 1
     * until 80 % of it, phase 2 the rest) as its limit. */
    double time_limit_s;
} cm_nn2fpga_options;

/* Defaults: BIP, 8 bits, both residual optimisations on, the board clock, batch 1. */
void cm_nn2fpga_options_init(cm_nn2fpga_options *o);

typedef enum cm_nn2fpga_kind {
    CM_NN2FPGA_CONV,        /* standard or grouped convolution, or fully connected layer */
    CM_NN2FPGA_DWCONV,      /* depthwise convolution: och = 1 per channel (section 3.5.1) */
    CM_NN2FPGA_POOL,        /* windowed pooling: no weights, no DSPs */
    CM_NN2FPGA_GLOBAL_POOL  /* pooling over the whole map: accumulators, no window buffer */
} cm_nn2fpga_kind;

/* One layer of G (a computation task and its window-buffer task) and its chosen
 * configuration with the figures that configuration costs. */
typedef struct cm_nn2fpga_layer {
    char *name;         /* the graph layer's name; "A+B" when loop merge fused B into A */
    cm_nn2fpga_kind kind;
    int layer;          /* graph layer index */
    int merged_layer;   /* graph index of the fused downsampling convolution, or -1 */
    int64_t ich, ih, iw, och, oh, ow, fh, fw;
    /* channel groups of a conv task: each group's och / groups filters read only its
     * ich / groups input channels (ResNeXt, RegNet); 1 for every other task. The unroll
     * factors divide a group's channels: och_par of och / groups, ich_par of ich / groups */
    int64_t groups;
    int64_t merged_fh, merged_fw; /* kernel of the fused convolution (0 when none) */
    int weight_bits, act_bits;
    int pack;                     /* multiplications per DSP (section 3.5.2) */
    int64_t window_activations;   /* B_i of eq. 3.5 */
    int64_t macs;                 /* eq. 4.6, fused convolution included */

    int ow_par, och_par, ich_par;
    bool weights_in_uram;
    int64_t lc;           /* computation latency, eq. 4.8 (cycles) */
    int64_t lw;           /* window-buffer latency, eq. 4.9 (cycles) */
    int64_t dsp;          /* eq. 4.10 with packing of products that share an operand */
    int64_t bram_weights; /* BRAM18 banks of the weight memory */
    int64_t uram_weights; /* URAM banks of the weight memory (when weights_in_uram) */
    int64_t bram_window;  /* BRAM18 banks of the partitioned window buffer */

    int configs_enumerated; /* divisor triples that fit the board on their own */
    int configs_kept;       /* after removing dominated ones: the BIP variables */
} cm_nn2fpga_layer;

/* The on-chip activation storage of one skip connection (thesis Table 5.4). */
typedef struct cm_nn2fpga_skip {
    char *name;              /* the residual add */
    bool downsample;         /* the short branch holds a convolution */
    bool optimised;          /* temporal reuse or loop merge applied */
    int bits;                /* activation width */
    int64_t channels;
    int64_t activations_before, activations_after;
    int64_t bram_before, bram_after; /* BRAM18 of the skip FIFO */
    /* The FIFO as the generated dataflow builds it for this design's unroll factors
     * (cm_hls_size_skips): a word holds a group of pixels and channels, and every window
     * on the main branch emits whole groups, so it can exceed the thesis's figure. 0
     * words when the model has no integer form: then the thesis's figures stand. */
    int64_t fifo_words, fifo_word_activations, fifo_bram;
} cm_nn2fpga_skip;

typedef struct cm_nn2fpga_phase {
    int variables, constraints;
    int programs;     /* integer programs solved (bip's phase 1 bisects) */
    int settled;      /* bisection probes a bound or a fitting choice settled, no program */
    double time_s;
    bool optimal;     /* every program proven optimal by the solver */
    bool stopped_early; /* the time limit stopped a program or the bisection */
    double objective; /* S for phase 1, the normalised resource sum for phase 2 */
} cm_nn2fpga_phase;

typedef struct cm_nn2fpga_result {
    int n_layers;
    cm_nn2fpga_layer *layers;
    int n_skips;
    cm_nn2fpga_skip *skips;
    cm_nn2fpga_phase phases[2];

    int64_t period;          /* S after phase 2 (cycles) */
    /* The top function's ports: the input takes a pixel (all its channels) a cycle, the
     * output gives a value a cycle, so a frame holds the larger of the first task's
     * input pixels and the last task's output values, and S is never below it. */
    int64_t port_cycles;
    int64_t period_phase1;   /* S after phase 1: never lower than period */
    int64_t dsp_phase1, bram_phase1, uram_phase1;
    int64_t dsp, bram18, uram; /* totals: layers plus skip buffers */
    int64_t bram_skip;       /* the skip FIFOs: as built when skips_built, else bram_after */
    bool skips_built;
    int64_t latency_cycles;  /* batch frames through the pipeline */
    double clock_mhz;
    double fps;              /* steady state: clock / S */
    uint64_t macs;
    int batch;
    int variables_enumerated;
    bool bits_defaulted;     /* some conv or fc layer had no Quant annotation */
    bool optimal;
    bool stopped_early;      /* the time limit ended the search: the best design found,
                              * not proven optimal */
    double time_s;           /* enumeration and all programs */
} cm_nn2fpga_result;

/* Builds G from the graph (residual transformations included) with every layer at
 * unroll factors 1, and the skip-connection buffers. */
cm_status cm_nn2fpga_build(const cm_graph *g, const cm_nn2fpga_options *o, cm_nn2fpga_result *out,
                           cm_error *err);

/* Sets a layer's configuration and computes its latencies, DSPs and banks. Fails when a
 * factor does not divide its dimension (a group's channels for a grouped convolution), or
 * och_par != 1 for a depthwise or pooling layer. */
cm_status cm_nn2fpga_configure(cm_nn2fpga_layer *l, int ow_par, int och_par, int ich_par,
                               bool weights_in_uram, cm_error *err);

/* Builds G and solves for the board within o->time_limit_s. CM_EINFEASIBLE names the
 * resource that even the minimal design exceeds (decided by bounds, before any integer
 * program), or says that the time limit came before any feasible design. */
cm_status cm_nn2fpga_optimise(const cm_graph *g, const cm_board *board, const cm_nn2fpga_options *o,
                              cm_nn2fpga_result *out, cm_error *err);

void cm_nn2fpga_result_free(cm_nn2fpga_result *r);

const char *cm_nn2fpga_kind_name(cm_nn2fpga_kind k); /* "conv", "dwconv", "pool", "gpool" */
const char *cm_nn2fpga_solver_name(cm_nn2fpga_solver s); /* "bip", "exact", "none" */

/* ---- design files: the accelerator as data (written by `optimise -o`, read by
 * `evaluate` and `export`) ---- */

/* A depth the design file gives one stream of the generated top function ("fifo_depths",
 * written by `simulate --fifo-depths auto -o`): the HLS export uses it instead of the
 * depth it would generate, and the simulation runs the stream at it. */
typedef struct cm_nn2fpga_fifo {
    char *stream;  /* "s<k>", as the export names its streams */
    int64_t depth; /* words, 1 .. 2^31 */
} cm_nn2fpga_fifo;

/* An nn2FPGA design: the model and board it was made for, the options, and every layer's
 * chosen configuration with the figures it costs (`result`). */
typedef struct cm_nn2fpga_design {
    char *model_path;  /* as the file records it (create: the absolute path); a relative
                        * one is relative to the design file's folder */
    char *model_file;  /* model_path resolved to a path that opens (for loaders) */
    char *board_ref;   /* a built-in board name or a board file path (create: absolute) */
    cm_board board;
    cm_graph *graph;
    cm_nn2fpga_options options;
    bool latency_objective;
    cm_nn2fpga_result result;
    /* The model as integer tasks with this design's factors, kept from sizing the skip
     * FIFOs for the HLS export (NULL when the model has no integer form). */
    struct cm_hls_lowered *lowered;
    /* stream depths the file gives (none: the generated depths) */
    int n_fifo_depths;
    cm_nn2fpga_fifo *fifo_depths;
} cm_nn2fpga_design;

/* Optimises (cm_nn2fpga_optimise) and records where the model and board came from. */
cm_status cm_nn2fpga_design_create(const char *model_path, const char *board_ref,
                                   const cm_nn2fpga_options *o, bool latency_objective,
                                   cm_nn2fpga_design *out, cm_error *err);

/* Writes the design file ("format": "cnnmap-nn2fpga-design") through a temporary file
 * renamed into place. */
cm_status cm_nn2fpga_design_save(const cm_nn2fpga_design *d, const char *path, cm_error *err);

/* Reads a design file: loads its model and board, rebuilds G with the recorded options
 * and applies every layer's recorded unroll factors without searching. Malformed files,
 * unknown or missing layers are CM_EINPUT naming the file; factors that break a
 * constraint (a factor that does not divide its dimension, the board's DSPs, BRAM18 or
 * URAM) are CM_EINFEASIBLE naming the layer and the constraint. */
cm_status cm_nn2fpga_design_load(const char *path, cm_nn2fpga_design *out, cm_error *err);

/* True when the file at path is an nn2FPGA design file (its "format" says so). */
bool cm_nn2fpga_is_design_file(const char *path);

void cm_nn2fpga_design_free(cm_nn2fpga_design *d);

#define CM_NN2FPGA_WARNING_MAX 256

/* The remarks that change what the design's figures mean (printed, and the JSON's
 * "warnings"): layers without Quant annotations costed at the default bit width, a
 * search the time limit cut short. Writes up to cap texts; returns how many there are. */
int cm_nn2fpga_warnings(const cm_nn2fpga_design *d, char (*out)[CM_NN2FPGA_WARNING_MAX],
                        int cap);

#ifdef __cplusplus
}
#endif
#endif
