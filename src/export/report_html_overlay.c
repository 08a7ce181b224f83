/* The HTML report of a DYNAMAP overlay design: each layer's compute cycles on the
 * systolic array coloured by its algorithm, the layers one after another as a
 * timeline, the network coloured by algorithm, and the baselines on the same array. */
#include <cnnmap/report_html.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "export/report_html.h"
#include "overlay/ov_json.h"

static void summary(rh_report *r, const cm_overlay_design *d)
{
    const cm_overlay_result *x = d->result;
    r->title = rh_strdup(r, "%s on %s", d->graph->name, d->board.display_name);
    r->subtitle = rh_strdup(r, "DYNAMAP overlay: a %d x %d systolic array at %.4g MHz, one "
                            "algorithm per layer (%s)", x->array[0], x->array[1], x->clock_mhz,
                            x->optimal ? "optimal mapping" : "mapping not proven optimal");
    char text[64];
    snprintf(text, sizeof text, "%.4g ms", x->latency_s * 1e3);
    rh_figure_real(r, "latency_s", x->latency_s, "latency", text);
    snprintf(text, sizeof text, "%.4g", x->gops);
    rh_figure_real(r, "gops", x->gops, "GOp/s", text);
    snprintf(text, sizeof text, "%d x %d", x->array[0], x->array[1]);
    rh_figure(r, "array", text, "systolic array", "%s", text);
    snprintf(text, sizeof text, "%.4g MB %s", (double)x->weight_bytes / 1e6,
             x->weights_resident ? "on chip" : "from DRAM");
    rh_figure(r, "weights", x->weights_resident ? "resident" : "dram", "weights", "%s", text);
    cm_resources use = {.dsp = x->dsp, .bram18 = x->bram18};
    rh_figure_resources(r, &use, &d->board.resources, false, false);
}

/* The time a layer holds the array: its weights are double-buffered, so the larger of
 * compute and memory, then its activations' loads and stores. */
static double layer_time(const cm_overlay_layer *l)
{
    return fmax(l->compute_s, l->memory_s) + l->transition_s;
}

static void layers(rh_report *r, const cm_overlay_design *d)
{
    const cm_overlay_result *x = d->result;
    r->rows_heading = rh_strdup(r, "Layers: compute cycles on the array");
    r->rows_note = rh_strdup(r, "The array's %lld DSPs and %lld BRAM18 serve every layer in turn "
                                "(board: %lld and %lld), so only cycles are per layer.",
                             (long long)x->dsp, (long long)x->bram18,
                             (long long)d->board.resources.dsp, (long long)d->board.resources.bram18);
    rh_set_groups(r, CM_OVERLAY_ALGORITHM_COUNT, "algorithm");
    for (int a = 0; a < CM_OVERLAY_ALGORITHM_COUNT; a++)
        r->group_names[a] = rh_strdup(r, "%s", cm_overlay_algorithm_name((cm_overlay_algorithm)a));
    rh_add_lane(r, "systolic array");
    double t = 0;
    for (int i = 0; i < x->n_layers; i++) {
        const cm_overlay_layer *l = &x->layers[i];
        const cm_layer *gl = &d->graph->layers[l->layer];
        const char *alg = cm_overlay_algorithm_name(l->algorithm);
        rh_row *row = rh_add_row(r, gl->name, cm_op_name(gl->op), (int)l->algorithm);
        if (!row)
            return;
        row->v[RH_CYCLES] = (double)l->cycles;
        char c[32], m[32], tr[32], u[32];
        rh_real(c, sizeof c, l->compute_s);
        rh_real(m, sizeof m, l->memory_s);
        rh_real(tr, sizeof tr, l->transition_s);
        rh_real(u, sizeof u, l->utilisation);
        const char *df = cm_overlay_dataflow_name(l->dataflow);
        rh_row_data(r, row, "data-op=\"%s\" data-algorithm=\"%s\" data-dataflow=\"%s\" "
                    "data-compute_s=\"%s\" data-memory_s=\"%s\" data-transition_s=\"%s\"%s%s%s",
                    cm_op_name(gl->op), alg, df ? df : "", c, m, tr,
                    df ? " data-utilisation=\"" : "", df ? u : "", df ? "\"" : "");
        rh_add_seg(r, 0, t, layer_time(l), (int)l->algorithm, RH_SEG_RUN, gl->name);
        t += layer_time(l);
    }
    r->timeline_note = rh_strdup(r, "The layers in turn on the array, each for the larger of its "
                                    "compute and weight-reading time plus its activations' "
                                    "transfers; coloured by algorithm.");
}

static void graph(rh_report *r, const cm_overlay_design *d)
{
    const cm_graph *g = d->graph;
    const cm_overlay_result *x = d->result;
    for (int i = 0; i < g->n_layers; i++) {
        int group = -1;
        double cycles = 0;
        for (int k = 0; k < x->n_layers; k++)
            if (x->layers[k].layer == i) {
                group = (int)x->layers[k].algorithm;
                cycles = (double)x->layers[k].cycles;
            }
        rh_add_node(r, g->layers[i].name, group, cycles);
    }
    rh_add_layer_edges(r, g);
    r->graph_note = rh_strdup(r, "Each layer is coloured by its algorithm and drawn as wide as its "
                                 "compute cycles allow.");
}

static void baseline(rh_report *r, const char *key, const char *what, const cm_overlay_baseline *b,
                     double latency)
{
    char v[32];
    rh_real(v, sizeof v, b->latency_s);
    rh_tr(r, "baseline", "data-key=\"%s\"%s%s%s", key, b->present ? " data-latency_s=\"" : "",
          b->present ? v : "", b->present ? "\"" : "");
    rh_td_text(r, what);
    if (b->present) {
        rh_td(r, "%.4g", b->latency_s * 1e3);
        rh_td(r, "%.1f%%", 100.0 * (1.0 - latency / b->latency_s));
    } else {
        rh_td(r, "not allowed");
        rh_td(r, "-");
    }
}

static void baselines(rh_report *r, const cm_overlay_result *x)
{
    rh_table_begin(r, "baselines", "Baselines on the same array", NULL,
                   "<mapping|latency ms|the design is lower by");
    baseline(r, "im2col", "im2col only", &x->baselines[CM_OVERLAY_IM2COL], x->latency_s);
    baseline(r, "kn2row", "kn2row only", &x->baselines[CM_OVERLAY_KN2ROW], x->latency_s);
    baseline(r, "winograd", "winograd where it applies, im2col elsewhere",
             &x->baselines[CM_OVERLAY_WINOGRAD], x->latency_s);
    baseline(r, "greedy", "greedy (fastest compute per layer)", &x->greedy, x->latency_s);
    rh_table_end(r);
}

cm_status cm_overlay_export_report_html(const cm_overlay_design *d, const char *path, cm_error *err)
{
    rh_report r;
    rh_begin(&r, &d->board, d->model_path);
    summary(&r, d);
    layers(&r, d);
    graph(&r, d);
    baselines(&r, d->result);
    return rh_finish(&r, path, err);
}
