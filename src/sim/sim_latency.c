/* The simulation builder of latency-driven designs (fpgaConvNet latency paper, III-A,
 * III-B): the schedule of subgraphs executed one after another on the one reference
 * architecture, each preceded by loading its weights. Each subgraph execution is one
 * part: memory read -> the reference blocks the subgraph uses -> memory write, every
 * SDF node a task running at the rate of the subgraph's aligned workload and interval on
 * that node (W and II = W / Gamma), with its layer's pipeline depth as its latency.
 *
 * Readings, in one place:
 *  - A node's time per frame is its interval in the subgraph's II matrix (the larger of
 *    its two entries); the memory node's two entries share one port, so its interval is
 *    their sum. The port is split between the read and the write task in proportion to
 *    their words, so each streams its words over that whole interval, as the model has
 *    it.
 *  - A node's words and cycles are spread evenly over at most SIM_LAT_ITERATIONS
 *    iterations (Bresenham), so the engine's work per frame does not grow with the
 *    layer. Each word is read at the start of its share of the frame and written at
 *    the end of its share, so no node writes ahead of what it has read; the memory
 *    write, whose output is the frame's end, reads each word at the end of its share.
 *  - A stream carries the words that really pass between two nodes: the smaller of the
 *    producer's workload on it and the consumer's (a sliding window's workload counts
 *    the padding it makes itself, a bank's the slots of a partial filter group).
 *    Beyond SIM_LAT_TOKENS words a frame, a token stands for several words (the stream
 *    is named with how many): its occupancy is then counted in tokens.
 *  - The model's pipeline depth of a layer (evaluate.c) is the latency of its first
 *    node (a convolution's sliding window carries the whole step's, fill and bank's
 *    accumulation together); the others take one cycle.
 *  - The model adds the weight transfers to the executions (t_total of eq. 7), and so
 *    does the simulation: a part's weight load is its before_cycles.
 *  - Off-chip memory holds the inputs and outputs: the source gives one token per frame
 *    that the memory read takes with its first words, the memory write gives the sink
 *    one token with its last, so a frame is "in" when the subgraph starts reading it
 *    and "out" when its last word has been written back.
 *  - The design has no FIFO depths: streams are unbounded (the model has no
 *    back-pressure); --fifo-depths auto sizes them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/graph.h>
#include <cnnmap/latency.h>

#include "latency/latency_internal.h"
#include "sim/build.h"

/* Most iterations a node's frame is split into: the first and last of them delay their
 * neighbours by a share of 1 / SIM_LAT_ITERATIONS of a node's interval. */
#define SIM_LAT_ITERATIONS 4096
/* Most tokens a stream carries per frame; beyond, a token stands for several words
 * (the engine's work grows with tokens, and finer ones than the iterations change no
 * timing). */
#define SIM_LAT_TOKENS (2 * SIM_LAT_ITERATIONS)

/* ---- the even program: a node's words and cycles spread over its iterations ---- */

typedef struct even_state {
    int64_t n;           /* iterations per frame */
    int64_t cycles;      /* per frame */
    int64_t rd, wr;      /* words per frame on port 0, spread */
    int32_t first_rd;    /* extra words the first iteration reads (the input token) */
    int32_t last_wr;     /* extra words the last iteration writes (the output token) */
    int32_t latency;
    bool reads_early;    /* each word read at the start of its share (else at its end) */
    int64_t k;           /* next iteration */
} even_state;

/* Iteration k's part of total over n iterations: the words whose share of the frame
 * ends within it (or, early, starts within it). */
static int64_t share(int64_t total, int64_t k, int64_t n, bool early)
{
    int64_t up = early ? n - 1 : 0;
    return ((k + 1) * total + up) / n - (k * total + up) / n;
}

static void even_begin(void *state)
{
    ((even_state *)state)->k = 0;
}

