/* fpgaConvNet's latency-driven flow (fpgaConvNet latency paper, section III): instead of
 * one bitstream per part of the network, one flexible reference architecture executes
 * every subgraph in turn, reloading only the weights between them. The network is cut
 * into subgraphs before convolutional (and dense) layers (weights reloading), a layer
 * alone in its subgraph may be split over its input feature maps (f_in passes and a
 * final accumulation pass), the reference architecture is derived from the subgraphs'
 * layer patterns, and the latency of eq. 7 is minimised under the board's resources.
 *
 * Every subgraph is a synchronous-dataflow graph on the reference architecture: its
 * topology matrix Gamma = S (.) C (.) R (arcs x SDF nodes), its workload W aligned onto
 * the reference (Alg. 1) and II = W / Gamma elementwise; it runs in
 * (D + II_max * B) / clock (eq. 4, with the first input's interval counted in D), and
 * the design takes the sum over subgraphs plus the weight transfers. */
#ifndef CNNMAP_LATENCY_H
#define CNNMAP_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cnnmap/board.h>
#include <cnnmap/error.h>
#include <cnnmap/graph.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cm_latency_search {
    CM_LATENCY_SEARCH_RULE,   /* the deterministic search below (search.c) */
    CM_LATENCY_SEARCH_MINIMAL, /* no search: every weight layer its own subgraph, every
                                * folding 1 and the smallest banks that fit (--optimiser
                                * none) */
    CM_LATENCY_SEARCH_EXACT    /* the lowest latency of the space with a proven lower bound
                                * (--optimiser exact) */
} cm_latency_search;

typedef struct cm_latency_options {
    double clock_mhz;        /* 0: the board's clock */
    double bandwidth_gbps;   /* off-chip bandwidth, 0: the board's */
    int batch;               /* inputs per run (1 for the latency objective) */
    int word_bits;           /* fixed-point width of weights and activations (16: Q8.8) */
    bool weights_reloading;  /* false: the whole network is one subgraph */
    bool input_folding;      /* allow f_in > 1 */
    int exhaustive_cuts;     /* enumerate every cut vector up to 2^this; beyond, hill-climb */
    cm_latency_search search;
    double time_limit_s;     /* > 0: the search returns its best point after this long */
    double exact_gap;        /* exact search: stops once latency <= bound * (1 + this);
                              * 0.01 by default, 0 proves the optimum */
    int threads;             /* threads the rule search's cut vectors are searched on
                              * (1 by default; the design is the same on any number) */
} cm_latency_options;

/* Clock and bandwidth from the board, batch 1, 16 bits, reloading and folding on, 8,
 * exact gap 1%. */
void cm_latency_options_init(cm_latency_options *o);

typedef enum cm_latency_block_kind {
    CM_LATENCY_CONV,  /* convolution (and dense) units: sliding window, fork, bank, accum */
    CM_LATENCY_POOL,  /* max or average pooling, with its sliding window */
    CM_LATENCY_RELU,  /* any pointwise layer */
    CM_LATENCY_ACCUM, /* the final accumulation of input feature-map folding */
    CM_LATENCY_ELTWISE /* a merge (add or multiply of two maps, concatenation): one operand
                        * streams from the block before it, the others from off-chip memory */
} cm_latency_block_kind;

/* One block of the reference architecture. */
typedef struct cm_latency_block {
    cm_latency_block_kind kind;
    char name[24];      /* "conv0", "pool1", ... */
    int coarse;         /* conv: coarse convolution units N; others: parallel streams */
    int macc;           /* conv: MACC units per coarse unit; 1 otherwise */
    int kernel[2];      /* the largest window scheduled on it (conv, pool) */
    int bank_bram;      /* conv: BRAM18 per weight bank (one bank per MACC unit) */
    int n_layers;       /* layers (or passes) scheduled on it over all subgraphs */
    cm_resources res;
} cm_latency_block;

/* One subgraph of the schedule, with its SDF matrices on the reference architecture
 * (row-major, n_arcs x n_nodes of the design). The memory node's two entries share one
 * port, so its interval is their sum; every other node's is its largest entry. */
