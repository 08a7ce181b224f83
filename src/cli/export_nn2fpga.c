/* `cnnmap export` of an nn2FPGA design file: report-md (written by the library's
 * cm_export_nn2fpga) and the HLS project (cm_hls_export). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cnnmap/export.h>
#include <cnnmap/hls.h>
#include <cnnmap/nn2fpga.h>
#include <cnnmap/report_html.h>
#include <stdio.h>

#include "cli/cli.h"

int cm_cli_export_nn2fpga(const char *design_path, const char *format, const char *output)
{
    cm_error err = {0};
    if (strcasecmp(format, "report-html") == 0)
        return cm_nn2fpga_export_report_html(design_path, output, &err) == CM_OK ? CM_OK
                                                                                : cm_cli_fail(&err);
    if (cm_export_nn2fpga_file(design_path, format, output, &err) != CM_OK)
        return cm_cli_fail(&err);
    return CM_OK;
}

int cm_cli_export_hls(const char *design_path, const char *dir, const cm_hls_options *o)
{
    cm_error err = {0};
    FILE *f = fopen(design_path, "rb");
    if (!f) {
        cm_error_set(&err, CM_EINPUT, "%s: cannot open: %s", design_path, strerror(errno));
        return cm_cli_fail(&err);
    }
    fclose(f);
    if (!cm_nn2fpga_is_design_file(design_path)) {
        cm_error_set(&err, CM_EINPUT, "%s: --format hls takes an nn2fpga design file (optimise "
                     "--backend nn2fpga -o)", design_path);
        return cm_cli_fail(&err);
    }
    cm_nn2fpga_design d;
    if (cm_nn2fpga_design_load(design_path, &d, &err) != CM_OK)
        return cm_cli_fail(&err);
    cm_hls_summary s;
    cm_status st = cm_hls_export(&d, dir, o, &s, &err);
    cm_nn2fpga_design_free(&d);
    if (st != CM_OK)
        return cm_cli_fail(&err);
    printf("wrote %s: %d tasks, %d streams, %lld lines of C++ in %d files\n", dir, s.tasks,
           s.streams, (long long)s.lines, s.files);
    for (int i = 0; i < s.n_skips; i++)
        printf("skip FIFO of %s (stream %s%s): %lld activations in %lld words (the design's: %lld)\n",
               s.skips[i].name, s.skips[i].stream, s.skips[i].reuse ? ", taps the first window buffer" : "",
               (long long)s.skips[i].activations, (long long)s.skips[i].depth_words,
               (long long)s.skips[i].design_activations);
    printf("check it: make -C %s check\n", dir);
    return CM_OK;
}
