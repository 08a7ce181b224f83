/* Channel routing of feature maps: Split and Slice along the channel axis, which become
 * one slice layer per output (the producer forks, each branch keeps its channel range),
 * and ShuffleNet's channel shuffle, Reshape (N, g, C/g, H, W) -> Transpose
 * (0, 2, 1, 3, 4) -> Reshape (N, C, H, W), which becomes one shuffle layer: the 5-axis
 * tensors between the three nodes exist only in the tensor table, marked with the step
 * they are at, and any other use of them is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/import_ops.h"

/* Outputs a Split may have: far more than any network forks into at once. */
#define SPLIT_MAX 64

/* The layer just appended takes its input's quantisation, as its values are the
 * input's values. */
static cm_status define_output(cm_import *im, const Onnx__NodeProto *node, int k,
                               const cm_tensor *x, int rank, const int64_t *dims)
{
    cm_layer *l = &im->g->layers[im->g->n_layers - 1];
    cm_tensor probe = {.name = node->output[k], .rank = rank};
    memcpy(probe.dims, dims, (size_t)rank * sizeof *dims);
    char what[300];
    snprintf(what, sizeof what, "output '%s' of node '%s'", node->output[k], l->name);
    cm_status st = cm_import_check_dims(im, what, &probe);
    if (st == CM_OK)
        st = cm_import_chw(im, node, &probe, &l->out_shape);
    if (st != CM_OK)
        return st;
    cm_tensor *t = cm_import_define(im, node->output[k], CM_TENSOR_ACTIVATION, rank, dims);
    if (!t)
        return cm_error_nomem(im->err);
    t->source = im->g->n_layers - 1;
    t->q = x->q;
    t->has_q = x->has_q;
    l->out_q = x->q;
    if ((st = cm_layer_compute_cost(l, im->err)) != CM_OK)
        cm_error_prefix(im->err, im->origin);
    return st;
}

/* Output k of a node: channels [offset, offset + channels) of x. A Split's outputs
 * are layers of their own, so they are named after the node and the output index. */
static cm_status add_slice(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x, int k,
                           int64_t offset, int64_t channels)
{
    if (!*node->output[k]) /* an output nothing reads */
        return CM_OK;
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_SLICE, &x, 1);
    if (!l)
        return im->err->code;
    if (node->n_output > 1) {
        char name[512];
        snprintf(name, sizeof name, "%s_%d", l->name, k);
        char *copy = strdup(name);
        if (!copy)
            return cm_error_nomem(im->err);
        free(l->name);
        l->name = copy;
    }
    l->channel_offset = offset;
    int64_t dims[CM_MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    dims[1] = channels;
    return define_output(im, node, k, x, x->rank, dims);
}

static cm_status need_map(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    cm_status st = cm_import_need(im, node, in, n_in, 0, CM_TENSOR_ACTIVATION);
    if (st != CM_OK)
        return st;
    if (in[0]->shuffle_stage || in[0]->rank < 2 || in[0]->rank > 4)
        return cm_import_fail(im, node, CM_EINPUT, "feature map '%s' has %d axes (2 to 4 "
                              "supported)", in[0]->name, in[0]->rank);
    return CM_OK;
}

static cm_status channel_axis(cm_import *im, const Onnx__NodeProto *node, int64_t axis, int rank)
{
    int64_t a = axis < 0 ? axis + rank : axis;
    if (a != 1)
        return cm_import_fail(im, node, CM_EINPUT, "splits axis %lld; only a split along "
                              "channels (axis 1) is supported", (long long)axis);
    return CM_OK;
}

/* The split sizes: attribute `split` before opset 13, input 1 from 13, else equal
 * parts (from opset 18 num_outputs of them, the last one smaller when C does not
 * divide; before, they must divide C). */
