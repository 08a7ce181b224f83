/* The simulation of a streaming design (fpgaConvNet, FINN, hls4ml): one engine graph
 * per partition, whose tasks are each node's building blocks as its backend's model
 * describes them (sim_streaming_fcn.c, _finn.c, _hls4ml.c), joined by the HD-graph's
 * edges; the partition's inputs and outputs are sources and sinks moving one beat per
 * cycle (coarse_in / SIMD words, an hls4ml pixel: cnnmap's model costs the off-chip
 * streams only through the bandwidth constraint, so they are assumed to keep pace with
 * the first and last node's streams). Partitions after the first start after the
 * board's reconfiguration time, and each streams the design's batch, as the design's
 * evaluation charges them (src/design/design.c, cm_design_cost).
 *
 * Stream depths: those the design file records ("fifo_depths", design/fifo_cost.h),
 * else 2 iterations' worth of words of the wider of the two tasks on a stream
 * (double buffering at the tasks' granularity: one pixel, window, vector or beat), and
 * for hls4ml the depth its io_stream export gives a layer's output (one entry per output
 * pixel) when that is larger. SAMO's FINN graphs hold no FIFO nodes and fpgaConvNet's
 * streams between modules are short, so neither adds depth of its own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design/fifo_cost.h"
#include "sim/build.h"
#include "sim/sim_streaming.h"

/* A partition being laid out. */
typedef struct part_ctx {
    const cm_design *d;
    sim_graph *g;
    int first, end;
    int **edge;       /* per node of the partition: the stream of each successor edge, -1 outside */
    int *sink;        /* per node: the stream to its sink, -1 if none */
    int64_t *burst;   /* per stream: most words one iteration moves on it */
    int cap_streams;
    int64_t *cycles;  /* per task: the analytic cycles */
    int cap_tasks;
    cm_error *err;
} part_ctx;

static bool inside(const part_ctx *c, int node)
{
    return node >= c->first && node < c->end;
}

static bool grow64(int64_t **v, int *cap, int need)
{
    if (need < *cap)
        return true;
    int n = *cap ? *cap : 16;
    while (n <= need)
        n *= 2;
    int64_t *p = realloc(*v, (size_t)n * sizeof *p);
    if (!p)
        return false;
    memset(p + *cap, 0, (size_t)(n - *cap) * sizeof *p);
    *v = p;
    *cap = n;
    return true;
}

static int add_stream(part_ctx *c, const char *from, const char *to)
{
    char name[256];
    snprintf(name, sizeof name, "%s->%s", from, to);
    int s = sim_stream_add(c->g, name, 2);
    if (s >= 0 && !grow64(&c->burst, &c->cap_streams, s))
        return -1;
    return s;
}

static void note_burst(part_ctx *c, int stream, int64_t words)
{
    if (stream >= 0 && stream < c->cap_streams && words > c->burst[stream])
        c->burst[stream] = words;
}

/* Tokens per frame on one port of a task's ops (loops multiplied out). */
static int64_t ops_total(const st_ops *o, int port, bool write)
{
    int64_t mult[16], total = 0;
    int end[16], depth = 0;
    mult[0] = 1;
    end[0] = o->n;
    for (int i = 0; i < o->n; i++) {
        while (depth > 0 && i >= end[depth])
            depth--;
        const sim_op *op = &o->v[i];
        if (op->kind == SIM_LOOP && depth < 15) {
            depth++;
            mult[depth] = mult[depth - 1] * op->count;
            end[depth] = i + 1 + op->body;
        } else if (op->kind == SIM_RUN) {
            total += mult[depth] * op->seg.count * (write ? op->seg.wr[port] : op->seg.rd[port]);
        }
    }
    return total;
}

/* The ports of a node at the partition's edges: input p from a source, output q to a
 * sink. */
typedef struct node_ports {
    int in[SIM_MAX_PORTS], n_in;
    bool from_source[SIM_MAX_PORTS];
    int out[SIM_MAX_PORTS], n_out;
    bool to_sink[SIM_MAX_PORTS];
} node_ports;

static cm_status too_many(part_ctx *c, const cm_hd_node *n)
{
    return cm_error_set(c->err, CM_EINPUT, "node %s: more than %d inputs or outputs, which the "
                        "simulation's tasks cannot have", n->name, SIM_MAX_PORTS);
}

/* The stream pred -> node that pred's outputs created (each edge used once). */
static int take_edge(part_ctx *c, int pred, int node)
{
    const cm_hd_node *u = &c->d->hd.nodes[pred];
    int *e = c->edge[pred - c->first];
    for (int k = 0; k < u->n_succ; k++)
        if (u->succ[k] == node && e[k] >= 0) {
            int s = e[k];
            e[k] = -1;
            return s;
        }
    return -1;
}