typedef struct cm_latency_subgraph {
    int first_layer, last_layer; /* the first and last graph layers it executes */
    int n_layers;
    int *layers;                /* the graph layers it executes, in order (hardware layers
                                 * only: not the flatten, reshape or softmax between them);
                                 * not a range of the graph's order once branches interleave */
    int fold, folds;            /* pass `fold` of `folds` (f_in); fold == folds: accumulation */
    int64_t weight_words;       /* weights (and biases) loaded before it runs */
    uint64_t macs;
    double ii_max_cycles, depth_cycles;
    double exec_s, weights_s;
    int *column;   /* per scheduled SDF node of the subgraph: its reference column */
    int *shift;    /* Alg. 1's right shift of each of those columns */
    int n_columns;
    double *workload, *ii;      /* aligned W and II = W / Gamma, n_arcs x n_nodes */
} cm_latency_subgraph;

typedef struct cm_latency_design {
    int n_blocks;
    cm_latency_block *blocks;
    int n_nodes, n_arcs;        /* SDF nodes (memory + blocks' nodes) and arcs */
    char (*node_names)[32];     /* per SDF node */
    int *node_block;            /* per SDF node: its block, -1 for memory */
    double *gamma;              /* the reference's topology matrix, n_arcs x n_nodes: arc a
                                 * runs from node a to node a + 1 (the last back to memory);
                                 * production positive, consumption negative, words/cycle */
    int n_subgraphs;
    cm_latency_subgraph *subgraphs;
    int *fin;                   /* per graph layer: input feature-map folding (1 = none) */
    int n_layers;
    bool feasible;
    double latency_s, exec_s, weights_s;
    double gops, peak_gops;
    cm_resources resources;
    double clock_mhz, bandwidth_gbps;
    int batch;
    uint64_t evaluations;       /* design points costed by the search */
    double time_s;              /* search time */
    bool stopped_early;         /* the time limit or the work budget ended the search
                                 * before its own criterion */
    bool stopped_by_budget;     /* it was the budget (the same point on any machine) */
    bool has_lower_bound;       /* exact search: no point of the space is below lower_bound_s */
    double lower_bound_s;
    bool optimal;               /* exact search proved latency_s optimal (within its gap) */
} cm_latency_design;

/* Searches cuts, f_in and foldings for the lowest latency (eq. 7) that fits the board.
 * CM_EINPUT when the graph is not a chain of layers the flow supports; CM_EINFEASIBLE
 * when nothing fits (out is then still filled with the best attempt, feasible false). */
cm_status cm_latency_optimise(const cm_graph *g, const cm_board *board,
                              const cm_latency_options *o, cm_latency_design *out, cm_error *err);

/* Costs one given design point, for tests and for inspecting a hand-made point:
 * cut[w] (w >= 1) cuts before the w-th weight (conv or dense) layer, and the foldings
 * per block of the reference architecture those cuts give, in its order (NULL coarse:
 * one unit per conv block and the streams rule for the others; NULL macc: 1; NULL
 * bank_bram: banks that hold every layer unfolded). f_in follows from the banks: the
 * smallest divisor of N_in whose share of the weights fits. */
typedef struct cm_latency_point {
    const bool *cut;        /* one entry per weight layer, cut[0] ignored */
    const int *coarse, *macc, *bank_bram; /* one entry per block, or NULL */
} cm_latency_point;

cm_status cm_latency_evaluate(const cm_graph *g, const cm_board *board,
                              const cm_latency_options *o, const cm_latency_point *p,
                              cm_latency_design *out, cm_error *err);

void cm_latency_design_free(cm_latency_design *d);

/* ---- fpgaConvNet on the latency objective: partitions or weights reloading ---- */

struct cm_design;
struct cm_design_run;

/* The latency-driven design beside an optimised partitioned design, and which of the
 * two has the lower latency (the partitioned one when it fits and ties). */
typedef struct cm_latency_choice {
    cm_status status;        /* of the latency-driven flow (CM_EINFEASIBLE: none fits) */
    cm_error err;            /* its message when status is not CM_OK */
    cm_latency_design ld;
    double partitioned_s;    /* the partitioned design's latency; INFINITY when it does not fit */
    bool chose_latency;
    /* A bound over the union of both spaces: set when both searches proved one (exact);
     * lower_bound_s <= the chosen latency. */
    bool has_lower_bound;
    double lower_bound_s;
} cm_latency_choice;

