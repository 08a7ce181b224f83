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
    "  --time-limit S     seconds the array sizing may take (default 10); when it runs\n"
    "                     out, the best shape tried so far is used and the output says so\n"
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
    case 't':
        return cm_cli_parse_double("overlay", "--time-limit", arg, 1e-3, 1e6,
                                   &a->opt.time_limit_s);
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
        {"time-limit", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0}};
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

#define STOPPED_TEXT "the time limit ended the array sizing; the array is the best shape tried by then"

static json_t *real_or_null(bool present, double v)
{
    return present ? json_real(v) : json_null();
}

static json_t *layer_json(const cm_graph *g, const cm_overlay_layer *l)
{
    const char *df = cm_overlay_dataflow_name(l->dataflow);
    bool on_array = df != NULL, ok = true;
    json_t *o = json_object();
    cm_cli_json_put(o, "name", json_string(g->layers[l->layer].name), &ok);
    cm_cli_json_put(o, "op", json_string(cm_op_name(g->layers[l->layer].op)), &ok);
    cm_cli_json_put(o, "algorithm", json_string(cm_overlay_algorithm_name(l->algorithm)), &ok);
    cm_cli_json_put(o, "dataflow", on_array ? json_string(df) : json_null(), &ok);
    cm_cli_json_put(o, "compute_s", json_real(l->compute_s), &ok);
    cm_cli_json_put(o, "transition_s", json_real(l->transition_s), &ok);
    cm_cli_json_put(o, "utilisation", real_or_null(on_array, l->utilisation), &ok);
    cm_cli_json_put(o, "cycles", json_integer((json_int_t)l->cycles), &ok);
    return cm_cli_json_finish(o, ok);
}

static json_t *result_json(const cm_graph *g, const cm_board *b, const overlay_args *a,
                           const cm_overlay_result *r, double time_s)
{
    bool ok = true;
    json_t *layers = json_array();
    for (int i = 0; i < r->n_layers; i++)
        cm_cli_json_append(layers, layer_json(g, &r->layers[i]), &ok);
    json_t *base = json_object();
    for (int k = 0; k < CM_OVERLAY_CONV_ALGORITHMS; k++)
        cm_cli_json_put(base, cm_overlay_algorithm_name((cm_overlay_algorithm)k),
                            real_or_null(r->baselines[k].present, r->baselines[k].latency_s), &ok);
    cm_cli_json_put(base, "greedy", real_or_null(r->greedy.present, r->greedy.latency_s), &ok);
    json_t *o = json_pack("{s:s, s:s, s:f, s:[i, i], s:f, s:f, s:b, s:o, s:o, s:f}", "model",
                          g->name, "board", b->name, "clock_mhz", r->clock_mhz, "array",
                          r->array[0], r->array[1], "latency_s", r->latency_s, "gops", r->gops,
                          "optimal", r->optimal, "layers", layers, "baselines", base, "time_s",
                          time_s);
    if (!o)
        return NULL; /* json_pack has released layers and base */
    cm_cli_json_put(o, "dsp_limit",
                        json_integer(a->opt.dsp_limit < 0 ? b->resources.dsp : a->opt.dsp_limit), &ok);
    if (!r->optimal)
        cm_cli_json_put(o, "not_optimal_reason", json_string(r->not_optimal_reason), &ok);
    cm_cli_json_put(o, "time_limit_s", json_real(r->time_limit_s), &ok);
    cm_cli_json_put(o, "stopped_early", json_boolean(r->stopped_early), &ok);
    json_t *warnings = json_array();
    if (r->stopped_early)
        json_array_append_new(warnings, json_string(STOPPED_TEXT));
    cm_cli_json_put(o, "warnings", warnings, &ok);
    cm_cli_json_put(o, "cost_graph", json_pack("{s:i, s:i}", "vertices", r->cost_graph_vertices,
                                                   "edges", r->cost_graph_edges), &ok);
    return cm_cli_json_finish(o, ok);
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
    if (r->stopped_early)
        printf("stopped early: %s (--time-limit %g)\n\n", STOPPED_TEXT, r->time_limit_s);
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
