/* `cnnmap export` of an nn2FPGA design file: report-md, a short Markdown report (the
 * summary, the layers of G with their unroll factors and costs, the skip-connection
 * buffers). The streaming backends' formats do not apply to this architecture. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cnnmap/hls.h>
#include <cnnmap/nn2fpga.h>
#include <stdio.h>

#include "cli/cli.h"
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
    char *text = cm_strbuf_take(&b);
    if (!text)
        return cm_error_nomem(err);
    cm_status st = cm_write_file_atomic(output, text, strlen(text), err);
    free(text);
    return st;
}

int cm_cli_export_nn2fpga(const char *design_path, const char *format, const char *output)
{
    cm_error err = {0};
    if (strcasecmp(format, "report-md") != 0) {
        cm_error_set(&err, CM_EINPUT, "%s: an nn2fpga design exports as hls or report-md, not %s",
                     design_path, format);
        return cm_cli_fail(&err);
    }
    cm_nn2fpga_design d;
    if (cm_nn2fpga_design_load(design_path, &d, &err) != CM_OK)
        return cm_cli_fail(&err);
    cm_status st = write_md(&d, output, &err);
    cm_nn2fpga_design_free(&d);
    return st == CM_OK ? CM_OK : cm_cli_fail(&err);
}

int cm_cli_export_hls(const char *design_path, const char *dir, const cm_hls_options *o)
{
    cm_error err = {0};
    FILE *f = fopen(design_path, "rb");
    if (!f) {
        cm_error_set(&err, CM_EINPUT, "%s: cannot open: %s", design_path, strerror(errno));
        return cm_cli_fail(&err);
    }
    fclose(f);
    if (!cm_nn2fpga_is_design_file(design_path)) {
        cm_error_set(&err, CM_EINPUT, "%s: --format hls takes an nn2fpga design file (optimise "
                     "--backend nn2fpga -o)", design_path);
        return cm_cli_fail(&err);
    }
    cm_nn2fpga_design d;
    if (cm_nn2fpga_design_load(design_path, &d, &err) != CM_OK)
        return cm_cli_fail(&err);
    cm_hls_summary s;
    cm_status st = cm_hls_export(&d, dir, o, &s, &err);
    cm_nn2fpga_design_free(&d);
    if (st != CM_OK)
        return cm_cli_fail(&err);
    printf("wrote %s: %d tasks, %d streams, %lld lines of C++ in %d files\n", dir, s.tasks,
           s.streams, (long long)s.lines, s.files);
    for (int i = 0; i < s.n_skips; i++)
        printf("skip FIFO of %s (stream %s%s): %lld activations in %lld words (the design's: %lld)\n",
               s.skips[i].name, s.skips[i].stream, s.skips[i].reuse ? ", taps the first window buffer" : "",
               (long long)s.skips[i].activations, (long long)s.skips[i].depth_words,
               (long long)s.skips[i].design_activations);
    printf("check it: make -C %s check\n", dir);
    return CM_OK;
}