static cm_status node_inputs(part_ctx *c, int node, int n_ports, node_ports *np)
{
    const cm_hd_node *n = &c->d->hd.nodes[node];
    np->n_in = n_ports;
    for (int p = 0; p < n_ports; p++) {
        int pred = p < n->n_pred ? n->pred[p] : -1;
        np->from_source[p] = pred < 0 || !inside(c, pred);
        np->in[p] = np->from_source[p] ? add_stream(c, "in", n->name) : take_edge(c, pred, node);
        if (np->in[p] < 0)
            return cm_error_set(c->err, CM_EINTERNAL, "node %s: its input streams could not be "
                                "made (out of memory)", n->name);
    }
    return CM_OK;
}

static cm_status node_outputs(part_ctx *c, int node, node_ports *np)
{
    const cm_hd_node *n = &c->d->hd.nodes[node];
    int *e = calloc((size_t)(n->n_succ + 1), sizeof *e);
    if (!e)
        return cm_error_nomem(c->err);
    c->edge[node - c->first] = e;
    bool leaves = n->n_succ == 0;
    np->n_out = 0;
    for (int k = 0; k < n->n_succ; k++) {
        e[k] = -1;
        if (!inside(c, n->succ[k])) {
            leaves = true;
            continue;
        }
        if (np->n_out == SIM_MAX_PORTS)
            return too_many(c, n);
        e[k] = add_stream(c, n->name, c->d->hd.nodes[n->succ[k]].name);
        np->to_sink[np->n_out] = false;
        np->out[np->n_out++] = e[k];
    }
    if (leaves) {
        if (np->n_out == SIM_MAX_PORTS)
            return too_many(c, n);
        np->to_sink[np->n_out] = true;
        np->out[np->n_out++] = c->sink[node - c->first] = add_stream(c, n->name, "out");
    }
    for (int q = 0; q < np->n_out; q++)
        if (np->out[q] < 0)
            return cm_error_nomem(c->err);
    return CM_OK;
}

/* Word counts at the node's ends: the first task's reads in words (tokens from a
 * source), the last task's writes copied to every output. False when a count passes
 * the engine's 32-bit fields. */
static bool scale_ends(st_chain *ch, const node_ports *np)
{
    st_ops *first = &ch->t[0].ops, *last = &ch->t[ch->n - 1].ops;
    bool ok = true;
    for (int i = 0; i < first->n; i++)
        for (int p = 0; p < np->n_in; p++) {
            const int64_t w = first->v[i].seg.rd[p] * (np->from_source[p] ? 1 : ch->in_words[p]);
            ok = ok && w <= INT32_MAX;
            first->v[i].seg.rd[p] = (int32_t)w;
        }
    for (int i = 0; i < last->n; i++) {
        const int64_t tokens = last->v[i].seg.wr[0];
        for (int q = 0; q < np->n_out; q++) {
            const int64_t w = np->to_sink[q] ? tokens : tokens * ch->out_words;
            ok = ok && w <= INT32_MAX;
            last->v[i].seg.wr[q] = (int32_t)w;
        }
    }
    return ok;
}

static void note_bursts(part_ctx *c, const st_ops *o, const int *in, int n_in, const int *out,
                        int n_out)
{
    for (int i = 0; i < o->n; i++) {
        if (o->v[i].kind != SIM_RUN)
            continue;
        for (int p = 0; p < n_in; p++)
            note_burst(c, in[p], o->v[i].seg.rd[p]);
        for (int q = 0; q < n_out; q++)
            note_burst(c, out[q], o->v[i].seg.wr[q]);
    }
}

static cm_status add_task(part_ctx *c, const cm_hd_node *n, const st_task *t, const int *in,
                          int n_in, const int *out, int n_out, int64_t cycles)
{
    sim_program prog;
    cm_status st = sim_program_loops(t->ops.v, t->ops.n, &prog, c->err);
    if (st != CM_OK)
        return st;
    char name[256];
    snprintf(name, sizeof name, "%s%s%s", n->name, t->suffix[0] ? ":" : "", t->suffix);
    int id = sim_task_add(c->g, name, t->kind, in, n_in, out, n_out, prog);
    if (id < 0 || !grow64(&c->cycles, &c->cap_tasks, id))
        return cm_error_set(c->err, CM_EINTERNAL, "node %s: its task could not be added", n->name);
    c->cycles[id] = cycles;
    note_bursts(c, &t->ops, in, n_in, out, n_out);
    return CM_OK;
}

