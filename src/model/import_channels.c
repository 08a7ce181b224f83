/* Channel-wise blocks written with the channels last (ConvNeXt's permute, LayerNorm,
 * Linear, GELU, Linear, permute): a Transpose to N x H x W x C aliases the feature map
 * while its layers keep C x H x W, the operators that work per pixel on the last axis
 * read it (LayerNormalization, MatMul as a 1x1 convolution, element-wise ones), and the
 * Transpose back aliases it again. Also LayerNormalization over channels in general (and
 * the same written out as torch.onnx does before opset 17), and Erf as an activation
 * (the clean-up fuses torch's GELU pattern around it). */
#include <stdlib.h>
#include <string.h>

#include "model/import_ops.h"

/* Operators that act on each pixel's channels alone, so they read a channels-last
 * feature map as they would its channels-first original. */
static const char *const channel_wise_ops[] = {
    "LayerNormalization", "MatMul", "Add", "Sub", "Mul", "Div", "Erf", "Relu", "Sigmoid", "Tanh",
    "Clip", "LeakyRelu", "HardSigmoid", "HardSwish", "Transpose", "Identity", "Dropout", "Cast",
    NULL,
};

/* A step of a LayerNorm written out (below), which reads the channels-last map. */
static bool is_layer_norm_step(cm_import *im, const Onnx__NodeProto *node);

static bool is_arith(const char *op)
{
    return !strcmp(op, "Add") || !strcmp(op, "Sub") || !strcmp(op, "Mul") || !strcmp(op, "Div");
}

/* Channels last over more than one pixel: its data order differs from the layer's. */
static bool reordered(const cm_tensor *t)
{
    return t && t->kind == CM_TENSOR_ACTIVATION && t->channels_last && t->rank == 4 &&
           t->dims[1] * t->dims[2] > 1;
}

/* A constant operand of a channels-last feature map: a scalar, or one value per channel
 * along the last axis. */
static bool per_channel(const cm_tensor *c, int64_t channels)
{
    for (int i = 0; i + 1 < c->rank; i++)
        if (c->dims[i] != 1)
            return false;
    return c->rank == 0 || c->dims[c->rank - 1] == 1 || c->dims[c->rank - 1] == channels;
}

cm_status cm_import_channels_last_guard(cm_import *im, const Onnx__NodeProto *node,
                                        cm_tensor **in, int n_in)
{
    const cm_tensor *x = NULL;
    for (int k = 0; k < n_in && !x; k++)
        if (reordered(in[k]))
            x = in[k];
    if (!x)
        return CM_OK;
    bool listed = false;
    for (int i = 0; node->op_type && cm_import_is_onnx_domain(node->domain) && channel_wise_ops[i];
         i++)
        listed = listed || !strcmp(node->op_type, channel_wise_ops[i]);
    if (!listed && is_layer_norm_step(im, node))
        return CM_OK;
    /* The Transpose is what the layers cannot follow; the reader is where it shows. */
    if (!listed && x->moved_by)
        return cm_import_fail(im, x->moved_by, CM_EINPUT,
                              "changes the data layout: its channels-last output reaches node "
                              "'%s' (%s), which is not channel-wise, before a Transpose "
                              "(0, 3, 1, 2) moves the channels back",
                              node->name && *node->name ? node->name : "(unnamed)",
                              node->op_type ? node->op_type : "no op_type");
    if (!listed)
        return cm_import_fail(im, node, CM_EINPUT,
                              "feature map '%s' has its channels last (a Transpose moved them); "
                              "only channel-wise operators may read it until a Transpose "
                              "(perm 0,3,1,2) moves them back",
                              x->name);
    for (int k = 0; is_arith(node->op_type) && k < n_in; k++)
        if (in[k] && in[k]->kind == CM_TENSOR_CONST && !per_channel(in[k], x->dims[3]))
            return cm_import_fail(im, node, CM_EINPUT,
                                  "constant '%s' is not per channel of the channels-last feature "
                                  "map '%s'", in[k]->name, x->name);
    return CM_OK;
}

