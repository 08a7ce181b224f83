/* The HTML report (`export --format report-html`): one self-contained page (inline CSS
 * and SVG, nothing fetched) per design of any architecture, with the summary figures,
 * every node's cycles and resources as bars against the board, the partitions or
 * subgraphs as a timeline and the network as a graph coloured by partition. Each
 * writer writes the file whole or not at all. */
#ifndef CNNMAP_REPORT_HTML_H
#define CNNMAP_REPORT_HTML_H

#include <cnnmap/design.h>
#include <cnnmap/error.h>
#include <cnnmap/latency.h>
#include <cnnmap/overlay.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A streaming design (fpgaConvNet, FINN, hls4ml); cm_export with CM_EXPORT_REPORT_HTML. */
cm_status cm_export_report_html(const cm_design *d, const char *path, cm_error *err);
/* A latency-driven fpgaConvNet design: the reference architecture's blocks and the
 * schedule of subgraphs with their weight loads. */
cm_status cm_latency_export_report_html(const cm_latency_file *f, const char *path, cm_error *err);
/* An overlay design: each layer's algorithm and cycles, the array's resources. */
cm_status cm_overlay_export_report_html(const cm_overlay_design *d, const char *path, cm_error *err);
/* An nn2FPGA design file (loaded here): the layers' unroll factors, latencies and
 * resources, and the skip buffers. */
cm_status cm_nn2fpga_export_report_html(const char *design_path, const char *path, cm_error *err);
/* A multi design file (loaded as cm_multi_design_load): each network's engine, the
 * bandwidth schedule as one timeline per network, and the subgraphs. */
cm_status cm_multi_export_report_html(const char *design_path, const char *path, cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
