/* The engine's graph: tasks with their programs, streams with their depths, and which
 * streams are the design's input and output (sources and sinks). */
#include <stdlib.h>
#include <string.h>

#include "sim/graph_internal.h"

sim_graph *sim_graph_new(void)
{
    return calloc(1, sizeof(sim_graph));
}

void sim_graph_free(sim_graph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n_tasks; i++) {
        sim_task_def *t = &g->tasks[i];
        if (t->prog.free)
            t->prog.free(t->prog.state);
        free(t->name);
        free(t->kind);
    }
    for (int i = 0; i < g->n_streams; i++)
        free(g->streams[i].name);
    free(g->tasks);
    free(g->streams);
    free(g);
}

static bool grow(void **items, int *cap, int n, size_t size)
{
    if (n < *cap)
        return true;
    int next = *cap ? *cap * 2 : 16;
    void *p = realloc(*items, (size_t)next * size);
    if (!p)
        return false;
    *items = p;
    *cap = next;
    return true;
}

int sim_stream_add(sim_graph *g, const char *name, int64_t depth)
{
    if (!g || depth < 0 || !grow((void **)&g->streams, &g->cap_streams, g->n_streams,
                                 sizeof *g->streams))
        return -1;
    char *copy = strdup(name ? name : "");
    if (!copy)
        return -1;
    g->streams[g->n_streams] = (sim_stream_def){copy, depth, -1, -1, 0, 0, 0, 0};
    return g->n_streams++;
}

static bool ports_free(const sim_graph *g, const int *ids, int n, bool reading)
{
    for (int i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= g->n_streams)
            return false;
        const sim_stream_def *s = &g->streams[ids[i]];
        if ((reading ? s->reader : s->writer) >= 0)
            return false;
        for (int j = 0; j < i; j++)
            if (ids[j] == ids[i])
                return false;
    }
    return true;
}

int sim_task_add(sim_graph *g, const char *name, const char *kind, const int *in, int n_in,
                 const int *out, int n_out, sim_program prog)
{
    bool ok = g && n_in >= 0 && n_out >= 0 && n_in <= SIM_MAX_PORTS && n_out <= SIM_MAX_PORTS &&
              prog.next && (n_in == 0 || in) && (n_out == 0 || out) &&
              ports_free(g, in, n_in, true) && ports_free(g, out, n_out, false) &&
              grow((void **)&g->tasks, &g->cap_tasks, g->n_tasks, sizeof *g->tasks);
    char *name_copy = ok ? strdup(name ? name : "") : NULL;
    char *kind_copy = ok ? strdup(kind ? kind : "") : NULL;
    if (!ok || !name_copy || !kind_copy) {
        free(name_copy);
        free(kind_copy);
        if (prog.free)
            prog.free(prog.state);
        return -1;
    }
    int id = g->n_tasks++;
    sim_task_def *t = &g->tasks[id];
    memset(t, 0, sizeof *t);
    t->name = name_copy;
    t->kind = kind_copy;
    t->n_in = n_in;
    t->n_out = n_out;
    for (int p = 0; p < n_in; p++) {
        t->in[p] = in[p];
        g->streams[in[p]].reader = id;
        g->streams[in[p]].rport = p;
    }
    for (int p = 0; p < n_out; p++) {
        t->out[p] = out[p];
        g->streams[out[p]].writer = id;
        g->streams[out[p]].wport = p;
    }
    t->prog = prog;
    return id;
}

static int add_end(sim_graph *g, const char *name, int stream, int64_t words, int ii, bool source)
{
    if (!g || stream < 0 || stream >= g->n_streams || words < 1 || ii < 1)
        return -1;
    sim_op op = {.kind = SIM_RUN, .seg = sim_seg_make(words, source ? 0 : 1, source ? 1 : 0)};
    op.seg.ii = ii;
    sim_program prog;
    if (sim_program_loops(&op, 1, &prog, NULL) != CM_OK)
        return -1;
    int id = source ? sim_task_add(g, name, "source", NULL, 0, &stream, 1, prog)
                    : sim_task_add(g, name, "sink", &stream, 1, NULL, 0, prog);
    if (id >= 0) {
        sim_stream_def *s = &g->streams[stream];
        if (source)
            s->source_words = words;
        else
            s->sink_words = words;
    }
    return id;
}

int sim_source_add(sim_graph *g, const char *name, int stream, int64_t words_per_frame, int ii)
{
    return add_end(g, name, stream, words_per_frame, ii, true);
}

int sim_sink_add(sim_graph *g, const char *name, int stream, int64_t words_per_frame, int ii)
{
    return add_end(g, name, stream, words_per_frame, ii, false);
}

int sim_graph_tasks(const sim_graph *g) { return g->n_tasks; }
int sim_graph_streams(const sim_graph *g) { return g->n_streams; }
const char *sim_task_name(const sim_graph *g, int task) { return g->tasks[task].name; }
const char *sim_task_kind(const sim_graph *g, int task) { return g->tasks[task].kind; }
const char *sim_stream_name(const sim_graph *g, int stream) { return g->streams[stream].name; }
int64_t sim_stream_depth(const sim_graph *g, int stream) { return g->streams[stream].depth; }

void sim_stream_set_depth(sim_graph *g, int stream, int64_t depth)
{
    g->streams[stream].depth = depth < 0 ? 0 : depth;
}
