/* L2 normalisation over channels written out, as torch.onnx writes F.normalize(x, dim=1)
 * (SSD300's L2Norm on conv4_3): ReduceL2(x, axes 1, keepdims) -> Clip(min eps) (or Max
 * with eps) [-> Expand to x's shape] -> Div(x, .) [-> Mul by a per-channel scale]. One
 * layer norm layer with norm_l2 set: per pixel, its channels divided by their L2 norm
 * (at least eps), then scaled. A pattern of nodes made one layer (cm_fused). */
#include <stdlib.h>
#include <string.h>

#include "model/import.h"
#include "model/import_ops.h"

/* The roles of a pattern's nodes (cm_fused.node). */
typedef struct l2_nodes {
    const Onnx__NodeProto *reduce, *clip, *expand, *div, *mul;
} l2_nodes;

static l2_nodes roles(const cm_fused *f)
{
    return (l2_nodes){f->node[0], f->node[1], f->node[2], f->node[3], f->node[4]};
}

static bool is_op(const Onnx__NodeProto *n, const char *op)
{
    return n && n->op_type && cm_import_is_onnx_domain(n->domain) && !strcmp(n->op_type, op);
}

static bool match(cm_import *im, const Onnx__NodeProto *reduce, l2_nodes *m)
{
    *m = (l2_nodes){.reduce = reduce};
    if (reduce->n_input < 1)
        return false;
    m->clip = cm_import_sole_reader(im, reduce, "Clip", 0);
    if (!m->clip && !(m->clip = cm_import_sole_reader(im, reduce, "Max", -1)))
        return false;
    m->expand = cm_import_sole_reader(im, m->clip, "Expand", 0);
    m->div = cm_import_sole_reader(im, m->expand ? m->expand : m->clip, "Div", 1);
    if (!m->div || strcmp(m->div->input[0], reduce->input[0]))
        return false;
    m->mul = cm_import_sole_reader(im, m->div, "Mul", -1);
    return true;
}

static cm_status l2_norm_make(cm_import *im, const cm_fused *f);

cm_status cm_import_find_l2_norms(cm_import *im)
{
    const Onnx__GraphProto *gp = im->model->graph;
    for (size_t i = 0; i < gp->n_node; i++) {
        l2_nodes m;
        if (!is_op(gp->node[i], "ReduceL2") || !match(im, gp->node[i], &m))
            continue;
        const cm_fused f = {{m.reduce, m.clip, m.expand, m.div, m.mul, NULL},
                            m.mul ? m.mul : m.div, l2_norm_make};
        cm_status st = cm_import_fused_add(im, &f);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

/* The constant `name` as one value, or false. */
static bool scalar(cm_import *im, const char *name, double *out)
{
    const cm_tensor *t = *name ? cm_import_find(im, name) : NULL;
    if (!t || t->kind != CM_TENSOR_CONST || !t->values || t->count != 1)
        return false;
    *out = t->values[0];
    return true;
}

/* The last step: what only the constants and shapes tell, then the layer. */
static cm_status l2_norm_make(cm_import *im, const cm_fused *f)
{
    const l2_nodes rm = roles(f), *m = &rm;
    cm_tensor *x = cm_import_find(im, m->reduce->input[0]);
    if (!x || x->kind != CM_TENSOR_ACTIVATION)
        return cm_import_fail(im, m->reduce, CM_EINPUT, "input '%s' must be a feature map",
                              m->reduce->input[0]);
    int64_t axes[2];
    int na = cm_attr_ints(m->reduce, "axes", axes, 2);
    double a;
    if (na < 0 && m->reduce->n_input > 1 && scalar(im, m->reduce->input[1], &a)) {
        na = 1;
        axes[0] = (int64_t)a;
    }
    if (na != 1 || (axes[0] != 1 && axes[0] != 1 - x->rank) || x->channels_last ||
        cm_attr_int(m->reduce, "keepdims", 1) != 1)
        return cm_import_fail(im, m->reduce, CM_EINPUT,
                              "an L2 normalisation must take its norm over the channels (axis 1) "
                              "alone, keeping the axis");
    double eps = 0.0;
    bool have_eps;
    if (is_op(m->clip, "Clip")) {
        have_eps = m->clip->n_input > 1 ? scalar(im, m->clip->input[1], &eps)
                                        : (eps = cm_attr_float(m->clip, "min", -1.0)) >= 0.0;
        double hi;
        if (m->clip->n_input > 2 && *m->clip->input[2] && (!scalar(im, m->clip->input[2], &hi) ||
                                                           hi < 3.0e38))
            have_eps = false; /* an upper bound changes the norm */
    } else {
        const char *other = !strcmp(m->clip->input[0], m->reduce->output[0]) ? m->clip->input[1]
                                                                             : m->clip->input[0];
        have_eps = scalar(im, other, &eps);
    }
    if (!have_eps || !(eps >= 0.0))
        return cm_import_fail(im, m->clip, CM_EINPUT,
                              "the norm's lower bound must be a constant of at least 0 (and no "
                              "upper bound)");
    const cm_tensor *gamma = NULL;
    if (m->mul) {
        const char *other = !strcmp(m->mul->input[0], m->div->output[0]) ? m->mul->input[1]
                                                                         : m->mul->input[0];
        gamma = cm_import_find(im, other);
        if (!gamma || gamma->kind != CM_TENSOR_CONST)
            return cm_import_fail(im, m->mul, CM_EINPUT, "the scale must be a constant");
    }
    return cm_import_norm_layer(im, f->last, x, gamma, NULL, eps, true);
}