static bool perm_is(const int64_t *perm, int n, const int64_t *want)
{
    if (n != 4)
        return false;
    for (int i = 0; i < 4; i++)
        if (perm[i] != want[i])
            return false;
    return true;
}

cm_status cm_import_transpose_channels(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                                       const int64_t *perm, int n, bool *done)
{
    static const int64_t to_last_perm[4] = {0, 2, 3, 1}, to_first_perm[4] = {0, 3, 1, 2};
    *done = false;
    bool to_last = !x->channels_last && x->rank == 4 && perm_is(perm, n, to_last_perm);
    bool to_first = x->channels_last && perm_is(perm, n, to_first_perm);
    if (reordered(x) && !to_first)
        return cm_import_fail(im, node, CM_EINPUT,
                              "changes the data layout (a feature map whose channels a Transpose "
                              "moved last may only have them moved back, perm 0,3,1,2)");
    if (!to_last && !to_first)
        return CM_OK;
    int64_t dims[4];
    for (int i = 0; i < 4; i++)
        dims[i] = x->dims[perm[i]];
    cm_tensor *t = cm_import_define(im, node->output[0], CM_TENSOR_ACTIVATION, 4, dims);
    if (!t)
        return cm_error_nomem(im->err);
    t->source = x->source;
    t->q = x->q;
    t->has_q = x->has_q;
    t->channels_last = to_last;
    t->moved_by = to_last ? node : NULL;
    *done = true;
    return CM_OK;
}

cm_status cm_import_channels_last_output(cm_import *im, const cm_tensor *t)
{
    if (!reordered(t))
        return CM_OK;
    if (t->moved_by)
        return cm_import_fail(im, t->moved_by, CM_EINPUT,
                              "changes the data layout: graph output '%s' keeps the channels "
                              "last", t->name);
    return cm_error_set(im->err, CM_EINPUT, "%s: graph output '%s' keeps the channels last",
                        im->origin, t->name);
}

cm_status cm_import_pointwise_matmul(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                     int n_in)
{
    cm_status st;
    if ((st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION)) != CM_OK ||
        (st = cm_import_need(im, node, in, n_in, 1, CM_TENSOR_CONST)) != CM_OK)
        return st;
    const cm_tensor *x = in[0], *w = in[1];
    if ((st = cm_import_check_weight_bits(im, node, w)) != CM_OK)
        return st;
    if (x->rank != 4 || w->rank != 2 || w->dims[0] != x->dims[3])
        return cm_import_fail(im, node, CM_EINPUT,
                              "weights '%s' do not take the %lld channels of the channels-last "
                              "feature map '%s'", w->name, (long long)x->dims[x->rank - 1], x->name);
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_CONV, in, 1);
    if (!l)
        return im->err->code;
    l->kernel[0] = l->kernel[1] = 1;
    l->weight_q = w->q;
    float *v = NULL;
    if ((st = cm_tensor_read_floats(im, w, &v)) != CM_OK)
        return st;
    int64_t c = w->dims[0], n = w->dims[1];
    if (v) { /* C x N as stored; a convolution's weights are N x C x 1 x 1 */
        l->weights = malloc((size_t)(c * n) * sizeof *l->weights);
        if (!l->weights) {
            free(v);
            return cm_error_nomem(im->err);
        }
        for (int64_t i = 0; i < c; i++)
            for (int64_t o = 0; o < n; o++)
                l->weights[o * c + i] = v[i * n + o];
        l->n_weights = (uint64_t)(c * n);
        free(v);
    }
    int64_t dims[4] = {1, x->dims[1], x->dims[2], n};
    return cm_import_layer_output(im, node, 4, dims);
}

/* Normalised over exactly the channels: the last axis of a channels-last map, or axis 1
 * of a channels-first one with nothing after it but single pixels. */
static bool over_channels(const cm_tensor *x, int64_t axis)
{
    if (axis < 0)
        axis += x->rank;
    if (x->channels_last && x->rank == 4)
        return axis == 3;
    if (axis != 1)
        return false;
    for (int i = 2; i < x->rank; i++)
        if (x->dims[i] != 1)
            return false;
    return true;
}

