/* ONNX import: reads the protobuf, orders the nodes, runs each node's handler over the
 * tensor table, and hands the resulting layer graph to the clean-up passes. */
#include <cnnmap/model.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cleanup.h"
#include "model/import.h"

cm_quant cm_quant_float(void)
{
    return (cm_quant){.bits = 32, .quantised = false, .is_signed = true};
}

cm_status cm_import_fail(cm_import *im, const Onnx__NodeProto *node, cm_status code,
                         const char *fmt, ...)
{
    char what[CM_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cm_error_set(im->err, code, "%s: node '%s' (%s): %s", im->origin,
                        node->name && *node->name ? node->name : "(unnamed)",
                        node->op_type ? node->op_type : "no op_type", what);
}

cm_tensor *cm_import_find(cm_import *im, const char *name)
{
    int i = cm_strmap_get(&im->by_name, name);
    return i < 0 ? NULL : &im->tensors[i];
}

cm_tensor *cm_import_define(cm_import *im, const char *name, cm_tensor_kind kind, int rank,
                            const int64_t *dims)
{
    /* The table is sized up front and never moves, so handlers may hold pointers to
     * their inputs while defining outputs. */
    if (im->n_tensors == im->cap_tensors)
        return NULL;
    if (!cm_strmap_put(&im->by_name, name, im->n_tensors))
        return NULL;
    cm_tensor *t = &im->tensors[im->n_tensors++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->kind = kind;
    t->rank = rank;
    t->count = 1;
    for (int i = 0; i < rank; i++) {
        t->dims[i] = dims[i];
        t->count *= dims[i];
    }
    t->q = cm_quant_float();
    return t;
}

cm_tensor *cm_import_alias_const(cm_import *im, const char *name, const cm_tensor *src)
{
    cm_tensor *t = cm_import_define(im, name, CM_TENSOR_CONST, src->rank, src->dims);
    if (!t)
        return NULL;
    t->proto = src->proto;
    t->data_absent = src->data_absent;
    t->has_q = src->has_q;
    t->q = src->q;
    if (src->values) {
        t->values = malloc((size_t)src->count * sizeof *t->values);
        if (!t->values)
            return NULL;
        memcpy(t->values, src->values, (size_t)src->count * sizeof *t->values);
    }
    return t;
}

cm_status cm_import_check_dims(cm_import *im, const char *what, cm_tensor *t)
{
    if (t->rank > CM_MAX_RANK)
        return cm_error_set(im->err, CM_EINPUT, "%s: %s has rank %d (at most %d supported)",
                            im->origin, what, t->rank, CM_MAX_RANK);
    int64_t count = 1;
    for (int i = 0; i < t->rank; i++) {
        if (t->dims[i] <= 0)
            return cm_error_set(im->err, CM_EINPUT, "%s: %s has %s dimension %lld at axis %d",
                                im->origin, what, t->dims[i] == 0 ? "a zero" : "a negative",
                                (long long)t->dims[i], i);
        if (t->dims[i] > CM_DIM_MAX || count > CM_ELEMENTS_MAX / t->dims[i])
            return cm_error_set(im->err, CM_EINPUT,
                                "%s: %s is too large (dimension %lld at axis %d overflows)",
                                im->origin, what, (long long)t->dims[i], i);
        count *= t->dims[i];
    }
    t->count = count;
    return CM_OK;
}

cm_status cm_model_load(const char *path, cm_graph **out, cm_error *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return cm_error_set(err, CM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return cm_error_set(err, CM_EINPUT, "%s: not a regular file", path);
    }
    size_t len = (size_t)sb.st_size;
    /* Mapping, not reading, spares a copy of what may be hundreds of MB of weights. */
    void *data = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (len && data == MAP_FAILED)
        return cm_error_set(err, CM_EINPUT, "%s: cannot map: %s", path, strerror(errno));
    char *dir = strdup(path);
    if (!dir) {
        if (len)
            munmap(data, len);
        return cm_error_nomem(err);
    }
    char *slash = strrchr(dir, '/');
    const char *data_dir = ".";
    if (slash) {
        *slash = '\0';
        data_dir = slash == dir ? "/" : dir;
    }
    cm_status st = cm_model_load_buffer(data, len, path, data_dir, out, err);
    free(dir);
    if (len)
        munmap(data, len);
    return st;
}

/* A feature map is real numbers: integer, fixed-width and floating-point types.
 * Strings, booleans, complex numbers and unset or unknown codes are not. */
static bool numeric_type(int32_t t)
{
    switch (t) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED:
    case ONNX__TENSOR_PROTO__DATA_TYPE__STRING:
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64:
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128:
        return false;
    default:
        return t > 0 && t <= 23; /* 23: FLOAT4E2M1, the last type of ONNX 1.17 */
    }
}

static const char *elem_type_name(int32_t t)
{
    switch (t) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED: return "undefined";
    case ONNX__TENSOR_PROTO__DATA_TYPE__STRING: return "string";
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: return "bool";
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64: return "complex64";
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128: return "complex128";
    default: return numeric_type(t) ? "numeric" : "unknown";
    }
}

