/* `cnnmap sweep MODEL --board B[,B...] ...`: latency against resource caps over boards
 * and backends, written as JSON, CSV or HTML, with a one-line summary per front. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cnnmap/sweep.h>

#include "cli/cli.h"

const char cm_cli_sweep_usage[] =
    "usage: cnnmap sweep MODEL --board B[,B...] [--backend B[,B...]] [--objective latency|throughput]\n"
    "                    [--batch N] [--optimiser O] [--steps N] [--time-limit S] [--threads N]\n"
    "                    [--bits N] [--quiet] -o OUT.json|OUT.csv|OUT.html\n\n"
    "Runs the optimiser on MODEL for every board and backend under DSP and BRAM18 caps from\n"
    "10% to 100% of the board, and writes the points (latency, throughput, resources used)\n"
    "with the Pareto front of latency against the share of the board used, per board and\n"
    "backend: JSON (points and fronts), CSV (one row a point; on_front says which are on\n"
    "the front) or a self-contained HTML page (a scatter per board, fronts as lines).\n\n"
    "  --board B,...      built-in boards (cnnmap boards) or board files, comma-separated\n"
    "  --backend B,...    fpgaconvnet, finn, hls4ml (default: all three)\n"
    "  --objective O      latency (batch 1, default) or throughput (uses --batch)\n"
    "  --batch N          samples per run for the throughput objective (default 256)\n"
    "  --optimiser O      rule (default), exact, anneal, brute or none; each point's rule or\n"
    "                     anneal stops after 300,000 design points (CM_SWEEP_POINTS)\n"
    "  --steps N          caps per board and backend, 1 to 100 (default 10: 10%, 20%, ...)\n"
    "  --time-limit S     no point starts after S seconds and a running one stops then;\n"
    "                     the points done are written, with a warning (default: no limit,\n"
    "                     every point bounded by its optimiser's budget)\n"
    "  --threads N        worker threads, 1 to 64 (default: the machine's cores); the\n"
    "                     output is the same for any number\n"
    "  --bits N           bit width of layers the model does not quantise\n"
    "  -o FILE            the output; its extension picks the format\n"
    "  --quiet            no progress bar\n";

#define MAX_LIST 16

typedef struct sweep_args {
    const char *model, *output;
    cm_board boards[MAX_LIST];
    cm_backend backends[MAX_LIST];
    cm_sweep_options o;
    bool quiet;
    char *board_list, *backend_list;
} sweep_args;

enum { OPT_BOARD = 256, OPT_BACKEND, OPT_OBJECTIVE, OPT_BATCH, OPT_OPTIMISER, OPT_STEPS, OPT_TIME,
       OPT_THREADS, OPT_BITS, OPT_QUIET };

static int parse_option(int c, const char *arg, void *ctx)
{
    sweep_args *a = ctx;
    static const char cmd[] = "sweep";
    cm_error err = {0};
    long v = 0;
    int rc = CM_OK;
    switch (c) {
    case 'o': a->output = arg; break;
    case OPT_BOARD: free(a->board_list); a->board_list = strdup(arg); break;
    case OPT_BACKEND: free(a->backend_list); a->backend_list = strdup(arg); break;
    case OPT_OBJECTIVE:
        if (strcmp(arg, "latency") != 0 && strcmp(arg, "throughput") != 0)
            return cm_cli_usage_error(cmd, "unknown objective '%s' (latency or throughput)", arg);
        a->o.design.objective = arg[0] == 'l' ? CM_OBJECTIVE_LATENCY : CM_OBJECTIVE_THROUGHPUT;
        break;
    case OPT_BATCH:
        rc = cm_cli_parse_long(cmd, "--batch", arg, 1, 1L << 20, &v);
        a->o.design.batch = (int)v;
        break;
    case OPT_OPTIMISER:
        if (cm_optimiser_parse(arg, &a->o.optimiser, &err) != CM_OK)
            return cm_cli_usage_error(cmd, "%s", err.message);
        break;
    case OPT_STEPS:
        rc = cm_cli_parse_long(cmd, "--steps", arg, 1, CM_SWEEP_MAX_STEPS, &v);
        a->o.steps = (int)v;
        break;
    case OPT_TIME: rc = cm_cli_parse_double(cmd, "--time-limit", arg, 0.001, 1e7, &a->o.time_limit_s); break;
    case OPT_THREADS:
        rc = cm_cli_parse_long(cmd, "--threads", arg, 1, CM_SWEEP_MAX_THREADS, &v);
        a->o.threads = (int)v;
        break;
    case OPT_BITS:
        rc = cm_cli_parse_long(cmd, "--bits", arg, 1, 32, &v);
        a->o.design.default_weight_bits = a->o.design.default_act_bits = (int)v;
        break;
    case OPT_QUIET: a->quiet = true; break;
    default: return cm_cli_usage_error(cmd, "unknown option '%s'", arg ? arg : "");
    }
    if ((c == OPT_BOARD && !a->board_list) || (c == OPT_BACKEND && !a->backend_list))
        return CM_EINTERNAL;
    return rc;
}

/* Splits a comma-separated list in place; returns how many items, or -1 when there are
 * more than MAX_LIST or one is empty. */
