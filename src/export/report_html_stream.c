/* The HTML report of a streaming design (fpgaConvNet, FINN, hls4ml): the summary of
 * `evaluate`, every node's cycles and resources, the partitions one after another with
 * the reconfigurations between them, and the nodes as a graph coloured by partition. */
#include <cnnmap/report_html.h>

#include <stdio.h>

#include "export/exporters.h"
#include "export/report_html.h"

static void summary(rh_report *r, const cm_design *d)
{
    cm_design_summary s;
    cm_design_summarise(d, &s);
    const cm_design_options *o = cm_design_options_of(d);
    const cm_board *board = cm_design_board(d);
    r->title = rh_strdup(r, "%s on %s", cm_design_graph(d)->name, board->display_name);
    r->subtitle = rh_strdup(r, "%s streaming design, %s objective, batch %d, %.4g MHz%s",
                            cm_backend_name(o->backend),
                            o->objective == CM_OBJECTIVE_LATENCY ? "latency" : "throughput",
                            s.batch, s.clock_mhz, s.feasible ? "" : " (breaks a constraint)");
    char text[64];
    snprintf(text, sizeof text, "%.4g ms", s.latency_s * 1e3);
    rh_figure_real(r, "latency_s", s.latency_s, "latency (batch)", text);
    snprintf(text, sizeof text, "%.6g", s.throughput_fps);
    rh_figure_real(r, "throughput_fps", s.throughput_fps, "throughput (samples/s)", text);
    snprintf(text, sizeof text, "%.4g", s.gops);
    rh_figure_real(r, "gops", s.gops, "GOp/s", text);
    rh_figure_int(r, "partitions", s.partitions, "partitions");
    rh_figure_resources(r, &s.resources, &board->resources, board->resources.uram > 0 ||
                        s.resources.uram > 0, true);
}

static void rows_and_graph(rh_report *r, const cm_design *d)
{
    int n = cm_design_node_count(d);
    r->rows_heading = rh_strdup(r, "Nodes: cycles and resources against the board");
    r->rows_note = rh_strdup(r, "Cycles per sample of each node; the slowest node of a partition "
                                "sets its interval.");
    for (int i = 0; i < n; i++) {
        cm_node_info x;
        cm_design_node_info(d, i, &x);
        rh_row *row = rh_add_row(r, x.name, x.op, x.partition);
        if (!row)
            return;
        row->v[RH_CYCLES] = x.cycles;
        rh_row_resources(row, &x.res, true, true);
        rh_row_data(r, row, "data-partition=\"%d\"", x.partition);
        rh_add_node(r, x.name, x.partition, x.cycles);
    }
    for (int i = 0; i < n; i++) {
        int k;
        const int *pred = cm_design_node_preds(d, i, &k);
        for (int j = 0; j < k; j++)
            rh_add_edge(r, pred[j], i);
    }
    r->graph_note = rh_strdup(r, "Each node is coloured by its partition and drawn as wide as its "
                                 "cycles allow (the widest is the slowest).");
}

static void partitions(rh_report *r, const cm_design *d)
{
    int n = cm_design_partition_count(d);
    double reconf = cm_design_board(d)->reconfiguration_s, t = 0;
    rh_set_groups(r, n, "partition");
    rh_add_lane(r, "FPGA");
    rh_table_begin(r, "partitions", "Partitions", "Each partition runs the whole batch, then the "
                   "FPGA is reconfigured for the next.",
                   "partition|<first|<last|nodes|interval cycles|depth cycles|time ms|GB/s|<slowest|"
                   "DSP|BRAM18|URAM|LUT|FF");
    for (int p = 0; p < n; p++) {
        cm_partition_info x;
        cm_node_info first, last, slow;
        cm_design_partition_info(d, p, &x);
        cm_design_node_info(d, x.first, &first);
        cm_design_node_info(d, x.last, &last);
        cm_design_node_info(d, x.slowest_node, &slow);
        char iv[32], dp[32], ts[32], bw[32], label[64];
        rh_real(iv, sizeof iv, x.interval_cycles);
        rh_real(dp, sizeof dp, x.depth_cycles);
        rh_real(ts, sizeof ts, x.time_s);
        rh_real(bw, sizeof bw, x.bandwidth_gbps);
        rh_tr(r, "partition", "data-index=\"%d\" data-interval_cycles=\"%s\" data-depth_cycles=\"%s\" "
              "data-time_s=\"%s\" data-bandwidth_gbps=\"%s\" data-dsp=\"%lld\" data-bram18=\"%lld\" "
              "data-uram=\"%lld\" data-lut=\"%lld\" data-ff=\"%lld\"", p, iv, dp, ts, bw,
              (long long)x.res.dsp, (long long)x.res.bram18, (long long)x.res.uram,
              (long long)x.res.lut, (long long)x.res.ff);
        rh_td(r, "%d", p);
        rh_td_text(r, first.name);
        rh_td_text(r, last.name);
        rh_td(r, "%d", x.last - x.first + 1);
        rh_td(r, "%.0f", x.interval_cycles);
        rh_td(r, "%.0f", x.depth_cycles);
        rh_td(r, "%.4g", x.time_s * 1e3);
        rh_td(r, "%.4g", x.bandwidth_gbps);
        rh_td_text(r, slow.name);
        rh_td(r, "%lld", (long long)x.res.dsp);
        rh_td(r, "%lld", (long long)x.res.bram18);
        rh_td(r, "%lld", (long long)x.res.uram);
        rh_td(r, "%lld", (long long)x.res.lut);
        rh_td(r, "%lld", (long long)x.res.ff);
        if (p > 0) {
            rh_add_seg(r, 0, t, reconf, -1, RH_SEG_RECONFIGURE, "reconfiguration");
            t += reconf;
        }
        snprintf(label, sizeof label, "partition %d", p);
        rh_add_seg(r, 0, t, x.time_s, p, RH_SEG_RUN, label);
        t += x.time_s;
    }
    rh_table_end(r);
    r->timeline_note = rh_strdup(r, "The partitions in turn on one FPGA, with a full "
                                    "reconfiguration (%.4g s on this board) between two.", reconf);
}

cm_status cm_export_report_html(const cm_design *d, const char *path, cm_error *err)
{
    rh_report r;
    rh_begin(&r, cm_design_board(d), cm_design_model_path(d));
    summary(&r, d);
    rows_and_graph(&r, d);
    partitions(&r, d);
    return rh_finish(&r, path, err);
}
