/* The inside of a cm_design, shared by the files of src/design and by the
 * optimisers: per-node folding and cost, per-node cost memos, and per-partition
 * aggregates kept up to date incrementally. */
#ifndef CM_DESIGN_INTERNAL_H
#define CM_DESIGN_INTERNAL_H

#include <cnnmap/design.h>
#include "hw/hdgraph.h"

typedef struct cm_node_state {
    int64_t fold[3];   /* in, out, kernel (cm_fold order) */
    int idx[3];        /* position in the node's valid lists; -1 when not valid */
    bool bad;          /* channel factor or intra matching violated */
    cm_block_cost cost;
} cm_node_state;

typedef struct cm_part {
    int first, end;         /* nodes [first, end) */
    double interval;        /* slowest node's cycles per sample */
    int slowest;
    double depth;           /* first-frame latency less the interval, cycles, once the
                             * nodes from stale_from on are timed again (design.c) */
    int stale_from;         /* first node changed since (INT_MAX: none) */
    int stale_to;           /* last node changed since */
    bool chain;             /* nodes form one path */
    cm_resources res;
    double io_bits;         /* bits per sample read and written off-chip */
} cm_part;

struct cm_design {
    cm_graph *graph;
    cm_board board;
    cm_resources limits;    /* what a partition may use: the board cut by opt.max_util */
    cm_design_options opt;
    char *model_path, *board_ref;
    cm_hdgraph hd;
    bool hd_shared;         /* hd is another design's (cm_design_create_sharing) */
    double clock_hz;
    uint64_t total_macs;
    cm_node_state *state;
    uint32_t **memo;        /* per node: its memo's slots, NULL when it has none */
    uint32_t *memo_slots;   /* every node's slots, one after another (memo_init) */
    cm_block_cost *memo_pool; /* slot s's cost is memo_pool[s - 1]; 0: not yet costed */
    size_t memo_len, memo_cap;
    int *part_of;
    int n_parts;
    cm_part *parts;         /* capacity n_nodes */
    int bad_nodes, bad_edges;
    uint64_t evaluations;
    /* the folding journal (cm_design_journal_start): journal_mark flags the nodes
     * changed since it began, journal_fold (3 per node) holds their foldings before,
     * and they lie in [journal_lo, journal_hi] */
    bool journal_on;
    int journal_lo, journal_hi;
    int64_t *journal_fold;
    uint8_t *journal_mark;
    /* propagation scratch, one slot per node */
    int64_t *scratch_fold;  /* 2 per node: proposed in and out */
    int *scratch_mark;
    int *scratch_list;
    double *scratch_time;   /* 2 per node: cm_design_first_frame's figures, kept */
    /* cm_design_first_frame's bookkeeping, one slot per node (first_frame.c) */
    double *frame_moved;    /* in one timing: how far its figures moved (NAN: not alike) */
    double *frame_owed;     /* the shifts owed to kept figures: n nodes' own, then their
                             * blocks' (cm_design_frame_owed_size) */
    int frame_block_shift;  /* a block of frame_owed is 2^this nodes */
    int frame_owes;         /* shifts added to frame_owed since it was last empty */
    double *frame_unbound;  /* its last output word before its late bounds, kept */
    int *frame_reads;       /* the lowest node whose times the nodes from it to its
                             * partition's end read, -1 for off-chip memory
                             * (cm_design_frame_layout) */
    int *next_leaving;      /* the first node from it on whose output leaves its partition */
    uint8_t *frame_stale;   /* its block's timing changed since it was last timed */
    int *last_succ;         /* its last consumer's index (-1: none) */
    int *only_pred;         /* its one producer (-1: none, -2: several, or one passing
                             * a window's rows on: first_frame.c, inputs_moved) */
    int *row_source;        /* the window whose last rows its output keeps
                             * (cm_design_row_source), -1: none */
    uint8_t *frame_late;    /* its block has late rows (first_frame.c) */
    size_t *late_at;        /* n + 1 offsets into late_bounds: cm_design_late_cap each */
    double *late_bounds;    /* per node, the source and work share of each record that
                             * bounds its last output (the cache of a `late` slot: a
                             * DenseNet concatenation has dozens) */
    struct cm_late_rec *late_scratch; /* the most records any node has */
    struct cm_fifo_set *fifo; /* recorded FIFO depths (design/fifo_cost.h), or NULL */
};

struct cm_fifo_set;
void cm_fifo_cost_add(const cm_design *d, int p, cm_resources *acc);
void cm_fifo_set_free(struct cm_fifo_set *f);

/* A node's whole block cost at a folding (memoised), timing included. */
void cm_design_node_block_cost(const cm_design *d, int node, const int64_t fold[3],
                               cm_block_cost *out);
/* What a block's timing adds at least to its partition's first frame beyond the
 * interval (first_frame.c), by its place on a path through the slowest block: before
 * it, the slowest itself, or after it. Summed along such a path, a lower bound of the
 * depth (src/optimise/exact_model.c, ex_cost_floor). */
