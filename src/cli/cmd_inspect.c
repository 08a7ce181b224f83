/* `cnnmap inspect MODEL [--json|--csv]`: the layers a model file holds, as read. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <cnnmap/model.h>

#include "cli/cli.h"
#include "model/model_json.h"

const char cm_cli_inspect_usage[] =
    "usage: cnnmap inspect MODEL [--json | --csv]\n\n"
    "Reads an ONNX or QONNX model and prints one row per layer: name, operator, input and\n"
    "output shape (C x H x W), kernel, stride, padding (top, left, bottom, right), groups,\n"
    "multiply-accumulates, parameters, weight and activation bit widths; then totals.\n\n"
    "  --json   print the object of cli.md instead of the table\n"
    "  --csv    print the table of layers as CSV: the --json object's layers, one row\n"
    "           each (nested keys as outer.inner, lists space-separated)\n";

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
        rc = cm_cli_print_as(cm_graph_json(g), format);
    else
        print_table(g);
    cm_graph_free(g);
    return rc;
}
