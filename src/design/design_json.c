/* Builds the summary object of cli.md for a design, with its node and partition
 * tables, in a fixed key order so that equal designs print byte-identical JSON. */
#include "design/design_json.h"
#include "design/design_internal.h"

#include <math.h>

json_t *cm_resources_json(const cm_resources *r, bool with_uram)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "DSP", json_integer(r->dsp));
    json_object_set_new(o, "BRAM18", json_integer(r->bram18));
    if (with_uram)
        json_object_set_new(o, "URAM", json_integer(r->uram));
    json_object_set_new(o, "LUT", json_integer(r->lut));
    json_object_set_new(o, "FF", json_integer(r->ff));
    return o;
}

static json_t *node_json(const cm_design *d, int i)
{
    cm_node_info info;
    cm_design_node_info(d, i, &info);
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "name", json_string(info.name));
    json_object_set_new(o, "op", json_string(info.op));
    json_object_set_new(o, "layer", json_string(info.layer));
    json_object_set_new(o, "partition", json_integer(info.partition));
    json_object_set_new(o, "channel_in_folding", json_integer(info.fold_in));
    json_object_set_new(o, "channel_out_folding", json_integer(info.fold_out));
    json_object_set_new(o, "kernel_folding", json_integer(info.fold_kernel));
    cm_hd_param params[3];
    int64_t fold[3] = {info.fold_in, info.fold_out, info.fold_kernel};
    int np = cm_hd_node_params(&d->hd.nodes[i], fold, params);
    json_t *p = json_object();
    for (int k = 0; k < np; k++)
        json_object_set_new(p, params[k].name, json_integer(params[k].value));
    json_object_set_new(o, "parameters", p);
    json_object_set_new(o, "cycles", json_real(info.cycles));
    json_object_set_new(o, "resources", cm_resources_json(&info.res, true));
    return o;
}

static json_t *partition_json(const cm_design *d, int p)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "first", json_string(d->hd.nodes[info.first].name));
    json_object_set_new(o, "last", json_string(d->hd.nodes[info.last].name));
    json_object_set_new(o, "nodes", json_integer(info.last - info.first + 1));
    json_object_set_new(o, "interval_cycles", json_real(info.interval_cycles));
    json_object_set_new(o, "depth_cycles", json_real(info.depth_cycles));
    json_object_set_new(o, "time_s", json_real(info.time_s));
    json_object_set_new(o, "bandwidth_gbps", json_real(info.bandwidth_gbps));
    json_object_set_new(o, "slowest", json_string(d->hd.nodes[info.slowest_node].name));
    json_object_set_new(o, "resources", cm_resources_json(&info.res, true));
    return o;
}

static json_t *optimiser_json(const cm_design_run *run)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(cm_optimiser_name(run->optimiser)));
    json_object_set_new(o, "evaluations", json_integer((json_int_t)run->result.evaluations));
    json_object_set_new(o, "time_s", json_real(run->result.time_s));
    json_object_set_new(o, "seed", json_integer((json_int_t)run->seed));
    if (run->result.proven_infeasible)
        json_object_set_new(o, "proven_infeasible", json_true());
    if (run->result.note[0])
        json_object_set_new(o, "note", json_string(run->result.note));
    return o;
}

json_t *cm_design_report_json(const cm_design *d, const cm_design_run *run)
{
    cm_design_summary s;
    cm_design_summarise(d, &s);
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "model", json_string(d->graph->name));
    json_object_set_new(o, "board", json_string(d->board.name));
    json_object_set_new(o, "backend", json_string(cm_backend_name(d->opt.backend)));
    json_object_set_new(o, "objective",
                        json_string(d->opt.objective == CM_OBJECTIVE_LATENCY ? "latency" : "throughput"));
    json_object_set_new(o, "batch", json_integer(s.batch));
    json_object_set_new(o, "clock_mhz", json_real(s.clock_mhz));
    json_object_set_new(o, "feasible", json_boolean(s.feasible));
    json_object_set_new(o, "latency_s", json_real(s.latency_s));
    json_object_set_new(o, "latency_cycles", json_integer((json_int_t)llround(s.latency_cycles)));
    json_object_set_new(o, "throughput_fps", json_real(s.throughput_fps));
    json_object_set_new(o, "gops", json_real(s.gops));
    json_object_set_new(o, "partitions", json_integer(s.partitions));
    json_object_set_new(o, "resources", cm_resources_json(&s.resources, true));
    json_object_set_new(o, "board_resources", cm_resources_json(&d->board.resources, true));
    json_object_set_new(o, "optimiser", optimiser_json(run));
    if (run->result.has_lower_bound)
        json_object_set_new(o, "lower_bound_s", json_real(run->result.lower_bound_s));
    json_object_set_new(o, "reconfiguration_s", json_real(d->board.reconfiguration_s));
    json_t *parts = json_array(), *nodes = json_array();
    for (int p = 0; p < d->n_parts; p++)
        json_array_append_new(parts, partition_json(d, p));
    for (int i = 0; i < d->hd.n_nodes; i++)
        json_array_append_new(nodes, node_json(d, i));
    json_object_set_new(o, "partition_table", parts);
    json_object_set_new(o, "nodes", nodes);
    return o;
}
