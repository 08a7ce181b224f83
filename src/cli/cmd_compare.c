/* `cnnmap compare MODEL --board B`: the model mapped onto every architecture that can
 * take it (cm_map_model), side by side, the best marked. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cnnmap/map.h>

#include "cli/cli.h"
#include "map/map_json.h"

const char cm_cli_compare_usage[] =
    "usage: cnnmap compare MODEL --board BOARD [--objective latency|throughput] [--batch N]\n"
    "                      [--only LIST] [--time-limit S] [-o DESIGN.json] [--json] [--quiet]\n\n"
    "Maps MODEL onto every architecture that can take it, each with its best optimiser:\n"
    "streaming partitions on fpgaConvNet, FINN and hls4ml (exact), fpgaConvNet's\n"
    "latency-driven reference architecture with weights reloading (exact), nn2FPGA's\n"
    "dataflow accelerator when the model is quantised (bip) and the DYNAMAP overlay\n"
    "(PBQP). Prints their latency, throughput and resources side by side, whether each is\n"
    "proven optimal, or why an architecture cannot take the model; '*' marks the best.\n\n"
    "  --board BOARD     a built-in board (cnnmap boards) or a board JSON file\n"
    "  --objective O     latency (batch 1, default) or throughput (uses --batch)\n"
    "  --batch N         samples per run for the throughput objective (default 256)\n"
    "  --only LIST       comma-separated subset of fpgaconvnet, finn, hls4ml,\n"
    "                    latency-driven, nn2fpga, overlay\n"
    "  --time-limit S    seconds for the whole comparison, shared out among the\n"
    "                    architectures as they run (default: none; every search stops\n"
    "                    by its own budget, the same result on any machine)\n"
    "  -o DESIGN.json    write the best design's file (as its architecture's command would:\n"
    "                    optimise -o or overlay -o), for evaluate and export\n"
    "  --json            print the object of cli.md instead of the table\n"
    "  --quiet           no progress bar\n"
    "Exit code 3 when no architecture fits the board (the table is still printed).\n";

typedef struct compare_args {
    const char *model, *board, *output;
    cm_map_options o;
    bool json, quiet;
} compare_args;

static int parse_option(int c, const char *arg, compare_args *a)
{
    static const char cmd[] = "compare";
    cm_error err = {0};
    long v;
    switch (c) {
    case 'b': a->board = arg; return CM_OK;
    case 'O':
        if (strcmp(arg, "latency") == 0)
            a->o.objective = CM_OBJECTIVE_LATENCY;
        else if (strcmp(arg, "throughput") == 0)
            a->o.objective = CM_OBJECTIVE_THROUGHPUT;
        else
            return cm_cli_usage_error(cmd, "unknown objective '%s' (latency or throughput)", arg);
        return CM_OK;
    case 'n': {
        int rc = cm_cli_parse_long(cmd, "--batch", arg, 1, 1L << 20, &v);
        a->o.batch = (int)v;
        return rc;
    }
    case 's':
        if (cm_map_parse_spaces(arg, &a->o.spaces, &err) != CM_OK)
            return cm_cli_usage_error(cmd, "--only: %s", err.message);
        return CM_OK;
    case 't':
        return cm_cli_parse_double(cmd, "--time-limit", arg, 0.001, 1e7, &a->o.time_limit_s);
    case 'j': a->json = true; return CM_OK;
    case 'q': a->quiet = true; return CM_OK;
    case 'o': a->output = arg; return CM_OK;
    default: return CM_EUSAGE;
    }
}

static int parse_args(int argc, char **argv, compare_args *a)
{
    static const struct option options[] = {
        {"board", required_argument, NULL, 'b'},      {"objective", required_argument, NULL, 'O'},
        {"batch", required_argument, NULL, 'n'},      {"only", required_argument, NULL, 's'},
        {"time-limit", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},            {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cm_map_options_init(&a->o);
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":o:", options, NULL)) != -1) {
        if (c == '?' || c == ':')
            return cm_cli_usage_error("compare", "%s option '%s'",
                                      c == ':' ? "missing value for" : "unknown", argv[optind - 1]);
        int rc = parse_option(c, optarg, a);
        if (rc != CM_OK)
            return rc;
    }
    if (optind != argc - 1)
        return cm_cli_usage_error("compare", optind >= argc ? "no MODEL given"
                                                            : "more than one MODEL given");
    if (!a->board)
        return cm_cli_usage_error("compare", "--board is required");
    a->model = argv[optind];
    return cm_cli_check_output("compare", "-o", a->output);
}

/* ---- text ---- */

static void print_row(const cm_map_result *r, int i)
{
    const cm_map_candidate *c = &r->candidates[i];
    printf("%c %-15s %-12s %-9s", r->best == i ? '*' : ' ', cm_architecture_name(c->architecture),
           c->backend, c->searched ? c->optimiser : "-");
    if (!c->feasible) {
        printf(" %12s %12s\n", c->available ? "no fit" : "cannot map", "-");
        return;
    }
    printf(" %12.6g %12.6g %7" PRId64, c->latency_s * 1e3, c->throughput_fps, c->resources.dsp);
    if (c->has_memory)
        printf(" %7" PRId64, c->resources.bram18);
    else
        printf(" %7s", "-");
    if (c->has_logic)
        printf(" %9" PRId64 " %9" PRId64, c->resources.lut, c->resources.ff);
    else
        printf(" %9s %9s", "-", "-");
    if (c->has_lower_bound)
        printf(" %10.6g", c->lower_bound_s * 1e3);
    else
        printf(" %10s", "-");
    printf(" %s%s\n", c->optimal ? "yes" : "no", c->stopped_early ? " (time limit)" : "");
}

static void print_text(const cm_map_result *r)
{
    printf("model      %s\nboard      %s\nobjective  %s, batch %d\n\n", r->model, r->board,
           cm_map_objective_name(r->objective), r->batch);
    printf("  %-15s %-12s %-9s %12s %12s %7s %7s %9s %9s %10s %s\n", "architecture", "backend",
           "optimiser", "latency ms", "samples/s", "DSP", "BRAM18", "LUT", "FF", "bound ms",
           "optimal");
    for (int i = 0; i < r->n_candidates; i++)
        print_row(r, i);
    printf("\n");
    for (int i = 0; i < r->n_candidates; i++) {
        const cm_map_candidate *c = &r->candidates[i];
        if (c->searched && c->reason[0])
            printf("%s/%s: %s\n", cm_architecture_name(c->architecture), c->backend, c->reason);
    }
    if (r->best >= 0)
        printf("best       %s (%s): %.6g ms, %.6g samples/s\n",
               cm_architecture_name(r->candidates[r->best].architecture),
               r->candidates[r->best].backend, r->candidates[r->best].latency_s * 1e3,
               r->candidates[r->best].throughput_fps);
}

int cm_cli_compare(int argc, char **argv)
{
    compare_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CM_OK)
        return rc;
    a.o.progress = !a.quiet && isatty(STDERR_FILENO);
    cm_error err = {0};
    cm_map_result r;
    if (cm_map_compare(a.model, a.board, &a.o, a.output, &r, &err) != CM_OK)
        return cm_cli_fail(&err);
    if (a.json)
        rc = cm_cli_print_json(cm_map_result_json(&r));
    else
        print_text(&r);
    rc = cm_cli_printed(rc, a.output);
    if (rc == CM_OK && cm_map_no_fit(&r, a.model, a.output, &err) != CM_OK)
        rc = cm_cli_fail(&err);
    cm_map_result_free(&r);
    return rc;
}