static cm_status read_per_channel(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *t,
                                  int64_t channels, float **out)
{
    if (t->kind != CM_TENSOR_CONST || t->count != channels)
        return cm_import_fail(im, node, CM_EINPUT, "'%s' must be a constant of %lld values",
                              t->name, (long long)channels);
    return cm_tensor_read_floats(im, t, out);
}

cm_status cm_import_norm_layer(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                               const cm_tensor *gamma, const cm_tensor *beta, double eps,
                               bool l2)
{
    cm_shape s;
    cm_status st = cm_import_chw(im, node, x, &s);
    if (st != CM_OK)
        return st;
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_LAYERNORM, &x, 1);
    if (!l)
        return im->err->code;
    l->alpha = eps;
    l->norm_l2 = l2;
    if (gamma) {
        l->weight_q = gamma->q;
        if ((st = read_per_channel(im, node, gamma, s.c, &l->weights)) != CM_OK)
            return st;
        l->n_weights = l->weights ? (uint64_t)s.c : 0;
    }
    if (beta) {
        l->has_bias = true;
        l->bias_q = beta->q;
        if ((st = read_per_channel(im, node, beta, s.c, &l->bias)) != CM_OK)
            return st;
    }
    return cm_import_layer_output(im, node, x->rank, x->dims);
}

static cm_status op_layer_norm(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                               int n_in)
{
    cm_status st;
    if ((st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION)) != CM_OK ||
        (st = cm_import_need(im, node, in, n_in, 1, CM_TENSOR_CONST)) != CM_OK)
        return st;
    if (!over_channels(in[0], cm_attr_int(node, "axis", -1)))
        return cm_import_fail(im, node, CM_EINPUT,
                              "normalises over axes other than the channels (only a layer "
                              "normalisation over each pixel's channels is supported)");
    for (size_t k = 1; k < node->n_output; k++)
        if (*node->output[k])
            return cm_import_fail(im, node, CM_EINPUT, "the Mean and InvStdDev outputs are not "
                                  "supported");
    return cm_import_norm_layer(im, node, in[0], in[1], n_in > 2 ? in[2] : NULL,
                                cm_attr_float(node, "epsilon", 1e-5), false);
}

/* --- LayerNorm written out (torch.onnx before opset 17) ---
 * ReduceMean(x) -> Sub(x, mean) = d -> Pow(d, 2) -> ReduceMean -> Add(eps) -> Sqrt
 * -> Div(d, .) [-> Mul(gamma)] [-> Add(beta)], each mean over the last axis: one layer
 * norm layer, as the LayerNormalization node of opset 17 gives. The nodes are matched on
 * the model file's graph (by tensor names), so that every step but the last can be
 * passed over (defining nothing, as nothing outside the pattern reads its output) and
 * the last, when all the constants have been read, makes the layer. */

typedef struct ln_nodes {
    const Onnx__NodeProto *mean, *sub, *pow, *var, *add_eps, *sqrt, *div, *mul, *add_beta;
} ln_nodes;

static bool is_op(const Onnx__NodeProto *n, const char *op)
{
    return n && n->op_type && cm_import_is_onnx_domain(n->domain) && !strcmp(n->op_type, op);
}

static bool reads(const Onnx__NodeProto *n, int k, const char *name)
{
    return n && (size_t)k < n->n_input && !strcmp(n->input[k], name);
}

/* The node whose output `name` is, if it is an `op`. */
const Onnx__NodeProto *cm_import_producer(cm_import *im, const char *name, const char *op)
{
    const Onnx__GraphProto *gp = im->model->graph;
    for (size_t i = 0; name && i < gp->n_node; i++)
        for (size_t k = 0; k < gp->node[i]->n_output; k++)
            if (!strcmp(gp->node[i]->output[k], name))
                return is_op(gp->node[i], op) ? gp->node[i] : NULL;
    return NULL;
}

/* The readers of `name` (up to max), and how many there are; a graph output counts as
 * a reader that is no node. */
