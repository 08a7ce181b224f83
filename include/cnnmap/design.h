/* A design: a network laid out on one backend's building blocks for one board. It
 * holds the HD-graph (SAMO section III-A: every layer becomes one or more hardware
 * nodes), each node's folding (channel-in, channel-out and kernel folding, SAMO
 * Table I), the cuts into partitions (one FPGA configuration each, eq. 1), and the
 * predicted latency, throughput, resources and bandwidth (eqs. 2-7) with the
 * constraints of eqs. 6-10.
 *
 * Evaluation is incremental: changing one node's folding re-costs that node (from a
 * per-node memo of its cost model) and updates its partition's aggregates only, so
 * optimisers can afford millions of design points per second. */
#ifndef CNNMAP_DESIGN_H
#define CNNMAP_DESIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cnnmap/backend.h>
#include <cnnmap/board.h>
#include <cnnmap/error.h>
#include <cnnmap/graph.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cm_objective { CM_OBJECTIVE_LATENCY, CM_OBJECTIVE_THROUGHPUT } cm_objective;

/* The fraction of each board resource a design may use, each in (0, 1]: headroom for
 * routing (--max-util), or the caps of a sweep. 0 stands for 1 (the whole resource), so
 * options that were zeroed rather than initialised cap nothing. */
typedef struct cm_util_caps {
    double dsp, bram18, uram, lut, ff;
} cm_util_caps;

/* The smallest fraction --max-util and design files take. */
#define CM_UTIL_MIN 0.001

/* Sets every fraction of caps to f. */
void cm_util_caps_set_all(cm_util_caps *caps, double f);
/* True when every fraction is 1 (or 0, which stands for 1). */
bool cm_util_caps_whole(const cm_util_caps *caps);
/* The resources a design may use on a board: each count times its fraction, rounded
 * down. */
void cm_util_caps_apply(const cm_util_caps *caps, const cm_resources *board, cm_resources *out);

typedef struct cm_design_options {
    cm_backend backend;
    cm_objective objective;
    int batch;                /* samples per run; the latency objective forces 1 */
    double clock_mhz;         /* 0: the board's clock */
    bool reconfiguration;     /* false: the whole network stays in one partition */
    bool weights_reloading;   /* fpgaConvNet, latency objective: also try the
                               * latency-driven flow (include/cnnmap/latency.h) */
    int default_weight_bits;  /* bit widths for layers without Quant annotations */
    int default_act_bits;     /* (FINN's costs depend on them; 0 = backend default) */
    cm_util_caps max_util;    /* share of the board a design may use (1: all of it) */
} cm_design_options;

/* Latency objective, batch 256 for throughput, board clock, reconfiguration allowed. */
void cm_design_options_init(cm_design_options *o);

typedef struct cm_design cm_design;

/* Builds the resource-minimal design (every folding 1, one partition). On success the
 * design takes ownership of `graph` (freed with the design); on failure the caller
 * keeps it. Layers the backend has no building block for are CM_EINPUT. */
cm_status cm_design_create(cm_graph *graph, const cm_board *board, const cm_design_options *o,
                           cm_design **out, cm_error *err);
void cm_design_free(cm_design *d);

/* Where the model and board came from, recorded in design files (not interpreted). */
cm_status cm_design_set_sources(cm_design *d, const char *model_path, const char *board_ref,
                                cm_error *err);
const char *cm_design_model_path(const cm_design *d);
const char *cm_design_board_ref(const cm_design *d);

const cm_graph *cm_design_graph(const cm_design *d);
const cm_board *cm_design_board(const cm_design *d);
const cm_design_options *cm_design_options_of(const cm_design *d);
/* The resources each partition may use: the board's, cut by the options' max_util
 * (feasibility, cm_design_check and every optimiser count against these). */
const cm_resources *cm_design_limits(const cm_design *d);
/* Sets other limits (each at most the board's; a search such as --target-fps moves them
 * between runs). Feasibility follows at once; the design itself is unchanged. */
void cm_design_set_limits(cm_design *d, const cm_resources *limits);

/* ---- nodes ---- */

int cm_design_node_count(const cm_design *d);
int cm_design_node_find(const cm_design *d, const char *name); /* -1 when absent */

typedef enum cm_fold { CM_FOLD_IN, CM_FOLD_OUT, CM_FOLD_KERNEL } cm_fold;

