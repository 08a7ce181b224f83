/* `cnnmap export` of any design file: which formats apply to which architecture, and
 * the exporter that writes each. The CLI and the API both come here, so a format is
 * refused, and a design written, the same way from either. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cnnmap/design_io.h>
#include <cnnmap/export.h>
#include <cnnmap/hls.h>
#include <cnnmap/latency.h>
#include <cnnmap/map.h>
#include <cnnmap/multi.h>
#include <cnnmap/nn2fpga.h>
#include <cnnmap/report_html.h>

#include "multi/multi_flow.h"
#include "overlay/ov_flow.h"

static cm_status cm_export_empty_output(cm_error *err)
{
    return cm_error_set(err, CM_EUSAGE, "export: -o needs a file name, not an empty string "
                                        "(see 'cnnmap export --help')");
}

/* A latency-driven design: report-md, report-html and fpgaConvNet's JSON; the other
 * formats describe other architectures. */
static cm_status export_latency(const char *path, const char *format, const char *output,
                                cm_error *err)
{
    bool md = strcasecmp(format, "report-md") == 0, fcn = strcasecmp(format, "fpgaconvnet") == 0;
    bool html = strcasecmp(format, "report-html") == 0;
    if (!md && !fcn && !html)
        return cm_error_set(err, CM_EINPUT, "%s: a latency-driven design exports as report-md, "
                            "report-html or fpgaconvnet, not %.64s", path, format);
    if (!*output)
        return cm_export_empty_output(err);
    cm_latency_file f;
    cm_status st = cm_latency_design_load(path, &f, err);
    if (st != CM_OK)
        return st;
    st = md     ? cm_latency_export_report_md(&f, output, err)
         : html ? cm_latency_export_report_html(&f, output, err)
                : cm_latency_export_fpgaconvnet(&f, output, err);
    cm_latency_file_free(&f);
    return st;
}

/* The HLS project of an nn2FPGA design, into the folder dir. */
static cm_status export_hls(const char *path, const char *dir, const cm_hls_options *o,
                            cm_hls_summary *summary, cm_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cm_error_set(err, CM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    fclose(f);
    if (!cm_nn2fpga_is_design_file(path))
        return cm_error_set(err, CM_EINPUT, "%s: --format hls takes an nn2fpga design file "
                            "(optimise --backend nn2fpga -o)", path);
    cm_nn2fpga_design d;
    cm_status st = cm_nn2fpga_design_load(path, &d, err);
    if (st != CM_OK)
        return st;
    st = cm_hls_export(&d, dir, o, summary, err);
    cm_nn2fpga_design_free(&d);
    return st;
}

static cm_status export_nn2fpga(const char *path, const char *format, const char *output,
                                cm_error *err)
{
    if (strcasecmp(format, "report-html") == 0)
        return cm_nn2fpga_export_report_html(path, output, err);
    return cm_export_nn2fpga_file(path, format, output, err);
}

/* A streaming design: it must meet every constraint to be exported. */
static cm_status export_streaming(const char *path, cm_export_format f, const char *output,
                                  cm_error *err)
{
    cm_design *d = NULL;
    cm_design_run run;
    cm_status st = cm_design_load(path, &d, &run, err);
    if (st != CM_OK)
        return st;
    st = cm_design_verdict(d, &run, path, err);
    if (st == CM_OK && (st = cm_export(d, f, output, err)) == CM_EINPUT)
        cm_error_prefix(err, path); /* a format that cannot describe this design */
    cm_design_free(d);
    return st;
}

cm_status cm_export_design_file(const char *path, const char *format, const char *output,
                                const cm_hls_options *hls, cm_hls_summary *hls_summary,
                                cm_error *err)
{
    /* A file that names no architecture goes to the streaming reader, whose messages
     * say what is wrong with it. */
    cm_architecture arch = CM_ARCH_STREAMING;
    cm_design_file_architecture(path, &arch, err);
    cm_error_clear(err);
    if (arch == CM_ARCH_OVERLAY) /* before hls: no format but the reports applies */
        return cm_overlay_export_file(path, format, output, err);
    if (arch == CM_ARCH_LATENCY_DRIVEN) /* formats of its own, hls refused */
        return export_latency(path, format, output, err);
    if (strcmp(format, "hls") == 0) { /* a folder, not a file */
        cm_hls_options defaults;
        cm_hls_options_init(&defaults);
        cm_hls_summary ignored;
        return export_hls(path, output, hls ? hls : &defaults, hls_summary ? hls_summary : &ignored,
                          err);
    }
    if (!*output)
        return cm_export_empty_output(err);
    /* Before the format is parsed: an nn2FPGA design has formats of its own. */
    if (arch == CM_ARCH_NN2FPGA)
        return export_nn2fpga(path, format, output, err);
    cm_export_format f;
    cm_error parse = {0};
    if (cm_export_format_parse(format, &f, &parse) != CM_OK)
        return cm_error_set(err, CM_EUSAGE, "export: %s (see 'cnnmap export --help')",
                            parse.message);
    if (f == CM_EXPORT_REPORT_MD && arch == CM_ARCH_MULTI)
        return cm_multi_export_report_md_file(path, output, err);
    if (f == CM_EXPORT_REPORT_HTML && arch == CM_ARCH_MULTI)
        return cm_multi_export_report_html(path, output, err);
    return export_streaming(path, f, output, err);
}
