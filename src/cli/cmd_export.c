/* `cnnmap export DESIGN.json --format F -o PATH`: writes a design in the form a
 * backend consumes. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <cnnmap/design_io.h>
#include <cnnmap/export.h>

#include "cli/cli.h"

const char cm_cli_export_usage[] =
    "usage: cnnmap export DESIGN.json --format F -o PATH\n\n"
    "Writes a design file as the configuration a backend consumes:\n"
    "  fpgaconvnet  fpgaConvNet's partition and layer JSON (coarse and fine factors)\n"
    "  finn         a FINN folding configuration (PE, SIMD, ram_style per node name)\n"
    "  hls4ml       an hls4ml configuration with a ReuseFactor per layer\n"
    "  report-md    a Markdown report; for a design file of 'cnnmap multi', with the\n"
    "               schedule and the hardware scheduler's slot table\n"
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
                                            {NULL, 0, NULL, 0}};
    const char *format = NULL, *output = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:f:", options, NULL)) != -1) {
        if (c == 'f')
            format = optarg;
        else if (c == 'o')
            output = optarg;
        else
            return cm_cli_usage_error("export", "%s option '%s'",
                                      c == ':' ? "missing value for" : "unknown", argv[optind - 1]);
    }
    if (optind != argc - 1)
        return cm_cli_usage_error("export", optind >= argc ? "no DESIGN.json given"
                                                           : "more than one design given");
    if (!format || !output)
        return cm_cli_usage_error("export", "--format and -o are required");
    int rc = cm_cli_check_output("export", "-o", output);
    if (rc != CM_OK)
        return rc;
    cm_export_format f;
    cm_error err = {0};
    if (cm_export_format_parse(format, &f, &err) != CM_OK)
        return cm_cli_usage_error("export", "%s", err.message);
    const char *path = argv[optind];
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