/* Graph inputs that are not initializers are the network's inputs; a dynamic or zero
 * batch dimension means 1. */
static cm_status define_graph_input(cm_import *im, const Onnx__ValueInfoProto *vi)
{
    char what[300];
    snprintf(what, sizeof what, "graph input '%s'", vi->name);
    const Onnx__TypeProto *type = vi->type;
    if (!type || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !type->tensor_type ||
        !type->tensor_type->shape)
        return cm_error_set(im->err, CM_EINPUT, "%s: %s has no tensor shape", im->origin, what);
    if (!numeric_type(type->tensor_type->elem_type))
        return cm_error_set(im->err, CM_EINPUT,
                            "%s: %s has element type %d (%s), not a numeric tensor", im->origin,
                            what, (int)type->tensor_type->elem_type,
                            elem_type_name(type->tensor_type->elem_type));
    const Onnx__TensorShapeProto *shape = type->tensor_type->shape;
    if (shape->n_dim == 0 || shape->n_dim > CM_MAX_RANK)
        return cm_error_set(im->err, CM_EINPUT, "%s: %s has rank %zu", im->origin, what,
                            shape->n_dim);
    int64_t dims[CM_MAX_RANK];
    for (size_t i = 0; i < shape->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
        bool known = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        if (i == 0 && (!known || d->dim_value == 0))
            dims[i] = 1;
        else if (!known)
            return cm_error_set(im->err, CM_EINPUT, "%s: %s has a dynamic dimension at axis %zu",
                                im->origin, what, i);
        else
            dims[i] = d->dim_value;
    }
    cm_tensor tmp = {.rank = (int)shape->n_dim};
    memcpy(tmp.dims, dims, sizeof dims);
    cm_status st = cm_import_check_dims(im, what, &tmp);
    if (st != CM_OK)
        return st;
    cm_graph *g = im->g;
    cm_graph_input *grown = realloc(g->inputs, (size_t)(g->n_inputs + 1) * sizeof *grown);
    if (!grown)
        return cm_error_nomem(im->err);
    g->inputs = grown;
    cm_graph_input *gi = &g->inputs[g->n_inputs];
    memset(gi, 0, sizeof *gi);
    gi->name = strdup(vi->name);
    if (!gi->name)
        return cm_error_nomem(im->err);
    gi->q = cm_quant_float();
    cm_tensor *t = cm_import_define(im, vi->name, CM_TENSOR_ACTIVATION, tmp.rank, dims);
    if (!t)
        return cm_error_nomem(im->err);
    t->source = -1 - g->n_inputs;
    g->n_inputs++;
    return cm_import_chw(im, NULL, t, &gi->shape);
}

