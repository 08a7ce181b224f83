/* bench_design: design evaluations per second, single thread.
 *
 *   bench_design [--seconds S] [--split] [--backend B] [--incremental-only] MODEL...
 *
 * For each model and backend it builds the resource-minimal design on a U250 (so
 * partitions are never the point) and cuts it after every allowed node when
 * --split is given, then measures:
 *
 *   incremental  one random node gets a random valid folding, then the design's cost
 *                and feasibility are read: what an optimiser's move costs;
 *   full         every node gets a random valid folding and every partition's
 *                aggregates are rebuilt from scratch, then cost and feasibility.
 *
 * --incremental-only leaves the full measurement out (printed as "-"), so that a profile
 * of the run is the incremental moves' alone.
 * The random foldings come from a fixed-seed generator, so runs are comparable. Times
 * are CLOCK_MONOTONIC; each measurement runs for about S seconds (default 1). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include <cnnmap/design.h>
#include <cnnmap/model.h>

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A value below n from the generator's top 32 bits by a multiply and a shift: a 64-bit
 * remainder takes longer than some of the moves the benchmark times. */
static uint64_t below(uint64_t *s, uint64_t n)
{
    return ((next(s) >> 32) * n) >> 32;
}

static void random_folding(cm_design *d, int node, uint64_t *rng)
{
    int64_t f[3];
    for (int k = 0; k < 3; k++) {
        int count;
        const int64_t *v = cm_design_fold_values(d, node, (cm_fold)k, &count);
        f[k] = v[below(rng, (uint64_t)count)];
    }
    cm_design_set_folding(d, node, f[0], f[1], f[2]);
}

/* Runs `step` in batches until `seconds` pass; returns steps per second. */
static double measure(cm_design *d, bool full, double seconds, double *sink)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    int n = cm_design_node_count(d), np = cm_design_partition_count(d);
    int *first = malloc((size_t)np * sizeof *first);
    for (int p = 0; p < np; p++)
        first[p] = cm_design_partition_first(d, p);
    uint64_t steps = 0;
    double start = cm_bench_now(), end = start;
    while (end - start < seconds) {
        for (int b = 0; b < (full ? 16 : 4096); b++) {
            if (full) {
                for (int i = 0; i < n; i++)
                    random_folding(d, i, &rng);
                cm_design_set_partitions(d, first, np, NULL);
            } else {
                random_folding(d, (int)below(&rng, (uint64_t)n), &rng);
            }
            *sink += cm_design_cost(d) + cm_design_feasible(d);
            steps++;
        }
        end = cm_bench_now();
    }
    free(first);
    return (double)steps / (end - start);
}

int main(int argc, char **argv)
{
    double seconds = 1.0;
    bool split = false, incremental_only = false;
    cm_backend backends[3] = {CM_BACKEND_FPGACONVNET, CM_BACKEND_FINN, CM_BACKEND_HLS4ML};
    int nb = 3;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        cm_error err = {0};
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (strcmp(argv[i], "--split") == 0) {
            split = true;
        } else if (strcmp(argv[i], "--incremental-only") == 0) {
            incremental_only = true;
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            if (cm_backend_parse(argv[++i], &backends[0], &err) != CM_OK) {
                fprintf(stderr, "bench_design: %s\n", err.message);
                return 1;
            }
            nb = 1;
        } else {
            fprintf(stderr, "usage: bench_design [--seconds S] [--split] [--backend B] "
                            "[--incremental-only] MODEL...\n");
            return 1;
        }
    }
    cm_board board;
    cm_error err = {0};
    if (cm_board_builtin("u250", &board, &err) != CM_OK)
        return 2;
    printf("%-28s %-12s %6s %6s %16s %14s\n", "model", "backend", "nodes", "parts",
           "incremental/s", "full/s");
    double sink = 0;
    for (; i < argc; i++)
        for (int b = 0; b < nb; b++) {
            cm_graph *g = NULL;
            if (cm_model_load(argv[i], &g, &err) != CM_OK) {
                fprintf(stderr, "bench_design: %s\n", err.message);
                return 2;
            }
            cm_design_options o;
            cm_design_options_init(&o);
            o.backend = backends[b];
            cm_design *d = NULL;
            if (cm_design_create(g, &board, &o, &d, &err) != CM_OK) {
                fprintf(stderr, "bench_design: %s: %s\n", argv[i], err.message);
                cm_graph_free(g);
                continue;
            }
            if (split)
                cm_design_split_all(d);
            double inc = measure(d, false, seconds, &sink);
            char full[32] = "-";
            if (!incremental_only)
                snprintf(full, sizeof full, "%.0f", measure(d, true, seconds, &sink));
            const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
            printf("%-28s %-12s %6d %6d %16.0f %14s\n", name, cm_backend_name(backends[b]),
                   cm_design_node_count(d), cm_design_partition_count(d), inc, full);
            fflush(stdout);
            cm_design_free(d);
        }
    return sink == 42.0 ? 3 : 0; /* keeps the work observable to the optimiser */
}