static bool even_next(void *state, sim_seg *out)
{
    even_state *e = state;
    if (e->k >= e->n)
        return false;
    memset(out, 0, sizeof *out);
    out->count = 1;
    out->ii = (int32_t)share(e->cycles, e->k, e->n, false);
    out->latency = e->latency;
    out->rd[0] = (int32_t)share(e->rd, e->k, e->n, e->reads_early) + (e->k == 0 ? e->first_rd : 0);
    out->wr[0] = (int32_t)share(e->wr, e->k, e->n, false) + (e->k == e->n - 1 ? e->last_wr : 0);
    e->k++;
    return true;
}

/* ---- one subgraph's nodes ---- */

/* A task of the part: an SDF node (or the memory node's read or write side). */
typedef struct node_task {
    char name[40];
    const char *kind;
    int64_t cycles;      /* per frame, the model's interval rounded up */
    int64_t analytic;    /* the model's cycles per frame */
    int64_t latency;
    int64_t rd, wr;      /* tokens per frame on its input and output streams */
    int64_t out_words;   /* words per token of its output stream */
} node_task;

static int64_t words(double w)
{
    return (int64_t)llround(fabs(w));
}

static int in_row(const cm_latency_design *d, int c)
{
    return (c + d->n_arcs - 1) % d->n_arcs;
}

/* The node's interval per frame: its entries' largest, the memory's their sum. */
static double node_interval(const cm_latency_design *d, const cm_latency_subgraph *s, int c)
{
    double a = s->ii[in_row(d, c) * d->n_nodes + c], b = s->ii[c * d->n_nodes + c];
    return c == 0 ? a + b : fmax(a, b);
}

static const char *node_kind(const cm_latency_design *d, int c)
{
    if (c == 0)
        return "memory";
    const cm_latency_block *b = &d->blocks[d->node_block[c]];
    switch (b->kind) {
    case CM_LATENCY_CONV: return c > 0 && d->node_block[c - 1] == d->node_block[c] ? "bank" : "window";
    case CM_LATENCY_POOL: return "pool";
    case CM_LATENCY_RELU: return "relu";
    case CM_LATENCY_ACCUM: return "accum";
    case CM_LATENCY_ELTWISE: return "eltwise";
    }
    return "?";
}

static void fill_node(const cm_latency_design *d, const cm_latency_subgraph *s, int c,
                      node_task *t)
{
    double ii = node_interval(d, s, c);
    snprintf(t->name, sizeof t->name, "%s", d->node_names[c]);
    t->kind = node_kind(d, c);
    t->analytic = (int64_t)llround(ii);
    t->cycles = (int64_t)ceil(ii - 1e-9);
    if (t->cycles < 1)
        t->cycles = 1;
    t->latency = 1;
}

/* Per step of the subgraph (its hardware layers in order), the model's pipeline depth,
 * given to the step's first node. */
static cm_status step_depths(const cm_latency_file *f, const cm_lat_net *net, int si,
                             node_task *nodes, int n_nodes, cm_error *err)
{
    const cm_latency_design *d = &f->design;
    const cm_latency_subgraph *s = &d->subgraphs[si];
    int k = 1, step = 0; /* nodes[0] is the memory read */
    double total = 0.0;
    for (int i = 0; i < s->n_layers; i++) {
        const int at = s->layers[i] >= 0 && s->layers[i] < net->n_graph_layers
                           ? net->at_graph[s->layers[i]] : -1;
        if (at < 0)
            break; /* reported below: the columns are not matched */
        const cm_lat_layer *l = &net->l[at];
        cm_latency_block_kind kind = step == 0 && s->folds > 1 && s->fold == s->folds
                                         ? CM_LATENCY_ACCUM : l->kind;
        if (k >= n_nodes - 1)
            break;
        const cm_latency_block *b = &d->blocks[d->node_block[s->column[k]]];
        cm_lat_entry e[2];
        double depth;
        int used = cm_lat_step_entries(l, kind, cm_lat_step_slices(s->fold, s->folds, kind),
                                       b->coarse, b->macc, e, &depth);
        nodes[k].latency = depth >= 1.0 ? (int64_t)llround(depth) : 1;
        total += depth;
        k += used;
        step++;
    }
    if (k != n_nodes - 1 || fabs(total - s->depth_cycles) > 0.5)
        return cm_error_set(err, CM_EINTERNAL,
                            "simulation: subgraph %d's layers do not match its SDF columns", si);
    return CM_OK;
}

