/* Builds the summary object of cli.md for a design, with its node and partition
 * tables, in a fixed key order so that equal designs print byte-identical JSON. */
#include "design/design_json.h"
#include "design/design_internal.h"

#include <math.h>

/* jansson refuses a non-finite real (json_real gives NULL) and any insertion can fail
 * for memory; unchecked, either would leave a key silently missing from a report that
 * claims to follow cli.md. So every insertion goes through put(), and one failure
 * makes the whole object fail (finish() gives NULL), which the CLI reports. */
static void put(json_t *o, const char *key, json_t *v, bool *ok)
{
    /* set_new takes v even when it fails, and fails on a NULL o or v. */
    if (json_object_set_new(o, key, v) != 0)
        *ok = false;
}

static void append(json_t *a, json_t *v, bool *ok)
{
    if (json_array_append_new(a, v) != 0)
        *ok = false;
}

/* A count of cycles kept as a double, as a JSON integer; NULL (a failure) when it
 * has no int64 value, where llround's result would be unspecified. */
static json_t *whole_json(double x)
{
    return x >= 0.0 && x < 9.2e18 ? json_integer((json_int_t)llround(x)) : NULL;
}

static json_t *finish(json_t *o, bool ok)
{
    if (ok)
        return o;
    json_decref(o);
    return NULL;
}

json_t *cm_resources_json(const cm_resources *r, bool with_uram)
{
    bool ok = true;
    json_t *o = json_object();
    if (!o)
        return NULL;
    put(o, "DSP", json_integer(r->dsp), &ok);
    put(o, "BRAM18", json_integer(r->bram18), &ok);
    if (with_uram)
        put(o, "URAM", json_integer(r->uram), &ok);
    put(o, "LUT", json_integer(r->lut), &ok);
    put(o, "FF", json_integer(r->ff), &ok);
    return finish(o, ok);
}

static json_t *node_json(const cm_design *d, int i)
{
    cm_node_info info;
    cm_design_node_info(d, i, &info);
    bool ok = true;
    json_t *o = json_object();
    if (!o)
        return NULL;
    put(o, "name", json_string(info.name), &ok);
    put(o, "op", json_string(info.op), &ok);
    put(o, "layer", json_string(info.layer), &ok);
    put(o, "partition", json_integer(info.partition), &ok);
    put(o, "channel_in_folding", json_integer(info.fold_in), &ok);
    put(o, "channel_out_folding", json_integer(info.fold_out), &ok);
    put(o, "kernel_folding", json_integer(info.fold_kernel), &ok);
    cm_hd_param params[3];
    int64_t fold[3] = {info.fold_in, info.fold_out, info.fold_kernel};
    int np = cm_hd_node_params(&d->hd.nodes[i], fold, params);
    json_t *p = json_object();
    for (int k = 0; k < np; k++)
        put(p, params[k].name, json_integer(params[k].value), &ok);
    put(o, "parameters", p, &ok);
    put(o, "cycles", json_real(info.cycles), &ok);
    put(o, "resources", cm_resources_json(&info.res, true), &ok);
    return finish(o, ok);
}

static json_t *partition_json(const cm_design *d, int p)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    bool ok = true;
    json_t *o = json_object();
    if (!o)
        return NULL;
    put(o, "first", json_string(d->hd.nodes[info.first].name), &ok);
    put(o, "last", json_string(d->hd.nodes[info.last].name), &ok);
    put(o, "nodes", json_integer(info.last - info.first + 1), &ok);
    put(o, "interval_cycles", json_real(info.interval_cycles), &ok);
    put(o, "depth_cycles", json_real(info.depth_cycles), &ok);
    put(o, "time_s", json_real(info.time_s), &ok);
    put(o, "bandwidth_gbps", json_real(info.bandwidth_gbps), &ok);
    put(o, "slowest", json_string(d->hd.nodes[info.slowest_node].name), &ok);
    put(o, "resources", cm_resources_json(&info.res, true), &ok);
    return finish(o, ok);
}

static json_t *optimiser_json(const cm_design_run *run)
{
    bool ok = true;
    json_t *o = json_object();
    put(o, "name", json_string(cm_optimiser_name(run->optimiser)), &ok);
    put(o, "evaluations", json_integer((json_int_t)run->result.evaluations), &ok);
    put(o, "time_s", json_real(run->result.time_s), &ok);
    put(o, "seed", json_integer((json_int_t)run->seed), &ok);
    if (run->result.proven_infeasible)
        put(o, "proven_infeasible", json_true(), &ok);
    if (run->result.stopped_early)
        put(o, "stopped_early", json_true(), &ok);
    if (run->result.note[0])
        put(o, "note", json_string(run->result.note), &ok);
    return finish(o, ok);
}

json_t *cm_design_report_json(const cm_design *d, const cm_design_run *run)
{
    cm_design_summary s;
    cm_design_summarise(d, &s);
    bool ok = true;
    json_t *o = json_object();
    if (!o)
        return NULL;
    put(o, "model", json_string(d->graph->name), &ok);
    put(o, "board", json_string(d->board.name), &ok);
    put(o, "backend", json_string(cm_backend_name(d->opt.backend)), &ok);
    put(o, "objective",
        json_string(d->opt.objective == CM_OBJECTIVE_LATENCY ? "latency" : "throughput"), &ok);
    put(o, "batch", json_integer(s.batch), &ok);
    put(o, "clock_mhz", json_real(s.clock_mhz), &ok);
    put(o, "feasible", json_boolean(s.feasible), &ok);
    put(o, "latency_s", json_real(s.latency_s), &ok);
    put(o, "latency_cycles", whole_json(s.latency_cycles), &ok);
    put(o, "throughput_fps", json_real(s.throughput_fps), &ok);
    put(o, "gops", json_real(s.gops), &ok);
    put(o, "partitions", json_integer(s.partitions), &ok);
    put(o, "resources", cm_resources_json(&s.resources, true), &ok);
    put(o, "board_resources", cm_resources_json(&d->board.resources, true), &ok);
    put(o, "optimiser", optimiser_json(run), &ok);
    if (run->result.has_lower_bound)
        put(o, "lower_bound_s", json_real(run->result.lower_bound_s), &ok);
    put(o, "reconfiguration_s", json_real(d->board.reconfiguration_s), &ok);
    cm_design_warning w[CM_DESIGN_WARNINGS_CAP];
    int n_warnings = cm_design_warnings(d, run, w, CM_DESIGN_WARNINGS_CAP);
    json_t *warnings = json_array();
    for (int i = 0; i < n_warnings && i < CM_DESIGN_WARNINGS_CAP; i++)
        append(warnings, json_string(w[i].text), &ok);
    put(o, "warnings", warnings, &ok);
    json_t *parts = json_array(), *nodes = json_array();
    for (int p = 0; p < d->n_parts; p++)
        append(parts, partition_json(d, p), &ok);
    for (int i = 0; i < d->hd.n_nodes; i++)
        append(nodes, node_json(d, i), &ok);
    put(o, "partition_table", parts, &ok);
    put(o, "nodes", nodes, &ok);
    return finish(o, ok);
}
