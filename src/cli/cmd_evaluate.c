/* `cnnmap evaluate DESIGN.json [--json]`: re-reads a design, re-derives its figures
 * from the model and board and re-checks every constraint. */
#include <getopt.h>
#include <stdio.h>

#include <cnnmap/design_io.h>
#include <cnnmap/nn2fpga.h>

#include "cli/cli.h"
#include "cli/nn2fpga_report.h"

const char cm_cli_evaluate_usage[] =
    "usage: cnnmap evaluate DESIGN.json [--json] [--sdf]\n\n"
    "Reads a design file written by 'cnnmap optimise -o' (or edited by hand), rebuilds the\n"
    "design from the model and board it names, checks every constraint and prints the same\n"
    "figures and tables as optimise. A broken constraint is reported by node and constraint\n"
    "with exit code 3. An nn2FPGA design (--backend nn2fpga) is rebuilt with its recorded\n"
    "options and every layer's recorded unroll factors, without searching.\n\n"
    "  --json   print the summary object of cli.md instead of tables\n"
    "  --sdf    with the latency-driven fpgaConvNet design: its SDF matrices too\n";

int cm_cli_evaluate(int argc, char **argv)
{
    static const struct option options[] = {{"json", no_argument, NULL, 'j'},
                                            {"sdf", no_argument, NULL, 's'},
                                            {NULL, 0, NULL, 0}};
    bool json = false, sdf = false;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (c == 'j')
            json = true;
        else if (c == 's')
            sdf = true;
        else
            return cm_cli_usage_error("evaluate", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind != argc - 1)
        return cm_cli_usage_error("evaluate", optind >= argc ? "no DESIGN.json given"
                                                             : "more than one design given");
    const char *path = argv[optind];
    cm_error err = {0};
    if (cm_nn2fpga_is_design_file(path)) {
        /* The recorded factors are applied, not searched for again; load checks every
         * constraint (exit 3 names the layer or resource). */
        cm_nn2fpga_design n2;
        if (cm_nn2fpga_design_load(path, &n2, &err) != CM_OK)
            return cm_cli_fail(&err);
        int rc = cm_cli_nn2fpga_print(&n2, json);
        cm_nn2fpga_design_free(&n2);
        return rc;
    }
    cm_design *d = NULL;
    cm_design_run run;
    if (cm_design_load(path, &d, &run, &err) != CM_OK)
        return cm_cli_fail(&err);
    int rc = cm_cli_report_design(d, &run, json, sdf, path, NULL);
    cm_design_free(d);
    return rc;
}
