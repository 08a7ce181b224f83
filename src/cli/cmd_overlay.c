/* `cnnmap overlay MODEL --board BOARD [--dsp-limit N] [--algorithms LIST] [--array P1xP2]
 * [--json]`: the DYNAMAP systolic-array overlay for a model, its per-layer algorithm
 * mapping, and the single-algorithm and greedy baselines on the same array. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cnnmap/board.h>
#include <cnnmap/model.h>
#include <cnnmap/overlay.h>

#include "cli/cli.h"

const char cm_cli_overlay_usage[] =
    "usage: cnnmap overlay MODEL --board BOARD [--dsp-limit N] [--algorithms LIST]\n"
    "                      [--array P1xP2] [--json]\n\n"
    "Maps a model onto one systolic array of 8-bit MAC units that every layer reuses\n"
    "(DYNAMAP, FPL 2021). The array shape is chosen by the paper's Algorithm 1; each conv\n"
    "and fc layer then gets an algorithm (im2col, kn2row or Winograd F(2x2, 3x3)) and a\n"
    "dataflow (NS, WS, IS) so that compute plus the data-layout transitions between\n"
    "layers is least (a PBQP problem, solved exactly when the cost graph is\n"
    "series-parallel and by the RN heuristic otherwise, then labelled not optimal).\n"
    "Pooling runs on the pooling module. Prints the array, per layer its algorithm,\n"
    "dataflow, compute and transition time and effective PE utilisation (eq. 14), the\n"
    "end-to-end latency and GOp/s, and the latency of im2col only, kn2row only,\n"
    "Winograd where it applies (im2col elsewhere) and a greedy per-layer choice on the\n"
    "same array.\n\n"
    "  --board BOARD      a built-in board name (cnnmap boards) or a board JSON file\n"
    "  --dsp-limit N      DSPs the array may use, one per PE (default: the board's)\n"
    "  --algorithms LIST  comma-separated subset of im2col,kn2row,winograd (default: all)\n"
    "  --array P1xP2      use this array shape instead of sizing one\n"
    "  --json             print the object of cli.md instead of the table; layers off the\n"
    "                     array (pooling) have null dataflow and utilisation, a baseline\n"
    "                     whose algorithm was not allowed is null\n";

typedef struct overlay_args {
    const char *model;
    const char *board;
    cm_overlay_options opt;
    bool json;
} overlay_args;

static int parse_dsp_limit(const char *text, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < 0)
        return cm_cli_usage_error("overlay", "--dsp-limit expects a whole number of DSPs, not '%s'",
                                  text);
    *out = v;
    return CM_OK;
}

static int parse_array(const char *text, int array[2])
{
    char tail;
    if (sscanf(text, "%dx%d%c", &array[0], &array[1], &tail) != 2 || array[0] < 1 || array[1] < 1)
        return cm_cli_usage_error("overlay", "--array expects P1xP2, e.g. 92x66, not '%s'", text);
    return CM_OK;
}

static int parse_option(int c, const char *arg, overlay_args *a)
{
    cm_error err = {0};
    switch (c) {
    case 'b':
        a->board = arg;
        return CM_OK;
    case 'd':
        return parse_dsp_limit(arg, &a->opt.dsp_limit);
    case 'a':
        if (cm_overlay_parse_algorithms(arg, &a->opt.algorithms, &err) != CM_OK)
            return cm_cli_usage_error("overlay", "%s", err.message);
        return CM_OK;
    case 'r':
        return parse_array(arg, a->opt.array);
    case 'j':
        a->json = true;
        return CM_OK;
    default:
        return CM_EUSAGE;
    }
}

static int parse_args(int argc, char **argv, overlay_args *a)
{
    static const struct option options[] = {
        {"board", required_argument, NULL, 'b'},      {"dsp-limit", required_argument, NULL, 'd'},
        {"algorithms", required_argument, NULL, 'a'}, {"array", required_argument, NULL, 'r'},
        {"json", no_argument, NULL, 'j'},             {NULL, 0, NULL, 0}};
    cm_overlay_options_default(&a->opt);
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
        if (c == '?' || c == ':')
            return cm_cli_usage_error("overlay", "%s option '%s'",
                                      c == ':' ? "missing value for" : "unknown",
                                      argv[optind - 1]);
        int rc = parse_option(c, optarg, a);
        if (rc != CM_OK)
            return rc;
    }
    if (optind != argc - 1)
        return cm_cli_usage_error("overlay", "expects exactly one MODEL file");
    if (!a->board)
        return cm_cli_usage_error("overlay", "--board is required");
    a->model = argv[optind];
    return CM_OK;
}

/* ---- output ---- */

static json_t *real_or_null(bool present, double v)
{
    return present ? json_real(v) : json_null();
}

static json_t *layer_json(const cm_graph *g, const cm_overlay_layer *l)
{
    const char *df = cm_overlay_dataflow_name(l->dataflow);
    bool on_array = df != NULL;
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(g->layers[l->layer].name));
    json_object_set_new(o, "op", json_string(cm_op_name(g->layers[l->layer].op)));
    json_object_set_new(o, "algorithm", json_string(cm_overlay_algorithm_name(l->algorithm)));
    json_object_set_new(o, "dataflow", on_array ? json_string(df) : json_null());
    json_object_set_new(o, "compute_s", json_real(l->compute_s));
    json_object_set_new(o, "transition_s", json_real(l->transition_s));
    json_object_set_new(o, "utilisation", real_or_null(on_array, l->utilisation));
    json_object_set_new(o, "cycles", json_integer((json_int_t)l->cycles));
    return o;
}