typedef struct cm_node_info {
    const char *name;       /* the backend's node name, unique in the design */
    const char *op;         /* the backend's building block ("Convolution", "MVAU", ...) */
    const char *layer;      /* the graph layer it implements */
    int layer_index;
    int partition;
    int channels_in, channels_out, kernel_size;
    int64_t size_in, size_out;          /* words per sample */
    int64_t fold_in, fold_out, fold_kernel;
    bool matching_intra, matching_inter, divisible_inter;
    double cycles;                      /* per sample */
    double pipeline_depth;
    cm_resources res;
    int n_pred, n_succ;
} cm_node_info;

void cm_design_node_info(const cm_design *d, int node, cm_node_info *out);
/* A node's three foldings and its cycles per sample: what searches read on their hot
 * path, without filling a whole cm_node_info. */
void cm_design_node_folding(const cm_design *d, int node, int64_t fold[3]);
double cm_design_node_cycles(const cm_design *d, int node);

/* The valid values of one folding variable of a node, ascending (channel factor,
 * eq. 8, and the backend's own rules). The array belongs to the design. */
const int64_t *cm_design_fold_values(const cm_design *d, int node, cm_fold which, int *count);

/* Sets a node's three foldings and re-costs it and its partition. Values outside the
 * valid lists are accepted (a hand-edited design) and reported by cm_design_check. */
void cm_design_set_folding(cm_design *d, int node, int64_t in, int64_t out, int64_t kernel);

/* Sets one folding variable and propagates the matching constraints (intra, eq. 9;
 * inter, eq. 10; divisibility) through neighbours, across branches and merges.
 * Returns false, changing nothing, when no consistent assignment exists through the
 * valid values. */
bool cm_design_set_fold_propagate(cm_design *d, int node, cm_fold which, int64_t value);

/* A partition's matching groups: the channel sides (a node's in or out folding) that
 * matching ties together within it, so that cm_design_set_fold_propagate, setting one
 * side of a group to a value, sets every side of it (FINN's residual blocks tie whole
 * stretches of a network). A group is rigid when no divisibility rule links it to a side
 * outside it and all its sides held one value when the groups were made: setting a side
 * of a rigid group to a value then sets exactly that group, or fails, changing nothing,
 * when the value is not one every side takes. Propagation keeps a rigid group rigid; a
 * cut, a merge or cm_design_set_folding may not. NULL on out-of-memory. */
typedef struct cm_fold_groups cm_fold_groups;
cm_fold_groups *cm_fold_groups_new(const cm_design *d, int p);
void cm_fold_groups_free(cm_fold_groups *g);
/* The group of a side of a node of the partition, and whether it is rigid. */
int cm_fold_groups_of(const cm_fold_groups *g, int node, cm_fold side, bool *rigid);
/* Whether every side of the group takes the value. */
bool cm_fold_groups_takes(const cm_fold_groups *g, int group, int64_t value);

/* A journal of folding changes, for searches that try a move and take it back: from
 * cm_design_journal_start on, the design records each node's folding before its first
 * change; cm_design_journal_undo puts those nodes back, in node order (only them, where
 * restoring a whole partition would cost its size), and ends the journal;
 * cm_design_journal_end ends it keeping the changes. False when out of memory (no
 * journal then: the caller must restore by its own means). */
bool cm_design_journal_start(cm_design *d);
void cm_design_journal_undo(cm_design *d);
void cm_design_journal_end(cm_design *d);

/* The predecessors / successors of a node (indices into the node list). */
const int *cm_design_node_preds(const cm_design *d, int node, int *count);
const int *cm_design_node_succs(const cm_design *d, int node, int *count);

/* ---- partitions (eq. 1): contiguous runs of nodes in topological order ---- */

int cm_design_partition_count(const cm_design *d);
int cm_design_partition_first(const cm_design *d, int p);
/* True when the backend allows a partition to end after this node. */
bool cm_design_can_cut_after(const cm_design *d, int node);
/* Cuts after `node` (CM_EUSAGE if not allowed or already a cut). */
cm_status cm_design_split(cm_design *d, int node, cm_error *err);
/* Joins partition p with p + 1. */
cm_status cm_design_merge(cm_design *d, int p, cm_error *err);
/* Cuts after every node where the backend allows it. */
void cm_design_split_all(cm_design *d);
/* Sets all partitions at once from the first node of each (ascending, from 0); a cut
 * the backend does not allow is accepted and reported by cm_design_check. */
