/* bench_overlay: how long the DYNAMAP overlay mapping takes (array sizing by Algorithm
 * 1, cost graph, series-parallel PBQP solution and the four baselines), the figure the
 * paper gives as "within 2 seconds" for Inception-v4.
 *
 *   bench_overlay [--repeat N] [--board B] [--dsp-limit D] [--json] MODEL...
 *
 * Each model is loaded once (not timed into the mapping), then cm_overlay_map runs N
 * times (default 20); the first run, the median and the minimum are reported, with the
 * mapping's result so a row can be checked against `cnnmap overlay`. Times are
 * wall-clock (CLOCK_MONOTONIC). Exit status 0, 2 when a model failed, 1 on usage. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include <cnnmap/board.h>
#include <cnnmap/model.h>
#include <cnnmap/overlay.h>

#define DEFAULT_REPEAT 20
#define MAX_REPEAT 10000

typedef struct bench_args {
    int repeat;
    const char *board;
    long long dsp_limit;
    bool json;
    int first_model;
} bench_args;

typedef struct bench_row {
    int layers, vertices;
    int array[2];
    double latency_s;
    double first_s, median_s, min_s;
} bench_row;

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_overlay [--repeat N] [--board B] [--dsp-limit D] [--json] MODEL...\n"
                    "  times cm_overlay_map N times (default %d) per model; board u200, limit 6084\n",
                    DEFAULT_REPEAT);
    return 1;
}

static int parse_args(int argc, char **argv, bench_args *a)
{
    *a = (bench_args){DEFAULT_REPEAT, "u200", 6084, false, argc};
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (strcmp(argv[i], "--json") == 0)
            a->json = true;
        else if (strcmp(argv[i], "--repeat") == 0 && more)
            a->repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--board") == 0 && more)
            a->board = argv[++i];
        else if (strcmp(argv[i], "--dsp-limit") == 0 && more)
            a->dsp_limit = atoll(argv[++i]);
        else if (argv[i][0] == '-')
            return usage();
        else {
            a->first_model = i;
            break;
        }
    }
    if (a->repeat < 1 || a->repeat > MAX_REPEAT || a->first_model >= argc)
        return usage();
    return 0;
}

static cm_status measure(const cm_graph *g, const cm_board *b, const bench_args *a, bench_row *row,
                         cm_error *err)
{
    cm_overlay_options opt;
    cm_overlay_options_default(&opt);
    opt.dsp_limit = a->dsp_limit;
    double *t = malloc((size_t)a->repeat * sizeof *t);
    if (!t)
        return cm_error_nomem(err);
    cm_status st = CM_OK;
    for (int k = 0; k < a->repeat && st == CM_OK; k++) {
        cm_overlay_result *r = NULL;
        double t0 = cm_bench_now();
        st = cm_overlay_map(g, b, &opt, &r, err);
        t[k] = cm_bench_now() - t0;
        if (st == CM_OK) {
            row->array[0] = r->array[0];
            row->array[1] = r->array[1];
            row->latency_s = r->latency_s;
            row->vertices = r->cost_graph_vertices;
        }
        cm_overlay_result_free(r);
    }
    if (st == CM_OK) {
        row->first_s = t[0];
        qsort(t, (size_t)a->repeat, sizeof *t, compare_double);
        row->median_s = t[a->repeat / 2];
        row->min_s = t[0];
    }
    free(t);
    return st;
}

static void print_row(const char *path, const bench_row *r, bool json, bool first)
{
    if (json) {
        printf("%s\n  {\"model\": \"%s\", \"layers\": %d, \"cost_graph_vertices\": %d, "
               "\"array\": [%d, %d], \"latency_s\": %.9g, \"map_first_s\": %.9g, "
               "\"map_median_s\": %.9g, \"map_min_s\": %.9g}",
               first ? "" : ",", path, r->layers, r->vertices, r->array[0], r->array[1],
               r->latency_s, r->first_s, r->median_s, r->min_s);
        return;
    }
    const char *name = strrchr(path, '/');
    printf("%-24s %7d %9d %5dx%-4d %10.3f %11.2f %11.2f %11.2f\n", name ? name + 1 : path,
           r->layers, r->vertices, r->array[0], r->array[1], r->latency_s * 1e3, r->first_s * 1e3,
           r->median_s * 1e3, r->min_s * 1e3);
}

static int bench_model(const char *path, const cm_board *b, const bench_args *a, bool first)
{
    cm_error err = {0};
    cm_graph *g = NULL;
    bench_row row;
    memset(&row, 0, sizeof row);
    cm_status st = cm_model_load(path, &g, &err);
    if (st == CM_OK) {
        row.layers = g->n_layers;
        st = measure(g, b, a, &row, &err);
    }
    cm_graph_free(g);
    if (st != CM_OK) {
        fprintf(stderr, "bench_overlay: %s: %s\n", path, err.message);
        return 2;
    }
    print_row(path, &row, a->json, first);
    return 0;
}

int main(int argc, char **argv)
{
    bench_args a;
    if (parse_args(argc, argv, &a) != 0)
        return 1;
    cm_board b;
    cm_error err = {0};
    if (cm_board_resolve(a.board, &b, &err) != CM_OK) {
        fprintf(stderr, "bench_overlay: %s\n", err.message);
        return 2;
    }
    if (a.json)
        printf("{\"board\": \"%s\", \"dsp_limit\": %lld, \"repeat\": %d, \"models\": [", b.name,
               a.dsp_limit, a.repeat);
    else
        printf("%-24s %7s %9s %10s %10s %11s %11s %11s\n", "model", "layers", "vertices", "array",
               "lat(ms)", "first(ms)", "median(ms)", "min(ms)");
    int rc = 0;
    for (int i = a.first_model; i < argc; i++)
        if (bench_model(argv[i], &b, &a, i == a.first_model) != 0)
            rc = 2;
    if (a.json)
        printf("\n]}\n");
    return rc;
}
