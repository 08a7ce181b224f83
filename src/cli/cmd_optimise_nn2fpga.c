/* `cnnmap optimise MODEL --backend nn2fpga`: sizes an nn2FPGA dataflow accelerator
 * with the two-phase integer program, writes the design file (-o) and prints it
 * (nn2fpga_report.c: per-layer unroll factors, latencies, DSPs and banks, the
 * skip-connection buffers and the size and time of each phase). */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/nn2fpga.h>
#include <cnnmap/optimise.h>

#include "cli/cli.h"
#include "cli/nn2fpga_report.h"
#include "nn2fpga/n2_options.h"
#include "optimise/optimise_job.h"

static const char usage[] =
    "usage: cnnmap optimise MODEL --board BOARD --backend nn2fpga [--optimiser bip|exact|none]\n"
    "                       [--objective throughput|latency] [--batch N] [--clock MHZ]\n"
    "                       [--bits N] [--no-temporal-reuse] [--no-loop-merge]\n"
    "                       [--time-limit SECONDS] [-o DESIGN.json] [--json | --csv] [--quiet]\n\n"
    "Maps MODEL onto an nn2FPGA static dataflow accelerator: every convolution and pooling\n"
    "layer gets unroll factors (ow_par, och_par, ich_par) from a two-phase binary integer\n"
    "program (phase 1 minimises the pipeline period S, phase 2 the resources at that S).\n\n"
    "  --optimiser O        bip (default): phase 1 by bisection over the candidate\n"
    "                       periods, then phase 2; exact: phase 1 as one program with S\n"
    "                       a variable (slower, same optimum); none: every factor 1.\n"
    "                       rule, anneal and brute belong to the other backends (exit 1)\n"
    "  --objective O        throughput (default, batch 256) or latency (batch 1); the\n"
    "                       design always minimises S, the batch only sets latency_s\n"
    "  --bits N             bit width of weights and activations that the model does not\n"
    "                       quantise (default 8; a warning says when it is used)\n"
    "  --no-temporal-reuse  buffer identity skip connections in full\n"
    "  --no-loop-merge      keep downsampling convolutions as separate layers\n"
    "  --time-limit S       stop the optimisation after S seconds (default 600, a safety\n"
    "                       cap: every GLPK program stops after 5,000 branch-and-bound\n"
    "                       nodes, the bisection's after 5,000 together, the same design\n"
    "                       on any machine) with the best design found, marked stopped\n"
    "                       early (not proven optimal)\n"
    "  -o DESIGN.json       write the design file: the figures printed with --json plus\n"
    "                       the model, board, options and every layer's unroll factors,\n"
    "                       which `evaluate` and `export` read\n"
    "  --json               print the summary object of cli.md with the nn2fpga keys\n"
    "  --csv                print the table of layers as CSV (the --json object's layers)\n"
    "  --seed, --no-reconf, --threads N\n"
    "                       accepted; the backend is deterministic, has one partition and\n"
    "                       solves on one thread\n";

typedef struct n2_args {
    const char *model, *board, *output;
    cm_nn2fpga_options o;
    cm_cli_format format;
    bool latency;
} n2_args;

enum { OPT_BOARD = 256, OPT_BACKEND, OPT_OBJECTIVE, OPT_BATCH, OPT_OPTIMISER, OPT_IGNORED,
       OPT_SEED, OPT_THREADS, OPT_TIME, OPT_CLOCK, OPT_BITS, OPT_JSON, OPT_CSV, OPT_NO_TR, OPT_NO_LM };

static const char cmd[] = "optimise";

static int parse_optimiser(const char *arg, n2_args *a)
{
    cm_error err = {0};
    if (cm_nn2fpga_solver_parse(arg, &a->o.solver, &err) != CM_OK)
        return cm_cli_usage_error(cmd, "%s", err.message);
    return CM_OK;
}

static int parse_objective(const char *arg, n2_args *a)
{
    cm_error err = {0};
    cm_objective objective;
    if (cm_objective_parse(arg, &objective, &err) != CM_OK)
        return cm_cli_usage_error(cmd, "%s", err.message);
    a->latency = objective == CM_OBJECTIVE_LATENCY;
    return CM_OK;
}

