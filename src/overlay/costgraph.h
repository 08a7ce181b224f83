/* The CNN cost graph of DYNAMAP section 5.1, for one array size.
 *
 * Vertices are the layers that take time on the overlay (conv and fc on the array,
 * pooling on the pooling module, element-wise layers on the accumulation buffer), each
 * with its algorithm-dataflow options, and "format" vertices whose options are the
 * layouts data is stored in off-chip: one after each layer whose output several layers
 * read (the paper's store vertex v_s, one format for all readers), one per
 * concatenation (its producers write slices of one buffer, so in one format) and one per
 * graph input (the host writes it in any layout its readers want). Activations, batch
 * norms, flattening and constant scales fold into the layer before them: no vertex. */
#ifndef CM_OVERLAY_COSTGRAPH_H
#define CM_OVERLAY_COSTGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/graph.h>
#include <cnnmap/overlay.h>

#include "overlay/ov_model.h"
#include "overlay/pbqp.h"

typedef struct cm_ov_choice {
    cm_overlay_algorithm algorithm;
    cm_overlay_dataflow dataflow;
    uint64_t cycles;
    cm_ov_layout in; /* what it reads */
} cm_ov_choice;

typedef struct cm_ov_node {
    bool is_format;
    int layer;     /* the graph layer; for a store vertex its producer; -1 for an input */
    int input;     /* graph input index for an input vertex, else -1 */
    cm_shape data; /* what it outputs (a format vertex: what it holds) */
    bool graph_output;
    int n_options;
    cm_ov_choice *choices;  /* layer vertices */
    cm_ov_layout *layouts;  /* format vertices; layouts[0] is the 3-D tensor */
    int store;              /* the store vertex after this one, or -1 */
    double weight_s;        /* its weights over the bandwidth; 0 when resident or none */
} cm_ov_node;

typedef struct cm_ov_edge {
    int from, to;
} cm_ov_edge;

typedef struct cm_ov_costgraph {
    const cm_graph *g;
    cm_ov_array arr;
    int n_nodes, cap_nodes;
    cm_ov_node *nodes;
    int n_edges, cap_edges;
    cm_ov_edge *edges;
    bool weights_resident; /* every layer's weights stay on chip (ov_memory.h) */
} cm_ov_costgraph;

/* Builds the cost graph of g on the array, with options for the conv algorithms in
 * `algorithms` (a bit mask; pooling and element-wise layers always have theirs). Fails
 * with CM_EINFEASIBLE when a conv or fc layer can use none of them. */
cm_status cm_ov_costgraph_build(const cm_graph *g, const cm_ov_array *arr, unsigned algorithms,
                                cm_ov_costgraph **out, cm_error *err);
void cm_ov_costgraph_free(cm_ov_costgraph *cg);

/* Seconds a layer vertex n keeps the array (or its module) busy under option x: its
 * compute, or its weights' transfer when that takes longer, as the double-buffered
 * kernel buffer overlaps the two; 0 for a format vertex. */
double cm_ov_node_busy_s(const cm_ov_costgraph *cg, int n, int x);

/* Seconds of vertex n's own cost under option x: cm_ov_node_busy_s, and the store to
 * the host for a graph output. */
double cm_ov_node_cost(const cm_ov_costgraph *cg, int n, int x);

/* Seconds of edge e when its ends take options x (from) and y (to). */
double cm_ov_edge_cost(const cm_ov_costgraph *cg, int e, int x, int y);

/* The latency of a full assignment (option choice[n] at vertex n): every vertex's and
 * every edge's cost, summed in that order, so that a mapping costed again gives the
 * very same double. INFINITY when the choices cannot go together. */
double cm_ov_costgraph_latency(const cm_ov_costgraph *cg, const int *choice);

/* The number of distinct vertex pairs joined by edges (parallel edges count once, as
 * the PBQP instance sums them); -1 when out of memory. */
int cm_ov_costgraph_pairs(const cm_ov_costgraph *cg);

/* The PBQP instance: one vertex per node, one matrix per edge. */
cm_status cm_ov_costgraph_pbqp(const cm_ov_costgraph *cg, cm_pbqp **out, cm_error *err);

/* A readable name of a node for messages. */
void cm_ov_node_name(const cm_ov_costgraph *cg, int n, char *buf, size_t size);

#endif
