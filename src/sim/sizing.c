/* FIFO sizing by simulation: the depths that keep the schedule of unbounded streams.
 * The most words each stream holds when nothing is bounded is a depth that leaves that
 * schedule exactly as it is; most streams need less, which bisection finds one stream
 * at a time (the deepest first, as they cost the most memory), keeping a smaller depth
 * only when the run's latency and interval are unchanged and nothing deadlocks. */
#include <stdlib.h>
#include <string.h>

#include "sim/build.h"
#include "sim/engine.h"
#include "util/progress.h"

typedef struct sizing {
    sim_graph *g;
    int frames;
    int runs, max_runs;
    int64_t latency, interval; /* of the unbounded run */
    double deadline;           /* > 0: cm_seconds_now() at which sizing stops */
    bool cut;                  /* the deadline stopped it */
    /* the last run that kept the figures: its depths are the ones sizing ends with
     * (every later trial was refused), so a cut sizing reports it without another run */
    sim_run_result best;
} sizing;

static bool past(sizing *z)
{
    if (z->deadline > 0 && !z->cut && cm_seconds_now() >= z->deadline)
        z->cut = true;
    return z->cut;
}

/* Runs at the graph's depths; *keeps: no deadlock and the unbounded figures. */
static cm_status try_depths(sizing *z, bool *keeps, cm_error *err)
{
    sim_run_options o = {.frames = z->frames, .deadline_s = z->deadline};
    sim_run_result r;
    cm_status st = sim_run(z->g, &o, &r, err);
    z->runs++;
    if (st != CM_OK)
        return st;
    /* a run the deadline cut proves nothing: the depth under test is not kept */
    z->cut = z->cut || r.stopped_early;
    *keeps = !r.stopped_early && !r.deadlock && r.latency_cycles == z->latency &&
             r.interval_cycles == z->interval;
    if (*keeps) {
        sim_run_result_free(&z->best);
        z->best = r;
    } else {
        sim_run_result_free(&r);
    }
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
    while (lo < hi && z->runs < z->max_runs && !past(z)) {
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

cm_status sim_size_fifos_until(sim_graph *g, int frames, int max_runs, double deadline,
                               int64_t *depths, sim_run_result *final, bool *cut, cm_error *err)
{
    *cut = false;
    sim_run_options o = {.frames = frames, .unbounded = true, .deadline_s = deadline};
    cm_status st = sim_run(g, &o, final, err);
    if (st != CM_OK)
        return st;
    int n = sim_graph_streams(g);
    /* no depth helps a deadlock (the rates themselves do not match); a cut run has no
     * occupancies to start from */
    if (final->deadlock || final->stopped_early)
        return CM_OK;
    sizing z = {g, frames, 1, max_runs, final->latency_cycles, final->interval_cycles, deadline,
                false, *final};
    memset(final, 0, sizeof *final);
    /* the most words each stream held unbounded: a depth that leaves that run as it is */
    for (int s = 0; s < n; s++) {
        depths[s] = z.best.streams[s].max_occupancy > 0 ? z.best.streams[s].max_occupancy : 1;
        sim_stream_set_depth(g, s, depths[s]);
    }
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (!order)
        st = cm_error_nomem(err);
    else
        order_streams(order, n, depths);
    for (int i = 0; i < n && z.runs < z.max_runs && st == CM_OK && !past(&z); i++)
        if (depths[order[i]] > 1)
            st = lower_stream(&z, order[i], depths, err);
    free(order);
    *cut = z.cut;
    if (st != CM_OK || z.cut) {
        if (st == CM_OK) {
            *final = z.best;
            final->runs = z.runs;
        } else {
            sim_run_result_free(&z.best);
        }
        return st;
    }
    sim_run_result_free(&z.best);
    sim_run_options at = {.frames = frames};
    st = sim_run(g, &at, final, err);
    if (st == CM_OK)
        final->runs = z.runs + 1;
    return st;
}

cm_status sim_size_fifos(sim_graph *g, int frames, int max_runs, int64_t *depths,
                         sim_run_result *final, cm_error *err)
{
    bool cut;
    return sim_size_fifos_until(g, frames, max_runs, 0, depths, final, &cut, err);
}