/* The part's tasks: memory read, the subgraph's columns, memory write; and the words
 * of each stream between two of them. */
static cm_status part_nodes(const cm_latency_file *f, const cm_lat_net *net, int si,
                            node_task *nodes, cm_error *err)
{
    const cm_latency_design *d = &f->design;
    const cm_latency_subgraph *s = &d->subgraphs[si];
    const int n = s->n_columns + 1, nn = d->n_nodes;
    for (int k = 0; k < s->n_columns; k++)
        fill_node(d, s, s->column[k], &nodes[k]);
    nodes[n - 1] = nodes[0];
    snprintf(nodes[0].name, sizeof nodes[0].name, "memory read");
    snprintf(nodes[n - 1].name, sizeof nodes[n - 1].name, "memory write");
    for (int k = 0; k + 1 < n; k++) {
        int a = s->column[k], b = k + 1 < s->n_columns ? s->column[k + 1] : 0;
        int64_t produced = words(s->workload[a * nn + a]);
        int64_t consumed = words(s->workload[in_row(d, b) * nn + b]);
        int64_t w = produced < consumed ? produced : consumed;
        int64_t per = w > SIM_LAT_TOKENS ? (w + SIM_LAT_TOKENS - 1) / SIM_LAT_TOKENS : 1;
        nodes[k].wr = nodes[k + 1].rd = (w + per - 1) / per;
        nodes[k].out_words = per;
    }
    return step_depths(f, net, si, nodes, n, err);
}

/* ---- the engine graph of one part ---- */

static cm_status add_node_task(sim_graph *g, const node_task *t, int in, int out,
                               int32_t first_rd, int32_t last_wr, int *task, cm_error *err)
{
    const int64_t n = t->cycles < SIM_LAT_ITERATIONS ? t->cycles : SIM_LAT_ITERATIONS;
    if (t->rd / n + 1 > INT32_MAX || t->wr / n + 1 > INT32_MAX || t->cycles / n + 1 > INT32_MAX ||
        t->latency > INT32_MAX)
        return cm_error_set(err, CM_EINPUT, "simulation: node %s moves too many words a cycle",
                            t->name);
    even_state *e = calloc(1, sizeof *e);
    if (!e)
        return cm_error_nomem(err);
    *e = (even_state){.n = n, .cycles = t->cycles, .rd = t->rd, .wr = t->wr,
                      .first_rd = first_rd, .last_wr = last_wr, .latency = (int32_t)t->latency,
                      .reads_early = last_wr == 0 /* all but the memory write */};
    *task = sim_task_add(g, t->name, t->kind, &in, 1, &out, 1,
                         (sim_program){e, even_begin, even_next, free});
    return *task < 0 ? cm_error_nomem(err) : CM_OK;
}

static int add_stream(sim_graph *g, const char *from, const char *to, int64_t words_per_token)
{
    char name[128];
    if (words_per_token > 1)
        snprintf(name, sizeof name, "%s->%s (%lld words a token)", from, to,
                 (long long)words_per_token);
    else
        snprintf(name, sizeof name, "%s->%s", from, to);
    return sim_stream_add(g, name, SIM_UNBOUNDED);
}

/* Source -> memory read -> nodes -> memory write -> sink; analytic[] per task. */
static cm_status build_graph(sim_graph *g, const node_task *nodes, int n, int64_t *analytic,
                             cm_error *err)
{
    int in = add_stream(g, "input", nodes[0].name, 1);
    if (in < 0 || sim_source_add(g, "input", in, 1, 1) < 0)
        return cm_error_nomem(err);
    for (int k = 0; k < n; k++) {
        const char *next = k + 1 < n ? nodes[k + 1].name : "output";
        int out = add_stream(g, nodes[k].name, next, k + 1 < n ? nodes[k].out_words : 1);
        int task = -1;
        if (out < 0)
            return cm_error_nomem(err);
        cm_status st = add_node_task(g, &nodes[k], in, out, k == 0, k == n - 1, &task, err);
        if (st != CM_OK)
            return st;
        analytic[task] = nodes[k].analytic;
        in = out;
    }
    return sim_sink_add(g, "output", in, 1, 1) < 0 ? cm_error_nomem(err) : CM_OK;
}