static json_t *result_json(const cm_graph *g, const cm_board *b, const overlay_args *a,
                           const cm_overlay_result *r, double time_s)
{
    json_t *layers = json_array();
    for (int i = 0; i < r->n_layers; i++)
        json_array_append_new(layers, layer_json(g, &r->layers[i]));
    json_t *base = json_object();
    for (int k = 0; k < CM_OVERLAY_CONV_ALGORITHMS; k++)
        json_object_set_new(base, cm_overlay_algorithm_name((cm_overlay_algorithm)k),
                            real_or_null(r->baselines[k].present, r->baselines[k].latency_s));
    json_object_set_new(base, "greedy", real_or_null(r->greedy.present, r->greedy.latency_s));
    json_t *o = json_pack("{s:s, s:s, s:f, s:[i, i], s:f, s:f, s:b, s:o, s:o, s:f}", "model",
                          g->name, "board", b->name, "clock_mhz", r->clock_mhz, "array",
                          r->array[0], r->array[1], "latency_s", r->latency_s, "gops", r->gops,
                          "optimal", r->optimal, "layers", layers, "baselines", base, "time_s",
                          time_s);
    if (!o)
        return NULL;
    json_object_set_new(o, "dsp_limit",
                        json_integer(a->opt.dsp_limit < 0 ? b->resources.dsp : a->opt.dsp_limit));
    if (!r->optimal)
        json_object_set_new(o, "not_optimal_reason", json_string(r->not_optimal_reason));
    json_object_set_new(o, "cost_graph", json_pack("{s:i, s:i}", "vertices", r->cost_graph_vertices,
                                                   "edges", r->cost_graph_edges));
    return o;
}

static void print_rows(const cm_graph *g, const cm_overlay_result *r)
{
    printf("%-40s %-8s %-9s %-4s %12s %14s %12s\n", "layer", "op", "algorithm", "flow",
           "compute(us)", "transition(us)", "utilisation");
    for (int i = 0; i < r->n_layers; i++) {
        const cm_overlay_layer *l = &r->layers[i];
        const char *df = cm_overlay_dataflow_name(l->dataflow);
        char util[16] = "-";
        if (df)
            snprintf(util, sizeof util, "%.3f", l->utilisation);
        printf("%-40.40s %-8s %-9s %-4s %12.2f %14.2f %12s\n", g->layers[l->layer].name,
               cm_op_name(g->layers[l->layer].op), cm_overlay_algorithm_name(l->algorithm),
               df ? df : "-", l->compute_s * 1e6, l->transition_s * 1e6, util);
    }
}

static void print_baseline(const char *what, const cm_overlay_baseline *b, double latency)
{
    if (!b->present) {
        printf("  %-44s (not allowed)\n", what);
        return;
    }
    printf("  %-44s %9.3f ms   mapping %5.1f%% lower\n", what, b->latency_s * 1e3,
           100.0 * (1.0 - latency / b->latency_s));
}

static void print_table(const cm_graph *g, const cm_board *b, const overlay_args *a,
                        const cm_overlay_result *r)
{
    int64_t limit = a->opt.dsp_limit < 0 ? b->resources.dsp : a->opt.dsp_limit;
    printf("model %s on %s at %.0f MHz: systolic array %d x %d (%d of %" PRId64 " DSPs)\n", g->name,
           b->name, r->clock_mhz, r->array[0], r->array[1], r->array[0] * r->array[1], limit);
    if (r->optimal)
        printf("mapping: optimal (series-parallel cost graph, %d vertices, %d edges)\n\n",
               r->cost_graph_vertices, r->cost_graph_edges);
    else
        printf("mapping: not proven optimal: %s\n\n", r->not_optimal_reason);
    print_rows(g, r);
    printf("\nend-to-end latency %.3f ms, %.1f GOp/s\n", r->latency_s * 1e3, r->gops);
    printf("baselines on the same array:\n");
    print_baseline("im2col only", &r->baselines[CM_OVERLAY_IM2COL], r->latency_s);
    print_baseline("kn2row only", &r->baselines[CM_OVERLAY_KN2ROW], r->latency_s);
    print_baseline("winograd where it applies, im2col elsewhere", &r->baselines[CM_OVERLAY_WINOGRAD],
                   r->latency_s);
    print_baseline("greedy (fastest compute per layer)", &r->greedy, r->latency_s);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run(const overlay_args *a, const cm_board *b, const cm_graph *g)
{
    cm_error err = {0};
    cm_overlay_result *r = NULL;
    double t0 = now_s();
    if (cm_overlay_map(g, b, &a->opt, &r, &err) != CM_OK) {
        if (err.code == CM_EUSAGE)
            return cm_cli_usage_error("overlay", "%s", err.message);
        cm_error_prefix(&err, a->model);
        return cm_cli_fail(&err);
    }
    double time_s = now_s() - t0;
    int rc = CM_OK;
    if (a->json)
        rc = cm_cli_print_json(result_json(g, b, a, r, time_s));
    else
        print_table(g, b, a, r);
    cm_overlay_result_free(r);
    return rc;
}

int cm_cli_overlay(int argc, char **argv)
{
    overlay_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc != CM_OK)
        return rc;
    cm_error err = {0};
    cm_board board;
    if (cm_board_resolve(a.board, &board, &err) != CM_OK)
        return cm_cli_fail(&err);
    cm_graph *g = NULL;
    if (cm_model_load(a.model, &g, &err) != CM_OK)
        return cm_cli_fail(&err);
    rc = run(&a, &board, g);
    cm_graph_free(g);
    return rc;
}
