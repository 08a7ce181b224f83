/* `cnnmap optimise MODEL --board B ...`: builds a design for a backend, runs an
 * optimiser on it, prints the figures and writes the design file. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cnnmap/design_io.h>
#include <cnnmap/optimise.h>

#include "cli/cli.h"
#include "optimise/optimise_job.h"

const char cm_cli_optimise_usage[] =
    "usage: cnnmap optimise MODEL --board BOARD [--backend B] [--objective latency|throughput]\n"
    "                       [--batch N] [--optimiser O] [--no-reconf] [--seed N]\n"
    "                       [--time-limit SECONDS] [--clock MHZ] [--bits N] [-o DESIGN.json]\n"
    "                       [--json | --csv] [--quiet] [--max-util F] [--target-fps F]\n"
    "                       [--threads N] [--gap F]\n\n"
    "Lays MODEL out on the streaming building blocks of a backend for BOARD, searches the\n"
    "folding of every node and the cuts into FPGA configurations, and prints the predicted\n"
    "latency, throughput and resources with a table per node and per partition.\n\n"
    "  --board BOARD        a built-in board (cnnmap boards) or a board JSON file\n"
    "  --backend B          fpgaconvnet (default), finn, hls4ml, or nn2fpga (below)\n"
    "  --objective O        latency (batch 1, default) or throughput (uses --batch)\n"
    "  --batch N            samples per run for the throughput objective (default 256)\n"
    "  --optimiser O        none (every folding 1; one partition, or one per node when that\n"
    "                       does not fit), rule, anneal, brute, exact\n"
    "  --no-reconf          keep the whole network in one partition\n"
    "  --no-weights-reloading  reconfiguration partitions only (fpgaconvnet): without it,\n"
    "                       the latency objective also tries the latency-driven design\n"
    "                       (one reference architecture, weights reloaded per subgraph)\n"
    "  --sdf                print the latency-driven design's SDF matrices\n"
    "  --seed N             random seed of the stochastic optimisers (default 1)\n"
    "  --time-limit S       stop searching after S seconds (default: no limit; every\n"
    "                       optimiser stops by its own criterion or budget, the same\n"
    "                       design on any machine: exact after 2e6 branch-and-bound nodes,\n"
    "                       nn2fpga after 5,000 a program, both under a 600 s safety cap)\n"
    "  --threads N          threads for anneal's restarts, exact's segment programs and\n"
    "                       the latency-driven search's cut vectors, 1 to 64 (default:\n"
    "                       the machine's cores); the same design for any N\n"
    "  --gap F              exact: stop once the design is proven within F of the optimum\n"
    "                       (0 to 1, e.g. 0.01 for 1%; default 0: proven optimal)\n"
    "  --clock MHZ          design clock (default: the board's)\n"
    "  --bits N             bit width of weights and activations that the model does not\n"
    "                       quantise (default 4 for finn; fpgaconvnet and hls4ml use 16)\n"
    "  --max-util F         fraction of every board resource (DSP, BRAM, LUT, FF, URAM) a\n"
    "                       design may use, 0.001 to 1 (default 1; headroom for routing)\n"
    "  --target-fps F       the design reaching F frames/s (throughput at the batch) with\n"
    "                       the fewest DSPs, then BRAM18 (bisection on the optimiser's\n"
    "                       limits; --optimiser exact proves it least, rule is faster);\n"
    "                       exit 3, naming the best reachable rate, when nothing reaches F\n"
    "  -o DESIGN.json       write the design (for evaluate and export)\n"
    "  --json               print the summary object of cli.md instead of tables\n"
    "  --csv                print the table of nodes as CSV (the --json object's nodes)\n"
    "  --quiet              no progress bar\n\n"
    "With --backend nn2fpga (nn2FPGA's integer dataflow accelerator for QONNX models):\n"
    "  --optimiser O        bip (default: two-phase binary integer program, the period S\n"
    "                       by bisection), exact (the single program of the thesis), none\n"
    "  --bits N             width of layers without Quant annotations (default 8, warned)\n"
    "  --no-temporal-reuse  --no-loop-merge   turn the residual-block rewrites off\n"
    "  -o FILE              writes the nn2FPGA design file (for evaluate and export)\n";

typedef struct optimise_args {
    const char *output;
    cm_optimise_job job;
    cm_cli_format format;
    bool quiet, sdf;
} optimise_args;

enum { OPT_BOARD = 256, OPT_BACKEND, OPT_OBJECTIVE, OPT_BATCH, OPT_OPTIMISER, OPT_NO_RECONF,
       OPT_NO_WR, OPT_SEED, OPT_TIME, OPT_CLOCK, OPT_BITS, OPT_JSON, OPT_QUIET, OPT_SDF, OPT_CSV };

enum { OPT_MAX_UTIL = 512, OPT_TARGET_FPS, OPT_THREADS, OPT_GAP };

static int parse_option(int c, const char *arg, void *ctx)
{
    optimise_args *a = ctx;
    static const char cmd[] = "optimise";
    cm_error err = {0};
    long v;
    int rc = CM_OK;
    switch (c) {
    case OPT_BOARD: a->job.board = arg; break;
    case 'o': a->output = arg; break;
    case OPT_BACKEND:
        if (cm_backend_parse(arg, &a->job.design.backend, &err) != CM_OK)
            return cm_cli_usage_error(cmd, "%s", err.message);
        break;
    case OPT_OBJECTIVE:
        if (cm_objective_parse(arg, &a->job.design.objective, &err) != CM_OK)
            return cm_cli_usage_error(cmd, "%s", err.message);
        break;
    case OPT_BATCH:
        rc = cm_cli_parse_long(cmd, "--batch", arg, 1, 1L << 20, &v);
        a->job.design.batch = (int)v;
        break;
    case OPT_OPTIMISER:
        if (cm_optimiser_parse(arg, &a->job.search.optimiser, &err) != CM_OK)
            return cm_cli_usage_error(cmd, "%s", err.message);
        break;
    case OPT_MAX_UTIL:
        rc = cm_cli_parse_double(cmd, "--max-util", arg, CM_UTIL_MIN, 1.0, &a->job.design.max_util.dsp);
        cm_util_caps_set_all(&a->job.design.max_util, a->job.design.max_util.dsp);
        break;
    case OPT_TARGET_FPS:
        rc = cm_cli_parse_double(cmd, "--target-fps", arg, 1e-6, 1e12, &a->job.target_fps);
        break;
    case OPT_NO_RECONF: a->job.design.reconfiguration = false; break;
    case OPT_NO_WR: a->job.design.weights_reloading = false; break;
    case OPT_SDF: a->sdf = true; break;
    case OPT_SEED:
        rc = cm_cli_parse_long(cmd, "--seed", arg, 0, LONG_MAX, &v);
        a->job.search.seed = (uint64_t)v;
        break;
    case OPT_TIME:
        rc = cm_cli_parse_double(cmd, "--time-limit", arg, 0.001, 1e7, &a->job.search.time_limit_s);
        break;
    case OPT_THREADS:
        rc = cm_cli_parse_long(cmd, "--threads", arg, 1, CM_OPTIMISE_MAX_THREADS, &v);
        a->job.search.threads = (int)v;
        break;
    case OPT_GAP:
        rc = cm_cli_parse_double(cmd, "--gap", arg, 0.0, 1.0, &a->job.search.gap);
        break;
    case OPT_CLOCK:
        rc = cm_cli_parse_double(cmd, "--clock", arg, 1.0, 2000.0, &a->job.design.clock_mhz);
        break;
    case OPT_BITS:
        rc = cm_cli_parse_long(cmd, "--bits", arg, 1, 32, &v);
        a->job.design.default_weight_bits = a->job.design.default_act_bits = (int)v;
        break;
    case OPT_JSON:
    case OPT_CSV: return cm_cli_set_format(cmd, c == OPT_CSV ? CM_CLI_CSV : CM_CLI_JSON, &a->format);
    case OPT_QUIET: a->quiet = true; break;
    default: return cm_cli_usage_error(cmd, "unknown option '%s'", arg ? arg : "");
    }
    return rc;
}

static int parse_args(int argc, char **argv, optimise_args *a)
{
    static const struct option options[] = {
        {"board", required_argument, NULL, OPT_BOARD},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"objective", required_argument, NULL, OPT_OBJECTIVE},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"optimiser", required_argument, NULL, OPT_OPTIMISER},
        {"no-reconf", no_argument, NULL, OPT_NO_RECONF},
        {"no-weights-reloading", no_argument, NULL, OPT_NO_WR},
        {"sdf", no_argument, NULL, OPT_SDF},
        {"seed", required_argument, NULL, OPT_SEED},
        {"time-limit", required_argument, NULL, OPT_TIME},
        {"clock", required_argument, NULL, OPT_CLOCK},
        {"bits", required_argument, NULL, OPT_BITS},
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, OPT_JSON},
        {"csv", no_argument, NULL, OPT_CSV},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"max-util", required_argument, NULL, OPT_MAX_UTIL},
        {"target-fps", required_argument, NULL, OPT_TARGET_FPS},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"gap", required_argument, NULL, OPT_GAP},
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cm_optimise_job_init(&a->job);
    int rc = cm_cli_parse_options(argc, argv, "optimise", options, parse_option, a);
    if (rc != CM_OK)
        return rc;
    if (optind != argc - 1)
        return cm_cli_usage_error("optimise", optind >= argc ? "no MODEL given" : "more than one MODEL given");
    if (!a->job.board)
        return cm_cli_usage_error("optimise", "--board is required");
    a->job.model = argv[optind];
    return cm_cli_check_output("optimise", "-o", a->output);
}

/* nn2FPGA is not a SAMO streaming backend (its own accelerator model and integer
 * program), so its runs have their own command body. */
static bool wants_nn2fpga(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend=nn2fpga") == 0)
            return true;
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc && strcmp(argv[i + 1], "nn2fpga") == 0)
            return true;
    }
    return false;
}

int cm_cli_optimise(int argc, char **argv)
{
    if (wants_nn2fpga(argc, argv))
        return cm_cli_optimise_nn2fpga(argc, argv);
    optimise_args a;
    int rc = parse_args(argc, argv, &a); /* the job's clock starts here */
    if (rc != CM_OK)
        return rc;
    cm_error err = {0};
    cm_design *d = NULL;
    cm_design_run run;
    a.job.search.progress = !a.quiet && isatty(STDERR_FILENO);
    a.job.json_streamed = (a.format == CM_CLI_JSON) + (a.output != NULL);
    a.job.json_trees = a.format == CM_CLI_CSV;
    if (cm_optimise_job_run(&a.job, &d, &run, &err) != CM_OK)
        return cm_cli_fail(&err);
    rc = cm_cli_report_design(d, &run, a.format, a.sdf, a.job.model, a.output);
    cm_design_free(d);
    return rc;
}
