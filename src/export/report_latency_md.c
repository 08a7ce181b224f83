/* The Markdown report of a latency-driven fpgaConvNet design (export --format
 * report-md): options and figures, the reference architecture's blocks and the
 * schedule of subgraphs that reuse it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/latency.h>

#include "util/atomic_file.h"
#include "util/strbuf.h"

static const char *search_name(cm_latency_search s)
{
    return s == CM_LATENCY_SEARCH_MINIMAL ? "none (resource-minimal point)"
           : s == CM_LATENCY_SEARCH_EXACT ? "exact" : "rule";
}

static void md_summary(cm_strbuf *b, const cm_latency_file *f)
{
    const cm_latency_design *d = &f->design;
    const cm_latency_options *o = &f->options;
    const cm_resources *r = &d->resources, *h = &f->board.resources;
    cm_strbuf_printf(b, "# %s on %s (fpgaConvNet, latency-driven)\n\n", f->graph->name,
                     f->board.display_name);
    cm_strbuf_printf(b, "One reference architecture executes every subgraph in turn; only the "
                        "weights are reloaded between subgraphs.\n\n");
    cm_strbuf_printf(b, "- options: clock %.4g MHz, bandwidth %.4g GB/s, %d-bit words, batch %d, "
                        "weights reloading %s, input folding %s\n",
                     d->clock_mhz, d->bandwidth_gbps, o->word_bits, d->batch,
                     o->weights_reloading ? "on" : "off", o->input_folding ? "on" : "off");
    cm_strbuf_printf(b, "- latency: %.6g ms (execution %.6g ms, weight loading %.6g ms, %d "
                        "subgraph%s)\n", d->latency_s * 1e3, d->exec_s * 1e3, d->weights_s * 1e3,
                     d->n_subgraphs, d->n_subgraphs == 1 ? "" : "s");
    cm_strbuf_printf(b, "- performance: %.4g GOp/s of %.4g GOp/s peak\n", d->gops, d->peak_gops);
    cm_strbuf_printf(b, "- resources: DSP %" PRId64 "/%" PRId64 ", BRAM18 %" PRId64 "/%" PRId64
                        ", LUT %" PRId64 "/%" PRId64 ", FF %" PRId64 "/%" PRId64 "\n",
                     r->dsp, h->dsp, r->bram18, h->bram18, r->lut, h->lut, r->ff, h->ff);
    cm_strbuf_printf(b, "- search: %s, %" PRIu64 " design points%s\n", search_name(o->search),
                     d->evaluations,
                     !d->stopped_early       ? ""
                     : d->stopped_by_budget ? ", stopped by its work budget"
                                             : ", stopped early by the time limit");
    if (d->has_lower_bound)
        cm_strbuf_printf(b, "- lower bound: %.6g ms (latency-driven designs)\n",
                         d->lower_bound_s * 1e3);
}

static void md_blocks(cm_strbuf *b, const cm_latency_design *d)
{
    cm_strbuf_printf(b, "\n## Reference architecture\n\n| block | kind | coarse | MACC | window | "
                        "bank BRAM18 | layers | DSP | BRAM18 | LUT | FF |\n"
                        "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < d->n_blocks; i++) {
        const cm_latency_block *x = &d->blocks[i];
        bool windowed = x->kind == CM_LATENCY_CONV || x->kind == CM_LATENCY_POOL;
        cm_strbuf_printf(b, "| %s | %s | %d | %d | ", x->name, cm_latency_block_kind_name(x->kind),
                         x->coarse, x->macc);
        if (windowed)
            cm_strbuf_printf(b, "%dx%d", x->kernel[0], x->kernel[1]);
        else
            cm_strbuf_printf(b, "-");
        cm_strbuf_printf(b, " | %d | %d | %" PRId64 " | %" PRId64 " | %" PRId64 " | %" PRId64 " |\n",
                         x->bank_bram, x->n_layers, x->res.dsp, x->res.bram18, x->res.lut,
                         x->res.ff);
    }
}

static void md_schedule(cm_strbuf *b, const cm_latency_file *f)
{
    const cm_latency_design *d = &f->design;
    cm_strbuf_printf(b, "\n## Schedule\n\n| subgraph | first | last | pass | II cycles | depth "
                        "cycles | execution ms | weights ms | weight words |\n"
                        "| ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (int s = 0; s < d->n_subgraphs; s++) {
        const cm_latency_subgraph *x = &d->subgraphs[s];
        char pass[32];
        cm_latency_pass_name(x, pass, sizeof pass);
        cm_strbuf_printf(b, "| %d | %s | %s | %s | %.0f | %.0f | %.6g | %.6g | %" PRId64 " |\n", s,
                         f->graph->layers[x->first_layer].name, f->graph->layers[x->last_layer].name,
                         pass, x->ii_max_cycles, x->depth_cycles, x->exec_s * 1e3,
                         x->weights_s * 1e3, x->weight_words);
    }
}

cm_status cm_latency_export_report_md(const cm_latency_file *f, const char *path, cm_error *err)
{
    cm_strbuf b = {0};
    md_summary(&b, f);
    md_blocks(&b, &f->design);
    md_schedule(&b, f);
    return cm_strbuf_write_atomic(&b, path, err);
}