/* The chain's tasks joined by token streams of their own. */
static cm_status add_chain(part_ctx *c, int node, const st_chain *ch, const node_ports *np)
{
    const cm_hd_node *n = &c->d->hd.nodes[node];
    const int64_t cycles = llround(c->d->state[node].cost.cycles);
    int in[SIM_MAX_PORTS], n_in = np->n_in;
    memcpy(in, np->in, sizeof in);
    for (int t = 0; t < ch->n; t++) {
        int out[SIM_MAX_PORTS], n_out = 1;
        if (t == ch->n - 1) {
            memcpy(out, np->out, sizeof out);
            n_out = np->n_out;
        } else {
            char from[256];
            snprintf(from, sizeof from, "%s:%s", n->name, ch->t[t].suffix);
            if ((out[0] = add_stream(c, from, ch->t[t + 1].suffix)) < 0)
                return cm_error_nomem(c->err);
        }
        cm_status st = add_task(c, n, &ch->t[t], in, n_in, out, n_out,
                                t == ch->main_task ? cycles : 0);
        if (st != CM_OK)
            return st;
        in[0] = out[0];
        n_in = 1;
    }
    return CM_OK;
}

/* Sources and sinks at the node's partition edges, one beat per cycle. */
static cm_status add_ends(part_ctx *c, int node, const st_chain *ch, const node_ports *np)
{
    const cm_hd_node *n = &c->d->hd.nodes[node];
    char name[256];
    for (int p = 0; p < np->n_in; p++) {
        if (!np->from_source[p])
            continue;
        const int64_t beat = ch->beat_in > 0 ? ch->beat_in : 1;
        if (p == 0)
            snprintf(name, sizeof name, "in:%s", n->name);
        else
            snprintf(name, sizeof name, "in%d:%s", p, n->name);
        if (sim_source_add(c->g, name, np->in[p], ops_total(&ch->t[0].ops, p, false),
                           (int)((ch->in_words[p] + beat - 1) / beat)) < 0)
            return cm_error_nomem(c->err);
    }
    for (int q = 0; q < np->n_out; q++) {
        if (!np->to_sink[q])
            continue;
        const int64_t beat = ch->beat_out > 0 ? ch->beat_out : 1;
        snprintf(name, sizeof name, "out:%s", n->name);
        if (sim_sink_add(c->g, name, np->out[q], ops_total(&ch->t[ch->n - 1].ops, q, true),
                         (int)((ch->out_words + beat - 1) / beat)) < 0)
            return cm_error_nomem(c->err);
    }
    return CM_OK;
}

static cm_status node_chain(const cm_design *d, int node, st_chain *ch, cm_error *err)
{
    switch (d->hd.backend) {
    case CM_BACKEND_FPGACONVNET: return st_chain_fpgaconvnet(d, node, ch, err);
    case CM_BACKEND_FINN: return st_chain_finn(d, node, ch, err);
    case CM_BACKEND_HLS4ML: return st_chain_hls4ml(d, node, ch, err);
    default:
        return cm_error_set(err, CM_EINPUT, "the %s backend has no task model",
                            cm_backend_name(d->hd.backend));
    }
}

static cm_status add_node(part_ctx *c, int node)
{
    st_chain ch;
    memset(&ch, 0, sizeof ch);
    cm_status st = node_chain(c->d, node, &ch, c->err);
    node_ports np;
    memset(&np, 0, sizeof np);
    if (st == CM_OK) {
        for (int t = 0; t < ch.n; t++)
            if (ch.t[t].ops.bad)
                st = cm_error_set(c->err, CM_EINPUT, "node %s: a figure of its task model is "
                                  "out of range (or out of memory)", c->d->hd.nodes[node].name);
    }
    if (st == CM_OK && ch.n_in > SIM_MAX_PORTS)
        st = too_many(c, &c->d->hd.nodes[node]);
    if (st == CM_OK && c->d->hd.nodes[node].n_pred > ch.n_in)
        st = cm_error_set(c->err, CM_EINPUT, "node %s: %d inputs, which its task model does not "
                          "have", c->d->hd.nodes[node].name, c->d->hd.nodes[node].n_pred);
    if (st == CM_OK)
        st = node_inputs(c, node, ch.n_in, &np);
    if (st == CM_OK)
        st = node_outputs(c, node, &np);
    if (st == CM_OK && !scale_ends(&ch, &np))
        st = cm_error_set(c->err, CM_EINPUT, "node %s: more words per iteration than the "
                          "simulation counts", c->d->hd.nodes[node].name);
    if (st == CM_OK)
        st = add_chain(c, node, &ch, &np);
    if (st == CM_OK)
        st = add_ends(c, node, &ch, &np);
    if (st == CM_OK && ch.fifo_words > 0)
        for (int q = 0; q < np.n_out; q++)
            if (!np.to_sink[q])
                note_burst(c, np.out[q], (ch.fifo_words + 1) / 2);
    st_chain_free(&ch);
    return st;
}

