/* The HD-graph (SAMO section III-A): the network as a DAG of one backend's hardware
 * building blocks. Each backend's parser (hd_fpgaconvnet.c, hd_finn.c, hd_hls4ml.c)
 * turns graph layers into nodes, fills their dimensions, constraint flags and valid
 * folding values (SAMO Tables I-II), and keeps the block's own parameters so that
 * cm_hd_node_cost can ask the backend model for any folding. */
#ifndef CM_HW_HDGRAPH_H
#define CM_HW_HDGRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/backend.h>
#include <cnnmap/error.h>
#include <cnnmap/graph.h>
#include "hw/block_cost.h"
#include "hw/finn_blocks.h"
#include "hw/fpgaconvnet_blocks.h"
#include "hw/hls4ml_blocks.h"

enum {
    CM_HD_INTRA = 1u << 0,     /* in-folding must equal out-folding (eq. 9) */
    CM_HD_INTER = 1u << 1,     /* out-folding must equal each successor's in-folding (eq. 10) */
    CM_HD_DIVISIBLE = 1u << 2, /* out-folding and a successor's in-folding must divide */
    CM_HD_CUT_AFTER = 1u << 3, /* a partition may end after this node */
    /* the node reorders each pixel's channels (a channel shuffle) through a buffer of
     * two pixels, one filling while the other drains, on a backend whose streams carry
     * a pixel's channels one after another (fpgaConvNet) */
    CM_HD_PIXEL_BUFFER = 1u << 4,
    /* the node normalises each pixel over its channels (layer normalisation): per
     * stream a multiplier squaring words for the variance and one scaling them */
    CM_HD_NORMALISE = 1u << 5,
    /* the node normalises over the whole map (group normalisation): it holds the map,
     * summing as it reads, then writes it normalised */
    CM_HD_MAP_BUFFER = 1u << 6,
};

typedef struct cm_hd_values {
    int count;
    int64_t *v; /* ascending */
} cm_hd_values;

typedef struct cm_hd_node {
    char *name;      /* the backend's name for the node, unique */
    const char *op;  /* building block, static string */
    cm_backend backend;
    int layer;       /* graph layer implemented (the main one, when fused) */
    int channels_in, channels_out, kernel_size;
    int64_t size_in, size_out; /* words per sample */
    int bits_in, bits_out;     /* word widths on the streams */
    unsigned flags;
    int n_pred, n_succ;
    int *pred, *succ;
    cm_hd_values fold[3]; /* indexed by cm_fold: in, out, kernel */
    union {
        cm_fcn_layer fcn;
        cm_finn_node finn;
        cm_hls4ml_layer hls;
    } hw;
} cm_hd_node;

typedef struct cm_hdgraph {
    cm_backend backend;
    int n_nodes, cap_nodes;
    cm_hd_node *nodes; /* topological order */
} cm_hdgraph;

typedef struct cm_hd_options {
    int default_weight_bits, default_act_bits;
} cm_hd_options;

cm_status cm_hdgraph_build(const cm_graph *g, cm_backend backend, const cm_hd_options *o,
                           cm_hdgraph *out, cm_error *err);
void cm_hdgraph_free(cm_hdgraph *h);

/* The backend cost of a node at a folding (batch not applied). */
void cm_hd_node_cost(const cm_hd_node *n, int64_t fold_in, int64_t fold_out, int64_t fold_kernel,
                     cm_block_cost *out);

/* ---- for the backend parsers ---- */

/* Appends a node named `name` (copied) for layer `layer`; NULL on out-of-memory. The
 * pointer is valid until the next append. */
cm_hd_node *cm_hd_add_node(cm_hdgraph *h, const char *name, const char *op, int layer);
/* Adds the edge from -> to. */
cm_status cm_hd_connect(cm_hdgraph *h, int from, int to, cm_error *err);
/* Fills a value list with the divisors of n, or with {1} for n <= 1. */
cm_status cm_hd_values_divisors(cm_hd_values *vals, int64_t n, cm_error *err);
cm_status cm_hd_values_copy(cm_hd_values *vals, const int64_t *v, int count, cm_error *err);