typedef struct cm_depth_terms {
    double before, slowest, after;
} cm_depth_terms;
cm_depth_terms cm_design_depth_terms(const cm_block_cost *c);
/* A strided window's last output row and the consumer taking it (first_frame.c): the
 * input rows its rows' times spread over, and when a consumer at `pace` cycles an input
 * word has taken a producer's last row of row_words words (0: no such rows). */
double cm_design_row_spread(const cm_block_timing *producer);
/* The window (a block with out_rows) whose last output rows node i's output keeps: i
 * itself, or the one before a run of blocks that pass rows through (rows_through) each
 * with one producer; -1 when none. Shapes alone decide it (set once). */
int cm_design_row_source(const cm_design *d, int i);
/* Cycles block c takes an input word in when its `words` a sample are all waiting. */
double cm_design_take_pace(const cm_block_cost *c, double words);
double cm_design_last_row_taken(const cm_block_timing *producer, double first_out,
                                double last_out, double row_words, double pace);

/* Late rows (first_frame.c): output words of a node that wait for the last input word
 * of some node upstream in its partition (the record's source: a window generator or
 * padding whose last output rows follow its input's end), so that they and all the work
 * on them come after that word. A node keeps up to CM_LATE_KEPT records, those of the
 * nearest sources; `late` arrays hold CM_LATE_STRIDE doubles a node: its input's last
 * word, its record count, then each record's source and late share of its output; then
 * (first_frame.c's cache, since records follow from the shapes and the partition's
 * first node alone) that first node + 1 and the count of the records that bound the
 * node's last output, whose source and work share are in the design's late_bounds; last
 * its input's first word (a window's, which the consumers of its rows read). */
enum {
    CM_LATE_KEPT = 4,
    CM_LATE_KEY = 2 + 2 * CM_LATE_KEPT,
    CM_LATE_INPUT_FIRST = CM_LATE_KEY + 2,
    CM_LATE_STRIDE = CM_LATE_KEY + 3
};

typedef struct cm_late_rec {
    int source;   /* the node whose input's last word the rows wait for */
    double share; /* of this node's output */
    double work;  /* of this node's cycles a sample done after that word */
} cm_late_rec;

/* Node i's records (up to CM_LATE_KEPT + its producers' count) from its producers'
 * kept in late[(p - first) * CM_LATE_STRIDE], sources first to last by index. Its own
 * rows count as a record when it has a producer in the partition. Returns how many. */
int cm_design_late_records(const cm_design *d, int first, int i, const double *late,
                           cm_late_rec *out);
/* Keeps the records with a late share in node i's slot of `late` (the nearest sources). */
void cm_design_late_keep(double *slot, const cm_late_rec *recs, int n);
/* The most records cm_design_late_records can return for a node. */
int cm_design_late_cap(const cm_design *d, int i);

/* The first-frame latency of nodes [first, end) as one partition, cycles
 * (first_frame.c). d->scratch_time holds 2 + CM_LATE_STRIDE doubles a node (indexed by
 * node) and keeps each node's figures: those of nodes before `from` are taken as they
 * are. `whole` times every node from `from` on afresh; otherwise a node whose block is
 * not stale and whose inputs all moved alike moves with them untimed, and from a cut
 * past stale_to (the last changed node) where the change has become one shift, the
 * rest of the partition is owed that shift. */
double cm_design_first_frame(const cm_design *d, int first, int end, int from, int stale_to,
                             bool whole);
/* The blocks of a design of n nodes' owed shifts (first_frame.c): their size, about
 * sqrt(n), as a power of two, and the doubles frame_owed holds. */
int cm_design_frame_block_shift(int n);
size_t cm_design_frame_owed_size(int n, int block_shift);
/* The partition [first, end)'s frame_reads and next_leaving (first_frame.c), once it has
 * been timed whole. */
void cm_design_frame_layout(cm_design *d, int first, int end);

/* A new design of src's graph, board and options at src's foldings, in one partition,
 * for copies, which src must outlive: on src's hardware graph, and with src's node
 * costs (building the one and costing the other again was a third of an anneal on a
 * 10,000-layer chain). */
cm_status cm_design_create_sharing(const cm_design *src, cm_design **out, cm_error *err);

/* Recomputes one partition's aggregates from its nodes. */
void cm_design_part_refresh(cm_design *d, int p);
/* Times one partition's first frame afresh (cm_design_retime). */
void cm_design_part_retime(cm_design *d, int p);
/* Recounts the violated edges after the partitions changed. */
void cm_design_recount_edges(cm_design *d);
/* Whether the edge u -> v breaks inter matching or divisibility (by u's flags); only
 * edges inside one partition are constrained. */
bool cm_design_edge_bad(const cm_design *d, int u, int v);
/* Whether node i breaks the channel-factor or intra-matching rule. */
bool cm_design_node_bad(const cm_design *d, int i);
/* Whether a partition fits the board's resources and bandwidth. */
bool cm_design_part_fits(const cm_design *d, int p);

#endif
