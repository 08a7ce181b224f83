/* Exporters: a design written back in the form each backend consumes (SAMO IV-E):
 * fpgaConvNet's partition and layer JSON, FINN's folding configuration, hls4ml's
 * configuration with per-layer reuse factors. */
#ifndef CNNMAP_EXPORT_H
#define CNNMAP_EXPORT_H

#include <cnnmap/design.h>
#include <cnnmap/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cm_export_format {
    CM_EXPORT_FPGACONVNET,
    CM_EXPORT_FINN,     /* FINN v0.10 / main folding configuration (today's node names) */
    CM_EXPORT_FINN_V06, /* FINN v0.6's, for SAMO's pinned fork */
    CM_EXPORT_HLS4ML,
    CM_EXPORT_REPORT_MD, /* a Markdown report, any backend */
    CM_EXPORT_REPORT_HTML, /* a self-contained HTML page (<cnnmap/report_html.h>), any backend */
    CM_EXPORT_COUNT
} cm_export_format;

const char *cm_export_format_name(cm_export_format f);
cm_status cm_export_format_parse(const char *name, cm_export_format *out, cm_error *err);

/* Writes the design to `path` (temporary file, then rename). A backend format that
 * does not match the design's backend is CM_EUSAGE. */
cm_status cm_export(const cm_design *d, cm_export_format f, const char *path, cm_error *err);

/* Reads an nn2FPGA design file (cm_nn2fpga_design_load) and writes its report-md (its
 * HLS project is cm_hls_export's, <cnnmap/hls.h>); any other format is CM_EINPUT saying
 * which apply. */
cm_status cm_export_nn2fpga_file(const char *design_path, const char *format, const char *path,
                                 cm_error *err);

struct cm_hls_options;
struct cm_hls_summary;

/* `cnnmap export`: reads a design file of any architecture and writes it in `format`
 * (a name of cli.md: fpgaconvnet, finn, finn-v0.6, hls4ml, report-md, report-html, or
 * hls, the nn2FPGA design's HLS project into the folder `output`, with hls's options,
 * NULL for the defaults, and its summary when hls_summary is not NULL). A format that
 * does not apply to the design's architecture is CM_EINPUT (CM_EUSAGE when it is no
 * format at all); a streaming design that breaks a constraint is CM_EINFEASIBLE. */
cm_status cm_export_design_file(const char *design_path, const char *format, const char *output,
                                const struct cm_hls_options *hls,
                                struct cm_hls_summary *hls_summary, cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
