/* A model's graph as the JSON object `inspect --json` prints and the API gives: the
 * layers as read, their shapes, work and bit widths, and the totals. */
#include <cnnmap/model.h>

#include "model/model_json.h"

static json_t *int_array(const int64_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

static json_t *shape_json(cm_shape s)
{
    int64_t v[3] = {s.c, s.h, s.w};
    return int_array(v, 3);
}

static json_t *pair_json(const int *p, int n)
{
    int64_t v[4];
    for (int i = 0; i < n; i++)
        v[i] = p[i];
    return int_array(v, n);
}

static json_t *layer_json(const cm_graph *g, const cm_layer *l)
{
    json_t *inputs = json_array();
    for (int k = 0; k < l->n_inputs; k++)
        json_array_append_new(inputs, json_string(cm_graph_source_name(g, l->inputs[k])));
    json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:I, s:I, s:i, s:i}",
                          "name", l->name, "op", cm_op_name(l->op), "inputs", inputs,
                          "in_shape", shape_json(l->in_shape), "out_shape", shape_json(l->out_shape),
                          "kernel", pair_json(l->kernel, 2), "stride", pair_json(l->stride, 2),
                          "pad", pair_json(l->pad, 4), "groups", l->groups,
                          "macs", (json_int_t)l->macs, "params", (json_int_t)l->params,
                          "weight_bits", l->weight_q.bits, "act_bits", l->in_q.bits);
    if (!o)
        return NULL;
    json_object_set_new(o, "out_bits", json_integer(l->out_q.bits));
    json_object_set_new(o, "quantised", json_boolean(l->weight_q.quantised || l->in_q.quantised));
    json_object_set_new(o, "dilation", pair_json(l->dilation, 2));
    if (l->op == CM_OP_RELU || l->op == CM_OP_ACTIVATION) {
        json_object_set_new(o, "activation", json_string(cm_activation_name(l->activation)));
        json_object_set_new(o, "fusable", json_boolean(l->fusable));
    }
    json_object_set_new(o, "has_bias", json_boolean(l->has_bias));
    json_object_set_new(o, "has_weight_values", json_boolean(l->weights != NULL));
    return o;
}

json_t *cm_graph_json(const cm_graph *g)
{
    json_t *layers = json_array();
    for (int i = 0; i < g->n_layers; i++)
        json_array_append_new(layers, layer_json(g, &g->layers[i]));
    cm_graph_totals t = cm_graph_totals_of(g);
    int wbits, abits;
    cm_graph_typical_bits(g, &wbits, &abits);
    return json_pack("{s:s, s:o, s:o, s:{s:i, s:I, s:I, s:i, s:i, s:i}}", "model", g->name,
                     "input", shape_json(g->inputs[0].shape), "layers", layers, "totals",
                     "layers", t.layers, "macs", (json_int_t)t.macs, "params",
                     (json_int_t)t.params, "weight_bits", wbits, "act_bits", abits,
                     "removed_unreachable", g->n_removed_unreachable);
}