static int readers(cm_import *im, const char *name, const Onnx__NodeProto **out, int max)
{
    const Onnx__GraphProto *gp = im->model->graph;
    int n = 0;
    for (size_t i = 0; i < gp->n_output; i++)
        if (gp->output[i]->name && !strcmp(gp->output[i]->name, name)) {
            if (n < max)
                out[n] = NULL;
            n++;
        }
    for (size_t i = 0; i < gp->n_node; i++)
        for (size_t k = 0; k < gp->node[i]->n_input; k++)
            if (!strcmp(gp->node[i]->input[k], name)) {
                if (n < max)
                    out[n] = gp->node[i];
                n++;
            }
    return n;
}

const Onnx__NodeProto *cm_import_sole_reader(cm_import *im, const Onnx__NodeProto *n,
                                             const char *op, int k)
{
    const Onnx__NodeProto *r = NULL;
    if (!n || n->n_output < 1 || readers(im, n->output[0], &r, 1) != 1 || !is_op(r, op))
        return NULL;
    if (k >= 0 ? reads(r, k, n->output[0])
               : r->n_input == 2 && (reads(r, 0, n->output[0]) || reads(r, 1, n->output[0])))
        return r;
    return NULL;
}

/* The input of binary node n that is not `name`. */
static const char *other_input(const Onnx__NodeProto *n, const char *name)
{
    return reads(n, 0, name) ? n->input[1] : n->input[0];
}

static bool is_const_name(cm_import *im, const char *name)
{
    const cm_tensor *t = cm_import_find(im, name);
    return (t && t->kind == CM_TENSOR_CONST) || cm_import_producer(im, name, "Constant");
}

const Onnx__NodeProto *cm_import_affine_step(cm_import *im, const Onnx__NodeProto *n,
                                             const char *op)
{
    const Onnx__NodeProto *r = cm_import_sole_reader(im, n, op, -1);
    return r && is_const_name(im, other_input(r, n->output[0])) ? r : NULL;
}

static bool match_from_head(cm_import *im, const Onnx__NodeProto *head, ln_nodes *m)
{
    *m = (ln_nodes){.mean = is_op(head, "ReduceMean") && head->n_input ? head : NULL};
    if (!m->mean || !(m->sub = cm_import_sole_reader(im, head, "Sub", 1)) ||
        !reads(m->sub, 0, head->input[0]))
        return false;
    const Onnx__NodeProto *r[2];
    if (readers(im, m->sub->output[0], r, 2) != 2)
        return false;
    m->pow = is_op(r[0], "Pow") ? r[0] : is_op(r[1], "Pow") ? r[1] : NULL;
    m->div = is_op(r[0], "Div") ? r[0] : is_op(r[1], "Div") ? r[1] : NULL;
    if (!reads(m->pow, 0, m->sub->output[0]) || !reads(m->div, 0, m->sub->output[0]) ||
        !(m->var = cm_import_sole_reader(im, m->pow, "ReduceMean", 0)) ||
        !(m->add_eps = cm_import_sole_reader(im, m->var, "Add", -1)) ||
        !(m->sqrt = cm_import_sole_reader(im, m->add_eps, "Sqrt", 0)) ||
        cm_import_sole_reader(im, m->sqrt, "Div", 1) != m->div)
        return false;
    m->mul = cm_import_affine_step(im, m->div, "Mul");
    m->add_beta = cm_import_affine_step(im, m->mul ? m->mul : m->div, "Add");
    return true;
}

static const Onnx__NodeProto *tail_of(const ln_nodes *m)
{
    return m->add_beta ? m->add_beta : m->mul ? m->mul : m->div;
}

static bool in_match(const ln_nodes *m, const Onnx__NodeProto *n)
{
    const Onnx__NodeProto *all[] = {m->mean, m->sub, m->pow, m->var, m->add_eps,
                                    m->sqrt, m->div, m->mul, m->add_beta};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (all[i] == n)
            return true;
    return false;
}

/* The head (first ReduceMean) a step of the pattern would have, walking back from the
 * step along the pattern's own edges: a fixed number of look-ups, whatever the graph. */
static const Onnx__NodeProto *back(cm_import *im, const Onnx__NodeProto *n, int k,
                                   const char *op)
{
    return n && (size_t)k < n->n_input ? cm_import_producer(im, n->input[k], op) : NULL;
}

static const Onnx__NodeProto *head_of_sub(cm_import *im, const Onnx__NodeProto *n)
{
    return back(im, n, 1, "ReduceMean");
}