static cm_status split_sizes(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                             int n_in, int64_t c, int n_out, int64_t *sizes)
{
    int n = -1;
    if (im->opset < 13) {
        n = cm_attr_ints(node, "split", sizes, SPLIT_MAX);
    } else if (n_in > 1 && in[1]) {
        if (in[1]->kind != CM_TENSOR_CONST || !in[1]->values || in[1]->count > SPLIT_MAX)
            return cm_import_fail(im, node, CM_EINPUT, "split sizes '%s' must be a constant",
                                  in[1]->name);
        n = (int)in[1]->count;
        for (int i = 0; i < n; i++)
            sizes[i] = cm_to_int64(in[1]->values[i]);
    }
    if (n < 0) {
        int64_t parts = cm_attr_int(node, "num_outputs", n_out);
        if (parts != n_out)
            return cm_import_fail(im, node, CM_EINPUT, "num_outputs %lld for %d outputs",
                                  (long long)parts, n_out);
        int64_t each = im->opset >= 18 ? (c + n_out - 1) / n_out : c / n_out;
        if (im->opset < 18 && c % n_out)
            return cm_import_fail(im, node, CM_EINPUT, "%lld channels do not split into %d "
                                  "equal parts", (long long)c, n_out);
        for (n = 0; n < n_out; n++)
            sizes[n] = n < n_out - 1 ? each : c - each * (n_out - 1);
    }
    if (n != n_out)
        return cm_import_fail(im, node, CM_EINPUT, "%d split sizes for %d outputs", n, n_out);
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] <= 0 || sizes[i] > c)
            return cm_import_fail(im, node, CM_EINPUT, "split size %lld is out of range 1-%lld",
                                  (long long)sizes[i], (long long)c);
        sum += sizes[i];
    }
    if (sum != c)
        return cm_import_fail(im, node, CM_EINPUT, "split sizes add up to %lld, not the %lld "
                              "channels", (long long)sum, (long long)c);
    return CM_OK;
}

cm_status cm_import_split(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in)
{
    cm_status st = need_map(im, node, in, n_in);
    if (st != CM_OK)
        return st;
    cm_tensor *x = in[0];
    if ((st = channel_axis(im, node, cm_attr_int(node, "axis", 0), x->rank)) != CM_OK)
        return st;
    if (node->n_output > SPLIT_MAX)
        return cm_import_fail(im, node, CM_EINPUT, "%zu outputs (at most %d supported)",
                              node->n_output, SPLIT_MAX);
    int64_t sizes[SPLIT_MAX], offset = 0;
    if ((st = split_sizes(im, node, in, n_in, x->dims[1], (int)node->n_output, sizes)) != CM_OK)
        return st;
    for (int k = 0; st == CM_OK && k < (int)node->n_output; k++) {
        st = add_slice(im, node, x, k, offset, sizes[k]);
        offset += sizes[k];
    }
    return st;
}

/* One of Slice's starts / ends / axes / steps: attribute before opset 10, else input
 * `input` (a constant). Returns the count, -1 when absent. */
