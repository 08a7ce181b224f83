/* The HTML report of an nn2FPGA design: every layer of the dataflow accelerator with its
 * latency (the larger of computation and window buffer; the largest is the period S)
 * and its DSPs, BRAM18 and URAM against the board, the batch as a timeline, the network
 * with each layer as wide as its latency, and the skip-connection buffers. */
#include <cnnmap/report_html.h>

#include <stdio.h>
#include <stdlib.h>

#include <cnnmap/nn2fpga.h>

#include "export/report_html.h"
#include "nn2fpga/n2_json.h"

static void summary(rh_report *r, const cm_nn2fpga_design *d)
{
    const cm_nn2fpga_result *x = &d->result;
    double lat = cm_nn2fpga_latency_s(x), fps = (double)x->batch / lat;
    r->title = rh_strdup(r, "%s on %s", d->graph->name, d->board.display_name);
    r->subtitle = rh_strdup(r, "nn2FPGA dataflow accelerator (%s), %s objective, batch %d, %.4g MHz%s",
                            cm_nn2fpga_solver_name(d->options.solver),
                            d->latency_objective ? "latency" : "throughput", x->batch, x->clock_mhz,
                            x->optimal ? ", proven optimal" : "");
    char text[64];
    snprintf(text, sizeof text, "%.4g ms", lat * 1e3);
    rh_figure_real(r, "latency_s", lat, "latency (batch)", text);
    snprintf(text, sizeof text, "%.6g", fps);
    rh_figure_real(r, "throughput_fps", fps, "throughput (frames/s)", text);
    snprintf(text, sizeof text, "%.6g", x->fps);
    rh_figure_real(r, "fps_steady", x->fps, "steady state (frames/s)", text);
    rh_figure_int(r, "period_cycles", x->period, "period S (cycles)");
    cm_resources use = {.dsp = x->dsp, .bram18 = x->bram18, .uram = x->uram};
    rh_figure_resources(r, &use, &d->board.resources, true, false);
}

static void layers(rh_report *r, const cm_nn2fpga_design *d)
{
    const cm_nn2fpga_result *x = &d->result;
    r->rows_heading = rh_strdup(r, "Layers: latency and resources against the board");
    r->rows_note = rh_strdup(r, "Cycles: the larger of the computation (Lc) and window-buffer (Lw) "
                                "latencies per frame; the largest is the period S = %lld.",
                             (long long)x->period);
    rh_set_groups(r, 1, "partition");
    for (int i = 0; i < x->n_layers; i++) {
        const cm_nn2fpga_layer *l = &x->layers[i];
        rh_row *row = rh_add_row(r, l->name, cm_nn2fpga_kind_name(l->kind), 0);
        if (!row)
            return;
        row->v[RH_CYCLES] = (double)(l->lc > l->lw ? l->lc : l->lw);
        row->v[RH_DSP] = (double)l->dsp;
        row->v[RH_BRAM18] = (double)(l->bram_weights + l->bram_window);
        row->v[RH_URAM] = (double)l->uram_weights;
        rh_row_data(r, row, "data-lc=\"%lld\" data-lw=\"%lld\" data-ow_par=\"%d\" data-och_par=\"%d\" "
                    "data-ich_par=\"%d\" data-bram18_weights=\"%lld\" data-bram18_window=\"%lld\" "
                    "data-uram_weights=\"%lld\"", (long long)l->lc, (long long)l->lw, l->ow_par,
                    l->och_par, l->ich_par, (long long)l->bram_weights, (long long)l->bram_window,
                    (long long)l->uram_weights);
    }
    double lat = cm_nn2fpga_latency_s(x);
    char label[96];
    snprintf(label, sizeof label, "%d frames, one every %lld cycles", x->batch, (long long)x->period);
    rh_add_lane(r, "accelerator");
    rh_add_seg(r, 0, 0, lat, 0, RH_SEG_RUN, label);
    r->timeline_note = rh_strdup(r, "One partition: every layer runs at once as a dataflow "
                                    "pipeline, a frame leaving it every period S.");
}

static void graph(rh_report *r, const cm_nn2fpga_design *d)
{
    const cm_graph *g = d->graph;
    const cm_nn2fpga_result *x = &d->result;
    for (int i = 0; i < g->n_layers; i++) {
        int group = -1;
        double cycles = 0;
        for (int k = 0; k < x->n_layers; k++)
            if (x->layers[k].layer == i || x->layers[k].merged_layer == i) {
                group = 0;
                cycles = (double)(x->layers[k].lc > x->layers[k].lw ? x->layers[k].lc : x->layers[k].lw);
            }
        rh_add_node(r, g->layers[i].name, group, cycles);
    }
    rh_add_layer_edges(r, g);
    r->graph_note = rh_strdup(r, "The graph's layers, as wide as their latency allows; grey ones "
                                 "are folded into a neighbour (activations, quantisers).");
}

static void skips(rh_report *r, const cm_nn2fpga_result *x)
{
    if (x->n_skips == 0)
        return;
    rh_table_begin(r, "skips", "Skip-connection buffers", "Before and after: the thesis's model "
                   "(section 3.6.4); FIFO: as the generated dataflow builds it.",
                   "<add|<kind|<optimised|activations before|activations after|BRAM18 before|"
                   "BRAM18 after|FIFO words|FIFO BRAM18");
    for (int i = 0; i < x->n_skips; i++) {
        const cm_nn2fpga_skip *s = &x->skips[i];
        cm_strbuf name = {0};
        rh_escape(&name, s->name);
        char *n = cm_strbuf_take(&name);
        rh_tr(r, "skip", "data-name=\"%s\" data-activations_before=\"%lld\" "
              "data-activations_after=\"%lld\" data-bram18_before=\"%lld\" data-bram18_after=\"%lld\"",
              n ? n : "", (long long)s->activations_before, (long long)s->activations_after,
              (long long)s->bram_before, (long long)s->bram_after);
        free(n);
        rh_td_text(r, s->name);
        rh_td_text(r, s->downsample ? "downsampling" : "identity");
        rh_td_text(r, s->optimised ? "yes" : "no");
        rh_td(r, "%lld", (long long)s->activations_before);
        rh_td(r, "%lld", (long long)s->activations_after);
        rh_td(r, "%lld", (long long)s->bram_before);
        rh_td(r, "%lld", (long long)s->bram_after);
        if (x->skips_built) {
            rh_td(r, "%lld", (long long)s->fifo_words);
            rh_td(r, "%lld", (long long)s->fifo_bram);
        } else {
            rh_td(r, "-");
            rh_td(r, "-");
        }
    }
    rh_table_end(r);
}

cm_status cm_nn2fpga_export_report_html(const char *design_path, const char *path, cm_error *err)
{
    cm_nn2fpga_design d;
    cm_status st = cm_nn2fpga_design_load(design_path, &d, err);
    if (st != CM_OK)
        return st;
    rh_report r;
    rh_begin(&r, &d.board, d.model_path);
    summary(&r, &d);
    layers(&r, &d);
    graph(&r, &d);
    skips(&r, &d.result);
    st = rh_finish(&r, path, err);
    cm_nn2fpga_design_free(&d);
    return st;
}
