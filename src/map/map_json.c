/* The `compare --json` object (see map_json.h). */
#include "map/map_json.h"

#include "design/design_json.h"
#include "util/json_build.h"

const char *cm_map_objective_name(cm_objective o)
{
    return o == CM_OBJECTIVE_LATENCY ? "latency" : "throughput";
}

/* only the resources the architecture's model costs */
static json_t *resources_json(const cm_map_candidate *c)
{
    if (c->has_memory && c->has_logic)
        return cm_resources_json(&c->resources, true);
    if (c->has_memory)
        return json_pack("{s:I, s:I, s:I}", "DSP", (json_int_t)c->resources.dsp, "BRAM18",
                         (json_int_t)c->resources.bram18, "URAM", (json_int_t)c->resources.uram);
    return json_pack("{s:I}", "DSP", (json_int_t)c->resources.dsp);
}

static json_t *candidate_json(const cm_map_candidate *c)
{
    bool ok = true;
    json_t *o = json_object();
    cm_json_put(o, "architecture", json_string(cm_architecture_name(c->architecture)), &ok);
    cm_json_put(o, "backend", json_string(c->backend), &ok);
    cm_json_put(o, "searched", json_boolean(c->searched), &ok);
    cm_json_put(o, "optimiser", c->searched ? json_string(c->optimiser) : json_null(), &ok);
    cm_json_put(o, "available", json_boolean(c->available), &ok);
    cm_json_put(o, "feasible", json_boolean(c->feasible), &ok);
    cm_json_put(o, "latency_s", c->feasible ? json_real(c->latency_s) : json_null(), &ok);
    cm_json_put(o, "throughput_fps", c->feasible ? json_real(c->throughput_fps) : json_null(), &ok);
    cm_json_put(o, "resources", c->feasible ? resources_json(c) : json_null(), &ok);
    cm_json_put(o, "optimal", json_boolean(c->optimal), &ok);
    cm_json_put(o, "lower_bound_s", c->has_lower_bound ? json_real(c->lower_bound_s) : json_null(), &ok);
    cm_json_put(o, "stopped_early", json_boolean(c->stopped_early), &ok);
    cm_json_put(o, "reason", c->reason[0] ? json_string(c->reason) : json_null(), &ok);
    cm_json_put(o, "time_s", json_real(c->time_s), &ok);
    return cm_json_finish(o, ok);
}

json_t *cm_map_result_json(const cm_map_result *r)
{
    bool ok = true;
    json_t *o = json_object(), *cands = json_array();
    cm_json_put(o, "model", json_string(r->model), &ok);
    cm_json_put(o, "board", json_string(r->board), &ok);
    cm_json_put(o, "objective", json_string(cm_map_objective_name(r->objective)), &ok);
    cm_json_put(o, "batch", json_integer(r->batch), &ok);
    for (int i = 0; i < r->n_candidates; i++)
        if (json_array_append_new(cands, candidate_json(&r->candidates[i])) != 0)
            ok = false;
    cm_json_put(o, "candidates", cands, &ok);
    cm_json_put(o, "best", r->best >= 0 ? json_integer(r->best) : json_null(), &ok);
    cm_json_put(o, "time_s", json_real(r->time_s), &ok);
    return cm_json_finish(o, ok);
}