static int slice_operand(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in, int n_in,
                         const char *name, int input, int64_t *out, cm_status *st)
{
    if (im->opset < 10)
        return cm_attr_ints(node, name, out, CM_MAX_RANK);
    if (input >= n_in || !in[input])
        return -1;
    const cm_tensor *t = in[input];
    if (t->kind != CM_TENSOR_CONST || !t->values || t->count > CM_MAX_RANK) {
        *st = cm_import_fail(im, node, CM_EINPUT, "%s '%s' must be a constant", name, t->name);
        return -1;
    }
    for (int64_t i = 0; i < t->count; i++)
        out[i] = cm_to_int64(t->values[i]);
    return (int)t->count;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Slice of a feature map: a range of its channels, every other axis whole. */
cm_status cm_import_slice_activation(cm_import *im, const Onnx__NodeProto *node, cm_tensor **in,
                                     int n_in)
{
    cm_status st = need_map(im, node, in, n_in);
    if (st != CM_OK)
        return st;
    cm_tensor *x = in[0];
    int64_t starts[CM_MAX_RANK], ends[CM_MAX_RANK], axes[CM_MAX_RANK], steps[CM_MAX_RANK];
    int n = slice_operand(im, node, in, n_in, "starts", 1, starts, &st);
    int ne = slice_operand(im, node, in, n_in, "ends", 2, ends, &st);
    int na = slice_operand(im, node, in, n_in, "axes", 3, axes, &st);
    int ns = slice_operand(im, node, in, n_in, "steps", 4, steps, &st);
    if (st != CM_OK)
        return st;
    if (n < 0 || n != ne || (na >= 0 && na != n) || (ns >= 0 && ns != n))
        return cm_import_fail(im, node, CM_EINPUT, "starts, ends, axes and steps differ in length");
    int64_t lo = 0, hi = x->dims[1];
    for (int i = 0; i < n; i++) {
        int64_t axis = na >= 0 ? axes[i] : i, a = axis < 0 ? axis + x->rank : axis;
        if (a < 0 || a >= x->rank)
            return cm_import_fail(im, node, CM_EINPUT, "axis %lld is out of range", (long long)axis);
        int64_t dim = x->dims[a];
        int64_t b = clamp(starts[i] < 0 ? starts[i] + dim : starts[i], 0, dim);
        int64_t e = clamp(ends[i] < 0 ? ends[i] + dim : ends[i], 0, dim);
        bool whole = b == 0 && e == dim;
        if ((ns >= 0 && steps[i] != 1) || (a != 1 && !whole))
            return cm_import_fail(im, node, CM_EINPUT, "slices axis %lld; only a range of "
                                  "channels (axis 1, step 1) is supported", (long long)axis);
        if (a == 1) {
            lo = b;
            hi = e;
        }
    }
    if (hi <= lo)
        return cm_import_fail(im, node, CM_EINPUT, "takes no channels");
    if (lo == 0 && hi == x->dims[1])
        return cm_import_reshape_activation(im, node, x, x->rank, x->dims);
    return add_slice(im, node, x, 0, lo, hi - lo);
}

bool cm_import_is_shuffle_step(const cm_tensor *x, int rank)
{
    /* A map whose channels a Transpose moved last is not grouped along its channels. */
    return x->kind == CM_TENSOR_ACTIVATION && !x->channels_last &&
           (x->shuffle_stage || (x->rank == 4 && rank == 5));
}

/* A 5-axis view of x's producer, at a step of the shuffle. */
static cm_status define_view(cm_import *im, const Onnx__NodeProto *node, const cm_tensor *x,
                             const int64_t *dims, int stage)
{
    cm_tensor *t = cm_import_define(im, node->output[0], CM_TENSOR_ACTIVATION, 5, dims);
    if (!t)
        return cm_error_nomem(im->err);
    t->source = x->source;
    t->q = x->q;
    t->has_q = x->has_q;
    t->shuffle_stage = stage;
    return CM_OK;
}

static bool same_dims(const int64_t *a, const int64_t *b, int rank)
{
    return !memcmp(a, b, (size_t)rank * sizeof *a);
}

/* The last reshape: (N, C/g, g, H, W) back to (N, C, H, W) is the shuffle layer. */
static cm_status shuffle_layer(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                               const int64_t *dims)
{
    cm_tensor map = *x;
    map.rank = 4;
    map.shuffle_stage = 0;
    const int64_t chw[4] = {1, x->dims[1] * x->dims[2], x->dims[3], x->dims[4]};
    memcpy(map.dims, chw, sizeof chw);
    if (!same_dims(dims, chw, 4))
        return cm_import_fail(im, node, CM_EINPUT, "a channel shuffle must end with a reshape "
                              "to (N, C, H, W)");
    cm_tensor *p = &map;
    /* Groups of one channel, or a single group, leave the order as it was. */
    if (x->dims[1] == 1 || x->dims[2] == 1)
        return cm_import_reshape_activation(im, node, p, 4, dims);
    cm_layer *l = cm_import_add_layer(im, node, CM_OP_SHUFFLE, &p, 1);
    if (!l)
        return im->err->code;
    l->groups = (int)x->dims[2];
    return define_output(im, node, 0, x, 4, dims);
}

cm_status cm_import_shuffle_reshape(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x,
                                    int rank, const int64_t *dims)
{
    if (x->shuffle_stage && rank == x->rank && same_dims(dims, x->dims, rank))
        return define_view(im, node, x, dims, x->shuffle_stage); /* Identity, Dropout */
    if (x->shuffle_stage == 2 && rank == 4)
        return shuffle_layer(im, node, x, dims);
    if (x->shuffle_stage == 0 && rank == 5 && dims[0] == 1 && dims[1] * dims[2] == x->dims[1] &&
        dims[3] == x->dims[2] && dims[4] == x->dims[3])
        return define_view(im, node, x, dims, 1);
    return cm_import_fail(im, node, CM_EINPUT, "reshapes a feature map to %d axes; only a "
                          "channel shuffle (N, g, C/g, H, W), transposed (0, 2, 1, 3, 4), "
                          "reshaped back to (N, C, H, W), is supported", rank);
}

cm_status cm_import_shuffle_transpose(cm_import *im, const Onnx__NodeProto *node, cm_tensor *x)
{
    static const int64_t shuffle[5] = {0, 2, 1, 3, 4};
    int64_t perm[CM_MAX_RANK];
    int n = cm_attr_ints(node, "perm", perm, CM_MAX_RANK);
    if (x->shuffle_stage != 1 || n != 5 || !same_dims(perm, shuffle, 5))
        return cm_import_fail(im, node, CM_EINPUT, "transposes a 5-axis feature map; only a "
                              "channel shuffle's (0, 2, 1, 3, 4) is supported");
    const int64_t dims[5] = {1, x->dims[2], x->dims[1], x->dims[3], x->dims[4]};
    return define_view(im, node, x, dims, 2);
}