/* Per-layer bookkeeping shared by the parsers: which node carries each layer's
 * output (-1 when the layer is absorbed into its producer's node, e.g. a ReLU in a
 * FINN MVAU, or has no hardware, e.g. a flatten). */
typedef struct cm_hd_build {
    const cm_graph *g;
    const cm_hd_options *opt;
    cm_hdgraph *h;
    int *out_node;   /* per layer */
    int *fork_node;  /* per layer: the split node after it when it has several consumers */
    int *consumers;  /* per layer: how many layers read its output (graph outputs not
                      * counted), counted once: a search of the layers after each one
                      * made building a 10,000-layer chain quadratic */
    int *first_consumer; /* per layer: the first of them, -1 when none */
    int *counter;    /* per op name index, for FINN-style names */
} cm_hd_build;

/* The node that delivers source s's feature map to a consumer (the fork after it if
 * it has one). -1 for a graph input. */
int cm_hd_source_node(const cm_hd_build *b, cm_source s);

/* Bits of activations / weights of a layer, with the option defaults for
 * unquantised tensors. */
int cm_hd_act_bits(const cm_hd_build *b, const cm_quant *q);
int cm_hd_weight_bits(const cm_hd_build *b, const cm_layer *l);

cm_status cm_hd_build_fpgaconvnet(cm_hd_build *b, cm_error *err);
cm_status cm_hd_build_finn(cm_hd_build *b, cm_error *err);
cm_status cm_hd_build_hls4ml(cm_hd_build *b, cm_error *err);

#endif

/* ---- helpers shared by the parsers (hdgraph.c) ---- */

/* Adds a node for layer li: name, op and the dimensions of the layer's first input
 * and its output. Returns the node index, -1 on out-of-memory. */
/* An element-wise add or multiply of several maps, whose first input (the layer's
 * in_shape) is smaller than its output: one value per channel broadcast over the map. */
bool cm_hd_is_broadcast_merge(const cm_layer *l);

int cm_hd_add_layer_node(cm_hd_build *b, int li, const char *name, const char *op);
/* Connects the nodes delivering layer li's inputs to node `to`. */
cm_status cm_hd_connect_inputs(cm_hd_build *b, int li, int to, cm_error *err);
/* A layer with no hardware of its own (flatten, reshape, softmax left to the host):
 * its consumers read its producer's stream. */
void cm_hd_pass_through(cm_hd_build *b, int li);
/* Sets both channel foldings to the divisors of c (an intra-matched node). */
cm_status cm_hd_values_intra(cm_hd_node *n, int64_t c, cm_error *err);
/* The number of consumers of layer li (cm_graph_consumers, counted once). */
int cm_hd_consumers(const cm_hd_build *b, int li);
/* The first consumer of layer li, -1 when none. */
int cm_hd_first_consumer(const cm_hd_build *b, int li);
/* Fills a node name "<prefix>_<k>" with k counting nodes of that prefix (FINN's
 * naming of its custom ops). */
void cm_hd_numbered_name(cm_hd_build *b, int prefix_id, const char *prefix, char *out,
                         size_t size);
/* The message for a layer the backend has no building block for. */
cm_status cm_hd_unsupported(const cm_hd_build *b, int li, cm_error *err);

/* The backend's own names and values for a node's folding (SAMO Table I):
 * fpgaConvNet coarse_in / coarse_out / fine, FINN SIMD / PE (those the op has),
 * hls4ml ReuseFactor. Returns how many of the (at most 3) entries were written. */
typedef struct cm_hd_param {
    const char *name;
    int64_t value;
} cm_hd_param;
int cm_hd_node_params(const cm_hd_node *n, const int64_t fold[3], cm_hd_param out[3]);
int cm_hd_fpgaconvnet_params(const cm_hd_node *n, const int64_t fold[3], cm_hd_param out[3]);
int cm_hd_finn_params(const cm_hd_node *n, const int64_t fold[3], cm_hd_param out[3]);
int cm_hd_hls4ml_params(const cm_hd_node *n, const int64_t fold[3], cm_hd_param out[3]);