static cm_status define_initializer(cm_import *im, const Onnx__TensorProto *tp)
{
    char what[300];
    if (!tp->name || !*tp->name)
        return cm_error_set(im->err, CM_EINPUT, "%s: an initializer has no name", im->origin);
    snprintf(what, sizeof what, "initializer '%s'", tp->name);
    cm_tensor tmp = {.rank = (int)tp->n_dims};
    if (tp->n_dims > CM_MAX_RANK)
        return cm_error_set(im->err, CM_EINPUT, "%s: %s has rank %zu", im->origin, what,
                            tp->n_dims);
    for (size_t i = 0; i < tp->n_dims; i++)
        tmp.dims[i] = tp->dims[i];
    /* An empty vector: Resize's unused roi or scales (opsets 11 and 12). No values, so
     * whatever would need them refuses it. */
    if (tmp.rank == 1 && tmp.dims[0] == 0)
        return cm_import_define(im, tp->name, CM_TENSOR_CONST, 1, tmp.dims) ? CM_OK
                                                                          : cm_error_nomem(im->err);
    cm_status st = cm_import_check_dims(im, what, &tmp);
    if (st != CM_OK)
        return st;
    cm_tensor *t = cm_import_define(im, tp->name, CM_TENSOR_CONST, tmp.rank, tmp.dims);
    if (!t)
        return cm_error_nomem(im->err);
    t->proto = tp;
    return cm_tensor_decode_values(im, t);
}

static bool is_initializer(const Onnx__GraphProto *gp, const char *name)
{
    for (size_t i = 0; i < gp->n_initializer; i++)
        if (gp->initializer[i]->name && strcmp(gp->initializer[i]->name, name) == 0)
            return true;
    return false;
}

static cm_status define_sources(cm_import *im, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_initializer; i++) {
        if (gp->initializer[i]->name && cm_import_find(im, gp->initializer[i]->name))
            return cm_error_set(im->err, CM_EINPUT, "%s: initializer '%s' is defined twice",
                                im->origin, gp->initializer[i]->name);
        cm_status st = define_initializer(im, gp->initializer[i]);
        if (st != CM_OK)
            return st;
    }
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        if (!vi->name || is_initializer(gp, vi->name))
            continue;
        cm_status st = define_graph_input(im, vi);
        if (st != CM_OK)
            return st;
    }
    if (im->g->n_inputs == 0)
        return cm_error_set(im->err, CM_EINPUT, "%s: the graph has no input", im->origin);
    return CM_OK;
}

/* Kahn's algorithm over the nodes, so that files whose nodes are out of order still
 * load, and a cycle is named. */
static bool already_ordered(cm_import *im, const Onnx__GraphProto *gp, size_t *order)
{
    cm_strmap seen;
    bool ok = cm_strmap_init(&seen, gp->n_node * 2);
    for (size_t i = 0; ok && i < gp->n_node; i++) {
        const Onnx__NodeProto *node = gp->node[i];
        for (size_t k = 0; ok && k < node->n_input; k++)
            ok = !*node->input[k] || cm_import_find(im, node->input[k]) ||
                 cm_strmap_get(&seen, node->input[k]) >= 0;
        for (size_t k = 0; ok && k < node->n_output; k++)
            ok = !*node->output[k] || (cm_strmap_get(&seen, node->output[k]) < 0 &&
                                       !cm_import_find(im, node->output[k]) &&
                                       cm_strmap_put(&seen, node->output[k], (int)i));
        order[i] = i;
    }
    cm_strmap_free(&seen);
    return ok;
}

static cm_status order_nodes(cm_import *im, const Onnx__GraphProto *gp, size_t *order)
{
    if (already_ordered(im, gp, order))
        return CM_OK;
    size_t n = gp->n_node;
    cm_status st = CM_OK;
    cm_strmap producer;
    int *pending = calloc(n ? n : 1, sizeof *pending);
    size_t *queue = malloc((n ? n : 1) * sizeof *queue);
    if (!pending || !queue || !cm_strmap_init(&producer, n * 2)) {
        free(pending);
        free(queue);
        return cm_error_nomem(im->err);
    }
    for (size_t i = 0; i < n; i++) {
        const Onnx__NodeProto *node = gp->node[i];
        for (size_t k = 0; k < node->n_output; k++) {
            if (!*node->output[k])
                continue;
            if (cm_strmap_get(&producer, node->output[k]) >= 0 ||
                cm_import_find(im, node->output[k])) {
                st = cm_error_set(im->err, CM_EINPUT, "%s: tensor '%s' is produced twice",
                                  im->origin, node->output[k]);
                goto done;
            }
            if (!cm_strmap_put(&producer, node->output[k], (int)i)) {
                st = cm_error_nomem(im->err);
                goto done;
            }
        }
    }
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++) {
        const Onnx__NodeProto *node = gp->node[i];
        for (size_t k = 0; k < node->n_input; k++) {
            const char *name = node->input[k];
            if (!*name || cm_import_find(im, name))
                continue;
            if (cm_strmap_get(&producer, name) < 0) {
                st = cm_import_fail(im, node, CM_EINPUT,
                                    "input '%s' is not a graph input, an initializer or any "
                                    "node's output",
                                    name);
                goto done;
            }
            pending[i]++;
        }
        if (pending[i] == 0)
            queue[tail++] = i;
    }
    while (head < tail) {
        size_t i = queue[head++];
        order[head - 1] = i;
        const Onnx__NodeProto *node = gp->node[i];
        for (size_t j = 0; j < n; j++) {
            const Onnx__NodeProto *c = gp->node[j];
            for (size_t k = 0; k < c->n_input; k++) {
                int p = *c->input[k] ? cm_strmap_get(&producer, c->input[k]) : -1;
                if (p == (int)i && --pending[j] == 0)
                    queue[tail++] = j;
            }
        }
        (void)node;
    }
    if (tail < n) {
        for (size_t i = 0; i < n; i++)
            if (pending[i] > 0) {
                st = cm_import_fail(im, gp->node[i], CM_EINPUT, "the graph has a cycle through this node");
                break;
            }
    }
