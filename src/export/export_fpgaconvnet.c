/* fpgaConvNet partition description: the JSON form of fpgaConvNet's partitions
 * message ({"partition": [{"id", "ports", "batch_size", "input_node", "output_node",
 * "weights_reloading_factor", "weights_reloading_layer", "layer": [...]}]}), each
 * layer with its type, streams and parameters (coarse and fine factors included).
 * Where a producer's coarse-out differs from its consumer's coarse-in, a SQUEEZE
 * layer is inserted, as fpgaConvNet does (that is why its designs need no inter
 * folding matching, SAMO Table II). */
#include "export/exporters.h"
#include "design/design_internal.h"

#include <stdio.h>

static const char *layer_type(cm_fcn_kind k)
{
    switch (k) {
    case CM_FCN_CONV: return "CONVOLUTION";
    case CM_FCN_INNER_PRODUCT: return "INNER_PRODUCT";
    case CM_FCN_POOL: return "POOLING";
    case CM_FCN_GLOBAL_POOL: return "AVERAGE_POOLING";
    case CM_FCN_RELU: return "RELU";
    case CM_FCN_SQUEEZE: return "SQUEEZE";
    case CM_FCN_SPLIT: return "SPLIT";
    case CM_FCN_ELTWISE: return "ELTWISE";
    case CM_FCN_CONCAT: return "CONCAT";
    case CM_FCN_RESIZE: return "RESIZE";
    }
    return "UNKNOWN";
}

static json_t *stream(const char *name, int64_t coarse, const char *node)
{
    json_t *s = json_object();
    json_object_set_new(s, "name", json_string(name));
    json_object_set_new(s, "coarse", json_integer(coarse));
    json_object_set_new(s, "node", json_string(node));
    return s;
}

static json_t *parameters(const cm_design *d, int i)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    const cm_fcn_layer *f = &n->hw.fcn;
    const int64_t *fold = d->state[i].fold;
    json_t *p = json_object();
    json_object_set_new(p, "batch_size", json_integer(d->opt.batch));
    json_object_set_new(p, "rows_in", json_integer(f->rows));
    json_object_set_new(p, "cols_in", json_integer(f->cols));
    json_object_set_new(p, "channels_in", json_integer(n->channels_in));
    json_object_set_new(p, "rows_out", json_integer(cm_fcn_rows_out(f)));
    json_object_set_new(p, "cols_out", json_integer(cm_fcn_cols_out(f)));
    json_object_set_new(p, "channels_out", json_integer(n->channels_out));
    json_object_set_new(p, "coarse_in", json_integer(fold[0]));
    json_object_set_new(p, "coarse_out", json_integer(fold[1]));
    json_object_set_new(p, "coarse", json_integer(fold[0]));
    if (f->kind == CM_FCN_CONV || f->kind == CM_FCN_INNER_PRODUCT) {
        json_object_set_new(p, "coarse_group", json_integer(1));
        json_object_set_new(p, "filters", json_integer(f->filters));
        json_object_set_new(p, "groups", json_integer(f->groups));
        json_object_set_new(p, "fine", json_integer(fold[2]));
        json_object_set_new(p, "has_bias", json_integer(f->has_bias));
        json_object_set_new(p, "weight_width", json_integer(f->weight_width));
        json_object_set_new(p, "acc_width", json_integer(f->acc_width));
    }
    if (f->kind == CM_FCN_CONV || f->kind == CM_FCN_POOL) {
        json_t *k = json_pack("[i,i]", f->kernel[0], f->kernel[1]);
        json_t *s = json_pack("[i,i]", f->stride[0], f->stride[1]);
        json_object_set_new(p, "kernel_size", k);
        json_object_set_new(p, "stride", s);
        json_object_set_new(p, "pad_top", json_integer(f->pad[0]));
        json_object_set_new(p, "pad_left", json_integer(f->pad[1]));
        json_object_set_new(p, "pad_bottom", json_integer(f->pad[2]));
        json_object_set_new(p, "pad_right", json_integer(f->pad[3]));
    }
    if (f->kind == CM_FCN_RESIZE)
        json_object_set_new(p, "mode", json_string(f->interpolate ? "bilinear" : "nearest"));
    json_object_set_new(p, "data_width", json_integer(f->data_width));
    json_object_set_new(p, "input_width", json_integer(f->data_width));
    json_object_set_new(p, "output_width", json_integer(f->data_width));
    return p;
}

