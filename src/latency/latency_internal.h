/* The inside of the latency-driven flow, shared by the files of src/latency: the
 * network as a chain of hardware layers (net.c), the subgraph groups and the reference
 * architecture derived from them by pattern matching (arch.c), the cost of one design
 * point on it (evaluate.c), the SDF matrices of the final design (sdf.c), the
 * search (search.c) and the exact search with its bounds (exact.c, exact_cut.c). */
#ifndef CM_LATENCY_INTERNAL_H
#define CM_LATENCY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/latency.h>

/* The number of block kinds (cm_latency_block_kind), for counting blocks per kind. */
#define CM_LAT_KINDS (CM_LATENCY_ELTWISE + 1)

/* One hardware layer of the chain. A dense layer is a convolution with a 1x1 window
 * over a 1x1 map of C*H*W channels (fpgaConvNet's InnerProduct has the same module
 * chain as its convolution), so it is a weight layer and a partition point too. */
typedef struct cm_lat_layer {
    int graph_index;
    cm_latency_block_kind kind;
    int nin, nout;            /* channels in and out */
    int rows, cols, rows_out, cols_out;
    int kernel[2], stride[2], pad[4];
    int groups;               /* a grouped convolution's groups (1 otherwise) */
    bool global;              /* a global pooling: a sum per channel, no window */
    /* Pointwise layers that buffer: a resize to rows_out x cols_out over a row buffer
     * (bilinear when interpolate), and a normalisation over each pixel's channels (layer
     * norm, L2 norm) over a pixel buffer, which a slice of the channels cannot do. */
    bool resize, interpolate, normalise;
    bool has_bias;
    int64_t weights, biases;  /* words */
    uint64_t macs;
    /* Branches. The net is the graph's hardware layers in topological order; a layer
     * reads its main operand from the layer before it, or from off-chip memory when
     * `starts` (its main producer is further back or a graph input), which begins a
     * subgraph. A merge's other operands (`side_words` a frame) come from off-chip
     * memory, and a layer whose output is read again further on (or is a graph output)
     * writes it there as well (`spills`): skip connections go through memory. */
    bool starts;
    bool spills;
    int64_t side_words;
} cm_lat_layer;

typedef struct cm_lat_net {
    int n;
    cm_lat_layer *l;
    int n_weight;
    int *weight_at;   /* net index of each weight layer */
    int n_graph_layers;
    int *at_graph;    /* per graph layer: its net index, -1 for a layer without hardware */
    uint64_t macs;
    bool buffers;     /* some layer resizes or normalises (cm_lat_layer) */
} cm_lat_net;

cm_status cm_lat_net_build(const cm_graph *g, cm_lat_net *net, cm_error *err);

/* The filters that share an input window: a group's (all of them when not grouped). A
 * conv block's N units take N of them at a time; in a grouped convolution the units
 * beyond a group's filters have no window to work on. */
static inline int cm_lat_group_filters(const cm_lat_layer *l)
{
    return l->groups > 1 ? l->nout / l->groups : l->nout;
}

/* Words of one MACC unit's bank for a conv layer folded `folds` ways over its input
 * maps on N = coarse units of m = macc MACCs. */
int64_t cm_lat_bank_words(const cm_lat_layer *l, int folds, int coarse, int macc);
/* The same from a layer's group filters, maps a pass and window size (k x k). */
int64_t cm_lat_bank_words_of(int64_t filters, int64_t maps, int64_t window, int coarse, int macc);
void cm_lat_net_free(cm_lat_net *net);

/* One scheduled step: a layer (or one pass of a folded layer) on a block. */
typedef struct cm_lat_step {
    int layer;                   /* net index */
    cm_latency_block_kind kind;  /* the block kind; ACCUM for a folded layer's sum */
    int block;
} cm_lat_step;

/* A group of layers between two cuts. When it has one weight layer and every step
 * before it works channel by channel (pooling, pointwise), it may be folded over its
 * input maps: then it runs as `fin` passes of those steps and the weight layer on a
 * slice of the maps, and an accumulation subgraph with the rest of the group
 * (acc_steps). */
