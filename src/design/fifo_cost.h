/* Recorded FIFO depths of a streaming design (fpgaConvNet, FINN, hls4ml) and the
 * memory they cost: the depths `cnnmap simulate --fifo-depths auto -o` writes into the
 * design file ("fifo_depths", per stream as the simulation names it), which the
 * simulation then uses and the design's resources then count, per stream between two
 * nodes, as the backend's tools build a FIFO of that depth (the rules are in
 * fifo_cost.c). */
#ifndef CM_FIFO_COST_H
#define CM_FIFO_COST_H

#include <stdint.h>

#include <cnnmap/board.h>
#include <cnnmap/error.h>

#include "design/design_internal.h"

/* Deepest FIFO a design file may record, in words (FINN's SetFIFODepths starts at 2^14
 * beats; this leaves room for wide beats). */
#define CM_FIFO_DEPTH_MAX (INT64_C(1) << 30)

typedef struct cm_fifo_set {
    int n;
    char **name;
    int64_t *depth;  /* words */
    int *node;       /* the node whose output the stream carries to another node, -1
                      * for streams inside a node or at a partition's edge (not costed) */
    int *succ;       /* the consuming node, -1 likewise */
} cm_fifo_set;

/* Records depths[i] for the stream names[i] (a copy; names must be distinct) and
 * re-sums every partition's resources with the FIFOs' cost. n = 0 clears the record.
 * CM_EINPUT for a depth outside 1..CM_FIFO_DEPTH_MAX. */
cm_status cm_design_set_fifo_depths(cm_design *d, const char *const *names,
                                    const int64_t *depths, int n, cm_error *err);
/* The recorded set, or NULL when the design records none. */
const cm_fifo_set *cm_design_fifo_depths(const cm_design *d);
/* The recorded depth of the stream `name`, 0 when none is recorded. */
int64_t cm_design_fifo_depth(const cm_design *d, const char *name);
void cm_fifo_set_free(cm_fifo_set *f);

/* Adds the cost of partition p's recorded FIFOs to acc (the hook in the partitions'
 * resource sums, cm_design_part_refresh). */
void cm_fifo_cost_add(const cm_design *d, int p, cm_resources *acc);

/* One FIFO of depth_words words of `bits` bits each, whose stream moves `lanes` words
 * per beat, as the backend builds it (exposed for the tests' hand arithmetic). */
void cm_fifo_cost_one(cm_backend backend, int64_t depth_words, int64_t bits, int64_t lanes,
                      cm_resources *out);

/* Words per beat on node u's output stream (FINN: PE, or a pixel for the max pool;
 * fpgaConvNet: coarse_out; hls4ml: a pixel), as the simulation's builders move them. */
int64_t cm_fifo_lanes_out(const cm_design *d, int u);
/* Words per beat on node v's input stream (FINN: SIMD, a pixel for the max pool;
 * fpgaConvNet: coarse_in; hls4ml: a pixel). */
int64_t cm_fifo_lanes_in(const cm_design *d, int v);

#endif
