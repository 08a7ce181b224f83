/* The Markdown report of an nn2FPGA design: the summary, the layers of G with their
 * unroll factors and costs, the skip-connection buffers as the thesis models them and as
 * the generated dataflow builds them. */
#include <string.h>
#include <strings.h>

#include <cnnmap/export.h>
#include <cnnmap/nn2fpga.h>

#include "nn2fpga/n2_json.h"
#include "util/atomic_file.h"
#include "util/strbuf.h"

static void md_summary(cm_strbuf *b, const cm_nn2fpga_design *d)
{
    const cm_nn2fpga_result *r = &d->result;
    const cm_resources *h = &d->board.resources;
    cm_strbuf_printf(b, "# %s on %s (nn2fpga)\n\n", d->graph->name, d->board.display_name);
    cm_strbuf_printf(b, "- optimiser: %s%s\n", cm_nn2fpga_solver_name(d->options.solver),
                     r->optimal ? " (proven optimal)" : "");
    cm_strbuf_printf(b, "- period S: %lld cycles, %.6g FPS at %.4g MHz\n", (long long)r->period,
                     r->fps, r->clock_mhz);
    cm_strbuf_printf(b, "- objective: %s, batch %d: latency %.6g ms\n",
                     d->latency_objective ? "latency" : "throughput", r->batch,
                     cm_nn2fpga_latency_s(r) * 1e3);
    cm_strbuf_printf(b, "- resources: DSP %lld/%lld, BRAM18 %lld/%lld (skip buffers %lld), "
                        "URAM %lld/%lld\n",
                     (long long)r->dsp, (long long)h->dsp, (long long)r->bram18,
                     (long long)h->bram18, (long long)r->bram_skip, (long long)r->uram,
                     (long long)h->uram);
    cm_strbuf_printf(b, "- residual rewrites: temporal reuse %s, loop merge %s\n",
                     d->options.temporal_reuse ? "on" : "off", d->options.loop_merge ? "on" : "off");
}

static void md_layers(cm_strbuf *b, const cm_nn2fpga_result *r)
{
    cm_strbuf_printf(b, "\n## Layers\n\n| layer | kind | ow_par | och_par | ich_par | Lc | Lw | "
                        "DSP | BRAM18 weights | BRAM18 window | URAM | critical |\n"
                        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
                        "| --- |\n");
    for (int i = 0; i < r->n_layers; i++) {
        const cm_nn2fpga_layer *l = &r->layers[i];
        cm_strbuf_printf(b, "| %s | %s | %d | %d | %d | %lld | %lld | %lld | %lld | %lld | %lld | %s |\n",
                         l->name, cm_nn2fpga_kind_name(l->kind), l->ow_par, l->och_par, l->ich_par,
                         (long long)l->lc, (long long)l->lw, (long long)l->dsp,
                         (long long)l->bram_weights, (long long)l->bram_window,
                         (long long)l->uram_weights,
                         (l->lc > l->lw ? l->lc : l->lw) == r->period ? "yes" : "");
    }
}

static void md_skips(cm_strbuf *b, const cm_nn2fpga_result *r)
{
    if (r->n_skips == 0)
        return;
    cm_strbuf_printf(b, "\n## Skip buffers\n\nBefore and after: the thesis's model (section 3.6.4)."
                        "%s\n\n| add | kind | optimised | activations before | activations after | "
                        "BRAM18 before | BRAM18 after |%s\n| --- | --- | --- | ---: | ---: | ---: | ---: |%s\n",
                     r->skips_built ? " FIFO: as the generated dataflow builds it for these unroll "
                                      "factors, counted in the resources." : "",
                     r->skips_built ? " FIFO words | FIFO activations | FIFO BRAM18 |" : "",
                     r->skips_built ? " ---: | ---: | ---: |" : "");
    for (int i = 0; i < r->n_skips; i++) {
        const cm_nn2fpga_skip *s = &r->skips[i];
        cm_strbuf_printf(b, "| %s | %s | %s | %lld | %lld | %lld | %lld |", s->name,
                         s->downsample ? "downsampling" : "identity", s->optimised ? "yes" : "no",
                         (long long)s->activations_before, (long long)s->activations_after,
                         (long long)s->bram_before, (long long)s->bram_after);
        if (r->skips_built)
            cm_strbuf_printf(b, " %lld | %lld | %lld |", (long long)s->fifo_words,
                             (long long)(s->fifo_words * s->fifo_word_activations),
                             (long long)s->fifo_bram);
        cm_strbuf_printf(b, "\n");
    }
}

static cm_status write_md(const cm_nn2fpga_design *d, const char *output, cm_error *err)
{
    cm_strbuf b = {0};
    md_summary(&b, d);
    md_layers(&b, &d->result);
    md_skips(&b, &d->result);
    return cm_strbuf_write_atomic(&b, output, err);
}

cm_status cm_export_nn2fpga_file(const char *design_path, const char *format,
                                 const char *path, cm_error *err)
{
    /* before loading: a format that cannot apply needs no model */
    if (strcasecmp(format, "report-md") != 0)
        return cm_error_set(err, CM_EINPUT, "%s: an nn2fpga design exports as hls, report-md or report-html, "
                                             "not %s", design_path, format);
    cm_nn2fpga_design d;
    cm_status st = cm_nn2fpga_design_load(design_path, &d, err);
    if (st != CM_OK)
        return st;
    st = write_md(&d, path, err);
    cm_nn2fpga_design_free(&d);
    return st;
}