typedef struct cm_lat_group {
    int first, end;          /* net layers */
    int weight;              /* index among weight layers of its only one, -1 if not alone */
    int lead;                /* foldable: the steps before the weight layer (its index) */
    bool foldable;
    int n_steps, n_acc_steps;
    cm_lat_step *steps, *acc_steps;
} cm_lat_group;

/* The reference architecture of one cut vector: the blocks every group's pattern
 * embeds into (a shortest common supersequence of the groups' block kinds). */
typedef struct cm_lat_arch {
    const cm_lat_net *net;
    int n_groups;
    cm_lat_group *groups;
    int n_blocks;
    cm_latency_block_kind *kind;
    int n_conv;              /* conv blocks */
} cm_lat_arch;

cm_status cm_lat_arch_build(const cm_lat_net *net, const bool *cut, bool input_folding,
                            cm_lat_arch *a, cm_error *err);
void cm_lat_arch_free(cm_lat_arch *a);

/* The values of a conv block's coarse units (or MACCs) at which some layer's number of
 * passes ceil(v / x) changes: ceil(v / q) for every v and q. Ascending, no repeats;
 * *out is malloc'd. */
cm_status cm_lat_breakpoints(const int *values, int n, int **out, int *count, cm_error *err);

/* The largest input feature-map folding tried (f_in is a divisor of N_in up to it):
 * VGG16's first dense layer (25,088 inputs, 102.8 M weights) needs 784 on a ZC706. */
#define CM_LAT_MAX_FIN 1024

/* Whether a weight layer can run as f_in passes: f_in divides its input maps and, for
 * a grouped convolution, its groups (each pass takes whole groups, whose outputs are
 * then a slice of the layer's: the accumulation only gathers them). */
static inline bool cm_lat_fin_ok(const cm_lat_layer *l, int fin)
{
    return fin >= 1 && l->nin % fin == 0 && (l->groups <= 1 || l->groups % fin == 0);
}

/* Machine figures shared by every evaluation. */
typedef struct cm_lat_machine {
    cm_resources avail;
    double clock_hz;
    double bw_words;    /* off-chip words per cycle */
    double bw_bytes_s;  /* off-chip bytes per second */
    int word_bits;
    int batch;
} cm_lat_machine;

/* The foldings of a design point, per block. */
typedef struct cm_lat_fold {
    int *coarse, *macc, *bank;
    bool auto_coarse;   /* non-conv blocks' streams chosen by the rule of evaluate.c */
} cm_lat_fold;

/* A scheduled subgraph after f_in is applied. */
typedef struct cm_lat_sub {
    int group, fold, folds;
    int n_steps;
    const cm_lat_step *steps;
} cm_lat_sub;

/* What a block is sized for: the most any layer scheduled on it needs. */
typedef struct cm_lat_size {
    int rows, cols, channels, kernel[2], pad[4];
    bool has_bias, used;
} cm_lat_size;

/* A block's resources as last costed, and what they were costed for: a step of the
 * searches changes one block's folding, and costing every other block again was half of
 * an evaluation (a 10,000-layer chain left uncut has a conv block a layer). */
typedef struct cm_lat_block_memo {
    cm_lat_size size;
    bool valid;
    int coarse, macc, bank, word_bits;
    cm_resources res;
} cm_lat_block_memo;

/* A subgraph step's SDF figures (cm_lat_step_entries) as last worked out, and for what
 * folding: the searches change one block's folding or bank at a time (a sweep of the
 * bank sizes changes no step's figures at all), and working out every step's entries
 * again was most of an evaluation. */
typedef struct cm_lat_step_memo {
    int coarse, macc, slices;   /* coarse 0: none yet */
    double ii, depth;           /* its entries' largest interval, its depth */
    double streams_base;        /* auto_coarse's: from `streams_from` streams at this */
    int streams_from, streams;  /* base interval the step took `streams` (0: none yet) */
} cm_lat_step_memo;