static void part_label(const cm_latency_file *f, int si, char *buf, size_t size)
{
    const cm_latency_subgraph *s = &f->design.subgraphs[si];
    const char *first = f->graph->layers[s->first_layer].name;
    const char *last = f->graph->layers[s->last_layer].name;
    char pass[32], range[160];
    cm_latency_pass_name(s, pass, sizeof pass);
    if (s->first_layer == s->last_layer)
        snprintf(range, sizeof range, "%s", first);
    else
        snprintf(range, sizeof range, "%s..%s", first, last);
    if (s->folds <= 1)
        snprintf(buf, size, "subgraph %d (%s)", si, range);
    else if (s->fold < s->folds)
        snprintf(buf, size, "subgraph %d (%s, pass %s)", si, range, pass);
    else
        snprintf(buf, size, "subgraph %d (%s, %s)", si, range, pass);
}

static cm_status add_part(const cm_latency_file *f, const cm_lat_net *net, int si, sim_build *out,
                          cm_error *err)
{
    const cm_latency_design *d = &f->design;
    const cm_latency_subgraph *s = &d->subgraphs[si];
    const int n = s->n_columns + 1;
    const double clock_hz = d->clock_mhz * 1e6;
    node_task *nodes = calloc((size_t)n, sizeof *nodes);
    int64_t *analytic = calloc((size_t)n + 2, sizeof *analytic); /* + source and sink */
    sim_graph *g = sim_graph_new();
    cm_status st = nodes && analytic && g ? part_nodes(f, net, si, nodes, err) : cm_error_nomem(err);
    if (st == CM_OK)
        st = build_graph(g, nodes, n, analytic, err);
    free(nodes);
    if (st != CM_OK) {
        sim_graph_free(g);
        free(analytic);
        return st;
    }
    char label[256]; /* the part keeps what fits */
    part_label(f, si, label, sizeof label);
    sim_part *p = sim_build_add(out, g, label);
    if (!p) {
        free(analytic);
        return cm_error_nomem(err);
    }
    p->frames = d->batch;
    p->before_cycles = (int64_t)llround(s->weights_s * clock_hz);
    p->analytic_interval = (int64_t)llround(s->ii_max_cycles);
    p->analytic_latency = (int64_t)llround(s->depth_cycles + s->ii_max_cycles);
    p->analytic_task_cycles = analytic;
    return CM_OK;
}

cm_status sim_build_latency(const cm_latency_file *f, sim_build *out, cm_error *err)
{
    const cm_latency_design *d = &f->design;
    if (d->n_subgraphs < 1 || d->batch < 1 || d->clock_mhz <= 0)
        return cm_error_set(err, CM_EINPUT,
                            "the latency-driven design of %s has no schedule, batch or clock",
                            f->model_path ? f->model_path : "its model");
    cm_lat_net net;
    cm_status st = cm_lat_net_build(f->graph, &net, err);
    if (st != CM_OK)
        return st;
    out->clock_mhz = d->clock_mhz;
    out->batch = d->batch;
    /* A schedule runs the batch through each subgraph in turn: a run's latency (eq. 7)
     * and the batch's share of it. One subgraph keeps its weights and streams frame
     * after frame (eq. 4): its first frame's latency and II_max between frames. */
    const cm_latency_subgraph *only = &d->subgraphs[0];
    const double cycles = d->latency_s * d->clock_mhz * 1e6;
    out->analytic_latency = (int64_t)llround(d->n_subgraphs == 1 ? only->depth_cycles + only->ii_max_cycles
                                                                 : cycles);
    out->analytic_interval = (int64_t)llround(d->n_subgraphs == 1 ? only->ii_max_cycles
                                                                  : cycles / d->batch);
    for (int si = 0; st == CM_OK && si < d->n_subgraphs; si++)
        st = add_part(f, &net, si, out, err);
    cm_lat_net_free(&net);
    return st;
}