static int split(char *list, char **items)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == MAX_LIST)
            return -1;
        items[n++] = t;
    }
    return n;
}

static int parse_lists(sweep_args *a)
{
    char *items[MAX_LIST];
    cm_error err = {0};
    int n = split(a->board_list, items);
    if (n < 1)
        return cm_cli_usage_error("sweep", "--board takes 1 to %d comma-separated boards", MAX_LIST);
    for (int i = 0; i < n; i++)
        if (cm_board_resolve(items[i], &a->boards[i], &err) != CM_OK)
            return cm_cli_fail(&err);
    a->o.n_boards = n;
    if (!a->backend_list) {
        a->backends[0] = CM_BACKEND_FPGACONVNET;
        a->backends[1] = CM_BACKEND_FINN;
        a->backends[2] = CM_BACKEND_HLS4ML;
        a->o.n_backends = 3;
        return CM_OK;
    }
    n = split(a->backend_list, items);
    if (n < 1)
        return cm_cli_usage_error("sweep", "--backend takes 1 to %d comma-separated backends", MAX_LIST);
    for (int i = 0; i < n; i++)
        if (cm_backend_parse(items[i], &a->backends[i], &err) != CM_OK)
            return cm_cli_usage_error("sweep", "%s", err.message);
    a->o.n_backends = n;
    return CM_OK;
}

static int parse_args(int argc, char **argv, sweep_args *a)
{
    static const struct option options[] = {
        {"board", required_argument, NULL, OPT_BOARD},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"objective", required_argument, NULL, OPT_OBJECTIVE},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"optimiser", required_argument, NULL, OPT_OPTIMISER},
        {"steps", required_argument, NULL, OPT_STEPS},
        {"time-limit", required_argument, NULL, OPT_TIME},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"bits", required_argument, NULL, OPT_BITS},
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {NULL, 0, NULL, 0}};
    cm_sweep_options_init(&a->o);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    a->o.threads = cores < 1 ? 1 : cores > CM_SWEEP_MAX_THREADS ? CM_SWEEP_MAX_THREADS : (int)cores;
    int rc = cm_cli_parse_options(argc, argv, "sweep", options, parse_option, a);
    if (rc != CM_OK)
        return rc;
    if (optind != argc - 1)
        return cm_cli_usage_error("sweep", optind >= argc ? "no MODEL given" : "more than one MODEL given");
    if (!a->board_list)
        return cm_cli_usage_error("sweep", "--board is required");
    if (!a->output)
        return cm_cli_usage_error("sweep", "-o OUT.json|OUT.csv|OUT.html is required");
    a->model = argv[optind];
    rc = cm_cli_check_output("sweep", "-o", a->output);
    cm_error err = {0};
    if (rc == CM_OK && cm_sweep_check_output(a->output, &err) != CM_OK)
        return cm_cli_usage_error("sweep", "%s", err.message);
    return rc != CM_OK ? rc : parse_lists(a);
}

/* One line per board and backend: the front from the least to the most of the board. */
static void print_fronts(const sweep_args *a, const cm_sweep_result *r)
{
    for (int i = 0; i < r->n_points; i += a->o.steps) {
        const cm_sweep_point *p = &r->points[i];
        int n = 0;
        double fast = 0, util = 0;
        for (int j = i; j < i + a->o.steps; j++)
            if (r->points[j].on_front && (n++ == 0 || r->points[j].latency_s < fast)) {
                fast = r->points[j].latency_s;
                util = r->points[j].util;
            }
        printf("%-12s %-12s ", a->boards[p->board].name, cm_backend_name(a->backends[p->backend]));
        if (n == 0)
            printf("no feasible point%s%s\n", p->error[0] ? ": " : "", p->error);
        else
            printf("%d front point%s, best %.6g ms at %.1f%% of the board\n", n, n == 1 ? "" : "s",
                   fast * 1e3, util * 100);
    }
}

int cm_cli_sweep(int argc, char **argv)
{
    sweep_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    cm_sweep_result r = {0};
    cm_error err = {0};
    if (rc == CM_OK) {
        a.o.model_path = a.model;
        a.o.boards = a.boards;
        a.o.backends = a.backends;
        a.o.progress = !a.quiet && isatty(STDERR_FILENO);
        cm_status st = cm_sweep_run(&a.o, &r, &err);
        if (st == CM_OK)
            st = cm_sweep_write(&a.o, &r, a.output, &err);
        rc = st == CM_OK ? CM_OK : cm_cli_fail(&err);
    }
    if (rc == CM_OK) {
        print_fronts(&a, &r);
        rc = cm_cli_printed(CM_OK, a.output);
    }
    if (rc == CM_OK) {
        if (r.stopped_early)
            fprintf(stderr, "cnnmap: warning: sweep: the time limit of %g s stopped the sweep after "
                            "%d of %d points\n", a.o.time_limit_s, r.points_done, r.n_points);
    }
    cm_sweep_result_free(&r);
    free(a.board_list);
    free(a.backend_list);
    return rc;
}
