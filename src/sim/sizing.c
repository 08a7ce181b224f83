/* FIFO sizing by simulation: the depths that keep the schedule of unbounded streams.
 * The most words each stream holds when nothing is bounded is a depth that leaves that
 * schedule exactly as it is; most streams need less, which bisection finds one stream
 * at a time (the deepest first, as they cost the most memory), keeping a smaller depth
 * only when the run's latency and interval are unchanged and nothing deadlocks. */
#include <stdlib.h>

#include "sim/engine.h"

typedef struct sizing {
    sim_graph *g;
    int frames;
    int runs, max_runs;
    int64_t latency, interval; /* of the unbounded run */
} sizing;

/* Runs at the graph's depths; *keeps: no deadlock and the unbounded figures. */
static cm_status try_depths(sizing *z, bool *keeps, cm_error *err)
{
    sim_run_options o = {.frames = z->frames};
    sim_run_result r;
    cm_status st = sim_run(z->g, &o, &r, err);
    z->runs++;
    if (st != CM_OK)
        return st;
    *keeps = !r.deadlock && r.latency_cycles == z->latency && r.interval_cycles == z->interval;
    sim_run_result_free(&r);
    return CM_OK;
}

static int by_depth_desc(const void *a, const void *b, void *depths)
{
    const int64_t *d = depths;
    int x = *(const int *)a, y = *(const int *)b;
    if (d[x] != d[y])
        return d[x] > d[y] ? -1 : 1;
    return x - y;
}

/* Insertion sort: qsort_r is not C11, and the stream count is small. */
static void order_streams(int *order, int n, const int64_t *depths)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && by_depth_desc(&order[j], &order[j - 1], (void *)depths) < 0; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

static cm_status lower_stream(sizing *z, int s, int64_t *depths, cm_error *err)
{
    int64_t lo = 1, hi = depths[s];
    while (lo < hi && z->runs < z->max_runs) {
        int64_t mid = lo + (hi - lo) / 2;
        sim_stream_set_depth(z->g, s, mid);
        bool keeps = false;
        cm_status st = try_depths(z, &keeps, err);
        if (st != CM_OK)
            return st;
        if (keeps)
            hi = mid;
        else
            lo = mid + 1;
    }
    depths[s] = hi;
    sim_stream_set_depth(z->g, s, hi);
    return CM_OK;
}

cm_status sim_size_fifos(sim_graph *g, int frames, int max_runs, int64_t *depths,
                         sim_run_result *final, cm_error *err)
{
    sim_run_options o = {.frames = frames, .unbounded = true};
    cm_status st = sim_run(g, &o, final, err);
    if (st != CM_OK)
        return st;
    int n = sim_graph_streams(g);
    if (final->deadlock) /* no depth helps: the rates themselves do not match */
        return CM_OK;
    sizing z = {g, frames, 1, max_runs, final->latency_cycles, final->interval_cycles};
    for (int s = 0; s < n; s++) {
        depths[s] = final->streams[s].max_occupancy > 0 ? final->streams[s].max_occupancy : 1;
        sim_stream_set_depth(g, s, depths[s]);
    }
    sim_run_result_free(final);
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (!order)
        return cm_error_nomem(err);
    order_streams(order, n, depths);
    for (int i = 0; i < n && z.runs < z.max_runs && st == CM_OK; i++)
        if (depths[order[i]] > 1)
            st = lower_stream(&z, order[i], depths, err);
    free(order);
    if (st != CM_OK)
        return st;
    sim_run_options at = {.frames = frames};
    st = sim_run(g, &at, final, err);
    if (st == CM_OK)
        final->runs = z.runs + 1;
    return st;
}
