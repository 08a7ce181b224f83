/* What a multi-CNN result is written as: the design file of `multi -o` (JSON: the
 * engines with the design points they are, the schedule, the hardware scheduler's slot
 * table, the baseline, the options and the search's facts) and the
 * Markdown report of `multi --report-md`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <cnnmap/multi.h>

#include "design/design_json.h"
#include "multi/multi_internal.h"
#include "util/strbuf.h"

/* ---- JSON design file ---- */

static json_t *subgraph_json(const cm_multi_subgraph *s)
{
    return json_pack("{s:i, s:i, s:i, s:f, s:f, s:f, s:I}", "first_layer", s->first_layer,
                     "last_layer", s->last_layer, "passes", s->passes, "latency_s", s->latency_s,
                     "bytes", s->bytes, "bandwidth_gbps", s->bandwidth / 1e9, "macs",
                     (json_int_t)s->macs);
}

/* The latency-driven design point the engine is, by layer and block names. */
static json_t *point_json(const cm_multi_point *p)
{
    json_t *cuts = json_array(), *folds = json_array(), *blocks = json_array();
    for (int k = 0; k < p->n_cuts; k++)
        json_array_append_new(cuts, json_string(p->cuts[k]));
    for (int k = 0; k < p->n_folds; k++)
        json_array_append_new(folds, json_pack("{s:s, s:i}", "layer", p->fold_layers[k], "f_in",
                                               p->folds[k]));
    for (int b = 0; b < p->n_blocks; b++) {
        const cm_multi_block *x = &p->blocks[b];
        json_array_append_new(blocks, json_pack("{s:s, s:i, s:i, s:i}", "name", x->name,
                                                "coarse", x->coarse, "macc", x->macc,
                                                "bank_bram", x->bank_bram));
    }
    return json_pack("{s:o, s:o, s:o}", "cuts", cuts, "folds", folds, "blocks", blocks);
}

static json_t *engine_json(const cm_multi_engine *e)
{
    json_t *subs = json_array();
    for (int s = 0; s < e->n_subgraphs; s++)
        json_array_append_new(subs, subgraph_json(&e->subgraphs[s]));
    return json_pack("{s:f, s:f, s:f, s:o, s:i, s:o, s:o}", "latency_s", e->latency_s, "bytes",
                     e->bytes, "resource_cap", e->cap, "resources",
                     cm_resources_json(&e->resources, false), "conv_units", e->dsp_coarse,
                     "subgraphs", subs, "point", point_json(&e->point));
}

static json_t *model_json(const cm_multi_result *r, int i)
{
    const cm_multi_model *m = &r->models[i];
    const cm_multi_schedule *s = &r->schedule;
    json_t *o = json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:i, s:f, s:f}", "model", m->name,
                          "target_fps", m->target_fps, "max_fps", m->max_fps, "fps", m->fps,
                          "gops", m->gops, "gop", m->gop, "repetitions", s->repetitions[i],
                          "cycle_s", s->cycle_s[i], "bandwidth_share", s->share[i]);
    json_object_set_new(o, "engine", engine_json(&m->front[m->engine]));
    json_object_set_new(o, "front_size", json_integer(m->front_size));
    json_object_set_new(o, "baseline", json_pack("{s:f, s:f, s:o}", "fps", m->baseline_fps,
                                                 "gops", m->baseline_gops, "engine",
                                                 engine_json(&m->front[m->baseline_engine])));
    return o;
}

static json_t *slot_json(const cm_multi_result *r, const cm_multi_task *t)
{
    return json_pack("{s:s, s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:i, s:f, s:I, s:I}", "model",
                     r->models[t->model].name, "engine", t->model, "subgraph", t->subgraph,
                     "repetition",
                     t->repetition, "start_s", t->start_s, "latency_s", t->latency_s, "slowdown",
                     t->slowdown, "bandwidth_gbps", t->bandwidth / 1e9, "slots", t->slots,
                     "share", t->share, "words", (json_int_t)t->words, "rounds",
                     (json_int_t)t->rounds);
}

static json_t *design_json(const cm_multi_result *r)
{
    const cm_multi_schedule *s = &r->schedule;
    json_t *models = json_array(), *slots = json_array();
    for (int i = 0; i < r->n_models; i++)
        json_array_append_new(models, model_json(r, i));
    for (int k = 0; k < s->n_tasks; k++)
        json_array_append_new(slots, slot_json(r, &s->tasks[k]));
    json_t *o = json_pack("{s:s, s:i, s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:f, s:f, s:f}",
                          "format", "cnnmap-multi-design", "version", CM_MT_DESIGN_VERSION,
                          "board", r->board,
                          "objective", cm_multi_objective_name(r->objective), "scheduler",
                          r->scheduler == CM_MULTI_ILP ? "ilp" : "list", "bandwidth_gbps",
                          r->bandwidth_gbps, "clock_mhz", r->clock_mhz, "word_bits", r->word_bits,
                          "burst_length", r->burst_length, "words_per_cycle", r->words_per_cycle,
                          "objective_value", r->objective_value, "baseline_objective_value",
                          r->baseline_objective_value);
    if (!o)
        return NULL;
    json_object_set_new(o, "schedule_kind",
                        json_string(s->kind == CM_MULTI_CYCLIC ? "cyclic" : "partitioned"));
    json_object_set_new(o, "period_s", s->kind == CM_MULTI_CYCLIC ? json_real(s->period_s)
                                                                   : json_null());
    json_object_set_new(o, "optimal", json_boolean(s->optimal));
    json_object_set_new(o, "time_limit_s", json_real(r->time_limit_s));
    json_object_set_new(o, "stopped_early", json_boolean(r->stopped_early));
    json_object_set_new(o, "resources", cm_resources_json(&r->resources, false));
    json_object_set_new(o, "options", json_pack("{s:f, s:i, s:i, s:i}", "clock_mhz",
                                                 r->clock_mhz, "word_bits", r->word_bits,
                                                 "burst_length", r->burst_length, "max_slots",
                                                 r->max_slots));
    json_object_set_new(o, "search", json_pack("{s:I, s:I, s:I, s:I}", "joint_points",
                                                (json_int_t)r->joint_points, "joint_feasible",
                                                (json_int_t)r->joint_feasible, "joint_distinct",
                                                (json_int_t)r->joint_distinct, "joint_scheduled",
                                                (json_int_t)r->joint_scheduled));
    json_object_set_new(o, "models", models);
    json_object_set_new(o, "slot_table", slots);
    return o;
}

