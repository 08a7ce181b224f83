/* The JSON of the latency-driven design and of the choice between the two fpgaConvNet
 * flows on the latency objective (latency_json.h). Every step records its failure, so
 * that a figure jansson refuses (not finite) or a failed allocation gives NULL rather
 * than an object with a key silently missing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "design/design_json.h"
#include "latency/latency_json.h"
#include "util/json_build.h"

static const char *layer_name(const cm_design *d, int i)
{
    return cm_design_graph(d)->layers[i].name;
}

static json_t *matrix_json(const cm_latency_design *ld, const double *m)
{
    bool ok = true;
    json_t *rows = json_array();
    for (int r = 0; r < ld->n_arcs; r++) {
        json_t *row = json_array();
        for (int c = 0; c < ld->n_nodes; c++)
            cm_json_append(row, json_real(m[r * ld->n_nodes + c]), &ok);
        cm_json_append(rows, row, &ok);
    }
    return cm_json_finish(rows, ok);
}

static json_t *ints_json(const int *v, int n)
{
    bool ok = true;
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        cm_json_append(a, json_integer(v[i]), &ok);
    return cm_json_finish(a, ok);
}

static json_t *sdf_json(const cm_latency_design *ld)
{
    bool ok = true;
    json_t *o = json_object(), *nodes = json_array(), *subs = json_array();
    for (int c = 0; c < ld->n_nodes; c++)
        cm_json_append(nodes, json_string(ld->node_names[c]), &ok);
    cm_json_put(o, "nodes", nodes, &ok);
    cm_json_put(o, "gamma", matrix_json(ld, ld->gamma), &ok);
    for (int s = 0; s < ld->n_subgraphs; s++) {
        const cm_latency_subgraph *x = &ld->subgraphs[s];
        json_t *j = json_object();
        cm_json_put(j, "columns", ints_json(x->column, x->n_columns), &ok);
        cm_json_put(j, "shift", ints_json(x->shift, x->n_columns), &ok);
        cm_json_put(j, "workload", matrix_json(ld, x->workload), &ok);
        cm_json_put(j, "ii", matrix_json(ld, x->ii), &ok);
        cm_json_append(subs, j, &ok);
    }
    cm_json_put(o, "subgraphs", subs, &ok);
    return cm_json_finish(o, ok);
}

static json_t *block_json(const cm_latency_block *x)
{
    bool ok = true;
    json_t *o = json_object();
    cm_json_put(o, "name", json_string(x->name), &ok);
    cm_json_put(o, "kind", json_string(cm_latency_block_kind_name(x->kind)), &ok);
    cm_json_put(o, "coarse", json_integer(x->coarse), &ok);
    cm_json_put(o, "macc", json_integer(x->macc), &ok);
    cm_json_put(o, "kernel", ints_json(x->kernel, 2), &ok);
    cm_json_put(o, "bank_bram18", json_integer(x->bank_bram), &ok);
    cm_json_put(o, "layers", json_integer(x->n_layers), &ok);
    cm_json_put(o, "resources", cm_resources_json(&x->res, false), &ok);
    return cm_json_finish(o, ok);
}

static json_t *subgraph_json(const cm_design *d, const cm_latency_subgraph *x)
{
    bool ok = true;
    json_t *o = json_object();
    cm_json_put(o, "first", json_string(layer_name(d, x->first_layer)), &ok);
    cm_json_put(o, "last", json_string(layer_name(d, x->last_layer)), &ok);
    json_t *layers = json_array(); /* with branches, not the graph's range first..last */
    for (int k = 0; layers && k < x->n_layers; k++)
        cm_json_append(layers, json_string(layer_name(d, x->layers[k])), &ok);
    cm_json_put(o, "layers", layers, &ok);
    cm_json_put(o, "fold", json_integer(x->fold), &ok);
    cm_json_put(o, "folds", json_integer(x->folds), &ok);
    cm_json_put(o, "ii_cycles", json_real(x->ii_max_cycles), &ok);
    cm_json_put(o, "depth_cycles", json_real(x->depth_cycles), &ok);
    cm_json_put(o, "exec_s", json_real(x->exec_s), &ok);
    cm_json_put(o, "weights_s", json_real(x->weights_s), &ok);
    cm_json_put(o, "weight_words", json_integer(x->weight_words), &ok);
    return cm_json_finish(o, ok);
}