/* The memo of one of a group's subgraphs (the group whole, one of its f_in passes, which
 * are all alike, or its accumulation): its steps' figures and the words it moves, valid
 * while the group has the same f_in. Kept by group, not by place in the schedule: a
 * bank sweep changes a group's f_in at each size it costs, and every subgraph after it
 * moved to another place. */
typedef struct cm_lat_sub_memo {
    bool valid;
    int folds, room;
    double in_words, out_words;
    cm_lat_step_memo *steps;
} cm_lat_sub_memo;

/* A foldable group's f_in as last chosen, and for what: its weight layer's block's N,
 * m and bank size (fin 0: none yet). */
typedef struct cm_lat_fin_memo {
    int coarse, macc, bank, word_bits, fin;
    bool fits;
} cm_lat_fin_memo;

/* What one evaluation gives. Scratch arrays are sized for the architecture. */
typedef struct cm_lat_eval {
    bool feasible;
    bool banks_fit;        /* every layer's weights fit a bank (feasible: and res fits) */
    double latency_s, exec_s, weights_s;
    cm_resources res;
    int *fin;              /* per weight layer */
    int n_subs;
    cm_lat_sub *subs;
    double *sub_ii, *sub_depth, *sub_exec, *sub_weights_s;
    int64_t *sub_weight_words;
    cm_resources *block_res;
    cm_lat_block_memo *block_memo;
    cm_lat_sub_memo *sub_memo; /* 3 a group: whole, a pass, the accumulation */
    int n_sub_memo;
    int *block_layers;
    int *block_kernel;     /* 2 per block: the largest window scheduled on it */
    bool every_pass;       /* work out each f_in pass and the blocks' sizes afresh, not
                            * as the pass before and the schedule before (the tests'
                            * reference for evaluate.c's repeats_pass and size_blocks) */
    /* A step of the searches seldom changes the schedule (a group's f_in): what follows
     * from the schedule alone is kept while it stands. */
    cm_lat_fin_memo *fin_memo; /* per group */
    int *group_fin;        /* per group, its f_in in the schedule (0: none worked out yet) */
    bool schedule_moved;   /* some group's f_in differs from the evaluation before's */
    cm_lat_size *block_size; /* per block, what the schedule sizes it for */
} cm_lat_eval;

/* The bank sizes of conv block b at which a point's schedule can change: the schedule
 * asks only whether a layer's weights, folded f ways over its input maps, fit one bank,
 * and nothing else of a point depends on the bank but the block's BRAM, which grows
 * with it. So between two of these sizes a point differs only in that BRAM (the latency
 * search costs no other sizes). */
typedef struct cm_lat_bank_steps {
    struct cm_lat_bank_question *q; /* what the schedule asks of the bank, each once */
    int n_q, cap;
    int64_t *at; /* cm_lat_bank_steps_at's sizes, ascending, repeats kept */
    int n_at;
} cm_lat_bank_steps;
cm_status cm_lat_bank_steps_init(const cm_lat_arch *a, int b, cm_lat_bank_steps *w,
                                 cm_error *err);
/* Every block's at once (w: a->n_blocks of them), in one pass over the steps. */
cm_status cm_lat_bank_steps_init_all(const cm_lat_arch *a, cm_lat_bank_steps *w, cm_error *err);
/* The least bank that answers each question yes, at N = coarse and m = macc: those from
 * 2 to last (a sweep's other sizes) into at. */
void cm_lat_bank_steps_at(cm_lat_bank_steps *w, const cm_lat_machine *m, int coarse, int macc,
                          int64_t last);
/* Whether size is among those cm_lat_bank_steps_at listed. */
bool cm_lat_bank_steps_has(const cm_lat_bank_steps *w, int64_t size);
void cm_lat_bank_steps_free(cm_lat_bank_steps *w);