static void part_ctx_free(part_ctx *c)
{
    for (int i = 0; c->edge && i < c->end - c->first; i++)
        free(c->edge[i]);
    free(c->edge);
    free(c->sink);
    free(c->burst);
    free(c->cycles);
}

static int64_t reconfiguration_cycles(const cm_design *d)
{
    return llround(d->board.reconfiguration_s * d->clock_hz);
}

/* Partition p as a graph, with the cost model's figures. */
static cm_status build_part(const cm_design *d, int p, sim_build *out, cm_error *err)
{
    cm_partition_info pi;
    cm_design_partition_info(d, p, &pi);
    part_ctx c = {.d = d, .first = pi.first, .end = pi.last + 1, .err = err};
    c.g = sim_graph_new();
    c.edge = calloc((size_t)(c.end - c.first), sizeof *c.edge);
    c.sink = malloc((size_t)(c.end - c.first) * sizeof *c.sink);
    cm_status st = c.g && c.edge && c.sink ? CM_OK : cm_error_nomem(err);
    for (int i = c.first; i < c.end && st == CM_OK; i++) {
        c.sink[i - c.first] = -1;
        st = add_node(&c, i);
    }
    for (int s = 0; st == CM_OK && s < sim_graph_streams(c.g); s++) {
        const int64_t recorded = cm_design_fifo_depth(d, sim_stream_name(c.g, s));
        sim_stream_set_depth(c.g, s, recorded > 0 ? recorded : 2 * (c.burst[s] > 0 ? c.burst[s] : 1));
    }
    /* every task gets its analytic cycles (0 for the sources and sinks, added without
     * them): the record reads one per task */
    if (st == CM_OK && !grow64(&c.cycles, &c.cap_tasks, sim_graph_tasks(c.g)))
        st = cm_error_nomem(err);
    char label[64];
    snprintf(label, sizeof label, "partition %d", p);
    sim_part *part = NULL;
    if (st == CM_OK) {
        part = sim_build_add(out, c.g, label);
        c.g = NULL;
        if (!part)
            st = cm_error_nomem(err);
    }
    if (st == CM_OK) {
        part->frames = d->n_parts > 1 ? d->opt.batch : 0;
        part->before_cycles = p > 0 ? reconfiguration_cycles(d) : 0;
        part->analytic_interval = llround(pi.interval_cycles);
        part->analytic_latency = llround(pi.interval_cycles + pi.depth_cycles);
        part->analytic_task_cycles = c.cycles;
        c.cycles = NULL;
    }
    sim_graph_free(c.g);
    part_ctx_free(&c);
    return st;
}

cm_status sim_build_streaming(const cm_design *d, sim_build *out, cm_error *err)
{
    cm_status st = CM_OK;
    for (int p = 0; p < d->n_parts && st == CM_OK; p++)
        st = build_part(d, p, out, err);
    if (st != CM_OK)
        return st;
    cm_design_summary sum;
    cm_design_summarise(d, &sum);
    out->clock_mhz = d->opt.clock_mhz;
    out->batch = d->opt.batch;
    if (d->n_parts == 1) {
        out->analytic_latency = out->parts[0].analytic_latency;
        out->analytic_interval = out->parts[0].analytic_interval;
    } else {
        out->analytic_latency =
            llround(sum.latency_cycles) + (int64_t)(d->n_parts - 1) * reconfiguration_cycles(d);
        out->analytic_interval = out->analytic_latency / (d->opt.batch > 0 ? d->opt.batch : 1);
    }
    return CM_OK;
}

cm_status sim_streaming_unknown_stream(const cm_design *d, const char *const *names, int n,
                                       int *unknown, cm_error *err)
{
    *unknown = -1;
    sim_build b;
    memset(&b, 0, sizeof b);
    cm_status st = sim_build_streaming(d, &b, err);
    for (int i = 0; st == CM_OK && i < n && *unknown < 0; i++) {
        bool found = false;
        for (int p = 0; p < b.n_parts && !found; p++)
            for (int s = 0; s < sim_graph_streams(b.parts[p].graph) && !found; s++)
                found = strcmp(sim_stream_name(b.parts[p].graph, s), names[i]) == 0;
        if (!found)
            *unknown = i;
    }
    sim_build_free(&b);
    return st;
}