static double dsp_use(const cm_design *d, const cm_latency_design *ld)
{
    int64_t have = cm_design_board(d)->resources.dsp;
    return have ? (double)ld->resources.dsp / (double)have : 0.0;
}

/* The architecture and schedule: blocks, subgraphs and the layers read f_in times. */
static void put_structure(json_t *j, const cm_design *d, const cm_latency_design *ld, bool *ok)
{
    json_t *blocks = json_array(), *subs = json_array(), *fin = json_object();
    for (int b = 0; b < ld->n_blocks; b++)
        cm_json_append(blocks, block_json(&ld->blocks[b]), ok);
    cm_json_put(j, "blocks", blocks, ok);
    for (int s = 0; s < ld->n_subgraphs; s++)
        cm_json_append(subs, subgraph_json(d, &ld->subgraphs[s]), ok);
    cm_json_put(j, "schedule", subs, ok);
    for (int i = 0; i < ld->n_layers; i++)
        if (ld->fin[i] > 1)
            cm_json_put(fin, layer_name(d, i), json_integer(ld->fin[i]), ok);
    cm_json_put(j, "fin", fin, ok);
}

json_t *cm_latency_driven_json(const cm_design *d, const cm_latency_choice *c, bool sdf)
{
    bool ok = true;
    json_t *j = json_object();
    if (c->status != CM_OK && c->status != CM_EINFEASIBLE) {
        cm_json_put(j, "available", json_false(), &ok);
        cm_json_put(j, "message", json_string(c->err.message), &ok);
        return cm_json_finish(j, ok);
    }
    const cm_latency_design *ld = &c->ld;
    cm_json_put(j, "feasible", json_boolean(ld->feasible), &ok);
    cm_json_put(j, "latency_s", json_real(ld->latency_s), &ok);
    cm_json_put(j, "exec_s", json_real(ld->exec_s), &ok);
    cm_json_put(j, "weights_s", json_real(ld->weights_s), &ok);
    cm_json_put(j, "gops", json_real(ld->gops), &ok);
    cm_json_put(j, "peak_gops", json_real(ld->peak_gops), &ok);
    cm_json_put(j, "dsp_use", json_real(dsp_use(d, ld)), &ok);
    cm_json_put(j, "resources", cm_resources_json(&ld->resources, false), &ok);
    cm_json_put(j, "bandwidth_gbps", json_real(ld->bandwidth_gbps), &ok);
    put_structure(j, d, ld, &ok);
    cm_json_put(j, "evaluations", json_integer((json_int_t)ld->evaluations), &ok);
    cm_json_put(j, "time_s", json_real(ld->time_s), &ok);
    cm_json_put(j, "stopped_early", json_boolean(ld->stopped_early), &ok);
    cm_json_put(j, "stopped_by_budget", json_boolean(ld->stopped_by_budget), &ok);
    if (ld->has_lower_bound) {
        cm_json_put(j, "lower_bound_s", json_real(ld->lower_bound_s), &ok);
        cm_json_put(j, "optimal", json_boolean(ld->optimal), &ok);
    }
    if (sdf)
        cm_json_put(j, "sdf", sdf_json(ld), &ok);
    return cm_json_finish(j, ok);
}

double cm_latency_chosen_s(const cm_latency_choice *c)
{
    return c->chose_latency ? c->ld.latency_s : c->partitioned_s;
}

/* The top-level figures become the chosen design's; the throughput-driven ones move.
 * False when a figure could not be put (out of memory, or not finite). */
