/* `cnnmap export DESIGN.json --format F -o PATH`: writes a design in the form a
 * backend consumes. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <cnnmap/design_io.h>
#include <cnnmap/export.h>
#include <cnnmap/hls.h>
#include <cnnmap/latency.h>
#include <cnnmap/map.h>
#include <cnnmap/nn2fpga.h>
#include <cnnmap/report_html.h>

#include "cli/cli.h"
#include "cli/latency_report.h"
#include "cli/overlay_report.h"

const char cm_cli_export_usage[] =
    "usage: cnnmap export DESIGN.json --format F -o PATH [--force] [--test-vectors N]\n\n"
    "Writes a design file as the configuration a backend consumes:\n"
    "  fpgaconvnet  fpgaConvNet's partition and layer JSON (coarse and fine factors); for a\n"
    "               latency-driven design, the reference architecture's layers and the\n"
    "               subgraphs that reuse it\n"
    "  finn         a FINN (v0.10 / main) folding configuration: PE, SIMD, ram_style,\n"
    "               mem_mode, resType per node name (MVAU_hls_0, ...)\n"
    "  finn-v0.6    the same for FINN v0.6, SAMO's fork (StreamingFCLayer_Batch_0, ...)\n"
    "  hls4ml       an hls4ml configuration with a ReuseFactor per layer\n"
    "  hls          (an nn2FPGA design) a folder PATH with the HLS C++ project: the\n"
    "               dataflow top function, the building blocks, integer weights, a\n"
    "               testbench and test vectors; `make -C PATH check` runs the C\n"
    "               simulation against `cnnmap run` (bit-identical or exit 1).\n"
    "               --force replaces a non-empty PATH; --test-vectors N (default 10)\n"
    "               and --seed S choose the random test frames\n"
    "  report-md    a Markdown report of any architecture's design: for 'cnnmap multi',\n"
    "               with the schedule and the hardware scheduler's slot table; for\n"
    "               nn2FPGA, the layers' unroll factors and the skip buffers; for the\n"
    "               latency-driven design, its reference architecture and schedule of\n"
    "               subgraphs; for the overlay, the array and each layer's algorithm\n"
    "  report-html  one self-contained HTML page of any architecture's design: the\n"
    "               summary, per-node bars of cycles and resources against the board, the\n"
    "               partitions, subgraphs or schedule as a timeline, the network graph\n"
    "Formats that do not apply to a design's architecture are refused (exit 2).\n"
    "The design must satisfy every constraint (see 'cnnmap evaluate').\n";

int cm_cli_export(int argc, char **argv)
{
    static const struct option options[] = {{"format", required_argument, NULL, 'f'},
                                            {"output", required_argument, NULL, 'o'},
                                            {"force", no_argument, NULL, 'F'},
                                            {"test-vectors", required_argument, NULL, 'v'},
                                            {"seed", required_argument, NULL, 's'},
                                            {NULL, 0, NULL, 0}};
    const char *format = NULL, *output = NULL;
    cm_hls_options hls;
    cm_hls_options_init(&hls);
    long v;
    int c, rc = CM_OK;
    opterr = 0;
    optind = 1;
    while (rc == CM_OK && (c = getopt_long(argc, argv, ":o:f:", options, NULL)) != -1) {
        if (c == 'f')
            format = optarg;
        else if (c == 'o')
            output = optarg;
        else if (c == 'F')
            hls.force = true;
        else if (c == 'v' && (rc = cm_cli_parse_long("export", "--test-vectors", optarg, 1, 100000, &v)) == CM_OK)
            hls.test_vectors = (int)v;
        else if (c == 's' && (rc = cm_cli_parse_long("export", "--seed", optarg, 0, LONG_MAX, &v)) == CM_OK)
            hls.seed = (uint64_t)v;
        else if (c != 'v' && c != 's')
            return cm_cli_usage_error("export", "%s option '%s'",
                                      c == ':' ? "missing value for" : "unknown", argv[optind - 1]);
    }
    if (rc != CM_OK)
        return rc;
    if (optind != argc - 1)
        return cm_cli_usage_error("export", optind >= argc ? "no DESIGN.json given"
                                                           : "more than one design given");
    if (!format || !output)
        return cm_cli_usage_error("export", "--format and -o are required");
    const char *path = argv[optind];
    cm_error err = {0};
    /* Each architecture has the formats that apply to it; a file that names no
     * architecture goes to the streaming reader, whose messages say what is wrong. */
    cm_architecture arch = CM_ARCH_STREAMING;
    cm_design_file_architecture(path, &arch, &err);
    if (arch == CM_ARCH_OVERLAY) /* before hls: no format but report-md applies */
        return cm_cli_export_overlay(path, format, output);
    if (arch == CM_ARCH_LATENCY_DRIVEN) /* formats of its own, hls refused */
        return cm_cli_export_latency(path, format, output);
    if (strcmp(format, "hls") == 0) /* a folder, not a file */
        return cm_cli_export_hls(path, output, &hls);
    rc = cm_cli_check_output("export", "-o", output);
    if (rc != CM_OK)
        return rc;
    /* Before the format is parsed: an nn2FPGA design has formats of its own. */
    if (arch == CM_ARCH_NN2FPGA)
        return cm_cli_export_nn2fpga(path, format, output);
    cm_export_format f;
    if (cm_export_format_parse(format, &f, &err) != CM_OK)
        return cm_cli_usage_error("export", "%s", err.message);
    if (f == CM_EXPORT_REPORT_MD && arch == CM_ARCH_MULTI)
        return cm_cli_multi_export_md(path, output);
    if (f == CM_EXPORT_REPORT_HTML && arch == CM_ARCH_MULTI)
        return cm_multi_export_report_html(path, output, &err) == CM_OK ? CM_OK : cm_cli_fail(&err);
    cm_design *d = NULL;
    cm_design_run run;
    if (cm_design_load(path, &d, &run, &err) != CM_OK)
        return cm_cli_fail(&err);
    rc = cm_cli_design_violations(d, &run, path);
    if (rc == CM_OK && cm_export(d, f, output, &err) != CM_OK)
        rc = cm_cli_fail(&err);
    cm_design_free(d);
    return rc;
}