done:
    cm_strmap_free(&producer);
    free(pending);
    free(queue);
    return st;
}

/* Operators whose operand moved from an attribute to an input at some opset. A node
 * in the other form is refused rather than guessed at: the importer reads whichever
 * form is present, so a wrong one would silently take a default. */
typedef struct cm_opset_form {
    const char *op_type;
    const char *attr; /* the attribute before `since` */
    int input;        /* the input index from `since` on */
    int64_t since;
} cm_opset_form;

static const cm_opset_form opset_forms[] = {
    {"ReduceMean", "axes", 1, 18},
    {"Squeeze", "axes", 1, 13},
    {"Unsqueeze", "axes", 1, 13},
    {"Pad", "pads", 1, 11},
    {"Pad", "value", 2, 11},
    {"Split", "split", 1, 13},
};

static cm_status check_opset_form(cm_import *im, const Onnx__NodeProto *node)
{
    if (!node->op_type || !cm_import_is_onnx_domain(node->domain))
        return CM_OK;
    for (size_t i = 0; i < sizeof opset_forms / sizeof *opset_forms; i++) {
        const cm_opset_form *f = &opset_forms[i];
        if (strcmp(node->op_type, f->op_type) != 0)
            continue;
        bool has_input = node->n_input > (size_t)f->input && *node->input[f->input];
        if (im->opset >= f->since && cm_attr(node, f->attr))
            return cm_import_fail(im, node, CM_EINPUT,
                                  "%s is an input (input %d) from opset %lld on, not an attribute; "
                                  "the model imports opset %lld",
                                  f->attr, f->input, (long long)f->since, (long long)im->opset);
        if (im->opset < f->since && has_input)
            return cm_import_fail(im, node, CM_EINPUT,
                                  "%s is an attribute before opset %lld, not input %d; the model "
                                  "imports opset %lld",
                                  f->attr, (long long)f->since, f->input, (long long)im->opset);
    }
    return CM_OK;
}

cm_status cm_import_fused_add(cm_import *im, const cm_fused *f)
{
    cm_fused *grown = realloc(im->fused, (size_t)(im->n_fused + 1) * sizeof *grown);
    if (!grown)
        return cm_error_nomem(im->err);
    im->fused = grown;
    im->fused[im->n_fused++] = *f;
    return CM_OK;
}

bool cm_import_fused_step(cm_import *im, const Onnx__NodeProto *node, cm_status *st)
{
    for (int i = 0; i < im->n_fused; i++) {
        const cm_fused *f = &im->fused[i];
        if (node == f->last) {
            *st = node->n_output ? f->make(im, f)
                                 : cm_import_fail(im, node, CM_EINPUT, "has no output");
            return true;
        }
        for (int k = 0; k < CM_FUSED_NODES; k++)
            if (node == f->node[k]) {
                *st = CM_OK;
                return true;
            }
    }
    return false;
}

