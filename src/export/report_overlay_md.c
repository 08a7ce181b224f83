/* The Markdown report of an overlay design (`export --format report-md` of a file of
 * `overlay -o`): the array and its resources, the latency against the baselines, where
 * the weights are, every layer's algorithm, dataflow and times, and the layout of each
 * format vertex. */
#include <cnnmap/overlay.h>

#include <stdlib.h>
#include <string.h>

#include "overlay/ov_json.h"
#include "util/atomic_file.h"
#include "util/strbuf.h"

static void md_summary(cm_strbuf *b, const cm_overlay_design *d)
{
    const cm_overlay_result *r = d->result;
    cm_strbuf_printf(b, "# %s on %s (DYNAMAP overlay)\n\n", d->graph->name, d->board.display_name);
    cm_strbuf_printf(b, "- systolic array: %d x %d at %.4g MHz\n", r->array[0], r->array[1],
                     r->clock_mhz);
    cm_strbuf_printf(b, "- resources: DSP %lld (limit %lld, board %lld), BRAM18 %lld of %lld\n",
                     (long long)r->dsp, (long long)cm_overlay_dsp_limit(d),
                     (long long)d->board.resources.dsp, (long long)r->bram18,
                     (long long)d->board.resources.bram18);
    cm_strbuf_printf(b, "- latency: %.6g ms, %.6g GOp/s\n", r->latency_s * 1e3, r->gops);
    cm_strbuf_printf(b, "- weights: %.6g MB, %s (%.6g MB of BRAM and URAM beside the buffers)\n",
                     (double)r->weight_bytes / 1e6,
                     r->weights_resident ? "resident on chip" : "read from DRAM by each layer",
                     (double)r->onchip_bytes / 1e6);
    if (r->optimal)
        cm_strbuf_printf(b, "- mapping: optimal (series-parallel cost graph, %d vertices, %d edges)\n",
                         r->cost_graph_vertices, r->cost_graph_edges);
    else
        cm_strbuf_printf(b, "- mapping: not proven optimal: %s\n", r->not_optimal_reason);
    if (r->stopped_early)
        cm_strbuf_printf(b, "- %s\n", CM_OVERLAY_STOPPED_TEXT);
    int used[CM_OVERLAY_ALGORITHM_COUNT] = {0};
    for (int i = 0; i < r->n_layers; i++)
        used[r->layers[i].algorithm]++;
    cm_strbuf_printf(b, "- layers: %d im2col, %d kn2row, %d winograd, %d pooling, %d element-wise\n",
                     used[CM_OVERLAY_IM2COL], used[CM_OVERLAY_KN2ROW], used[CM_OVERLAY_WINOGRAD],
                     used[CM_OVERLAY_POOL], used[CM_OVERLAY_ELTWISE]);
}

static void md_baseline(cm_strbuf *b, const char *what, const cm_overlay_baseline *x, double latency)
{
    if (!x->present)
        cm_strbuf_printf(b, "| %s | not allowed | |\n", what);
    else
        cm_strbuf_printf(b, "| %s | %.6g | %.1f%% |\n", what, x->latency_s * 1e3,
                         100.0 * (1.0 - latency / x->latency_s));
}

static void md_baselines(cm_strbuf *b, const cm_overlay_result *r)
{
    cm_strbuf_printf(b, "\n## Baselines on the same array\n\n| mapping | latency (ms) | "
                        "the design is lower by |\n| --- | ---: | ---: |\n");
    md_baseline(b, "im2col only", &r->baselines[CM_OVERLAY_IM2COL], r->latency_s);
    md_baseline(b, "kn2row only", &r->baselines[CM_OVERLAY_KN2ROW], r->latency_s);
    md_baseline(b, "winograd where it applies, im2col elsewhere", &r->baselines[CM_OVERLAY_WINOGRAD],
                r->latency_s);
    md_baseline(b, "greedy (fastest compute per layer)", &r->greedy, r->latency_s);
}

static void md_layers(cm_strbuf *b, const cm_overlay_design *d)
{
    const cm_overlay_result *r = d->result;
    cm_strbuf_printf(b, "\n## Layers\n\n| layer | op | algorithm | dataflow | cycles | compute (us) | "
                        "memory (us) | transition (us) | utilisation |\n| --- | --- | --- | --- | "
                        "---: | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < r->n_layers; i++) {
        const cm_overlay_layer *l = &r->layers[i];
        const cm_layer *gl = &d->graph->layers[l->layer];
        const char *df = cm_overlay_dataflow_name(l->dataflow);
        cm_strbuf_printf(b, "| %s | %s | %s | %s | %llu | %.4f | %.4f | %.4f | ", gl->name,
                         cm_op_name(gl->op), cm_overlay_algorithm_name(l->algorithm), df ? df : "-",
                         (unsigned long long)l->cycles, l->compute_s * 1e6, l->memory_s * 1e6,
                         l->transition_s * 1e6);
        if (df)
            cm_strbuf_printf(b, "%.3f |\n", l->utilisation);
        else
            cm_strbuf_printf(b, "- |\n");
    }
}

static void md_formats(cm_strbuf *b, const cm_overlay_design *d)
{
    const cm_overlay_result *r = d->result;
    if (r->n_formats == 0)
        return;
    cm_strbuf_printf(b, "\n## Data between layers\n\nGraph inputs, stores after a layer read by "
                        "several layers, and concatenations hold one layout for all readers.\n\n"
                        "| vertex | of | layout | as read by |\n| --- | --- | --- | --- |\n");
    for (int i = 0; i < r->n_formats; i++) {
        const cm_overlay_format *f = &r->formats[i];
        cm_strbuf_printf(b, "| %s | %s | %s | %s |\n", cm_overlay_vertex_name(f->vertex),
                         cm_overlay_format_subject(d->graph, f), cm_overlay_layout_name(f->layout),
                         f->reader >= 0 ? d->graph->layers[f->reader].name : "");
    }
}

cm_status cm_overlay_export_md(const cm_overlay_design *d, const char *path, cm_error *err)
{
    cm_strbuf b = {0};
    md_summary(&b, d);
    md_baselines(&b, d->result);
    md_layers(&b, d);
    md_formats(&b, d);
    return cm_strbuf_write_atomic(&b, path, err);
}