static bool adopt_latency(json_t *obj, const cm_latency_choice *c)
{
    static const char *const moved[] = {"latency_s", "gops", "partitions", "feasible",
                                        "resources", "lower_bound_s"};
    bool ok = true;
    json_t *t = json_object();
    for (size_t i = 0; i < sizeof moved / sizeof moved[0]; i++) {
        json_t *v = json_object_get(obj, moved[i]);
        if (v && json_object_set(t, moved[i], v) != 0)
            ok = false;
    }
    /* the optimiser's bound covers the partitioned designs only: no bound is known for
     * the latency-driven answer */
    json_object_del(obj, "lower_bound_s");
    cm_json_put(obj, "throughput_driven", t, &ok);
    const cm_latency_design *ld = &c->ld;
    cm_json_put(obj, "feasible", json_true(), &ok);
    cm_json_put(obj, "latency_s", json_real(ld->latency_s), &ok);
    cm_json_put(obj, "latency_cycles", json_real(ld->latency_s * ld->clock_mhz * 1e6), &ok);
    cm_json_put(obj, "throughput_fps", json_real(ld->batch / ld->latency_s), &ok);
    cm_json_put(obj, "gops", json_real(ld->gops), &ok);
    cm_json_put(obj, "partitions", json_integer(1), &ok);
    cm_json_put(obj, "resources", cm_resources_json(&ld->resources, true), &ok);
    return ok;
}

/* A bound over both flows' spaces replaces the partitioned one; it is given only below
 * the chosen latency (the invariant of cli.md). */
static void put_lower_bound(json_t *obj, const cm_latency_choice *c, bool *ok)
{
    if (c->has_lower_bound && c->lower_bound_s <= cm_latency_chosen_s(c)) {
        json_t *covers = json_pack("[ss]", "throughput_driven", "latency_driven");
        cm_json_put(obj, "lower_bound_s", json_real(c->lower_bound_s), ok);
        cm_json_put(obj, "lower_bound_covers", covers, ok);
    } else if (json_object_get(obj, "lower_bound_s")) {
        cm_json_put(obj, "lower_bound_covers", json_string("throughput_driven"), ok);
    }
}

/* The report obj (whole or its head) made the choice's: false when a figure could not
 * be put. */
static bool choice_over(json_t *obj, const cm_design *d, const cm_latency_choice *c, bool sdf)
{
    bool ok = !c->chose_latency || adopt_latency(obj, c);
    put_lower_bound(obj, c, &ok);
    cm_json_put(obj, "chosen", json_string(c->chose_latency ? "latency_driven" : "throughput_driven"), &ok);
    cm_json_put(obj, "latency_driven", cm_latency_driven_json(d, c, sdf), &ok);
    return ok;
}

json_t *cm_latency_choice_json(const cm_design *d, const cm_design_run *run,
                               const cm_latency_choice *c, bool sdf)
{
    json_t *obj = cm_design_report_json(d, run);
    if (!obj)
        return NULL;
    bool ok = choice_over(obj, d, c, sdf);
    return cm_json_finish(obj, ok);
}

/* The members of o after the one named `last`, moved into a new object in their order;
 * NULL when out of memory. */
static json_t *members_after(json_t *o, const char *last)
{
    json_t *tail = json_object();
    bool after = false, ok = tail != NULL;
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        if (after && ok)
            ok = json_object_set(tail, key, v) == 0;
        after = after || strcmp(key, last) == 0;
    }
    json_object_foreach(tail, key, v)
        json_object_del(o, key);
    if (!ok) {
        json_decref(tail);
        return NULL;
    }
    return tail;
}

/* The name of o's last member, copied; NULL when o has none or memory runs out. */
static char *last_member(json_t *o)
{
    const char *key, *last = NULL;
    json_t *v;
    json_object_foreach(o, key, v)
        last = key;
    return last ? strdup(last) : NULL;
}

bool cm_latency_choice_write(const cm_design *d, const cm_design_run *run,
                             const cm_latency_choice *c, bool sdf, cm_strbuf *out, size_t flags)
{
    /* The choice rewrites the head's members in place and adds its own after them,
     * which the whole tree holds after the tables: they are split off and follow. */
    json_t *head = cm_design_report_head_json(d, run);
    char *last = head ? last_member(head) : NULL;
    bool ok = last && choice_over(head, d, c, sdf);
    json_t *tail = ok ? members_after(head, last) : NULL;
    free(last);
    if (!tail) {
        json_decref(head);
        head = NULL;
    }
    cm_json_stream s;
    cm_json_stream_begin(&s, out, flags);
    cm_json_stream_members(&s, head);
    cm_design_stream_partitions(&s, d);
    cm_design_stream_nodes(&s, d);
    cm_json_stream_members(&s, tail);
    return cm_json_stream_end(&s);
}
