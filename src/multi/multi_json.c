/* The `multi --json` object (see multi_json.h). */
#include "multi/multi_json.h"

#include <stdio.h>

#include "design/design_json.h"

static json_t *models_json(const cm_multi_result *r, bool baseline)
{
    json_t *a = json_array();
    for (int i = 0; i < r->n_models; i++) {
        const cm_multi_model *m = &r->models[i];
        if (baseline) {
            json_array_append_new(a, json_pack("{s:s, s:f, s:f}", "model", m->name, "fps",
                                               m->baseline_fps, "gops", m->baseline_gops));
            continue;
        }
        json_array_append_new(
            a, json_pack("{s:s, s:f, s:f, s:f, s:o}", "model", m->name, "target_fps",
                         m->target_fps, "fps", m->fps, "gops", m->gops, "resources",
                         cm_resources_json(&m->front[m->engine].resources, false)));
    }
    return a;
}

/* The keys of a search the time limit cut short; a finished search gives only the
 * keys of cli.md (scripts compare the key set). */
static void put_stopped(json_t *o, const cm_multi_result *r)
{
    if (!o || !r->stopped_early)
        return;
    char text[160];
    snprintf(text, sizeof text, "the time limit of %g s or a search's work budget stopped the "
             "exploration; this is the best design found by then", r->time_limit_s);
    json_object_set_new(o, "time_limit_s", json_real(r->time_limit_s));
    json_object_set_new(o, "stopped_early", json_true());
    json_object_set_new(o, "warnings", json_pack("[s]", text));
}

json_t *cm_multi_result_json(const cm_multi_result *r, double time_s)
{
    json_t *sched = json_array();
    for (int k = 0; k < r->schedule.n_tasks; k++) {
        const cm_multi_task *t = &r->schedule.tasks[k];
        json_array_append_new(sched, json_pack("{s:s, s:i, s:f, s:f, s:i}", "model",
                                               r->models[t->model].name, "subgraph", t->subgraph,
                                               "start_s", t->start_s, "slowdown", t->slowdown,
                                               "slots", t->slots));
    }
    json_t *base = json_pack("{s:f, s:o}", "objective_value", r->baseline_objective_value,
                             "models", models_json(r, true));
    json_t *o = json_pack("{s:s, s:s, s:f, s:f, s:o, s:o, s:o, s:f}", "board", r->board,
                          "objective", cm_multi_objective_name(r->objective), "objective_value",
                          r->objective_value, "bandwidth_gbps", r->bandwidth_gbps, "models",
                          models_json(r, false), "baseline", base, "schedule", sched, "time_s",
                          time_s);
    put_stopped(o, r);
    return o;
}