static cm_status run_node(cm_import *im, const Onnx__NodeProto *node)
{
    cm_status form = check_opset_form(im, node);
    if (form != CM_OK)
        return form;
    cm_status fused;
    if (cm_import_fused_step(im, node, &fused))
        return fused;
    cm_node_handler handler = cm_import_handler_for(node->domain, node->op_type);
    if (!handler)
        return cm_import_fail(im, node, CM_EINPUT, "unknown operator '%s'%s%s",
                              node->op_type ? node->op_type : "",
                              node->domain && *node->domain ? " in domain " : "",
                              node->domain ? node->domain : "");
    if (node->n_output == 0) /* every handler defines output 0 */
        return cm_import_fail(im, node, CM_EINPUT, "has no output");
    cm_tensor *stack_in[8];
    cm_tensor **in = stack_in;
    if (node->n_input > 8 && !(in = malloc(node->n_input * sizeof *in)))
        return cm_error_nomem(im->err);
    for (size_t k = 0; k < node->n_input; k++)
        in[k] = *node->input[k] ? cm_import_find(im, node->input[k]) : NULL;
    cm_status st = cm_import_channels_last_guard(im, node, in, (int)node->n_input);
    if (st == CM_OK)
        st = handler(im, node, in, (int)node->n_input);
    if (in != stack_in)
        free(in);
    return st;
}

static cm_status set_outputs(cm_import *im, const Onnx__GraphProto *gp)
{
    cm_graph *g = im->g;
    g->outputs = calloc(gp->n_output ? gp->n_output : 1, sizeof *g->outputs);
    if (!g->outputs)
        return cm_error_nomem(im->err);
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *name = gp->output[i]->name ? gp->output[i]->name : "";
        cm_tensor *t = cm_import_find(im, name);
        if (!t)
            return cm_error_set(im->err, CM_EINPUT, "%s: graph output '%s' is never produced",
                                im->origin, name);
        if (t->kind != CM_TENSOR_ACTIVATION || CM_SOURCE_IS_INPUT(t->source))
            return cm_error_set(im->err, CM_EINPUT,
                                "%s: graph output '%s' is not computed by any layer", im->origin,
                                name);
        cm_status st = cm_import_channels_last_output(im, t);
        if (st != CM_OK)
            return st;
        g->outputs[g->n_outputs++] = t->source;
    }
    if (g->n_outputs == 0)
        return cm_error_set(im->err, CM_EINPUT, "%s: the graph has no output", im->origin);
    return CM_OK;
}

/* The default-domain opset decides which operator forms are valid; one outside the
 * range the handlers were written for (or none at all) cannot be read reliably. */
static cm_status read_opset(cm_import *im)
{
    const Onnx__ModelProto *m = im->model;
    bool found = false;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->opset_import[i];
        if (!cm_import_is_onnx_domain(o->domain))
            continue;
        if (found && o->version != im->opset)
            return cm_error_set(im->err, CM_EINPUT,
                                "%s: the default ONNX domain is imported twice, at opsets %lld "
                                "and %lld",
                                im->origin, (long long)im->opset, (long long)o->version);
        found = true;
        im->opset = o->version;
    }
    if (!found)
        return cm_error_set(im->err, CM_EINPUT,
                            "%s: the model imports no opset of the default ONNX domain "
                            "(supported: %d-%d)",
                            im->origin, CM_OPSET_MIN, CM_OPSET_MAX);
    if (im->opset < CM_OPSET_MIN || im->opset > CM_OPSET_MAX)
        return cm_error_set(im->err, CM_EINPUT,
                            "%s: default-domain opset %lld is outside the supported %d-%d",
                            im->origin, (long long)im->opset, CM_OPSET_MIN, CM_OPSET_MAX);
    return CM_OK;
}

/* A refused transformer is refused at its first attention operator, whatever the
 * importer met first (kept at the end of the line). */
static void name_attention(cm_import *im, const Onnx__GraphProto *gp)
{
    const int a = cm_import_first_attention(gp);
    if (a < 0)
        return;
    const Onnx__NodeProto *n = gp->node[a];
    char first[CM_ERROR_MESSAGE_MAX];
    const size_t skip = strlen(im->origin) + 2; /* "ORIGIN: " */
    const char *msg = im->err->message;
    snprintf(first, sizeof first, "%s",
             strncmp(msg, im->origin, skip - 2) == 0 && strlen(msg) >= skip ? msg + skip : msg);
    cm_import_fail(im, n, CM_EINPUT,
                   "attention (a product of two feature maps into a Softmax): cnnmap maps "
                   "CNNs, not transformers (the import first stopped at %s)",
                   first);
}

