/* `cnnmap export DESIGN.json --format F -o PATH`: writes a design in the form a
 * backend consumes. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <cnnmap/design_io.h>
#include <cnnmap/export.h>
#include <cnnmap/hls.h>
#include <cnnmap/nn2fpga.h>

#include "cli/cli.h"

const char cm_cli_export_usage[] =
    "usage: cnnmap export DESIGN.json --format F -o PATH [--force] [--test-vectors N]\n\n"
    "Writes a design file as the configuration a backend consumes:\n"
    "  fpgaconvnet  fpgaConvNet's partition and layer JSON (coarse and fine factors)\n"
    "  finn         a FINN folding configuration (PE, SIMD, ram_style per node name)\n"
    "  hls4ml       an hls4ml configuration with a ReuseFactor per layer\n"
    "  hls          (an nn2FPGA design) a folder PATH with the HLS C++ project: the\n"
    "               dataflow top function, the building blocks, integer weights, a\n"
    "               testbench and test vectors; `make -C PATH check` runs the C\n"
    "               simulation against `cnnmap run` (bit-identical or exit 1).\n"
    "               --force replaces a non-empty PATH; --test-vectors N (default 10)\n"
    "               and --seed S choose the random test frames\n"
    "  report-md    a Markdown report; for a design file of 'cnnmap multi', with the\n"
    "               schedule and the hardware scheduler's slot table; for an nn2FPGA\n"
    "               design (optimise --backend nn2fpga -o), the layers' unroll factors\n"
    "               and the skip buffers\n"
    "The design must satisfy every constraint (see 'cnnmap evaluate').\n";

/* A design file of `cnnmap multi` (its "format" says so). */
static bool is_multi_design(const char *path)
{
    json_t *root = json_load_file(path, 0, NULL);
    const char *format = json_string_value(json_object_get(root, "format"));
    bool multi = format && strcmp(format, "cnnmap-multi-design") == 0;
    json_decref(root);
    return multi;
}

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
    if (strcmp(format, "hls") == 0) /* a folder, not a file */
        return cm_cli_export_hls(argv[optind], output, &hls);
    rc = cm_cli_check_output("export", "-o", output);
    if (rc != CM_OK)
        return rc;
    const char *path = argv[optind];
    /* Before the format is parsed: an nn2FPGA design has formats of its own. */
    if (cm_nn2fpga_is_design_file(path))
        return cm_cli_export_nn2fpga(path, format, output);
    cm_export_format f;
    cm_error err = {0};
    if (cm_export_format_parse(format, &f, &err) != CM_OK)
        return cm_cli_usage_error("export", "%s", err.message);
    if (f == CM_EXPORT_REPORT_MD && is_multi_design(path))
        return cm_cli_multi_export_md(path, output);
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