/* Runs the latency-driven flow for the design's graph, board and clock and compares.
 * The run that optimised the partitioned design sets the flow's search (optimiser none:
 * the minimal point; exact: the exact search; any other: the rule search) and its time: what is left of the
 * run's limit (or of rule's 60 s default). Never fails as a whole: the flow's failure
 * is recorded in c. */
void cm_latency_choose(const struct cm_design *partitioned, const struct cm_design_run *run,
                       cm_latency_choice *c);
void cm_latency_choice_free(cm_latency_choice *c);

const char *cm_latency_block_kind_name(cm_latency_block_kind k); /* "Convolution", ... */
/* Whether subgraph s executes graph layer `layer`. */
bool cm_latency_subgraph_runs(const cm_latency_subgraph *s, int layer);

/* A subgraph's input-folding pass for reports: "-" (not folded), "2/4" (pass 2 of 4) or
 * "accumulation" (the final sum of the passes). */
void cm_latency_pass_name(const cm_latency_subgraph *x, char *buf, size_t size);

/* ---- latency-driven design files (src/latency/design_io.c) ----
 * A latency-driven design is written as its point (the cuts, by the name of the weight
 * layer each comes before, and per block of the reference architecture those cuts give:
 * name, kind, coarse, macc, bank_bram18), its options, the run that found it and its
 * figures for human readers. Reading re-derives every figure with cm_latency_evaluate
 * from the point, without searching: blocks other than the cuts give are CM_EINPUT,
 * as are values out of range; a point that breaks a constraint (the board's resources,
 * a bank too small for a layer's weights) is CM_EINFEASIBLE naming the block or
 * resource. A hand-edited file is checked, never trusted. */

typedef struct cm_latency_file {
    char *model_path;   /* as recorded: absolute when optimise wrote it */
    char *board_ref;    /* a built-in board's name or a board file's absolute path */
    cm_graph *graph;
    cm_board board;
    cm_latency_options options; /* search: the run's (rule, minimal or exact) */
    cm_latency_design design;   /* evaluations, time_s, stopped_early and the lower bound
                                 * are the file's records of the run */
} cm_latency_file;

/* Writes d (costed for g on board with o) to path atomically. model_path and board_ref
 * are recorded as the streaming design file records them. */
cm_status cm_latency_design_save(const char *path, const char *model_path, const char *board_ref,
                                 const cm_graph *g, const cm_latency_options *o,
                                 const cm_latency_design *d, cm_error *err);
cm_status cm_latency_design_load(const char *path, cm_latency_file *out, cm_error *err);
void cm_latency_file_free(cm_latency_file *f);
/* The file's "format" is a latency-driven design's. */
bool cm_latency_is_design_file(const char *path);

/* The design a choice chose, with what `evaluate` needs to print the same comparison
 * without searching: a latency-driven design file holding the partitioned design too,
 * or the partitioned design's streaming design file with the latency-driven
 * alternative's point, figures and the reason it was not chosen ("latency_driven", an
 * optional key cm_design_load ignores). */
cm_status cm_latency_choice_save(const struct cm_design *partitioned,
                                 const struct cm_design_run *run, const cm_latency_choice *c,
                                 const char *path, cm_error *err);
/* A latency-driven design file, or a streaming design file of fpgaConvNet on the
 * latency objective with weights reloading: the files cm_latency_choice_load reads. */
bool cm_latency_is_choice_file(const char *path);
/* Reads either back: the partitioned design as cm_design_load does and the
 * latency-driven one from its point. A streaming file without the alternative (written
 * before it was recorded) gives a choice with status CM_EINPUT saying so. */
cm_status cm_latency_choice_load(const char *path, struct cm_design **partitioned,
                                 struct cm_design_run *run, cm_latency_choice *c, cm_error *err);

/* The Markdown report of a latency-driven design (export --format report-md): options,
 * figures, the reference architecture and the schedule of subgraphs. */
cm_status cm_latency_export_report_md(const cm_latency_file *f, const char *path, cm_error *err);
/* fpgaConvNet's configuration of the design (export --format fpgaconvnet): the reference
 * architecture's layers with their coarse and fine factors, and the schedule of
 * subgraphs that reuse it, each with the layers it runs and its input folding. */
cm_status cm_latency_export_fpgaconvnet(const cm_latency_file *f, const char *path, cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
