/* Builds the summary object of cli.md for a design, with its node and partition
 * tables, in a fixed key order so that equal designs print byte-identical JSON. */
#include "design/design_json.h"
#include "design/design_internal.h"
#include "util/json_build.h"
#include "util/json_stream.h"

#include <math.h>

/* A count of cycles kept as a double, as a JSON integer; NULL (a failure) when it
 * has no int64 value, where llround's result would be unspecified. */
static json_t *whole_json(double x)
{
    return x >= 0.0 && x < 9.2e18 ? json_integer((json_int_t)llround(x)) : NULL;
}

json_t *cm_resources_json(const cm_resources *r, bool with_uram)
{
    bool ok = true;
    json_t *o = json_object();
    if (!o)
        return NULL;
    cm_json_put(o, "DSP", json_integer(r->dsp), &ok);
    cm_json_put(o, "BRAM18", json_integer(r->bram18), &ok);
    if (with_uram)
        cm_json_put(o, "URAM", json_integer(r->uram), &ok);
    cm_json_put(o, "LUT", json_integer(r->lut), &ok);
    cm_json_put(o, "FF", json_integer(r->ff), &ok);
    return cm_json_finish(o, ok);
}

static json_t *node_json(const cm_design *d, int i)
{
    cm_node_info info;
    cm_design_node_info(d, i, &info);
    bool ok = true;
    json_t *o = json_object();
    if (!o)
        return NULL;
    cm_json_put(o, "name", json_string(info.name), &ok);
    cm_json_put(o, "op", json_string(info.op), &ok);
    cm_json_put(o, "layer", json_string(info.layer), &ok);
    cm_json_put(o, "partition", json_integer(info.partition), &ok);
    cm_json_put(o, "channel_in_folding", json_integer(info.fold_in), &ok);
    cm_json_put(o, "channel_out_folding", json_integer(info.fold_out), &ok);
    cm_json_put(o, "kernel_folding", json_integer(info.fold_kernel), &ok);
    cm_hd_param params[3];
    int64_t fold[3] = {info.fold_in, info.fold_out, info.fold_kernel};
    int np = cm_hd_node_params(&d->hd.nodes[i], fold, params);
    json_t *p = json_object();
    for (int k = 0; k < np; k++)
        cm_json_put(p, params[k].name, json_integer(params[k].value), &ok);
    cm_json_put(o, "parameters", p, &ok);
    cm_json_put(o, "cycles", json_real(info.cycles), &ok);
    cm_json_put(o, "resources", cm_resources_json(&info.res, true), &ok);
    return cm_json_finish(o, ok);
}

static json_t *partition_json(const cm_design *d, int p)
{
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    bool ok = true;
    json_t *o = json_object();
    if (!o)
        return NULL;
    cm_json_put(o, "first", json_string(d->hd.nodes[info.first].name), &ok);
    cm_json_put(o, "last", json_string(d->hd.nodes[info.last].name), &ok);
    cm_json_put(o, "nodes", json_integer(info.last - info.first + 1), &ok);
    cm_json_put(o, "interval_cycles", json_real(info.interval_cycles), &ok);
    cm_json_put(o, "depth_cycles", json_real(info.depth_cycles), &ok);
    cm_json_put(o, "time_s", json_real(info.time_s), &ok);
    cm_json_put(o, "bandwidth_gbps", json_real(info.bandwidth_gbps), &ok);
    cm_json_put(o, "slowest", json_string(d->hd.nodes[info.slowest_node].name), &ok);
    cm_json_put(o, "resources", cm_resources_json(&info.res, true), &ok);
    return cm_json_finish(o, ok);
}

static json_t *optimiser_json(const cm_design_run *run)
{
    bool ok = true;
    json_t *o = json_object();
    cm_json_put(o, "name", json_string(cm_optimiser_name(run->optimiser)), &ok);
    cm_json_put(o, "evaluations", json_integer((json_int_t)run->result.evaluations), &ok);
    cm_json_put(o, "time_s", json_real(run->result.time_s), &ok);
    cm_json_put(o, "seed", json_integer((json_int_t)run->seed), &ok);
    if (run->result.proven_infeasible)
        cm_json_put(o, "proven_infeasible", json_true(), &ok);
    if (run->result.stopped_early)
        cm_json_put(o, "stopped_early", json_true(), &ok);
    if (run->result.note[0])
        cm_json_put(o, "note", json_string(run->result.note), &ok);
    return cm_json_finish(o, ok);
}