static json_t *squeeze(const cm_design *d, int u, int v, char *name, size_t size)
{
    const cm_hd_node *a = &d->hd.nodes[u];
    snprintf(name, size, "squeeze_%s_%s", a->name, d->hd.nodes[v].name);
    json_t *l = json_object();
    json_object_set_new(l, "name", json_string(name));
    json_object_set_new(l, "type", json_string("SQUEEZE"));
    json_t *ins = json_array(), *outs = json_array();
    json_array_append_new(ins, stream(a->name, d->state[u].fold[1], a->name));
    json_array_append_new(outs, stream(name, d->state[v].fold[0], d->hd.nodes[v].name));
    json_object_set_new(l, "streams_in", ins);
    json_object_set_new(l, "streams_out", outs);
    json_t *p = json_object();
    json_object_set_new(p, "batch_size", json_integer(d->opt.batch));
    json_object_set_new(p, "channels_in", json_integer(a->channels_out));
    json_object_set_new(p, "channels_out", json_integer(a->channels_out));
    json_object_set_new(p, "coarse_in", json_integer(d->state[u].fold[1]));
    json_object_set_new(p, "coarse_out", json_integer(d->state[v].fold[0]));
    json_object_set_new(l, "parameters", p);
    return l;
}

static json_t *layer(const cm_design *d, int i, json_t *layers)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    json_t *l = json_object();
    json_object_set_new(l, "name", json_string(n->name));
    json_object_set_new(l, "onnx_node", json_string(d->graph->layers[n->layer].name));
    json_object_set_new(l, "type", json_string(layer_type(n->hw.fcn.kind)));
    json_t *ins = json_array(), *outs = json_array();
    for (int k = 0; k < n->n_pred; k++) {
        int u = n->pred[k];
        const char *from = d->hd.nodes[u].name;
        char name[600];
        if (d->state[u].fold[1] != d->state[i].fold[0] && u >= d->parts[d->part_of[i]].first) {
            json_array_append_new(layers, squeeze(d, u, i, name, sizeof name));
            from = name;
        }
        json_array_append_new(ins, stream(from, d->state[i].fold[0], n->name));
    }
    if (n->n_pred == 0)
        json_array_append_new(ins, stream("in", d->state[i].fold[0], n->name));
    for (int k = 0; k < n->n_succ; k++)
        json_array_append_new(outs, stream(n->name, d->state[i].fold[1], d->hd.nodes[n->succ[k]].name));
    if (n->n_succ == 0)
        json_array_append_new(outs, stream(n->name, d->state[i].fold[1], "out"));
    json_object_set_new(l, "streams_in", ins);
    json_object_set_new(l, "streams_out", outs);
    json_object_set_new(l, "parameters", parameters(d, i));
    return l;
}

cm_status cm_export_fpgaconvnet_check(const cm_design *d, cm_error *err)
{
    /* fpgaConvNet's partitions message has no layer type for these: written as another
     * type, the file would describe different hardware. */
    for (int i = 0; i < d->hd.n_nodes; i++) {
        const cm_layer *l = &d->graph->layers[d->hd.nodes[i].layer];
        if (l->op == CM_OP_SLICE || l->op == CM_OP_SHUFFLE || l->op == CM_OP_LAYERNORM)
            return cm_error_set(err, CM_EINPUT, "layer %s (%s) has no fpgaConvNet layer type, so "
                                "the fpgaconvnet format cannot describe this design",
                                l->name, cm_op_name(l->op));
    }
    return CM_OK;
}

json_t *cm_export_fpgaconvnet_json(const cm_design *d)
{
    json_t *parts = json_array();
    for (int p = 0; p < d->n_parts; p++) {
        json_t *layers = json_array();
        for (int i = d->parts[p].first; i < d->parts[p].end; i++) {
            json_t *l = layer(d, i, layers);
            json_array_append_new(layers, l);
        }
        json_t *o = json_object();
        json_object_set_new(o, "id", json_integer(p));
        json_object_set_new(o, "ports", json_integer(1));
        json_object_set_new(o, "batch_size", json_integer(d->opt.batch));
        json_object_set_new(o, "input_node", json_string(d->hd.nodes[d->parts[p].first].name));
        json_object_set_new(o, "output_node", json_string(d->hd.nodes[d->parts[p].end - 1].name));
        json_object_set_new(o, "weights_reloading_factor", json_integer(1));
        json_object_set_new(o, "weights_reloading_layer", json_string("None"));
        json_object_set_new(o, "layer", layers);
        json_array_append_new(parts, o);
    }
    json_t *o = json_object();
    json_object_set_new(o, "partition", parts);
    return o;
}
