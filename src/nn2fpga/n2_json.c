/* The JSON form of an nn2FPGA design's figures (see n2_json.h): the summary of cli.md,
 * then the period, the transformations, the design space, the phases of the integer
 * program, every layer of G and the skip-connection storage. */
#include "nn2fpga/n2_json.h"

#include <stdio.h>

double cm_nn2fpga_latency_s(const cm_nn2fpga_result *r)
{
    return (double)r->latency_cycles / (r->clock_mhz * 1e6);
}

static json_t *resources_json(int64_t dsp, int64_t bram, int64_t uram, int64_t lut, int64_t ff)
{
    return json_pack("{sI sI sI sI sI}", "DSP", (json_int_t)dsp, "BRAM18", (json_int_t)bram, "URAM",
                     (json_int_t)uram, "LUT", (json_int_t)lut, "FF", (json_int_t)ff);
}

static json_t *layer_json(const cm_nn2fpga_layer *l, int64_t period)
{
    json_t *o = json_pack("{ss ss s[III] s[III] s[II] sI si si si si si si sb}", "name", l->name, "kind",
                          cm_nn2fpga_kind_name(l->kind), "in_shape", (json_int_t)l->ich,
                          (json_int_t)l->ih, (json_int_t)l->iw, "out_shape", (json_int_t)l->och,
                          (json_int_t)l->oh, (json_int_t)l->ow, "kernel", (json_int_t)l->fh,
                          (json_int_t)l->fw, "groups", (json_int_t)(l->groups > 1 ? l->groups : 1),
                          "weight_bits", l->weight_bits, "act_bits", l->act_bits,
                          "pack", l->pack, "ow_par", l->ow_par, "och_par", l->och_par, "ich_par",
                          l->ich_par, "weights_in_uram", l->weights_in_uram);
    json_t *c = json_pack("{sI sI sI sI sI sI sI sb si si}", "lc", (json_int_t)l->lc, "lw",
                          (json_int_t)l->lw, "dsp", (json_int_t)l->dsp, "bram18_weights",
                          (json_int_t)l->bram_weights, "bram18_window", (json_int_t)l->bram_window,
                          "uram_weights", (json_int_t)l->uram_weights, "window_activations",
                          (json_int_t)l->window_activations, "critical",
                          (l->lc > l->lw ? l->lc : l->lw) == period, "configs_enumerated",
                          l->configs_enumerated, "configs_kept", l->configs_kept);
    if (!o || !c || json_object_update(o, c) != 0) {
        json_decref(o);
        o = NULL;
    }
    json_decref(c);
    return o;
}

