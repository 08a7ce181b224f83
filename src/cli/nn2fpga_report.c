/* Printing an nn2FPGA design (see nn2fpga_report.h): the summary lines, the per-layer
 * unroll factors, latencies, DSPs and banks, and the skip-connection buffers; or the
 * JSON object that the design file also holds. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/nn2fpga_report.h"
#include "nn2fpga/n2_json.h"

static void print_layers(const cm_nn2fpga_result *r)
{
    printf("\n%-24s %-6s %5s %5s %5s %4s %9s %9s %5s %6s %6s %5s %5s\n", "layer", "kind", "ow_p",
           "och_p", "ich_p", "pack", "Lc", "Lw", "DSP", "BRAMw", "BRAMwb", "URAM", "cfgs");
    for (int i = 0; i < r->n_layers; i++) {
        const cm_nn2fpga_layer *l = &r->layers[i];
        printf("%-24.24s %-6s %5d %5d %5d %4d %9lld %9lld %5lld %6lld %6lld %5lld %5d%s\n", l->name,
               cm_nn2fpga_kind_name(l->kind), l->ow_par, l->och_par, l->ich_par, l->pack,
               (long long)l->lc, (long long)l->lw, (long long)l->dsp, (long long)l->bram_weights,
               (long long)l->bram_window, (long long)l->uram_weights, l->configs_kept,
               (l->lc > l->lw ? l->lc : l->lw) == r->period ? "  *" : "");
    }
}

static void print_skips(const cm_nn2fpga_result *r)
{
    if (r->n_skips == 0)
        return;
    printf("\n%-24s %-9s %-4s %12s %12s %8s %8s", "skip connection", "kind", "opt", "act before",
           "act after", "BRAM bef", "BRAM aft");
    printf(r->skips_built ? " %10s %12s %9s\n" : "\n", "FIFO words", "FIFO act", "BRAM FIFO");
    for (int i = 0; i < r->n_skips; i++) {
        const cm_nn2fpga_skip *s = &r->skips[i];
        printf("%-24.24s %-9s %-4s %12lld %12lld %8lld %8lld", s->name,
               s->downsample ? "downsamp" : "identity", s->optimised ? "yes" : "no",
               (long long)s->activations_before, (long long)s->activations_after,
               (long long)s->bram_before, (long long)s->bram_after);
        if (r->skips_built)
            printf(" %10lld %12lld %9lld", (long long)s->fifo_words,
                   (long long)(s->fifo_words * s->fifo_word_activations), (long long)s->fifo_bram);
        printf("\n");
    }
    if (r->skips_built)
        printf("(act/BRAM before and after: the thesis's model; FIFO: as the generated dataflow "
               "builds it for these unroll factors, counted in the resources)\n");
}

static void print_human(const cm_nn2fpga_design *d)
{
    const cm_nn2fpga_result *r = &d->result;
    const cm_resources *h = &d->board.resources;
    printf("model        %s\n", d->graph->name);
    printf("board        %s (%s), %.1f MHz\n", d->board.display_name, d->board.name, r->clock_mhz);
    printf("backend      nn2fpga, optimiser %s%s, %.3f s\n", cm_nn2fpga_solver_name(d->options.solver),
           r->optimal ? " (proven optimal)" : "", r->time_s);
    printf("period S     %lld cycles (phase 1: %lld), %.6g FPS at %.1f MHz\n", (long long)r->period,
           (long long)r->period_phase1, r->fps, r->clock_mhz);
    printf("batch        %d: latency %.6g ms\n", r->batch, cm_nn2fpga_latency_s(r) * 1e3);
    printf("resources    DSP %lld/%lld, BRAM18 %lld/%lld (skip buffers %lld), URAM %lld/%lld\n",
           (long long)r->dsp, (long long)h->dsp, (long long)r->bram18, (long long)h->bram18,
           (long long)r->bram_skip, (long long)r->uram, (long long)h->uram);
    printf("residual     temporal reuse %s, loop merge %s\n",
           d->options.temporal_reuse ? "on" : "off", d->options.loop_merge ? "on" : "off");
    for (int i = 0; i < 2 && r->phases[i].programs + r->phases[i].settled > 0; i++)
        printf("phase %d      %d variables, %d constraints, %d program%s%s, %.3f s%s\n", i + 1,
               r->phases[i].variables, r->phases[i].constraints, r->phases[i].programs,
               r->phases[i].programs == 1 ? "" : "s",
               r->phases[i].settled ? " (the other probes settled by a bound or a fitting choice)"
                                    : "",
               r->phases[i].time_s,
               r->phases[i].optimal         ? ", optimal"
               : r->phases[i].stopped_early ? ", not proven optimal: stopped early by the time limit"
                                            : ", not proven optimal");
    char w[2][CM_NN2FPGA_WARNING_MAX];
    int n = cm_nn2fpga_warnings(d, w, 2);
    for (int i = 0; i < n && i < 2; i++)
        printf("warning      %s\n", w[i]);
    print_layers(r);
    print_skips(r);
    printf("(* critical layer: its latency is S; BRAMw/BRAMwb: weight and window-buffer BRAM18)\n");
}

int cm_cli_nn2fpga_print(const cm_nn2fpga_design *d, cm_cli_format format)
{
    if (format != CM_CLI_TEXT)
        return cm_cli_print_as(cm_nn2fpga_report_json(d), format);
    print_human(d);
    return CM_OK;
}
