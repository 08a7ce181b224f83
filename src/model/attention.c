/* Recognising a transformer when its import is refused: cnnmap maps CNNs, and a
 * transformer (ViT, Swin, MaxViT) is refused at whatever of its operators the importer
 * meets first, often a token reshape far from what makes it a transformer. The refusal
 * then names the network's first attention operator instead: the product of two
 * feature maps (queries by keys) whose scores feed a Softmax. */
#include <string.h>

#include "model/import.h"

/* Operators between attention's product and its Softmax: the scale, the mask and the
 * bias of relative positions, and reshapes of the heads. */
static bool between_scores(const char *op)
{
    static const char *const ops[] = {"Div", "Mul", "Add", "Sub", "Where", "Reshape",
                                      "Cast", "Transpose", "Unsqueeze", "Squeeze"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(op, ops[i]))
            return true;
    return false;
}

typedef struct graph_index {
    const Onnx__GraphProto *gp;
    cm_strmap producer; /* output name -> node index; an initializer's name -> INITIALIZER */
} graph_index;

enum { INITIALIZER = -2 };

/* Whether tensor `name` is a feature map: made by a node other than Constant, or a
 * graph input, not an initializer. */
static bool is_feature_map(const graph_index *x, const char *name)
{
    const int p = cm_strmap_get(&x->producer, name);
    if (p == INITIALIZER)
        return false;
    if (p >= 0)
        return strcmp(x->gp->node[p]->op_type ? x->gp->node[p]->op_type : "", "Constant") != 0;
    return true;
}

/* The earliest product of two feature maps that reaches tensor `name` through at most
 * `depth` score operators, or -1. */
static int product_before(const graph_index *x, const char *name, int depth)
{
    const int p = cm_strmap_get(&x->producer, name);
    if (p < 0)
        return -1;
    const Onnx__NodeProto *n = x->gp->node[p];
    const char *op = n->op_type ? n->op_type : "";
    if ((!strcmp(op, "MatMul") || !strcmp(op, "Einsum")) && n->n_input == 2 &&
        is_feature_map(x, n->input[0]) && is_feature_map(x, n->input[1]))
        return p;
    if (depth == 0 || !between_scores(op))
        return -1;
    int best = -1;
    /* the score operators take at most three inputs (Where): more is no attention, and
     * bounds the walk on any graph */
    for (size_t i = 0; i < n->n_input && i < 3; i++) {
        const int q = product_before(x, n->input[i], depth - 1);
        if (q >= 0 && (best < 0 || q < best))
            best = q;
    }
    return best;
}

int cm_import_first_attention(const Onnx__GraphProto *gp)
{
    graph_index x = {.gp = gp};
    if (!cm_strmap_init(&x.producer, gp->n_node * 2 + gp->n_initializer + 1))
        return -1;
    for (size_t i = 0; i < gp->n_initializer; i++)
        if (gp->initializer[i]->name && *gp->initializer[i]->name &&
            !cm_strmap_put(&x.producer, gp->initializer[i]->name, INITIALIZER)) {
            cm_strmap_free(&x.producer);
            return -1;
        }
    for (size_t i = 0; i < gp->n_node; i++)
        for (size_t k = 0; k < gp->node[i]->n_output; k++)
            if (gp->node[i]->output[k] && *gp->node[i]->output[k] &&
                !cm_strmap_put(&x.producer, gp->node[i]->output[k], (int)i)) {
                cm_strmap_free(&x.producer);
                return -1;
            }
    int first = -1;
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *n = gp->node[i];
        if (!n->op_type || strcmp(n->op_type, "Softmax") || n->n_input < 1)
            continue;
        const int p = product_before(&x, n->input[0], 4);
        if (p >= 0 && (first < 0 || p < first))
            first = p;
    }
    cm_strmap_free(&x.producer);
    return first;
}
