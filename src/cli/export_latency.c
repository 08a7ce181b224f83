/* `cnnmap export` of a latency-driven design file (optimise ... -o when the
 * latency-driven design was chosen): report-md and fpgaconvnet; FINN's, hls4ml's and
 * nn2FPGA's HLS formats describe other architectures and are refused. */
#include <string.h>
#include <strings.h>

#include <cnnmap/latency.h>
#include <cnnmap/report_html.h>

#include "cli/cli.h"
#include "cli/latency_report.h"

int cm_cli_export_latency(const char *path, const char *format, const char *output)
{
    cm_error err = {0};
    bool md = strcasecmp(format, "report-md") == 0, fcn = strcasecmp(format, "fpgaconvnet") == 0;
    bool html = strcasecmp(format, "report-html") == 0;
    if (!md && !fcn && !html) {
        cm_error_set(&err, CM_EINPUT, "%s: a latency-driven design exports as report-md, "
                     "report-html or fpgaconvnet, not %.64s", path, format);
        return cm_cli_fail(&err);
    }
    int rc = cm_cli_check_output("export", "-o", output);
    if (rc != CM_OK)
        return rc;
    cm_latency_file f;
    if (cm_latency_design_load(path, &f, &err) != CM_OK)
        return cm_cli_fail(&err);
    cm_status st = md     ? cm_latency_export_report_md(&f, output, &err)
                   : html ? cm_latency_export_report_html(&f, output, &err)
                          : cm_latency_export_fpgaconvnet(&f, output, &err);
    cm_latency_file_free(&f);
    return st == CM_OK ? CM_OK : cm_cli_fail(&err);
}