static const Onnx__NodeProto *head_of_var(cm_import *im, const Onnx__NodeProto *n)
{
    return head_of_sub(im, back(im, back(im, n, 0, "Pow"), 0, "Sub"));
}

static const Onnx__NodeProto *head_of_add(cm_import *im, const Onnx__NodeProto *n)
{
    const Onnx__NodeProto *h = NULL;
    for (int k = 0; k < 2 && !h; k++) {
        h = head_of_var(im, back(im, n, k, "ReduceMean"));
        const Onnx__NodeProto *div = back(im, n, k, "Div");
        for (int j = 0; j < 2 && !div; j++)
            div = back(im, back(im, n, k, "Mul"), j, "Div");
        if (!h)
            h = head_of_sub(im, back(im, div, 0, "Sub"));
    }
    return h;
}

/* A ReduceMean may be the first mean or the variance: `which` picks the guess. */
static const Onnx__NodeProto *head_of(cm_import *im, const Onnx__NodeProto *n, int which)
{
    if (is_op(n, "ReduceMean"))
        return which == 0 ? n : head_of_var(im, n);
    if (which != 0)
        return NULL;
    const Onnx__NodeProto *div = is_op(n, "Div") ? n : NULL;
    for (int k = 0; k < 2 && is_op(n, "Mul") && !div; k++)
        div = back(im, n, k, "Div");
    if (is_op(n, "Sub"))
        return head_of_sub(im, n);
    if (is_op(n, "Pow"))
        return head_of_sub(im, back(im, n, 0, "Sub"));
    if (is_op(n, "Sqrt"))
        return head_of_add(im, back(im, n, 0, "Add"));
    if (is_op(n, "Add"))
        return head_of_add(im, n);
    return head_of_sub(im, back(im, div, 0, "Sub"));
}

/* An input that no earlier node defined: in a topologically ordered graph, only the output
 * of a pattern step passed over. */
static bool reads_undefined(cm_import *im, const Onnx__NodeProto *n)
{
    for (size_t k = 0; k < n->n_input; k++)
        if (*n->input[k] && !cm_import_find(im, n->input[k]))
            return true;
    return false;
}

/* True, with the pattern in *m, when node n is a step of a written-out LayerNorm. Every
 * step after the first reads a step passed over, which keeps the search (a scan of the
 * graph) to the ReduceMeans and those steps. */
static bool layer_norm_step(cm_import *im, const Onnx__NodeProto *n, ln_nodes *m)
{
    if (!is_op(n, "ReduceMean") && !reads_undefined(im, n))
        return false;
    for (int which = 0; which < 2; which++) {
        const Onnx__NodeProto *h = head_of(im, n, which);
        if (h && match_from_head(im, h, m) && in_match(m, n))
            return true;
    }
    return false;
}

static bool is_layer_norm_step(cm_import *im, const Onnx__NodeProto *node)
{
    ln_nodes m;
    return layer_norm_step(im, node, &m);
}

/* A mean over the last axis alone, keeping it (axes an attribute, or from opset 18 an
 * input). */
static bool mean_over_last(cm_import *im, const Onnx__NodeProto *n, int rank)
{
    int64_t axes[2];
    int na = cm_attr_ints(n, "axes", axes, 2);
    const cm_tensor *a = n->n_input > 1 && *n->input[1] ? cm_import_find(im, n->input[1]) : NULL;
    if (na < 0 && a && a->values && a->count == 1) {
        na = 1;
        axes[0] = cm_to_int64(a->values[0]);
    }
    return na == 1 && (axes[0] == -1 || axes[0] == rank - 1) && cm_attr_int(n, "keepdims", 1) == 1;
}

/* Constant operand `name` of node n, as one value. */
static cm_status scalar_operand(cm_import *im, const Onnx__NodeProto *n, const char *name,
                                const char *what, double *out)
{
    const cm_tensor *t = cm_import_find(im, name);
    if (!t || t->kind != CM_TENSOR_CONST || !t->values || t->count != 1)
        return cm_import_fail(im, n, CM_EINPUT, "%s must be a constant scalar (in a layer "
                              "normalisation written out)", what);
    *out = t->values[0];
    return CM_OK;
}