cm_status cm_design_set_partitions(cm_design *d, const int *first, int count, cm_error *err);

typedef struct cm_partition_info {
    int first, last;           /* node range */
    double interval_cycles;    /* slowest node, per sample (eq. 2) */
    double depth_cycles;       /* pipeline depth where the backend models it */
    double time_s;             /* batch * interval + depth, at the clock */
    double bandwidth_gbps;     /* data in and out over the interval (eq. 7), GB/s */
    cm_resources res;          /* sum over nodes (eq. 6) */
    int slowest_node;
} cm_partition_info;

void cm_design_partition_info(const cm_design *d, int p, cm_partition_info *out);

/* The cost of a node at any folding (memoised), without changing the design. */
void cm_design_node_cost_at(const cm_design *d, int node, int64_t in, int64_t out, int64_t kernel,
                            double *cycles, double *pipeline_depth, cm_resources *res);

/* ---- saving and restoring a design point (for searches) ---- */

typedef struct cm_design_point cm_design_point;
/* A copy of every folding and cut; NULL on out-of-memory. */
cm_design_point *cm_design_point_new(const cm_design *d);
void cm_design_point_capture(const cm_design *d, cm_design_point *p);
/* Re-applies a captured point (only the nodes and partitions that differ). */
void cm_design_point_restore(cm_design *d, const cm_design_point *p);
/* The point's partitions: their count, and *first their first nodes (owned by p). */
int cm_design_point_partitions(const cm_design_point *p, const int **first);
void cm_design_point_free(cm_design_point *p);

/* ---- the whole design ---- */

typedef struct cm_design_summary {
    bool feasible;
    double latency_s;      /* whole batch, reconfigurations included (eqs. 3-4) */
    double latency_cycles; /* compute cycles of the whole batch, reconfiguration excluded */
    double throughput_fps; /* batch / latency_s */
    double gops;           /* 2 x MACs x batch / latency_s / 1e9 */
    int partitions;
    cm_resources resources; /* largest use of each resource over the partitions */
    double clock_mhz;
    int batch;
} cm_design_summary;

void cm_design_summarise(const cm_design *d, cm_design_summary *out);

/* The objective to minimise: latency_s (the throughput objective fixes the batch, so
 * minimising the batch latency maximises throughput, eq. 4). */
double cm_design_cost(const cm_design *d);
bool cm_design_feasible(const cm_design *d);
/* Times every partition's first frame afresh. A search's moves keep the figures up to
 * date by moving what a change only shifts, which agrees with a fresh timing to
 * rounding; after this the figures are the design's own, whatever moves led to it (so
 * a design written and read again reports the same). */
void cm_design_retime(cm_design *d);

/* Number of node-cost evaluations so far (memo hits included). */
uint64_t cm_design_evaluations(const cm_design *d);

typedef enum cm_constraint {
    CM_CONSTRAINT_RESOURCE,       /* eq. 6 */
    CM_CONSTRAINT_BANDWIDTH,      /* eq. 7 */
    CM_CONSTRAINT_CHANNEL_FACTOR, /* eq. 8 and the backend's valid values */
    CM_CONSTRAINT_INTRA_MATCHING, /* eq. 9 */
    CM_CONSTRAINT_INTER_MATCHING, /* eq. 10 */
    CM_CONSTRAINT_DIVISIBLE,      /* folding across an edge must divide */
    CM_CONSTRAINT_CUT             /* a partition ends where the backend cannot cut */
} cm_constraint;

const char *cm_constraint_name(cm_constraint c);

typedef struct cm_violation {
    cm_constraint constraint;
    int node;      /* -1 for a partition-level constraint */
    int partition;
    char message[256];
} cm_violation;

/* A cheap measure of how far a design is from fitting, for searches: nodes and edges
 * breaking a folding rule, partitions over the board's resources or bandwidth, and
 * cuts the backend does not allow. 0 exactly when the design is feasible. */
int cm_design_violation_count(const cm_design *d);

/* Lists the violated constraints (at most `cap` written); returns the total. */
int cm_design_check(const cm_design *d, cm_violation *out, int cap);

#ifdef __cplusplus
}
#endif
#endif