char *cm_multi_design_json(const cm_multi_result *r)
{
    json_t *o = design_json(r);
    if (!o)
        return NULL;
    /* Every figure to the last bit: a loaded design derives its own from these. */
    char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(o);
    return text;
}

/* ---- Markdown ---- */

static void md_models(cm_strbuf *b, const cm_multi_result *r)
{
    cm_strbuf_printf(b, "\n## Engines\n\n| model | target fps | fps | GOp/s | baseline fps | baseline GOp/s "
           "| subgraphs | DSP | BRAM18 | LUT | FF |\n| --- | ---: | ---: | ---: | ---: | ---: "
           "| ---: | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < r->n_models; i++) {
        const cm_multi_model *m = &r->models[i];
        const cm_multi_engine *e = &m->front[m->engine];
        cm_strbuf_printf(b, "| %s | %.3g | %.3f | %.2f | %.3f | %.2f | %d | %lld | %lld | %lld | %lld |\n",
            m->name, m->target_fps, m->fps, m->gops, m->baseline_fps, m->baseline_gops,
            e->n_subgraphs, (long long)e->resources.dsp, (long long)e->resources.bram18,
            (long long)e->resources.lut, (long long)e->resources.ff);
    }
}

static void md_slots(cm_strbuf *b, const cm_multi_result *r)
{
    const cm_multi_schedule *s = &r->schedule;
    cm_strbuf_printf(b, "\n## Schedule and slot table (eq. 7)\n\n");
    if (s->kind == CM_MULTI_CYCLIC)
        cm_strbuf_printf(b, "Cyclic schedule, period %.6g ms.", s->period_s * 1e3);
    else
        cm_strbuf_printf(b, "Rate-partitioned schedule: every engine repeats on its own with a fixed share.");
    cm_strbuf_printf(b, " A slot is one burst of %d cycles; %.4g words move per cycle.\n\n", r->burst_length,
        r->words_per_cycle);
    cm_strbuf_printf(b, "| model | subgraph | rep | start ms | duration ms | slow-down | GB/s | slots | share "
           "| words | rounds |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
           "---: | ---: |\n");
    for (int k = 0; k < s->n_tasks; k++) {
        const cm_multi_task *t = &s->tasks[k];
        cm_strbuf_printf(b, "| %s | %d | %d | %.4f | %.4f | %.3f | %.3f | %d | %.2f%% | %lld | %lld |\n",
            r->models[t->model].name, t->subgraph, t->repetition, t->start_s * 1e3,
            t->latency_s * 1e3, t->slowdown, t->bandwidth / 1e9, t->slots, 100.0 * t->share,
            (long long)t->words, (long long)t->rounds);
    }
}

char *cm_multi_report_md(const cm_multi_result *r)
{
    cm_strbuf b = {0};
    cm_strbuf_printf(&b, "# Several CNNs on %s (f-CNNx)\n\n", r->board);
    cm_strbuf_printf(&b, "- objective: %s (eq. %d), value %.6g; contention-unaware baseline %.6g\n",
        cm_multi_objective_name(r->objective), r->objective == CM_MULTI_FPS ? 5 : 6,
        r->objective_value, r->baseline_objective_value);
    cm_strbuf_printf(&b, "- bandwidth %.3g GB/s, clock %.4g MHz, %d-bit words, scheduler %s\n",
        r->bandwidth_gbps, r->clock_mhz, r->word_bits,
        r->scheduler == CM_MULTI_ILP ? "ilp" : "list");
    cm_strbuf_printf(&b, "- resources DSP %lld, BRAM18 %lld, LUT %lld, FF %lld\n", (long long)r->resources.dsp,
        (long long)r->resources.bram18, (long long)r->resources.lut, (long long)r->resources.ff);
    cm_strbuf_printf(&b, "- joint design points %llu, feasible %llu, scheduled %llu\n",
        (unsigned long long)r->joint_points, (unsigned long long)r->joint_feasible,
        (unsigned long long)r->joint_scheduled);
    if (r->stopped_early)
        cm_strbuf_printf(&b, "- stopped early: the time limit of %g s or a search's work "
                         "budget ended the exploration; this is the best design found by "
                         "then\n", r->time_limit_s);
    md_models(&b, r);
    md_slots(&b, r);
    return cm_strbuf_take(&b);
}