cm_status cm_lat_eval_init(const cm_lat_arch *a, cm_lat_eval *e, cm_error *err);
void cm_lat_eval_free(cm_lat_eval *e);
/* The bank size (BRAM18) that holds every layer scheduled on conv block b unfolded. */
int cm_lat_full_bank(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f, int b);
/* Whether resources r are within max. */
bool cm_lat_fits(const cm_resources *r, const cm_resources *max);
/* Costs the point (f->coarse of non-conv blocks is rewritten when auto_coarse). */
void cm_lat_evaluate(const cm_lat_arch *a, const cm_lat_machine *m, cm_lat_fold *f,
                     cm_lat_eval *e);

/* Grows z to hold layer l, of which the block sees `channels` maps (a block's size is
 * the largest of each dimension over the layers scheduled on it). */
void cm_lat_size_add(cm_lat_size *z, const cm_lat_layer *l, int channels);
/* A conv block's resources at size z with N coarse units of m MACCs and banks of
 * `bank` BRAM18 (the BRAM grows by N * m per bank BRAM18). */
cm_resources cm_lat_conv_res(const cm_lat_size *z, int coarse, int macc, int bank, int wb);

/* SDF entries of one step: one or two nodes (conv: sliding window and bank), each with
 * its workload and rate on its input arc (negative: consumption) and output arc. */
typedef struct cm_lat_entry {
    double w_in, g_in, w_out, g_out;
} cm_lat_entry;

/* The slices of its maps a step sees in pass `fold` of `folds` (fold == folds: the
 * accumulation subgraph): in a pass every step sees 1 / folds of the maps; in the
 * accumulation only the accumulation itself reads the passes' folds maps. */
static inline int cm_lat_step_slices(int fold, int folds, cm_latency_block_kind kind)
{
    return folds > 1 && (fold < folds || kind == CM_LATENCY_ACCUM) ? folds : 1;
}

/* An SDF node's interval: the larger of its input and output workloads over rates. */
double cm_lat_entry_ii(const cm_lat_entry *x);
/* folds: the slices of its maps the step sees (cm_lat_step_slices). */
int cm_lat_step_entries(const cm_lat_layer *l, cm_latency_block_kind kind, int folds, int coarse,
                        int macc, cm_lat_entry e[2], double *depth);
/* Words a subgraph reads from and writes to off-chip memory. */
void cm_lat_sub_io(const cm_lat_net *net, const cm_lat_sub *s, double *in_words,
                   double *out_words);
/* SDF nodes per block kind (conv: 2). */
int cm_lat_block_nodes(cm_latency_block_kind k);

/* The best point the search found: its cuts and the foldings of its architecture. */
typedef struct cm_lat_search_result {
    bool *cut;
    int n_blocks;
    int *coarse, *macc, *bank;
    uint64_t evaluations;
    bool stopped_early, stopped_by_budget; /* the time limit or the budget; the budget */
    bool has_lower_bound, optimal; /* exact search (exact.c) */
    double lower_bound;
} cm_lat_search_result;

cm_status cm_lat_search(const cm_lat_net *net, const cm_lat_machine *m,
                        const cm_latency_options *o, cm_lat_search_result *r, cm_error *err);
/* The rule search with a budget of `budget` evaluations (cm_lat_search's is its layer
 * budget over the network's layers), so that tests can end it anywhere. */
cm_status cm_lat_search_budget(const cm_lat_net *net, const cm_lat_machine *m,
                               const cm_latency_options *o, uint64_t budget,
                               cm_lat_search_result *r, cm_error *err);
void cm_lat_search_free(cm_lat_search_result *r);

/* The exact search (exact.c): the rule search's point as the first incumbent, then
 * branch and bound over cut vectors and conv blocks' foldings; fills the bound. */
cm_status cm_lat_exact(const cm_lat_net *net, const cm_lat_machine *m,
                       const cm_latency_options *o, cm_lat_search_result *r, cm_error *err);

/* Fills the public design from an evaluated point, with its SDF matrices. */
cm_status cm_lat_export(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f,
                        const cm_lat_eval *e, cm_latency_design *out, cm_error *err);

#endif
