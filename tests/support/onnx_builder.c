/* Building small ONNX models for tests; see onnx_builder.h. */
#include "onnx_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        abort();
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

/* The array grown by one element of the given size. */
static void *append(void *array, size_t n, size_t size)
{
    void *p = realloc(array, (n + 1) * size);
    if (!p)
        abort();
    return p;
}

static void add_opset(Onnx__ModelProto *m, const char *domain, int64_t version)
{
    Onnx__OperatorSetIdProto *opset = xmalloc(sizeof *opset);
    onnx__operator_set_id_proto__init(opset);
    if (domain)
        opset->domain = xstrdup(domain);
    opset->has_version = 1;
    opset->version = version;
    m->opset_import = append(m->opset_import, m->n_opset_import, sizeof *m->opset_import);
    m->opset_import[m->n_opset_import++] = opset;
}

Onnx__ModelProto *ob_model_new(void)
{
    Onnx__ModelProto *m = xmalloc(sizeof *m);
    onnx__model_proto__init(m);
    m->has_ir_version = 1;
    m->ir_version = 8;
    m->producer_name = xstrdup("cnnmap-tests");
    add_opset(m, NULL, 13);
    m->graph = xmalloc(sizeof *m->graph);
    onnx__graph_proto__init(m->graph);
    m->graph->name = xstrdup("test");
    return m;
}

void ob_model_free(Onnx__ModelProto *m)
{
    if (m)
        onnx__model_proto__free_unpacked(m, NULL);
}

/* A float32 value of the given shape. */
static Onnx__ValueInfoProto *value_info(const char *name, Onnx__TensorShapeProto *shape)
{
    Onnx__TypeProto__Tensor *tensor = xmalloc(sizeof *tensor);
    onnx__type_proto__tensor__init(tensor);
    tensor->has_elem_type = 1;
    tensor->elem_type = 1; /* FLOAT */
    tensor->shape = shape;
    Onnx__TypeProto *type = xmalloc(sizeof *type);
    onnx__type_proto__init(type);
    type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    type->tensor_type = tensor;
    Onnx__ValueInfoProto *vi = xmalloc(sizeof *vi);
    onnx__value_info_proto__init(vi);
    vi->name = xstrdup(name);
    vi->type = type;
    return vi;
}

static Onnx__TensorShapeProto *shape_of(int rank, const int64_t *dims)
{
    Onnx__TensorShapeProto *shape = xmalloc(sizeof *shape);
    onnx__tensor_shape_proto__init(shape);
    shape->dim = xmalloc((size_t)rank * sizeof *shape->dim);
    for (int i = 0; i < rank; i++) {
        Onnx__TensorShapeProto__Dimension *d = xmalloc(sizeof *d);
        onnx__tensor_shape_proto__dimension__init(d);
        if (dims) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = dims[i];
        }
        shape->dim[shape->n_dim++] = d;
    }
    return shape;
}

Onnx__ValueInfoProto *ob_input(Onnx__ModelProto *m, const char *name, int rank,
                               const int64_t *dims)
{
    Onnx__ValueInfoProto *vi = value_info(name, shape_of(rank, dims));
    Onnx__GraphProto *g = m->graph;
    g->input = append(g->input, g->n_input, sizeof *g->input);
    g->input[g->n_input++] = vi;
    return vi;
}

Onnx__ValueInfoProto *ob_output(Onnx__ModelProto *m, const char *name, int rank,
                                const int64_t *dims)
{
    Onnx__ValueInfoProto *vi = value_info(name, shape_of(rank, dims));
    Onnx__GraphProto *g = m->graph;
    g->output = append(g->output, g->n_output, sizeof *g->output);
    g->output[g->n_output++] = vi;
    return vi;
}

/* An initializer with name, dims and type but no data yet; *count is its element
 * count (meaningful only for small positive dims). */
