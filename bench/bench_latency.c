/* bench_latency: the latency-driven flow against the throughput-driven one.
 *
 *   bench_latency [--board B] [--runs N] MODEL...
 *
 * For each model (batch 1, the board's clock and bandwidth, 16-bit words) it runs
 * cm_latency_optimise N times (default 5) and reports the median and minimum search
 * time, then builds the throughput-driven fpgaConvNet design (cm_design_create with the
 * latency objective, rule optimiser) and prints both latencies and the factor between
 * them. --exact instead compares the rule search with the exact one (latency, bound,
 * gap, time of the exact search). Times are CLOCK_MONOTONIC around the library call only (the model load is not
 * counted). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include <cnnmap/cnnmap.h>

/* Latency of the throughput-driven design, or INFINITY when it does not fit. */
static double throughput_latency(const char *path, const cm_board *board, int *partitions)
{
    cm_graph *g = NULL;
    cm_error err = {0};
    if (cm_model_load(path, &g, &err) != CM_OK)
        return INFINITY;
    cm_design_options o;
    cm_design_options_init(&o);
    cm_design *d = NULL;
    if (cm_design_create(g, board, &o, &d, &err) != CM_OK) {
        cm_graph_free(g);
        return INFINITY;
    }
    cm_optimise_options so = {.optimiser = CM_OPTIMISER_RULE, .seed = 1};
    cm_optimise_result r;
    double lat = INFINITY;
    if (cm_optimise(d, &so, &r, &err) == CM_OK && cm_design_feasible(d))
        lat = cm_design_cost(d);
    *partitions = cm_design_partition_count(d);
    cm_design_free(d);
    return lat;
}

/* Runs the search `runs` times into d; times sorted ascending. */
static cm_status timed_runs(const cm_graph *g, const cm_board *board, const cm_latency_options *o,
                            int runs, double *times, cm_latency_design *d, cm_error *err)
{
    cm_status st = CM_OK;
    for (int i = 0; i < runs && st == CM_OK; i++) {
        cm_latency_design_free(d);
        double t0 = cm_bench_now();
        st = cm_latency_optimise(g, board, o, d, err);
        times[i] = cm_bench_now() - t0;
    }
    qsort(times, (size_t)runs, sizeof *times, cm_bench_cmp_double);
    return st;
}

static cm_graph *load(const char *path)
{
    cm_graph *g = NULL;
    cm_error err = {0};
    if (cm_model_load(path, &g, &err) != CM_OK)
        fprintf(stderr, "bench_latency: %s\n", err.message);
    return g;
}

static int bench_model(const char *path, const cm_board *board, int runs)
{
    cm_graph *g = load(path);
    if (!g)
        return 1;
    cm_latency_options o;
    cm_latency_options_init(&o);
    double times[64];
    cm_latency_design d = {0};
    cm_error err = {0};
    cm_status st = timed_runs(g, board, &o, runs, times, &d, &err);
    if (st != CM_OK)
        fprintf(stderr, "bench_latency: %s: %s\n", path, err.message);
    int parts = 0;
    double tp = throughput_latency(path, board, &parts);
    printf("%-16s %10.4f %10.4f %8llu %12.6g %10d %12.6g %9.2f %8.2f %6lld\n", g->name,
           times[runs / 2], times[0], (unsigned long long)d.evaluations, d.latency_s * 1e3,
           d.n_subgraphs, tp * 1e3, tp / d.latency_s, d.gops, (long long)d.resources.dsp);
    cm_latency_design_free(&d);
    cm_graph_free(g);
    return st == CM_OK ? 0 : 1;
}

/* --exact: the rule search beside the exact one, with the exact one's bound and gap. */
static int bench_exact(const char *path, const cm_board *board, int runs)
{
    cm_graph *g = load(path);
    if (!g)
        return 1;
    cm_latency_options o;
    cm_latency_options_init(&o);
    cm_latency_design rule = {0}, d = {0};
    cm_error err = {0};
    double times[64];
    cm_status st = cm_latency_optimise(g, board, &o, &rule, &err);
    o.search = CM_LATENCY_SEARCH_EXACT;
    if (st == CM_OK)
        st = timed_runs(g, board, &o, runs, times, &d, &err);
    if (st != CM_OK) {
        fprintf(stderr, "bench_latency: %s: %s\n", path, err.message);
    } else {
        printf("%-16s %12.6f %12.6f %12.6f %8.3f%% %8s %10.3f %10.3f %10llu\n", g->name,
               rule.latency_s * 1e3, d.latency_s * 1e3, d.lower_bound_s * 1e3,
               (d.latency_s / d.lower_bound_s - 1.0) * 100.0, d.optimal ? "yes" : "no",
               times[runs / 2], times[0], (unsigned long long)d.evaluations);
    }
    cm_latency_design_free(&rule);
    cm_latency_design_free(&d);
    cm_graph_free(g);
    return st == CM_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *board_name = "zc706";
    int runs = 5, first = 1;
    bool exact = false;
    while (first + 1 < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "--exact") == 0) {
            exact = true;
            first++;
            continue;
        }
        if (strcmp(argv[first], "--board") == 0)
            board_name = argv[first + 1];
        else if (strcmp(argv[first], "--runs") == 0)
            runs = atoi(argv[first + 1]);
        first += 2;
    }
    if (runs < 1 || runs > 64 || first >= argc) {
        fprintf(stderr, "usage: bench_latency [--exact] [--board B] [--runs 1..64] MODEL...\n");
        return 1;
    }
    cm_board board;
    cm_error err = {0};
    if (cm_board_resolve(board_name, &board, &err) != CM_OK) {
        fprintf(stderr, "bench_latency: %s\n", err.message);
        return 1;
    }
    if (exact) {
        printf("%-16s %12s %12s %12s %9s %8s %10s %10s %10s\n", "model", "rule ms", "exact ms",
               "bound ms", "gap", "optimal", "median s", "min s", "evals");
        int rc = 0;
        for (int i = first; i < argc; i++)
            rc |= bench_exact(argv[i], &board, runs);
        return rc;
    }
    printf("%-16s %10s %10s %8s %12s %10s %12s %9s %8s %6s\n", "model", "median s", "min s",
           "evals", "latency ms", "subgraphs", "thr. ms", "factor", "GOp/s", "DSP");
    int rc = 0;
    for (int i = first; i < argc; i++)
        rc |= bench_model(argv[i], &board, runs);
    return rc;
}