static cm_status import_graph(cm_import *im)
{
    const Onnx__GraphProto *gp = im->model->graph;
    if (!gp)
        return cm_error_set(im->err, CM_EINPUT, "%s: not an ONNX model (no graph)", im->origin);
    cm_status opset_st = read_opset(im);
    if (opset_st != CM_OK)
        return opset_st;
    size_t cap = gp->n_initializer + gp->n_input;
    for (size_t i = 0; i < gp->n_node; i++)
        cap += gp->node[i]->n_output;
    if (cap > INT32_MAX / 2)
        return cm_error_set(im->err, CM_EINPUT, "%s: too many tensors", im->origin);
    im->cap_tensors = (int)cap;
    im->tensors = malloc((cap ? cap : 1) * sizeof *im->tensors);
    if (!im->tensors || !cm_strmap_init(&im->by_name, cap))
        return cm_error_nomem(im->err);
    cm_status st = define_sources(im, gp);
    if (st == CM_OK)
        st = cm_import_find_l2_norms(im);
    if (st == CM_OK)
        st = cm_import_find_group_norms(im);
    if (st != CM_OK)
        return st;
    size_t *order = malloc((gp->n_node ? gp->n_node : 1) * sizeof *order);
    if (!order)
        return cm_error_nomem(im->err);
    st = order_nodes(im, gp, order);
    for (size_t i = 0; st == CM_OK && i < gp->n_node; i++)
        st = run_node(im, gp->node[order[i]]);
    free(order);
    if (st == CM_EINPUT)
        name_attention(im, gp);
    if (st == CM_OK)
        st = set_outputs(im, gp);
    if (st == CM_OK && im->g->n_layers == 0)
        st = cm_error_set(im->err, CM_EINPUT, "%s: the graph has no layers", im->origin);
    return st;
}

static const char *model_name(const char *origin)
{
    const char *base = strrchr(origin, '/');
    return base ? base + 1 : origin;
}

static void import_free(cm_import *im)
{
    for (int i = 0; i < im->n_tensors; i++)
        free(im->tensors[i].values);
    free(im->tensors);
    free(im->fused);
    cm_strmap_free(&im->by_name);
    if (im->model)
        onnx__model_proto__free_unpacked(im->model, NULL);
}

cm_status cm_model_load_buffer(const void *data, size_t len, const char *origin, const char *dir,
                               cm_graph **out, cm_error *err)
{
    *out = NULL;
    cm_error local = {0}; /* the handlers read back the code they set */
    if (!err)
        err = &local;
    if (len == 0)
        return cm_error_set(err, CM_EINPUT, "%s: empty file", origin);
    cm_import im = {.origin = origin, .dir = dir ? dir : ".", .err = err};
    im.model = onnx__model_proto__unpack(NULL, len, data);
    if (!im.model)
        return cm_error_set(err, CM_EINPUT, "%s: not a valid ONNX protobuf (truncated or corrupt)",
                            origin);
    char name[256];
    snprintf(name, sizeof name, "%s", model_name(origin));
    char *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".onnx") == 0)
        *dot = '\0';
    im.g = cm_graph_new(name);
    cm_status st = im.g ? import_graph(&im) : cm_error_nomem(err);
    /* Dead branches go first: a consumer that leads nowhere would otherwise keep the
     * clean-up from folding into its producer, and the mappers would build hardware
     * for it. */
    if (st == CM_OK)
        st = cm_graph_remove_unreachable(im.g, err);
    if (st == CM_OK)
        st = cm_graph_cleanup(im.g, origin, err);
    if (st == CM_OK && (st = cm_graph_check_totals(im.g, err)) != CM_OK)
        cm_error_prefix(err, origin);
    import_free(&im);
    if (st != CM_OK) {
        cm_graph_free(im.g);
        /* Names come from the file and may hold any byte: keep the message one line. */
        for (char *p = err->message; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        return st;
    }
    *out = im.g;
    return CM_OK;
}
