/* The Markdown report of a streaming design (export --format report-md): the summary
 * of cli.md, the partitions and the nodes with their folding, cycles and resources. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/exporters.h"
#include "util/strbuf.h"

static void md_summary(cm_strbuf *b, const cm_design *d)
{
    cm_design_summary s;
    cm_design_summarise(d, &s);
    const cm_design_options *o = cm_design_options_of(d);
    const cm_board *board = cm_design_board(d);
    cm_strbuf_printf(b, "# %s on %s (%s)\n\n", cm_design_graph(d)->name, board->display_name,
                     cm_backend_name(o->backend));
    cm_strbuf_printf(b, "- objective: %s, batch %d, clock %.4g MHz\n",
                     o->objective == CM_OBJECTIVE_LATENCY ? "latency" : "throughput", s.batch,
                     s.clock_mhz);
    cm_strbuf_printf(b, "- feasible: %s\n", s.feasible ? "yes" : "no");
    cm_strbuf_printf(b, "- latency: %.6g ms for the batch (%d partition%s), %.6g samples/s, "
                        "%.4g GOp/s\n",
                     s.latency_s * 1e3, s.partitions, s.partitions == 1 ? "" : "s",
                     s.throughput_fps, s.gops);
    cm_strbuf_printf(b, "- resources (largest partition): DSP %" PRId64 "/%" PRId64 ", BRAM18 %" PRId64
                        "/%" PRId64 ", URAM %" PRId64 "/%" PRId64 ", LUT %" PRId64 "/%" PRId64
                        ", FF %" PRId64 "/%" PRId64 "\n",
                     s.resources.dsp, board->resources.dsp, s.resources.bram18,
                     board->resources.bram18, s.resources.uram, board->resources.uram,
                     s.resources.lut, board->resources.lut, s.resources.ff, board->resources.ff);
}

static void md_partitions(cm_strbuf *b, const cm_design *d)
{
    cm_strbuf_printf(b, "\n## Partitions\n\n| partition | first | last | interval (cycles) | "
                        "depth (cycles) | time ms | GB/s | DSP | BRAM18 | LUT | FF |\n"
                        "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int p = 0; p < cm_design_partition_count(d); p++) {
        cm_partition_info info;
        cm_node_info first, last;
        cm_design_partition_info(d, p, &info);
        cm_design_node_info(d, info.first, &first);
        cm_design_node_info(d, info.last, &last);
        cm_strbuf_printf(b, "| %d | %s | %s | %.0f | %.0f | %.6g | %.4g | %" PRId64 " | %" PRId64
                            " | %" PRId64 " | %" PRId64 " |\n",
                         p, first.name, last.name, info.interval_cycles, info.depth_cycles,
                         info.time_s * 1e3, info.bandwidth_gbps, info.res.dsp, info.res.bram18,
                         info.res.lut, info.res.ff);
    }
}

static void md_nodes(cm_strbuf *b, const cm_design *d)
{
    cm_strbuf_printf(b, "\n## Nodes\n\n| node | op | layer | partition | channel-in | "
                        "channel-out | kernel | cycles | DSP | BRAM18 | LUT | FF |\n"
                        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < cm_design_node_count(d); i++) {
        cm_node_info n;
        cm_design_node_info(d, i, &n);
        cm_strbuf_printf(b, "| %s | %s | %s | %d | %" PRId64 " | %" PRId64 " | %" PRId64
                            " | %.0f | %" PRId64 " | %" PRId64 " | %" PRId64 " | %" PRId64 " |\n",
                         n.name, n.op, n.layer, n.partition, n.fold_in, n.fold_out, n.fold_kernel,
                         n.cycles, n.res.dsp, n.res.bram18, n.res.lut, n.res.ff);
    }
}

char *cm_export_report_md(const cm_design *d)
{
    cm_strbuf b = {0};
    md_summary(&b, d);
    md_partitions(&b, d);
    md_nodes(&b, d);
    return cm_strbuf_take(&b);
}