static json_t *skip_json(const cm_nn2fpga_skip *s)
{
    json_t *o = json_pack("{ss sb sb sI si sI sI sI sI}", "name", s->name, "downsample",
                          s->downsample, "optimised", s->optimised, "channels",
                          (json_int_t)s->channels, "bits", s->bits, "activations_before",
                          (json_int_t)s->activations_before, "activations_after",
                          (json_int_t)s->activations_after, "bram18_before",
                          (json_int_t)s->bram_before, "bram18_after", (json_int_t)s->bram_after);
    if (o && s->fifo_words > 0) {
        json_t *fifo = json_pack("{sI sI sI sI}", "words", (json_int_t)s->fifo_words,
                                 "activations_per_word", (json_int_t)s->fifo_word_activations,
                                 "activations", (json_int_t)(s->fifo_words * s->fifo_word_activations),
                                 "bram18", (json_int_t)s->fifo_bram);
        if (!fifo || json_object_set_new(o, "fifo", fifo) != 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o;
}

static json_t *phase_json(const cm_nn2fpga_result *r, int i)
{
    const cm_nn2fpga_phase *p = &r->phases[i];
    json_t *res = i == 0 ? resources_json(r->dsp_phase1, r->bram_phase1, r->uram_phase1, 0, 0)
                         : resources_json(r->dsp, r->bram18, r->uram, 0, 0);
    return json_pack("{si si si si si sf sb sb sf sI so}", "phase", i + 1, "variables", p->variables,
                     "constraints", p->constraints, "programs", p->programs, "settled",
                     p->settled, "time_s", p->time_s,
                     "optimal", p->optimal, "stopped_early", p->stopped_early, "objective",
                     p->objective, "period",
                     (json_int_t)(i == 0 ? r->period_phase1 : r->period), "resources", res);
}

/* Appends json_pack'd items; a NULL item (out of memory) makes the array NULL. */
static json_t *append(json_t *arr, json_t *item)
{
    if (!arr || !item || json_array_append_new(arr, item) != 0) {
        json_decref(arr);
        json_decref(item);
        return NULL;
    }
    return arr;
}

static json_t *details_json(const cm_nn2fpga_design *d)
{
    const cm_nn2fpga_result *r = &d->result;
    json_t *layers = json_array(), *skips = json_array(), *phases = json_array();
    for (int i = 0; i < r->n_layers; i++)
        layers = append(layers, layer_json(&r->layers[i], r->period));
    int64_t before = 0, after = 0, bram_before = 0, bram_after = 0;
    for (int i = 0; i < r->n_skips; i++) {
        skips = append(skips, skip_json(&r->skips[i]));
        before += r->skips[i].activations_before * r->skips[i].bits;
        after += r->skips[i].activations_after * r->skips[i].bits;
        bram_before += r->skips[i].bram_before;
        bram_after += r->skips[i].bram_after;
    }
    for (int i = 0; i < 2 && r->phases[i].programs + r->phases[i].settled > 0; i++)
        phases = append(phases, phase_json(r, i));
    return json_pack("{sI sf sb sb s{sb sb} s{si si} so so s{sI sI sI sI ss sI} so}",
                     "period_cycles", (json_int_t)r->period, "fps_steady", r->fps, "optimal",
                     r->optimal, "stopped_early", r->stopped_early, "transformations", "temporal_reuse", d->options.temporal_reuse,
                     "loop_merge", d->options.loop_merge, "design_space", "enumerated",
                     r->variables_enumerated, "layers_in_g", r->n_layers, "phases", phases,
                     "layers", layers, "skip_storage", "bits_before", (json_int_t)before,
                     "bits_after", (json_int_t)after, "bram18_before", (json_int_t)bram_before,
                     "bram18_after", (json_int_t)bram_after, "sized_by",
                     r->skips_built ? "dataflow" : "thesis", "bram18", (json_int_t)r->bram_skip,
                     "skip_connections", skips);
}

int cm_nn2fpga_warnings(const cm_nn2fpga_design *d, char (*out)[CM_NN2FPGA_WARNING_MAX], int cap)
{
    int n = 0;
    if (d->result.bits_defaulted && n++ < cap)
        snprintf(out[n - 1], CM_NN2FPGA_WARNING_MAX,
                 "some layers have no Quant annotation: nn2FPGA costs them at %d bits (--bits)",
                 d->options.default_bits);
    if (d->result.stopped_early && n++ < cap)
        snprintf(out[n - 1], CM_NN2FPGA_WARNING_MAX,
                 "the search stopped early (its time limit or node budget): the design is "
                 "the best found by then");
    return n;
}

static json_t *warnings_json(const cm_nn2fpga_design *d)
{
    char w[2][CM_NN2FPGA_WARNING_MAX];
    int n = cm_nn2fpga_warnings(d, w, 2);
    json_t *a = json_array();
    for (int i = 0; a && i < n && i < 2; i++)
        if (json_array_append_new(a, json_string(w[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *cm_nn2fpga_report_json(const cm_nn2fpga_design *d)
{
    const cm_nn2fpga_result *r = &d->result;
    const cm_resources *h = &d->board.resources;
    double lat = cm_nn2fpga_latency_s(r), fps = (double)r->batch / lat;
    json_t *o = json_pack(
        "{ss ss ss ss si sf sb sf sI sf sf si so so s{ss sI sf si}}", "model", d->graph->name,
        "board", d->board.name, "backend", "nn2fpga", "objective",
        d->latency_objective ? "latency" : "throughput", "batch", r->batch, "clock_mhz",
        r->clock_mhz, "feasible", true, "latency_s", lat, "latency_cycles",
        (json_int_t)r->latency_cycles, "throughput_fps", fps, "gops",
        2.0 * (double)r->macs * fps / 1e9, "partitions", 1, "resources",
        resources_json(r->dsp, r->bram18, r->uram, 0, 0), "board_resources",
        resources_json(h->dsp, h->bram18, h->uram, h->lut, h->ff), "optimiser", "name",
        cm_nn2fpga_solver_name(d->options.solver), "evaluations",
        (json_int_t)(r->phases[0].programs + r->phases[1].programs), "time_s", r->time_s, "seed", 0);
    json_t *det = details_json(d);
    if (o && json_object_set_new(o, "warnings", warnings_json(d)) != 0) {
        json_decref(o);
        o = NULL;
    }
    if (!o || !det || json_object_update(o, det) != 0) {
        json_decref(o);
        o = NULL;
    }
    json_decref(det);
    return o;
}
