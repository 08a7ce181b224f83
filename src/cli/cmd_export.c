/* `cnnmap export DESIGN.json --format F -o PATH`: writes a design in the form a
 * backend consumes. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <cnnmap/export.h>
#include <cnnmap/hls.h>

#include "cli/cli.h"

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

/* What `--format hls` wrote, and how to check it. */
static void print_hls_summary(const char *dir, const cm_hls_summary *s)
{
    printf("wrote %s: %d tasks, %d streams, %lld lines of C++ in %d files\n", dir, s->tasks,
           s->streams, (long long)s->lines, s->files);
    for (int i = 0; i < s->n_skips; i++)
        printf("skip FIFO of %s (stream %s%s): %lld activations in %lld words (the design's: %lld)\n",
               s->skips[i].name, s->skips[i].stream,
               s->skips[i].reuse ? ", taps the first window buffer" : "",
               (long long)s->skips[i].activations, (long long)s->skips[i].depth_words,
               (long long)s->skips[i].design_activations);
    printf("check it: make -C %s check\n", dir);
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
    const char *path = argv[optind];
    cm_error err = {0};
    /* The library checks -o itself, after refusing a format that does not apply. */
    bool folder = strcmp(format, "hls") == 0;
    cm_hls_summary s;
    if (cm_export_design_file(path, format, output, &hls, &s, &err) != CM_OK)
        return cm_cli_fail(&err);
    if (folder)
        print_hls_summary(output, &s);
    return CM_OK;
}