static Onnx__TensorProto *new_init(Onnx__ModelProto *m, const char *name, int rank,
                                   const int64_t *dims, int32_t data_type, size_t *count)
{
    Onnx__TensorProto *t = xmalloc(sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = xstrdup(name);
    t->has_data_type = 1;
    t->data_type = data_type;
    t->dims = xmalloc((size_t)rank * sizeof *t->dims);
    t->n_dims = (size_t)rank;
    *count = 1;
    for (int i = 0; i < rank; i++) {
        t->dims[i] = dims[i];
        *count *= (size_t)dims[i];
    }
    Onnx__GraphProto *g = m->graph;
    g->initializer = append(g->initializer, g->n_initializer, sizeof *g->initializer);
    g->initializer[g->n_initializer++] = t;
    return t;
}

Onnx__TensorProto *ob_init_float(Onnx__ModelProto *m, const char *name, int rank,
                                 const int64_t *dims, const float *data)
{
    size_t count;
    Onnx__TensorProto *t = new_init(m, name, rank, dims, 1, &count);
    t->float_data = xmalloc(count * sizeof *t->float_data);
    t->n_float_data = count;
    for (size_t i = 0; i < count; i++)
        t->float_data[i] = data ? data[i] : (float)((i * 7) % 11) * 0.125f - 0.5f;
    return t;
}

Onnx__TensorProto *ob_init_int64(Onnx__ModelProto *m, const char *name, int rank,
                                 const int64_t *dims, const int64_t *data)
{
    size_t count;
    Onnx__TensorProto *t = new_init(m, name, rank, dims, 7, &count);
    t->int64_data = xmalloc(count * sizeof *t->int64_data);
    t->n_int64_data = count;
    memcpy(t->int64_data, data, count * sizeof *t->int64_data);
    return t;
}

Onnx__TensorProto *ob_init_raw(Onnx__ModelProto *m, const char *name, int rank,
                               const int64_t *dims, int32_t data_type, const void *bytes,
                               size_t len)
{
    size_t count;
    Onnx__TensorProto *t = new_init(m, name, rank, dims, data_type, &count);
    t->has_raw_data = 1;
    t->raw_data.len = len;
    t->raw_data.data = memcpy(xmalloc(len), bytes, len);
    return t;
}

static Onnx__StringStringEntryProto *entry(const char *key, const char *value)
{
    Onnx__StringStringEntryProto *e = xmalloc(sizeof *e);
    onnx__string_string_entry_proto__init(e);
    e->key = xstrdup(key);
    e->value = xstrdup(value);
    return e;
}

Onnx__TensorProto *ob_init_external(Onnx__ModelProto *m, const char *name, int rank,
                                    const int64_t *dims, const char *location)
{
    size_t count;
    Onnx__TensorProto *t = new_init(m, name, rank, dims, 1, &count);
    t->has_data_location = 1;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    t->external_data = xmalloc(2 * sizeof *t->external_data);
    t->external_data[t->n_external_data++] = entry("location", location);
    t->external_data[t->n_external_data++] = entry("offset", "0");
    return t;
}

/* Splits "a,b,,c" into its fields (empty ones kept). */
static void split_names(const char *list, size_t *n, char ***names)
{
    *n = 0;
    *names = NULL;
    if (!list || !*list)
        return;
    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char *name = memcpy(xmalloc(len + 1), p, len);
        name[len] = '\0';
        *names = append(*names, *n, sizeof **names);
        (*names)[(*n)++] = name;
        if (!comma)
            break;
        p = comma + 1;
    }
}

