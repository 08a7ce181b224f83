/* fpgaConvNet's configuration of a latency-driven design (export --format fpgaconvnet):
 * the reference architecture as fpgaConvNet layers (type, coarse_out = N, fine = m,
 * the largest window, the weight bank per MACC unit) and the schedule of subgraphs that
 * reuse it, each with the graph layers it runs, its input-folding pass, the blocks it
 * streams through (the rest bypassed) and its weights to load. */
#include <jansson.h>

#include <cnnmap/latency.h>

#include "util/json_file.h"

static const char *layer_type(cm_latency_block_kind k)
{
    switch (k) {
    case CM_LATENCY_CONV: return "CONVOLUTION";
    case CM_LATENCY_POOL: return "POOLING";
    case CM_LATENCY_RELU: return "RELU";
    case CM_LATENCY_ACCUM: return "ACCUMULATION";
    case CM_LATENCY_ELTWISE: return "ELTWISE";
    }
    return "UNKNOWN";
}

static json_t *block_json(const cm_latency_block *x)
{
    return json_pack("{ss ss s{si si s[ii] si si}}", "name", x->name, "type", layer_type(x->kind),
                     "parameters", "coarse_out", x->coarse, "fine", x->macc, "kernel_size",
                     x->kernel[0], x->kernel[1], "bank_bram18", x->bank_bram, "layers_scheduled",
                     x->n_layers);
}

/* The blocks a subgraph streams through, from its SDF columns. */
static json_t *used_blocks(const cm_latency_design *d, const cm_latency_subgraph *s)
{
    json_t *a = json_array();
    int last = -1;
    for (int k = 0; a && k < s->n_columns; k++) {
        int b = d->node_block[s->column[k]];
        if (b >= 0 && b != last && json_array_append_new(a, json_string(d->blocks[b].name)) != 0) {
            json_decref(a);
            return NULL;
        }
        last = b >= 0 ? b : last;
    }
    return a;
}

static json_t *subgraph_json(const cm_latency_file *f, int i)
{
    const cm_latency_subgraph *s = &f->design.subgraphs[i];
    json_t *layers = json_array();
    for (int k = 0; layers && k < s->n_layers; k++)
        if (json_array_append_new(layers, json_string(f->graph->layers[s->layers[k]].name)) != 0) {
            json_decref(layers);
            layers = NULL;
        }
    return json_pack("{si so* so* si si sf sf sI}", "id", i, "layers", layers, "blocks",
                     used_blocks(&f->design, s), "fold", s->fold, "folds", s->folds, "ii_cycles",
                     s->ii_max_cycles, "exec_s", s->exec_s, "weight_words",
                     (json_int_t)s->weight_words);
}

cm_status cm_latency_export_fpgaconvnet(const cm_latency_file *f, const char *path, cm_error *err)
{
    const cm_latency_design *d = &f->design;
    json_t *blocks = json_array(), *schedule = json_array();
    bool ok = blocks && schedule;
    for (int b = 0; ok && b < d->n_blocks; b++)
        ok = json_array_append_new(blocks, block_json(&d->blocks[b])) == 0;
    for (int s = 0; ok && s < d->n_subgraphs; s++)
        ok = json_array_append_new(schedule, subgraph_json(f, s)) == 0;
    json_t *o = ok ? json_pack("{ss ss ss sf sf si si sb so so sf}", "architecture", "latency_driven",
                               "model", f->graph->name, "board", f->board.name, "clock_mhz",
                               d->clock_mhz, "bandwidth_gbps", d->bandwidth_gbps, "batch_size",
                               d->batch, "word_bits", f->options.word_bits, "weights_reloading",
                               d->n_subgraphs > 1, "reference", blocks, "schedule", schedule,
                               "latency_s", d->latency_s)
                   : NULL;
    if (!ok) { /* a failed json_pack has released its "o" values itself */
        json_decref(blocks);
        json_decref(schedule);
    }
    cm_status st = cm_json_file_write(path, o, JSON_INDENT(1) | JSON_PRESERVE_ORDER, err);
    json_decref(o);
    return st;
}
