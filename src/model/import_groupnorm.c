/* Group normalisation as torch.onnx writes nn.GroupNorm (RetinaNet v2's and FCOS's heads):
 * Reshape(x, [N, G, -1]) -> InstanceNormalization (unit scale, zero bias) -> Reshape back
 * to x's shape [-> Mul by a per-channel gamma] [-> Add of a per-channel beta]. One layer
 * norm layer with norm_map set and `groups` G: each group of C/G channels brought to zero
 * mean and unit variance over its channels and the whole map, then scaled and shifted per
 * channel. A pattern of nodes made one layer (cm_fused). */
#include <string.h>

#include "model/import.h"
#include "model/import_ops.h"

enum { GN_SPLIT, GN_NORM, GN_BACK, GN_MUL, GN_ADD };

static bool is_op(const Onnx__NodeProto *n, const char *op)
{
    return n && n->op_type && cm_import_is_onnx_domain(n->domain) && !strcmp(n->op_type, op);
}

static cm_status group_norm_make(cm_import *im, const cm_fused *f);

cm_status cm_import_find_group_norms(cm_import *im)
{
    const Onnx__GraphProto *gp = im->model->graph;
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *norm = gp->node[i];
        if (!is_op(norm, "InstanceNormalization") || norm->n_input < 3)
            continue;
        const Onnx__NodeProto *split = cm_import_producer(im, norm->input[0], "Reshape");
        const Onnx__NodeProto *back = cm_import_sole_reader(im, norm, "Reshape", 0);
        if (!split || split->n_input < 2 || !back || back->n_input < 2 ||
            cm_import_sole_reader(im, split, "InstanceNormalization", 0) != norm)
            continue;
        const Onnx__NodeProto *mul = cm_import_affine_step(im, back, "Mul");
        const Onnx__NodeProto *add = cm_import_affine_step(im, mul ? mul : back, "Add");
        const cm_fused m = {{split, norm, back, mul, add, NULL}, add ? add : mul ? mul : back,
                            group_norm_make};
        cm_status st = cm_import_fused_add(im, &m);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

/* The constant `name` with `count` values, or NULL. */
static const cm_tensor *constant(cm_import *im, const char *name, int64_t count)
{
    const cm_tensor *t = *name ? cm_import_find(im, name) : NULL;
    return t && t->kind == CM_TENSOR_CONST && t->values && t->count == count ? t : NULL;
}

static bool all_equal(const cm_tensor *t, double v)
{
    for (int64_t k = 0; k < t->count; k++)
        if (t->values[k] != v)
            return false;
    return true;
}

/* The other operand of an affine step after `from`: the per-channel constant. */
static const cm_tensor *operand(cm_import *im, const Onnx__NodeProto *step,
                                const Onnx__NodeProto *from)
{
    if (!step)
        return NULL;
    return cm_import_find(im, !strcmp(step->input[0], from->output[0]) ? step->input[1]
                                                                        : step->input[0]);
}

/* The tail: what only the constants and shapes tell, then the layer. */
static cm_status group_norm_make(cm_import *im, const cm_fused *f)
{
    const Onnx__NodeProto *split = f->node[GN_SPLIT], *norm = f->node[GN_NORM];
    const Onnx__NodeProto *back = f->node[GN_BACK];
    cm_tensor *x = cm_import_find(im, split->input[0]);
    if (!x || x->kind != CM_TENSOR_ACTIVATION || x->rank != 4 || x->channels_last)
        return cm_import_fail(im, split, CM_EINPUT, "a group normalisation must reshape a "
                              "4-D feature map (N, C, H, W)");
    const int64_t c = x->dims[1], per_sample = x->dims[1] * x->dims[2] * x->dims[3];
    const cm_tensor *to = constant(im, split->input[1], 3);
    /* range-checked before the conversion: a value past int64 would be undefined */
    const int64_t g = to && to->values[1] >= 1 && to->values[1] <= (double)c
                          ? (int64_t)to->values[1]
                          : 0;
    if (!to || (to->values[0] != 0 && to->values[0] != (double)x->dims[0]) || g < 1 ||
        c % g != 0 || (to->values[2] != -1 && to->values[2] != (double)(per_sample / g)))
        return cm_import_fail(im, split, CM_EINPUT, "a group normalisation must reshape its "
                              "map to (N, G, -1) with G dividing the %lld channels",
                              (long long)c);
    const cm_tensor *scale = constant(im, norm->input[1], g), *bias = constant(im, norm->input[2], g);
    if (!scale || !bias || !all_equal(scale, 1.0) || !all_equal(bias, 0.0))
        return cm_import_fail(im, norm, CM_EINPUT, "a group normalisation's "
                              "InstanceNormalization must have unit scale and zero bias "
                              "(constants of %lld values)", (long long)g);
    const cm_tensor *shape = constant(im, back->input[1], 4);
    for (int k = 0; k < 4 && shape; k++)
        if (shape->values[k] != (double)x->dims[k] && !(k < 2 && shape->values[k] == 0))
            shape = NULL;
    if (!shape)
        return cm_import_fail(im, back, CM_EINPUT, "a group normalisation must reshape back "
                              "to its input's shape");
    const double eps = cm_attr_float(norm, "epsilon", 1e-5);
    cm_status st = cm_import_norm_layer(im, f->last, x, operand(im, f->node[GN_MUL], back),
                                        operand(im, f->node[GN_ADD], f->node[GN_MUL] ? f->node[GN_MUL] : back),
                                        eps, false);
    if (st == CM_OK) {
        cm_layer *l = &im->g->layers[im->g->n_layers - 1];
        l->groups = (int)g;
        l->norm_map = true;
    }
    return st;
}