static cm_status per_channel_operand(cm_import *im, const Onnx__NodeProto *n, const char *prev,
                                     const cm_tensor **out)
{
    *out = NULL;
    if (!n)
        return CM_OK;
    *out = cm_import_find(im, other_input(n, prev));
    if (!*out || (*out)->kind != CM_TENSOR_CONST)
        return cm_import_fail(im, n, CM_EINPUT, "the %s must be a constant",
                              is_op(n, "Mul") ? "scale (gamma)" : "shift (beta)");
    return CM_OK;
}

/* The last step: checks what only the constants tell, and makes the layer. */
static cm_status layer_norm_tail(cm_import *im, const Onnx__NodeProto *tail, const ln_nodes *m)
{
    cm_tensor *x = cm_import_find(im, m->mean->input[0]);
    cm_status st;
    if (!x || x->kind != CM_TENSOR_ACTIVATION)
        return cm_import_fail(im, m->mean, CM_EINPUT, "input '%s' must be a feature map",
                              m->mean->input[0]);
    const Onnx__NodeProto *means[2] = {m->mean, m->var};
    for (int i = 0; i < 2; i++)
        if (!mean_over_last(im, means[i], x->rank))
            return cm_import_fail(im, means[i], CM_EINPUT,
                                  "a layer normalisation written out must take its means over "
                                  "the last axis alone, keeping it");
    double power = 0.0, eps = 0.0;
    const cm_tensor *gamma, *beta;
    if ((st = scalar_operand(im, m->pow, m->pow->input[1], "the exponent", &power)) != CM_OK ||
        (st = scalar_operand(im, m->add_eps, other_input(m->add_eps, m->var->output[0]),
                             "epsilon", &eps)) != CM_OK ||
        (st = per_channel_operand(im, m->mul, m->div->output[0], &gamma)) != CM_OK ||
        (st = per_channel_operand(im, m->add_beta, (m->mul ? m->mul : m->div)->output[0],
                                  &beta)) != CM_OK)
        return st;
    if (power != 2.0)
        return cm_import_fail(im, m->pow, CM_EINPUT, "exponent %g where a layer normalisation "
                              "squares (2)", power);
    if (!over_channels(x, -1))
        return cm_import_fail(im, tail, CM_EINPUT,
                              "normalises over axes other than the channels (only a layer "
                              "normalisation over each pixel's channels is supported)");
    return cm_import_norm_layer(im, tail, x, gamma, beta, eps, false);
}

/* ReduceMean, Sub, Pow, Add, Sqrt, Div, Mul: a step of a written-out LayerNorm, or the
 * operator's own handler. */
static cm_status op_maybe_layer_norm(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                     int n_in)
{
    ln_nodes m;
    if (layer_norm_step(im, node, &m))
        return node == tail_of(&m) ? layer_norm_tail(im, node, &m) : CM_OK;
    cm_node_handler h = cm_import_base_handler(node->op_type);
    if (!h)
        return cm_import_fail(im, node, CM_EINPUT, "unknown operator '%s'%s%s", node->op_type,
                              node->domain && *node->domain ? " in domain " : "",
                              node->domain ? node->domain : "");
    return h(im, node, in, n_in);
}

static cm_status op_erf(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    cm_status st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION);
    if (st != CM_OK)
        return st;
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_ACTIVATION, in, 1);
    if (!l)
        return im->err->code;
    l->activation = CM_ACT_ERF;
    return cm_import_layer_output(im, node, in[0]->rank, in[0]->dims);
}

const cm_op_entry cm_channel_ops[] = {
    {"LayerNormalization", op_layer_norm},
    {"Erf", op_erf},
    {"ReduceMean", op_maybe_layer_norm},
    {"Sub", op_maybe_layer_norm},
    {"Pow", op_maybe_layer_norm},
    {"Add", op_maybe_layer_norm},
    {"Sqrt", op_maybe_layer_norm},
    {"Div", op_maybe_layer_norm},
    {"Mul", op_maybe_layer_norm},
    {NULL, NULL},
};
