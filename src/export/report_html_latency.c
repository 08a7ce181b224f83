/* The HTML report of a latency-driven fpgaConvNet design: the reference
 * architecture's blocks against the board, the schedule of subgraphs as a timeline of
 * weight loads and executions, and the layers coloured by the subgraph that runs them. */
#include <cnnmap/report_html.h>

#include <stdio.h>
#include <stdlib.h>

#include "export/report_html.h"

static void summary(rh_report *r, const cm_latency_file *f)
{
    const cm_latency_design *d = &f->design;
    r->title = rh_strdup(r, "%s on %s", f->graph->name, f->board.display_name);
    r->subtitle = rh_strdup(r, "fpgaConvNet latency-driven design: one reference architecture "
                            "runs every subgraph in turn, reloading only the weights; batch %d, "
                            "%.4g MHz, %.4g GB/s", d->batch, d->clock_mhz, d->bandwidth_gbps);
    char text[64];
    snprintf(text, sizeof text, "%.4g ms", d->latency_s * 1e3);
    rh_figure_real(r, "latency_s", d->latency_s, "latency", text);
    snprintf(text, sizeof text, "%.4g ms", d->exec_s * 1e3);
    rh_figure_real(r, "exec_s", d->exec_s, "execution", text);
    snprintf(text, sizeof text, "%.4g ms", d->weights_s * 1e3);
    rh_figure_real(r, "weights_s", d->weights_s, "weight loading", text);
    snprintf(text, sizeof text, "%.4g of %.4g peak", d->gops, d->peak_gops);
    rh_figure_real(r, "gops", d->gops, "GOp/s", text);
    rh_figure_int(r, "subgraphs", d->n_subgraphs, "subgraphs");
    rh_figure_resources(r, &d->resources, &f->board.resources, false, true);
}

static void blocks(rh_report *r, const cm_latency_design *d)
{
    r->rows_heading = rh_strdup(r, "Reference architecture: blocks against the board");
    r->rows_note = rh_strdup(r, "Every subgraph runs on these blocks; the convolution blocks hold "
                                "coarse x MACC units and a weight bank per MACC unit.");
    for (int i = 0; i < d->n_blocks; i++) {
        const cm_latency_block *x = &d->blocks[i];
        rh_row *row = rh_add_row(r, x->name, cm_latency_block_kind_name(x->kind), -1);
        if (!row)
            return;
        rh_row_resources(row, &x->res, false, true);
        rh_row_data(r, row, "data-coarse=\"%d\" data-macc=\"%d\" data-bank_bram18=\"%d\" "
                    "data-layers=\"%d\"", x->coarse, x->macc, x->bank_bram, x->n_layers);
    }
}

static void schedule_row(rh_report *r, const cm_latency_file *f, int s)
{
    const cm_latency_subgraph *x = &f->design.subgraphs[s];
    const char *first = f->graph->layers[x->first_layer].name;
    const char *last = f->graph->layers[x->last_layer].name;
    char ii[32], depth[32], ex[32], w[32], pass[32];
    rh_real(ii, sizeof ii, x->ii_max_cycles);
    rh_real(depth, sizeof depth, x->depth_cycles);
    rh_real(ex, sizeof ex, x->exec_s);
    rh_real(w, sizeof w, x->weights_s);
    cm_latency_pass_name(x, pass, sizeof pass);
    cm_strbuf names = {0};
    cm_strbuf_printf(&names, "data-first=\"");
    rh_escape(&names, first);
    cm_strbuf_printf(&names, "\" data-last=\"");
    rh_escape(&names, last);
    cm_strbuf_printf(&names, "\"");
    char *attrs = cm_strbuf_take(&names);
    rh_tr(r, "subgraph", "data-index=\"%d\" %s data-fold=\"%d\" data-folds=\"%d\" data-ii_cycles=\"%s\" "
          "data-depth_cycles=\"%s\" data-exec_s=\"%s\" data-weights_s=\"%s\" data-weight_words=\"%lld\"",
          s, attrs ? attrs : "", x->fold, x->folds, ii, depth, ex, w, (long long)x->weight_words);
    free(attrs);
    rh_td(r, "<span class=\"sw\" style=\"background:%s\"></span>%d", rh_colour(s), s);
    rh_td_text(r, first);
    rh_td_text(r, last);
    rh_td_text(r, pass);
    rh_td(r, "%.0f", x->ii_max_cycles);
    rh_td(r, "%.0f", x->depth_cycles);
    rh_td(r, "%.4g", x->exec_s * 1e3);
    rh_td(r, "%.4g", x->weights_s * 1e3);
    rh_td(r, "%lld", (long long)x->weight_words);
}

static void schedule(rh_report *r, const cm_latency_file *f)
{
    const cm_latency_design *d = &f->design;
    rh_set_groups(r, d->n_subgraphs, "subgraph");
    rh_add_lane(r, "weight loads");
    rh_add_lane(r, "execution");
    rh_table_begin(r, "schedule", "Schedule of subgraphs", "Each subgraph's weights are loaded, "
                   "then it runs on the reference architecture.",
                   "subgraph|<first|<last|<pass|II cycles|depth cycles|execution ms|weights ms|"
                   "weight words");
    double t = 0;
    for (int s = 0; s < d->n_subgraphs; s++) {
        const cm_latency_subgraph *x = &d->subgraphs[s];
        char label[64];
        schedule_row(r, f, s);
        snprintf(label, sizeof label, "subgraph %d weights", s);
        rh_add_seg(r, 0, t, x->weights_s, s, RH_SEG_LOAD, label);
        t += x->weights_s;
        snprintf(label, sizeof label, "subgraph %d", s);
        rh_add_seg(r, 1, t, x->exec_s, s, RH_SEG_RUN, label);
        t += x->exec_s;
    }
    rh_table_end(r);
    r->timeline_note = rh_strdup(r, "The subgraphs in turn: each loads its weights (hatched, top), "
                                    "then runs (bottom).");
}

/* Layers coloured by the first subgraph that runs them, as wide as the cycles of the
 * subgraphs that run them. */
static void graph(rh_report *r, const cm_latency_file *f)
{
    const cm_latency_design *d = &f->design;
    const cm_graph *g = f->graph;
    for (int i = 0; i < g->n_layers; i++) {
        int group = -1;
        double cycles = 0;
        for (int s = 0; s < d->n_subgraphs; s++)
            if (cm_latency_subgraph_runs(&d->subgraphs[s], i)) {
                group = group < 0 ? s : group;
                cycles += d->subgraphs[s].exec_s * d->clock_mhz * 1e6;
            }
        rh_add_node(r, g->layers[i].name, group, cycles);
    }
    rh_add_layer_edges(r, g);
    r->graph_note = rh_strdup(r, "Each layer is coloured by the first subgraph that runs it and "
                                 "drawn as wide as those subgraphs' execution cycles allow.");
}

cm_status cm_latency_export_report_html(const cm_latency_file *f, const char *path, cm_error *err)
{
    rh_report r;
    rh_begin(&r, &f->board, f->model_path);
    summary(&r, f);
    blocks(&r, &f->design);
    schedule(&r, f);
    graph(&r, f);
    return rh_finish(&r, path, err);
}