static int parse_option(int c, const char *arg, void *ctx)
{
    n2_args *a = ctx;
    long v = 0;
    int rc = CM_OK;
    switch (c) {
    case OPT_BOARD: a->board = arg; break;
    case 'o': a->output = arg; break;
    case OPT_BACKEND:
        if (strcmp(arg, "nn2fpga") != 0)
            return cm_cli_usage_error(cmd, "more than one --backend given");
        break;
    case OPT_OBJECTIVE: return parse_objective(arg, a);
    case OPT_BATCH:
        rc = cm_cli_parse_long(cmd, "--batch", arg, 1, 1L << 20, &v);
        a->o.batch = (int)v;
        break;
    case OPT_OPTIMISER: return parse_optimiser(arg, a);
    case OPT_SEED: return cm_cli_parse_long(cmd, "--seed", arg, 0, LONG_MAX, &v);
    case OPT_THREADS:
        return cm_cli_parse_long(cmd, "--threads", arg, 1, CM_OPTIMISE_MAX_THREADS, &v);
    case OPT_TIME: return cm_cli_parse_double(cmd, "--time-limit", arg, 0.001, 1e7, &a->o.time_limit_s);
    case OPT_CLOCK: return cm_cli_parse_double(cmd, "--clock", arg, 1.0, 2000.0, &a->o.clock_mhz);
    case OPT_BITS:
        rc = cm_cli_parse_long(cmd, "--bits", arg, 1, 32, &v);
        a->o.default_bits = (int)v;
        break;
    case OPT_JSON:
    case OPT_CSV: return cm_cli_set_format(cmd, c == OPT_CSV ? CM_CLI_CSV : CM_CLI_JSON, &a->format);
    case OPT_NO_TR: a->o.temporal_reuse = false; break;
    case OPT_NO_LM: a->o.loop_merge = false; break;
    case OPT_IGNORED: break;
    default: return cm_cli_usage_error(cmd, "unknown option '%s'", arg ? arg : "");
    }
    return rc;
}

static int parse_args(int argc, char **argv, n2_args *a)
{
    static const struct option options[] = {
        {"board", required_argument, NULL, OPT_BOARD},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"objective", required_argument, NULL, OPT_OBJECTIVE},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"optimiser", required_argument, NULL, OPT_OPTIMISER},
        {"no-reconf", no_argument, NULL, OPT_IGNORED},
        {"quiet", no_argument, NULL, OPT_IGNORED},
        {"seed", required_argument, NULL, OPT_SEED},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"time-limit", required_argument, NULL, OPT_TIME},
        {"clock", required_argument, NULL, OPT_CLOCK},
        {"bits", required_argument, NULL, OPT_BITS},
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, OPT_JSON},
        {"csv", no_argument, NULL, OPT_CSV},
        {"no-temporal-reuse", no_argument, NULL, OPT_NO_TR},
        {"no-loop-merge", no_argument, NULL, OPT_NO_LM},
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cm_nn2fpga_options_init(&a->o);
    a->o.batch = 0;
    int rc = cm_cli_parse_options(argc, argv, cmd, options, parse_option, a);
    if (rc != CM_OK)
        return rc;
    if (optind != argc - 1)
        return cm_cli_usage_error(cmd, optind >= argc ? "no MODEL given" : "more than one MODEL given");
    if (!a->board)
        return cm_cli_usage_error(cmd, "--board is required");
    a->model = argv[optind];
    if (a->o.batch == 0)
        a->o.batch = cm_nn2fpga_default_batch(a->latency);
    return cm_cli_check_output(cmd, "-o", a->output);
}

int cm_cli_optimise_nn2fpga(int argc, char **argv)
{
    if (cm_cli_wants_help(argc, argv, usage))
        return CM_OK;
    n2_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CM_OK)
        return rc;
    cm_error err = {0};
    cm_nn2fpga_design d;
    if (cm_nn2fpga_design_create(a.model, a.board, &a.o, a.latency, &d, &err) != CM_OK)
        return cm_cli_fail(&err);
    if (d.result.bits_defaulted)
        fprintf(stderr, "cnnmap: warning: %s: some layers have no Quant annotation; using %d bits "
                        "(--bits)\n", a.model, a.o.default_bits);
    /* The file is written before anything is printed, so that a failed write leaves
     * stdout empty. */
    if (a.output && cm_nn2fpga_design_save(&d, a.output, &err) != CM_OK)
        rc = cm_cli_fail(&err);
    if (rc == CM_OK)
        rc = cm_cli_printed(cm_cli_nn2fpga_print(&d, a.format), a.output);
    cm_nn2fpga_design_free(&d);
    return rc;
}
