/* `cnnmap inspect MODEL [--json|--csv]`: the layers a model file holds, as read. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <cnnmap/model.h>

#include "cli/cli.h"

const char cm_cli_inspect_usage[] =
    "usage: cnnmap inspect MODEL [--json | --csv]\n\n"
    "Reads an ONNX or QONNX model and prints one row per layer: name, operator, input and\n"
    "output shape (C x H x W), kernel, stride, padding (top, left, bottom, right), groups,\n"
    "multiply-accumulates, parameters, weight and activation bit widths; then totals.\n\n"
    "  --json   print the object of cli.md instead of the table\n"
    "  --csv    print the table of layers as CSV: the --json object's layers, one row\n"
    "           each (nested keys as outer.inner, lists space-separated)\n";

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

static json_t *graph_json(const cm_graph *g)
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

static const char *bits_text(cm_quant q, char *buf, size_t size)
{
    snprintf(buf, size, q.quantised ? "%d" : "f%d", q.bits);
    return buf;
}

static void print_table(const cm_graph *g)
{
    const cm_shape *s = &g->inputs[0].shape;
    printf("model %s, input %" PRId64 "x%" PRId64 "x%" PRId64 "\n\n", g->name, s->c, s->h, s->w);
    printf("%-28s %-15s %-16s %-16s %-6s %-6s %-8s %-6s %14s %12s %5s %5s\n", "layer", "op",
           "in (CxHxW)", "out (CxHxW)", "kernel", "stride", "pad", "groups", "MACs", "params",
           "wbits", "abits");
    for (int i = 0; i < g->n_layers; i++) {
        const cm_layer *l = &g->layers[i];
        char in[40], out[40], k[16], st[16], pad[24], wb[8], ab[8];
        snprintf(in, sizeof in, "%" PRId64 "x%" PRId64 "x%" PRId64, l->in_shape.c, l->in_shape.h, l->in_shape.w);
        snprintf(out, sizeof out, "%" PRId64 "x%" PRId64 "x%" PRId64, l->out_shape.c, l->out_shape.h, l->out_shape.w);
        snprintf(k, sizeof k, "%dx%d", l->kernel[0], l->kernel[1]);
        snprintf(st, sizeof st, "%dx%d", l->stride[0], l->stride[1]);
        snprintf(pad, sizeof pad, "%d,%d,%d,%d", l->pad[0], l->pad[1], l->pad[2], l->pad[3]);
        const char *op = l->op == CM_OP_ACTIVATION ? cm_activation_name(l->activation) : cm_op_name(l->op);
        printf("%-28.28s %-15s %-16s %-16s %-6s %-6s %-8s %-6d %14" PRIu64 " %12" PRIu64 " %5s %5s\n",
               l->name, op, in, out, k, st, pad, l->groups, l->macs, l->params,
               bits_text(l->weight_q, wb, sizeof wb), bits_text(l->in_q, ab, sizeof ab));
    }
    cm_graph_totals t = cm_graph_totals_of(g);
    int wbits, abits;
    cm_graph_typical_bits(g, &wbits, &abits);
    printf("\ntotal: %d layers, %" PRIu64 " MACs (%.3f G), %" PRIu64 " parameters (%.3f M), "
           "weights %d-bit, activations %d-bit\n",
           t.layers, t.macs, (double)t.macs / 1e9, t.params, (double)t.params / 1e6, wbits, abits);
    if (g->n_removed_unreachable)
        printf("removed: %d layer%s whose output reaches no graph output\n",
               g->n_removed_unreachable, g->n_removed_unreachable == 1 ? "" : "s");
    printf("(bits: f32 = unquantised float; abits are the activations entering the layer)\n");
}

int cm_cli_inspect(int argc, char **argv)
{
    cm_cli_format format = CM_CLI_TEXT;
    int first_arg = 0;
    int usage = cm_cli_parse_format_flags(argc, argv, "inspect", &format, &first_arg);
    if (usage != CM_OK)
        return usage;
    if (first_arg != argc - 1)
        return cm_cli_usage_error("inspect", "expects exactly one MODEL file");
    cm_error err = {0};
    cm_graph *g = NULL;
    if (cm_model_load(argv[first_arg], &g, &err) != CM_OK)
        return cm_cli_fail(&err);
    int rc = CM_OK;
    if (format != CM_CLI_TEXT)
        rc = cm_cli_print_as(graph_json(g), format);
    else
        print_table(g);
    cm_graph_free(g);
    return rc;
}