json_t *cm_design_report_head_json(const cm_design *d, const cm_design_run *run)
{
    cm_design_summary s;
    cm_design_summarise(d, &s);
    bool ok = true;
    json_t *o = json_object();
    if (!o)
        return NULL;
    cm_json_put(o, "model", json_string(d->graph->name), &ok);
    cm_json_put(o, "board", json_string(d->board.name), &ok);
    cm_json_put(o, "backend", json_string(cm_backend_name(d->opt.backend)), &ok);
    cm_json_put(o, "objective",
        json_string(d->opt.objective == CM_OBJECTIVE_LATENCY ? "latency" : "throughput"), &ok);
    cm_json_put(o, "batch", json_integer(s.batch), &ok);
    cm_json_put(o, "clock_mhz", json_real(s.clock_mhz), &ok);
    cm_json_put(o, "feasible", json_boolean(s.feasible), &ok);
    cm_json_put(o, "latency_s", json_real(s.latency_s), &ok);
    cm_json_put(o, "latency_cycles", whole_json(s.latency_cycles), &ok);
    cm_json_put(o, "throughput_fps", json_real(s.throughput_fps), &ok);
    cm_json_put(o, "gops", json_real(s.gops), &ok);
    cm_json_put(o, "partitions", json_integer(s.partitions), &ok);
    cm_json_put(o, "resources", cm_resources_json(&s.resources, true), &ok);
    cm_json_put(o, "board_resources", cm_resources_json(&d->board.resources, true), &ok);
    cm_json_put(o, "optimiser", optimiser_json(run), &ok);
    if (run->result.has_lower_bound)
        cm_json_put(o, "lower_bound_s", json_real(run->result.lower_bound_s), &ok);
    cm_json_put(o, "reconfiguration_s", json_real(d->board.reconfiguration_s), &ok);
    cm_design_warning w[CM_DESIGN_WARNINGS_CAP];
    int n_warnings = cm_design_warnings(d, run, w, CM_DESIGN_WARNINGS_CAP);
    json_t *warnings = json_array();
    for (int i = 0; i < n_warnings && i < CM_DESIGN_WARNINGS_CAP; i++)
        cm_json_append(warnings, json_string(w[i].text), &ok);
    cm_json_put(o, "warnings", warnings, &ok);
    return cm_json_finish(o, ok);
}

json_t *cm_design_report_json(const cm_design *d, const cm_design_run *run)
{
    json_t *o = cm_design_report_head_json(d, run);
    bool ok = true;
    cm_json_put(o, "partition_table", cm_design_partitions_json(d), &ok);
    cm_json_put(o, "nodes", cm_design_nodes_json(d), &ok);
    return cm_json_finish(o, ok);
}

json_t *cm_design_partitions_json(const cm_design *d)
{
    bool ok = true;
    json_t *parts = json_array();
    for (int p = 0; parts && p < d->n_parts; p++)
        cm_json_append(parts, partition_json(d, p), &ok);
    return cm_json_finish(parts, ok);
}

json_t *cm_design_nodes_json(const cm_design *d)
{
    bool ok = true;
    json_t *nodes = json_array();
    for (int i = 0; nodes && i < d->hd.n_nodes; i++)
        cm_json_append(nodes, node_json(d, i), &ok);
    return cm_json_finish(nodes, ok);
}

void cm_design_stream_partitions(cm_json_stream *s, const cm_design *d)
{
    cm_json_stream_open(s, "partition_table", '[');
    for (int p = 0; p < d->n_parts && s->ok; p++)
        cm_json_stream_put(s, NULL, partition_json(d, p));
    cm_json_stream_close(s);
}

void cm_design_stream_nodes(cm_json_stream *s, const cm_design *d)
{
    cm_json_stream_open(s, "nodes", '[');
    for (int i = 0; i < d->hd.n_nodes && s->ok; i++)
        cm_json_stream_put(s, NULL, node_json(d, i));
    cm_json_stream_close(s);
}

bool cm_design_report_write(const cm_design *d, const cm_design_run *run, cm_strbuf *out,
                            size_t flags)
{
    cm_json_stream s;
    cm_json_stream_begin(&s, out, flags);
    cm_json_stream_members(&s, cm_design_report_head_json(d, run));
    cm_design_stream_partitions(&s, d);
    cm_design_stream_nodes(&s, d);
    return cm_json_stream_end(&s);
}