Onnx__NodeProto *ob_node(Onnx__ModelProto *m, const char *op_type, const char *name,
                         const char *inputs, const char *outputs)
{
    Onnx__NodeProto *n = xmalloc(sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = xstrdup(op_type);
    if (name)
        n->name = xstrdup(name);
    split_names(inputs, &n->n_input, &n->input);
    split_names(outputs, &n->n_output, &n->output);
    Onnx__GraphProto *g = m->graph;
    g->node = append(g->node, g->n_node, sizeof *g->node);
    g->node[g->n_node++] = n;
    return n;
}

void ob_opset(Onnx__ModelProto *m, int64_t version)
{
    for (size_t i = 0; i < m->n_opset_import; i++)
        if (!m->opset_import[i]->domain || !*m->opset_import[i]->domain)
            m->opset_import[i]->version = version;
}

void ob_domain(Onnx__ModelProto *m, Onnx__NodeProto *n, const char *domain)
{
    free(n->domain);
    n->domain = xstrdup(domain);
    for (size_t i = 0; i < m->n_opset_import; i++)
        if (m->opset_import[i]->domain && strcmp(m->opset_import[i]->domain, domain) == 0)
            return;
    add_opset(m, domain, 1);
}

static Onnx__AttributeProto *new_attr(Onnx__NodeProto *n, const char *name,
                                      Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto *a = xmalloc(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = xstrdup(name);
    a->has_type = 1;
    a->type = type;
    n->attribute = append(n->attribute, n->n_attribute, sizeof *n->attribute);
    n->attribute[n->n_attribute++] = a;
    return a;
}

void ob_attr_int(Onnx__NodeProto *n, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = new_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
}

void ob_attr_ints(Onnx__NodeProto *n, const char *name, int count, const int64_t *v)
{
    Onnx__AttributeProto *a = new_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->ints = memcpy(xmalloc((size_t)count * sizeof *a->ints), v, (size_t)count * sizeof *a->ints);
    a->n_ints = (size_t)count;
}

void ob_attr_float(Onnx__NodeProto *n, const char *name, float v)
{
    Onnx__AttributeProto *a = new_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
}

void ob_attr_string(Onnx__NodeProto *n, const char *name, const char *v)
{
    Onnx__AttributeProto *a = new_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1;
    a->s.len = strlen(v);
    a->s.data = memcpy(xmalloc(a->s.len), v, a->s.len);
}

uint8_t *ob_pack(const Onnx__ModelProto *m, size_t *len)
{
    *len = onnx__model_proto__get_packed_size(m);
    uint8_t *buf = xmalloc(*len);
    onnx__model_proto__pack(m, buf);
    return buf;
}

void ob_group_norm(Onnx__ModelProto *m, const char *x, const char *y, int64_t channels,
                   int64_t groups, const int64_t *split_to, float in_scale, const float *gamma,
                   const float *beta)
{
    char name[6][96], io[4][320];
    static const char *const part[6] = {"to", "s", "b", "gamma", "beta", "split"};
    for (int k = 0; k < 6; k++)
        snprintf(name[k], sizeof name[k], "%s_%s", y, part[k]);
    const int64_t to[3] = {0, groups, -1};
    float *ones = xmalloc((size_t)groups * 2 * sizeof *ones);
    for (int64_t g = 0; g < groups; g++) {
        ones[g] = in_scale;
        ones[groups + g] = 0.0f;
    }
    ob_init_int64(m, name[0], 1, (int64_t[]){3}, split_to ? split_to : to);
    ob_init_float(m, name[1], 1, (int64_t[]){groups}, ones);
    ob_init_float(m, name[2], 1, (int64_t[]){groups}, ones + groups);
    free(ones);
    ob_init_float(m, name[3], 3, (int64_t[]){channels, 1, 1}, gamma);
    ob_init_float(m, name[4], 3, (int64_t[]){channels, 1, 1}, beta);
    snprintf(io[0], sizeof io[0], "%s,%s", x, name[0]);
    snprintf(io[1], sizeof io[1], "%s_r,%s,%s", y, name[1], name[2]);
    snprintf(io[2], sizeof io[2], "%s_n,%s_sh", y, y);
    snprintf(io[3], sizeof io[3], "%s_r", y);
    ob_node(m, "Reshape", name[5], io[0], io[3]);
    snprintf(name[5], sizeof name[5], "%s_norm", y);
    snprintf(io[3], sizeof io[3], "%s_n", y);
    ob_node(m, "InstanceNormalization", name[5], io[1], io[3]);
    snprintf(name[5], sizeof name[5], "%s_shape", y);
    snprintf(io[3], sizeof io[3], "%s_sh", y);
    ob_node(m, "Shape", name[5], x, io[3]);
    snprintf(name[5], sizeof name[5], "%s_back", y);
    snprintf(io[3], sizeof io[3], "%s_u", y);
    ob_node(m, "Reshape", name[5], io[2], io[3]);
    snprintf(name[5], sizeof name[5], "%s_scale", y);
    snprintf(io[0], sizeof io[0], "%s_u,%s", y, name[3]);
    snprintf(io[3], sizeof io[3], "%s_v", y);
    ob_node(m, "Mul", name[5], io[0], io[3]);
    snprintf(io[0], sizeof io[0], "%s_v,%s", y, name[4]);
    ob_node(m, "Add", y, io[0], y);
}
