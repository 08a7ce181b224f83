/* `cnnmap overlay MODEL --board BOARD [--dsp-limit N] [--algorithms LIST] [--array P1xP2]
 * [-o DESIGN.json] [--json]`: the DYNAMAP systolic-array overlay for a model, its
 * per-layer algorithm mapping, and the single-algorithm and greedy baselines on the same
 * array; with -o, the design file that evaluate and export read. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/overlay.h>

#include "cli/cli.h"
#include "cli/overlay_report.h"
#include "overlay/ov_flow.h"

const char cm_cli_overlay_usage[] =
    "usage: cnnmap overlay MODEL --board BOARD [--dsp-limit N] [--algorithms LIST]\n"
    "                      [--array P1xP2] [-o DESIGN.json] [--json]\n\n"
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
    "  --time-limit S     seconds the array sizing may take (default 600, a safety cap:\n"
    "                     the sizing stops by its budget of 2e7 layer costings, the same\n"
    "                     array on any machine); when the limit or the budget runs out,\n"
    "                     the best shape tried so far is used and the output says so\n"
    "  -o DESIGN.json     also write the design file: the options, the array, each layer's\n"
    "                     algorithm and dataflow, each stored tensor's layout, and the\n"
    "                     figures; 'cnnmap evaluate' prints it again without searching,\n"
    "                     'cnnmap export --format report-md' writes its Markdown report\n"
    "  --json             print the object of cli.md instead of the table; layers off the\n"
    "                     array (pooling) have null dataflow and utilisation, a baseline\n"
    "                     whose algorithm was not allowed is null\n";

typedef struct overlay_args {
    const char *model;
    const char *board;
    const char *output;
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
        if (cm_overlay_parse_array(arg, a->opt.array, &err) != CM_OK)
            return cm_cli_usage_error("overlay", "%s", err.message);
        return CM_OK;
    case 't':
        return cm_cli_parse_double("overlay", "--time-limit", arg, 1e-3, 1e6,
                                   &a->opt.time_limit_s);
    case 'j':
        a->json = true;
        return CM_OK;
    case 'o':
        a->output = arg;
        return cm_cli_check_output("overlay", "-o", arg);
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
        {"output", required_argument, NULL, 'o'},     {NULL, 0, NULL, 0}};
    cm_overlay_options_default(&a->opt);
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:", options, NULL)) != -1) {
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

int cm_cli_overlay(int argc, char **argv)
{
    overlay_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc != CM_OK)
        return rc;
    cm_error err = {0};
    cm_overlay_design d;
    if (cm_overlay_design_create(a.model, a.board, &a.opt, &d, &err) != CM_OK)
        return err.code == CM_EUSAGE ? cm_cli_usage_error("overlay", "%s", err.message)
                                     : cm_cli_fail(&err);
    rc = cm_cli_overlay_report(&d, a.json ? CM_CLI_JSON : CM_CLI_TEXT, a.output);
    cm_overlay_design_free(&d);
    return rc;
}
