/* `cnnmap evaluate DESIGN.json [--json]`: re-reads a design, re-derives its figures
 * from the model and board and re-checks every constraint. */
#include <getopt.h>
#include <stdio.h>

#include <cnnmap/design_io.h>
#include <cnnmap/latency.h>
#include <cnnmap/map.h>
#include <cnnmap/multi.h>
#include <cnnmap/nn2fpga.h>

#include "cli/cli.h"
#include "cli/latency_report.h"
#include "cli/nn2fpga_report.h"
#include "cli/overlay_report.h"
#include "map/architecture.h"

const char cm_cli_evaluate_usage[] =
    "usage: cnnmap evaluate DESIGN.json [--json | --csv] [--sdf]\n\n"
    "Reads a design file (or one edited by hand) of any architecture: a streaming design or\n"
    "a latency-driven fpgaConvNet design (optimise -o), an nn2FPGA design (optimise --backend\n"
    "nn2fpga -o), an overlay design (overlay -o) or several networks' design (multi -o).\n"
    "Rebuilds it from the model and board it names with the recorded decisions, without\n"
    "searching, checks every constraint and prints the same figures and tables as the\n"
    "command that wrote it. A broken constraint is reported by node, layer, block or\n"
    "resource with exit code 3.\n\n"
    "  --json   print the summary object of cli.md instead of tables\n"
    "  --csv    print the table of layers (of networks, for several networks' design)\n"
    "           as CSV: the --json object's rows, nested keys as outer.inner\n"
    "  --sdf    with the latency-driven fpgaConvNet design: its SDF matrices too\n";

static int evaluate_nn2fpga(const char *path, cm_cli_format format)
{
    cm_error err = {0};
    cm_nn2fpga_design n2;
    if (cm_nn2fpga_design_load(path, &n2, &err) != CM_OK)
        return cm_cli_fail(&err);
    int rc = cm_cli_nn2fpga_print(&n2, format);
    cm_nn2fpga_design_free(&n2);
    return rc;
}

int cm_cli_evaluate(int argc, char **argv)
{
    static const struct option options[] = {{"json", no_argument, NULL, 'j'},
                                            {"sdf", no_argument, NULL, 's'},
                                            {"csv", no_argument, NULL, 'c'},
                                            {NULL, 0, NULL, 0}};
    cm_cli_format format = CM_CLI_TEXT;
    bool sdf = false;
    int c, rc = CM_OK;
    opterr = 0;
    optind = 1;
    while (rc == CM_OK && (c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (c == 'j' || c == 'c')
            rc = cm_cli_set_format("evaluate", c == 'c' ? CM_CLI_CSV : CM_CLI_JSON, &format);
        else if (c == 's')
            sdf = true;
        else
            return cm_cli_usage_error("evaluate", "unknown option '%s'", argv[optind - 1]);
    }
    if (rc != CM_OK)
        return rc;
    if (optind != argc - 1)
        return cm_cli_usage_error("evaluate", optind >= argc ? "no DESIGN.json given"
                                                             : "more than one design given");
    const char *path = argv[optind];
    /* Each architecture's reader re-derives the figures from the recorded decisions,
     * without searching, and checks every constraint (exit 3 names the node, layer,
     * block or resource). */
    cm_error err = {0};
    cm_design_file f;
    if (cm_design_file_open(path, CM_DESIGN_FILE_EVALUATE, &f, &err) != CM_OK)
        return cm_cli_fail(&err);
    switch (f.arch) {
    case CM_ARCH_MULTI: return cm_cli_multi_evaluate(path, format);
    case CM_ARCH_NN2FPGA: return evaluate_nn2fpga(path, format);
    case CM_ARCH_OVERLAY: return cm_cli_overlay_evaluate(path, format);
    case CM_ARCH_LATENCY_DRIVEN: return cm_cli_latency_evaluate(path, format, sdf);
    default: break;
    }
    rc = cm_cli_report_design(f.design, &f.run, format, sdf, path, NULL);
    cm_design_free(f.design);
    return rc;
}
