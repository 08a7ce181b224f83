/* The reference executor's life cycle: reading a model file into nodes in execution
 * order with their kernels and constants, executing it on whole tensors, and running a
 * network frame by frame over a batch. */
#include <cblas.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/import.h"
#include "run/run_internal.h"
#include "util/mapped_file.h"

cm_status cm_run_fail(cm_run_ctx *cx, cm_status code, const char *fmt, ...)
{
    char what[CM_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const Onnx__NodeProto *node = cx->node->proto;
    return cm_error_set(cx->err, code, "%s: node '%s' (%s): %s", cx->r->origin,
                        node->name && *node->name ? node->name : "(unnamed)",
                        node->op_type ? node->op_type : "no op_type", what);
}

static void free_node(cm_run_node *n)
{
    free(n->in);
    free(n->out);
    free(n->weights32);
}

void cm_runner_set_max_elements(cm_runner *r, int64_t n)
{
    r->max_elements = n < 1 || n > CM_RUN_ELEMENTS_MAX ? CM_RUN_ELEMENTS_MAX : n;
}

void cm_runner_free(cm_runner *r)
{
    if (!r)
        return;
    for (int k = 0; k < r->n_nodes; k++)
        free_node(&r->nodes[k]);
    free(r->nodes);
    if (r->consts)
        for (int k = 0; k < r->n_values; k++)
            cm_array_free(r->consts[k]);
    free(r->consts);
    free(r->value_names);
    free(r->last_use);
    free(r->inputs);
    free(r->outputs);
    free(r->input_value);
    free(r->output_value);
    cm_strmap_free(&r->by_name);
    if (r->model)
        onnx__model_proto__free_unpacked(r->model, NULL);
    free(r->origin);
    free(r->dir);
    free(r);
}

static int64_t domain_opset(const Onnx__ModelProto *m, const char *domain)
{
    bool is_default = !domain || !*domain || strcmp(domain, "ai.onnx") == 0;
    for (size_t k = 0; k < m->n_opset_import; k++) {
        const char *d = m->opset_import[k]->domain;
        bool d_default = !d || !*d || strcmp(d, "ai.onnx") == 0;
        if (is_default ? d_default : (d && strcmp(d, domain) == 0))
            return m->opset_import[k]->version;
    }
    return is_default ? 1 : 1;
}

/* Registers a value name; its index, or -1 when out of memory. */
static int add_value(cm_runner *r, const char *name, int cap)
{
    int k = cm_strmap_get(&r->by_name, name);
    if (k >= 0)
        return k;
    if (r->n_values == cap || !cm_strmap_put(&r->by_name, name, r->n_values))
        return -1;
    r->value_names[r->n_values] = name;
    return r->n_values++;
}

static cm_status describe_io(cm_runner *r, const Onnx__ValueInfoProto *vi, cm_runner_io *io,
                             cm_error *err)
{
    memset(io, 0, sizeof *io);
    io->name = vi->name;
    const Onnx__TypeProto *t = vi->type;
    if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !t->tensor_type)
        return cm_error_set(err, CM_EINPUT, "%s: graph input or output '%s' is not a tensor",
                            r->origin, vi->name);
    io->dtype = (cm_dtype)t->tensor_type->elem_type;
    if (!cm_dtype_is_float(io->dtype) && strcmp(cm_dtype_name(io->dtype), "unknown") == 0)
        return cm_error_set(err, CM_EINPUT, "%s: graph input or output '%s' has element type %d, "
                            "which the executor does not run", r->origin, vi->name,
                            (int)io->dtype);
    const Onnx__TensorShapeProto *s = t->tensor_type->shape;
    io->rank = s ? (int)s->n_dim : -1;
    if (io->rank > CM_ARRAY_MAX_RANK)
        return cm_error_set(err, CM_EINPUT, "%s: '%s' has rank %d (at most %d)", r->origin,
                            vi->name, io->rank, CM_ARRAY_MAX_RANK);
    for (int k = 0; k < io->rank; k++) {
        const Onnx__TensorShapeProto__Dimension *d = s->dim[k];
        io->dims[k] = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                              d->dim_value > 0 ? d->dim_value : -1;
    }
    return CM_OK;
}

static cm_status read_initializers(cm_runner *r, const Onnx__GraphProto *g, int cap,
                                   cm_error *err)
{
    for (size_t k = 0; k < g->n_initializer; k++) {
        const Onnx__TensorProto *tp = g->initializer[k];
        if (!tp->name || !*tp->name)
            return cm_error_set(err, CM_EINPUT, "%s: an initializer has no name", r->origin);
        int v = add_value(r, tp->name, cap);
        if (v < 0)
            return cm_error_nomem(err);
        cm_array_free(r->consts[v]);
        cm_status st = cm_array_from_tensor_proto(tp, r->dir, r->origin, &r->consts[v], err);
        if (st != CM_OK)
            return st;
        if (r->wide && r->consts[v]->dtype == CM_DTYPE_FLOAT32)
            r->consts[v]->dtype = CM_DTYPE_FLOAT64;
    }
    return CM_OK;
}

static cm_status read_nodes(cm_runner *r, const Onnx__GraphProto *g, int cap, cm_error *err)
{
    r->nodes = calloc(g->n_node ? g->n_node : 1, sizeof *r->nodes);
    if (!r->nodes)
        return cm_error_nomem(err);
    for (size_t k = 0; k < g->n_node; k++) {
        const Onnx__NodeProto *p = g->node[k];
        cm_run_node *n = &r->nodes[r->n_nodes++];
        n->proto = p;
        n->opset = domain_opset(r->model, p->domain);
        cm_run_ctx cx = {.r = r, .node = n, .err = err};
        if (!p->op_type)
            return cm_run_fail(&cx, CM_EINPUT, "node has no operator");
        n->kernel = cm_run_kernel_for(p->domain, p->op_type);
        if (!n->kernel)
            return cm_run_fail(&cx, CM_EINPUT, "the executor cannot run operator '%s%s%s'",
                               p->domain && *p->domain ? p->domain : "",
                               p->domain && *p->domain ? "." : "", p->op_type);
        n->n_in = (int)p->n_input;
        n->n_out = (int)p->n_output;
        n->in = malloc((p->n_input + 1) * sizeof *n->in);
        n->out = malloc((p->n_output + 1) * sizeof *n->out);
        if (!n->in || !n->out)
            return cm_error_nomem(err);
        for (size_t j = 0; j < p->n_input; j++) {
            n->in[j] = -1;
            if (!p->input[j] || !*p->input[j])
                continue;
            n->in[j] = cm_strmap_get(&r->by_name, p->input[j]);
            if (n->in[j] < 0)
                n->in[j] = add_value(r, p->input[j], cap); /* defined later, or never */
            if (n->in[j] < 0)
                return cm_error_nomem(err);
        }
        for (size_t j = 0; j < p->n_output; j++) {
            n->out[j] = -1;
            if (p->output[j] && *p->output[j] && (n->out[j] = add_value(r, p->output[j], cap)) < 0)
                return cm_error_nomem(err);
        }
    }
    return CM_OK;
}

/* Orders the nodes so that each runs after the producers of its inputs (ONNX asks
 * files to be sorted, not all are); an input nothing produces is an error. */
static cm_status sort_nodes(cm_runner *r, cm_error *err)
{
    char *ready = calloc((size_t)r->n_values, 1);
    char *done = calloc((size_t)r->n_nodes + 1, 1);
    cm_run_node *sorted = malloc(((size_t)r->n_nodes + 1) * sizeof *sorted);
    cm_status st = CM_OK;
    if (!ready || !done || !sorted) {
        st = cm_error_nomem(err);
        goto out;
    }
    for (int v = 0; v < r->n_values; v++)
        ready[v] = r->consts[v] != NULL;
    for (int k = 0; k < r->n_inputs; k++)
        ready[r->input_value[k]] = 1;
    int n_sorted = 0;
    bool progress = true;
    while (n_sorted < r->n_nodes && progress) {
        progress = false;
        for (int k = 0; k < r->n_nodes; k++) {
            if (done[k])
                continue;
            cm_run_node *n = &r->nodes[k];
            bool ok = true;
            for (int j = 0; j < n->n_in && ok; j++)
                ok = n->in[j] < 0 || ready[n->in[j]];
            if (!ok)
                continue;
            for (int j = 0; j < n->n_out; j++)
                if (n->out[j] >= 0)
                    ready[n->out[j]] = 1;
            sorted[n_sorted++] = *n;
            done[k] = 1;
            progress = true;
        }
    }
    if (n_sorted < r->n_nodes) {
        for (int k = 0; k < r->n_nodes; k++) {
            if (done[k])
                continue;
            cm_run_node *n = &r->nodes[k];
            for (int j = 0; j < n->n_in; j++)
                if (n->in[j] >= 0 && !ready[n->in[j]]) {
                    cm_run_ctx cx = {.r = r, .node = n, .err = err};
                    st = cm_run_fail(&cx, CM_EINPUT, "input '%s' is produced by no node "
                                     "(or by a cycle)", r->value_names[n->in[j]]);
                    goto out;
                }
        }
    }
    memcpy(r->nodes, sorted, (size_t)r->n_nodes * sizeof *sorted);
out:
    free(ready);
    free(done);
    free(sorted);
    return st;
}

static cm_status describe_graph_io(cm_runner *r, const Onnx__GraphProto *g, int cap,
                                   cm_error *err)
{
    r->inputs = calloc(g->n_input + 1, sizeof *r->inputs);
    r->input_value = calloc(g->n_input + 1, sizeof *r->input_value);
    r->outputs = calloc(g->n_output + 1, sizeof *r->outputs);
    r->output_value = calloc(g->n_output + 1, sizeof *r->output_value);
    if (!r->inputs || !r->input_value || !r->outputs || !r->output_value)
        return cm_error_nomem(err);
    for (size_t k = 0; k < g->n_input; k++) {
        const Onnx__ValueInfoProto *vi = g->input[k];
        if (!vi->name || !*vi->name)
            return cm_error_set(err, CM_EINPUT, "%s: a graph input has no name", r->origin);
        int v = cm_strmap_get(&r->by_name, vi->name);
        if (v >= 0 && r->consts[v])
            continue; /* an initializer listed as an input (IR < 4) */
        cm_status st = describe_io(r, vi, &r->inputs[r->n_inputs], err);
        if (st != CM_OK)
            return st;
        if ((v = add_value(r, vi->name, cap)) < 0)
            return cm_error_nomem(err);
        r->input_value[r->n_inputs++] = v;
    }
    for (size_t k = 0; k < g->n_output; k++) {
        const Onnx__ValueInfoProto *vi = g->output[k];
        if (!vi->name || !*vi->name)
            return cm_error_set(err, CM_EINPUT, "%s: a graph output has no name", r->origin);
        cm_status st = describe_io(r, vi, &r->outputs[r->n_outputs], err);
        if (st != CM_OK)
            return st;
        r->output_value[r->n_outputs++] = -1; /* looked up once the nodes are read */
    }
    return CM_OK;
}

/* Outputs of float type: rounded to float32, or widened in a QONNX run. */
static void settle_float(const cm_runner *r, cm_array *a)
{
    if (!a || a->dtype != CM_DTYPE_FLOAT32)
        return;
    if (r->wide)
        a->dtype = CM_DTYPE_FLOAT64;
    else
        cm_run_round_f32(a);
}

static cm_status run_node(cm_runner *r, cm_run_node *n, cm_array **vals, bool in0_spare,
                          cm_error *err)
{
    cm_array *ins[64], *outs[64];
    if (n->n_in > 64 || n->n_out > 64) {
        cm_run_ctx cx = {.r = r, .node = n, .err = err};
        return cm_run_fail(&cx, CM_EINPUT, "more than 64 inputs or outputs");
    }
    for (int j = 0; j < n->n_in; j++)
        ins[j] = n->in[j] < 0 ? NULL : r->consts[n->in[j]] ? r->consts[n->in[j]] : vals[n->in[j]];
    /* A kernel writes its first output even when the node names none (an empty output
     * name): what the node does not keep is freed below. */
    memset(outs, 0, sizeof outs);
    cm_run_ctx cx = {.r = r, .node = n, .err = err, .in0_spare = in0_spare};
    cm_status st = n->kernel(&cx, ins, n->n_in, outs, n->n_out);
    for (int j = n->n_out; j < 64; j++)
        cm_array_free(outs[j]);
    for (int j = 0; j < n->n_out; j++) {
        if (st != CM_OK || n->out[j] < 0) {
            cm_array_free(outs[j]);
            continue;
        }
        settle_float(r, outs[j]);
        cm_array_free(vals[n->out[j]]);
        vals[n->out[j]] = outs[j];
    }
    return st;
}

/* Per value: how many node inputs read it, a graph output counting as one more (NULL
 * when out of memory). */
static int *count_uses(const cm_runner *r)
{
    int *uses = calloc((size_t)r->n_values + 1, sizeof *uses);
    for (int k = 0; uses && k < r->n_nodes; k++)
        for (int j = 0; j < r->nodes[k].n_in; j++)
            if (r->nodes[k].in[j] >= 0)
                uses[r->nodes[k].in[j]]++;
    for (int k = 0; uses && k < r->n_outputs; k++)
        uses[r->output_value[k]]++;
    return uses;
}

/* In a lean load, whether node n may overwrite its constant input 0: n reads it once and
 * nothing else does. */
static bool spare_input(const cm_run_node *n, const int *uses)
{
    int v = n->n_in > 0 ? n->in[0] : -1;
    return uses && v >= 0 && uses[v] == 1 && n->n_out > 0 && n->out[0] >= 0 && n->out[0] != v;
}

/* Nodes whose inputs are all constants (weight quantisers, shape arithmetic) give the
 * same result for every input: they run once here and their outputs become constants. */
static cm_status fold_constants(cm_runner *r, cm_error *err)
{
    int *uses = r->lean ? count_uses(r) : NULL;
    if (r->lean && !uses)
        return cm_error_nomem(err);
    int kept = 0;
    cm_status st = CM_OK;
    int64_t limit = r->max_elements;
    if (r->max_elements > CM_RUN_FOLD_ELEMENTS_MAX)
        r->max_elements = CM_RUN_FOLD_ELEMENTS_MAX;
    for (int k = 0; k < r->n_nodes; k++) {
        cm_run_node *n = &r->nodes[k];
        bool constant = st == CM_OK && n->n_out > 0;
        for (int j = 0; j < n->n_in && constant; j++)
            constant = n->in[j] < 0 || r->consts[n->in[j]] != NULL;
        if (!constant) {
            r->nodes[kept++] = *n;
            continue;
        }
        bool spare = spare_input(n, uses);
        st = run_node(r, n, r->consts, spare, err);
        if (spare && st == CM_OK && r->consts[n->out[0]] == r->consts[n->in[0]])
            r->consts[n->in[0]] = NULL; /* it became the output */
        free_node(n);
    }
    free(uses);
    r->n_nodes = kept;
    r->max_elements = limit;
    return st;
}

/* Float32 weights of products go to BLAS as floats: converted once, on the first execute
 * (loading a model only to read it, as the HLS lowering and the design files do, never
 * needs them). Float64 (QONNX) weights too, when their products can be exact in float32
 * (exact32.c). */
static cm_status copy_weights32(cm_runner *r, cm_error *err)
{
    for (int k = 0; k < r->n_nodes; k++) {
        cm_run_node *n = &r->nodes[k];
        bool conv = n->kernel == cm_run_conv, gemm = n->kernel == cm_run_gemm_op;
        if ((!conv && !gemm && n->kernel != cm_run_matmul) || n->weights32)
            continue; /* (made by an earlier try that ran out of memory further on) */
        const cm_array *w = n->n_in > 1 && n->in[1] >= 0 ? r->consts[n->in[1]] : NULL;
        if (!w || !w->f || w->rank < 2)
            continue;
        if (w->dtype == CM_DTYPE_FLOAT64 && (conv || (gemm && w->rank == 2))) {
            bool trans_b = gemm && cm_attr_int(n->proto, "transB", 0) != 0;
            int64_t outputs = conv || trans_b ? w->dims[0] : w->dims[1];
            cm_run_exact32_prepare(n, w, outputs, w->count / (outputs ? outputs : 1),
                                   conv || trans_b);
            if (!n->exact32)
                continue;
        } else if (w->dtype != CM_DTYPE_FLOAT32) {
            continue;
        }
        n->weights32 = malloc((size_t)w->count * sizeof *n->weights32 + 1);
        if (!n->weights32)
            return cm_error_nomem(err);
        for (int64_t q = 0; q < w->count; q++)
            n->weights32[q] = (float)w->f[q];
    }
    return CM_OK;
}

static cm_status build(cm_runner *r, cm_error *err)
{
    const Onnx__GraphProto *g = r->model->graph;
    if (!g)
        return cm_error_set(err, CM_EINPUT, "%s: the model has no graph", r->origin);
    int64_t opset = domain_opset(r->model, "");
    if (opset < 1 || opset > 21)
        return cm_error_set(err, CM_EINPUT, "%s: default-domain opset %lld is outside 1-21",
                            r->origin, (long long)opset);
    for (size_t k = 0; k < g->n_node; k++)
        if (cm_run_is_qonnx_domain(g->node[k]->domain))
            r->wide = true;
    size_t cap = g->n_initializer + g->n_input + 1;
    for (size_t k = 0; k < g->n_node; k++)
        cap += g->node[k]->n_input + g->node[k]->n_output;
    if (cap > (size_t)1 << 28)
        return cm_error_set(err, CM_EINPUT, "%s: the graph is too large", r->origin);
    r->value_names = calloc(cap, sizeof *r->value_names);
    r->consts = calloc(cap, sizeof *r->consts);
    if (!r->value_names || !r->consts || !cm_strmap_init(&r->by_name, cap))
        return cm_error_nomem(err);
    cm_status st = read_initializers(r, g, (int)cap, err);
    if (st == CM_OK)
        st = describe_graph_io(r, g, (int)cap, err);
    if (st == CM_OK)
        st = read_nodes(r, g, (int)cap, err);
    if (st != CM_OK)
        return st;
    /* Graph outputs are found among every name the nodes define. */
    for (int k = 0; k < r->n_outputs; k++)
        if ((r->output_value[k] = cm_strmap_get(&r->by_name, r->outputs[k].name)) < 0)
            return cm_error_set(err, CM_EINPUT, "%s: graph output '%s' is produced by no node",
                                r->origin, r->outputs[k].name);
    if ((st = sort_nodes(r, err)) != CM_OK)
        return st;
    if ((st = fold_constants(r, err)) != CM_OK)
        return st;
    r->last_use = malloc((size_t)r->n_values * sizeof *r->last_use);
    if (!r->last_use)
        return cm_error_nomem(err);
    for (int v = 0; v < r->n_values; v++)
        r->last_use[v] = -1;
    for (int k = 0; k < r->n_nodes; k++)
        for (int j = 0; j < r->nodes[k].n_in; j++)
            if (r->nodes[k].in[j] >= 0)
                r->last_use[r->nodes[k].in[j]] = k;
    return CM_OK;
}

static cm_status load_buffer(const void *data, size_t len, const char *origin, const char *dir,
                             bool lean, int64_t max_elements, cm_runner **out, cm_error *err)
{
    *out = NULL;
    cm_runner *r = calloc(1, sizeof *r);
    if (!r)
        return cm_error_nomem(err);
    cm_runner_set_max_elements(r, max_elements);
    r->lean = lean;
    r->origin = strdup(origin ? origin : "(model)");
    r->dir = strdup(dir ? dir : ".");
    if (!r->origin || !r->dir) {
        cm_runner_free(r);
        return cm_error_nomem(err);
    }
    r->model = onnx__model_proto__unpack(NULL, len, data);
    if (!r->model) {
        cm_status st = cm_error_set(err, CM_EINPUT, "%s: not an ONNX model (protobuf parse failed)",
                                    r->origin);
        cm_runner_free(r);
        return st;
    }
    /* One BLAS thread: a threaded product may split its sums differently on another
     * machine, and the executor's answers must not depend on the machine. */
    openblas_set_num_threads(1);
    cm_status st = build(r, err);
    if (st != CM_OK) {
        cm_runner_free(r);
        return st;
    }
    *out = r;
    return CM_OK;
}

cm_status cm_runner_load_buffer(const void *data, size_t len, const char *origin,
                                const char *dir, cm_runner **out, cm_error *err)
{
    return load_buffer(data, len, origin, dir, false, 0, out, err);
}

cm_status cm_runner_load_buffer_bounded(const void *data, size_t len, const char *origin,
                                        const char *dir, int64_t max_elements, cm_runner **out,
                                        cm_error *err)
{
    return load_buffer(data, len, origin, dir, false, max_elements, out, err);
}

static cm_status load_file(const char *path, bool lean, cm_runner **out, cm_error *err)
{
    *out = NULL;
    void *data;
    size_t len;
    cm_status st = cm_map_file(path, &data, &len, err);
    if (st != CM_OK)
        return st;
    char *dir = cm_dir_of(path);
    /* The unpacked model copies what it needs, so the mapping goes at once. */
    st = dir ? load_buffer(data, len, path, dir, lean, 0, out, err) : cm_error_nomem(err);
    free(dir);
    cm_unmap_file(data, len);
    return st;
}

cm_status cm_runner_load(const char *path, cm_runner **out, cm_error *err)
{
    return load_file(path, false, out, err);
}

cm_status cm_runner_load_lean(const char *path, cm_runner **out, cm_error *err)
{
    return load_file(path, true, out, err);
}

int cm_runner_n_inputs(const cm_runner *r) { return r->n_inputs; }
const cm_runner_io *cm_runner_input(const cm_runner *r, int k)
{
    return k >= 0 && k < r->n_inputs ? &r->inputs[k] : NULL;
}
int cm_runner_n_outputs(const cm_runner *r) { return r->n_outputs; }
const cm_runner_io *cm_runner_output(const cm_runner *r, int k)
{
    return k >= 0 && k < r->n_outputs ? &r->outputs[k] : NULL;
}

/* ---- execution ---- */

static cm_status copy_array(const cm_array *a, cm_dtype dtype, cm_array **out, cm_error *err)
{
    cm_status st = cm_array_new(dtype, a->rank, a->dims, out, err);
    if (st != CM_OK)
        return st;
    cm_array *c = *out;
    for (int64_t k = 0; k < a->count; k++) {
        if (c->f)
            c->f[k] = cm_run_getf(a, k);
        else
            c->i[k] = cm_run_geti(a, k);
    }
    if (c->dtype == CM_DTYPE_FLOAT32)
        cm_run_round_f32(c);
    return CM_OK;
}

static void format_dims(char *buf, size_t size, int rank, const int64_t *dims, bool batch)
{
    size_t n = 0;
    n += (size_t)snprintf(buf + n, size - n, "[");
    for (int k = 0; k < rank && n < size; k++) {
        if (k == 0 && batch)
            n += (size_t)snprintf(buf + n, size - n, "N");
        else if (dims[k] < 0)
            n += (size_t)snprintf(buf + n, size - n, "?");
        else
            n += (size_t)snprintf(buf + n, size - n, "%lld", (long long)dims[k]);
        if (k + 1 < rank && n < size)
            n += (size_t)snprintf(buf + n, size - n, ", ");
    }
    if (n < size)
        snprintf(buf + n, size - n, "]");
}

static cm_status check_input(const cm_runner *r, const cm_runner_io *io, const cm_array *a,
                             bool batch, cm_error *err)
{
    bool ok = io->rank < 0 || a->rank == io->rank;
    for (int k = batch ? 1 : 0; ok && io->rank >= 0 && k < io->rank; k++)
        ok = io->dims[k] < 0 || io->dims[k] == a->dims[k];
    if (batch && a->rank < 1)
        ok = false;
    bool type_ok = a->dtype == io->dtype;
    if (ok && type_ok)
        return CM_OK;
    char want[200], have[200];
    format_dims(want, sizeof want, io->rank, io->dims, batch);
    format_dims(have, sizeof have, a->rank, a->dims, false);
    return cm_error_set(err, CM_EINPUT, "%s %s does not match the model's input '%s', which takes "
                        "%s %s (model %s)", have, cm_dtype_name(a->dtype), io->name, want,
                        cm_dtype_name(io->dtype), r->origin);
}

cm_status cm_runner_execute(cm_runner *r, const cm_array *const *inputs, int n_inputs,
                            const char *const *output_names, int n_outputs, cm_array **outputs,
                            cm_error *err)
{
    if (n_inputs != r->n_inputs)
        return cm_error_set(err, CM_EINPUT, "%s: the model takes %d input%s, not %d", r->origin,
                            r->n_inputs, r->n_inputs == 1 ? "" : "s", n_inputs);
    int want[64];
    if (!output_names)
        n_outputs = r->n_outputs;
    if (n_outputs < 1 || n_outputs > 64)
        return cm_error_set(err, CM_EUSAGE, "%s: between 1 and 64 outputs may be asked for",
                            r->origin);
    for (int k = 0; k < n_outputs; k++) {
        want[k] = output_names ? cm_strmap_get(&r->by_name, output_names[k]) : r->output_value[k];
        if (want[k] < 0)
            return cm_error_set(err, CM_EINPUT, "%s: the model has no tensor named '%s'",
                                r->origin, output_names[k]);
        outputs[k] = NULL;
    }
    cm_array **vals = calloc((size_t)r->n_values, sizeof *vals);
    char *keep = calloc((size_t)r->n_values, 1);
    if (!vals || !keep) {
        free(vals);
        free(keep);
        return cm_error_nomem(err);
    }
    for (int k = 0; k < n_outputs; k++)
        keep[want[k]] = 1;
    cm_status st = r->weights32_made ? CM_OK : copy_weights32(r, err);
    r->weights32_made = st == CM_OK;
    for (int k = 0; k < r->n_inputs && st == CM_OK; k++) {
        st = check_input(r, &r->inputs[k], inputs[k], false, err);
        /* a graph that lists one input twice feeds it the later tensor */
        cm_array_free(vals[r->input_value[k]]);
        vals[r->input_value[k]] = NULL;
        if (st == CM_OK)
            st = copy_array(inputs[k], r->wide && inputs[k]->dtype == CM_DTYPE_FLOAT32
                                           ? CM_DTYPE_FLOAT64 : inputs[k]->dtype,
                            &vals[r->input_value[k]], err);
    }
    for (int k = 0; k < r->n_nodes && st == CM_OK; k++) {
        cm_run_node *n = &r->nodes[k];
        st = run_node(r, n, vals, false, err);
        for (int j = 0; j < n->n_in; j++) {
            int v = n->in[j];
            if (v >= 0 && r->last_use[v] == k && !keep[v]) {
                cm_array_free(vals[v]);
                vals[v] = NULL;
            }
        }
    }
    for (int k = 0; k < n_outputs && st == CM_OK; k++) {
        const cm_array *v = r->consts[want[k]] ? r->consts[want[k]] : vals[want[k]];
        if (!v) {
            st = cm_error_set(err, CM_EINPUT, "%s: no node computes tensor '%s'", r->origin,
                              r->value_names[want[k]]);
            break;
        }
        /* A QONNX run widened float32 tensors; they leave as the model declares them. */
        cm_dtype t = r->wide && v->dtype == CM_DTYPE_FLOAT64 ? CM_DTYPE_FLOAT32 : v->dtype;
        st = copy_array(v, t, &outputs[k], err);
    }
    for (int v = 0; v < r->n_values; v++)
        cm_array_free(vals[v]);
    free(vals);
    free(keep);
    if (st != CM_OK)
        for (int k = 0; k < n_outputs; k++) {
            cm_array_free(outputs[k]);
            outputs[k] = NULL;
        }
    return st;
}

/* Frame f of a batch tensor, as a batch of one. */
static cm_status frame_of(const cm_array *a, int64_t f, cm_array **out, cm_error *err)
{
    int64_t dims[CM_ARRAY_MAX_RANK];
    memcpy(dims, a->dims, sizeof dims);
    dims[0] = 1;
    cm_status st = cm_array_alloc(a->dtype, a->rank, dims, false, out, err); /* filled below */
    if (st != CM_OK)
        return st;
    int64_t per = a->dims[0] ? a->count / a->dims[0] : 0;
    if (a->f)
        memcpy((*out)->f, a->f + f * per, (size_t)per * sizeof *a->f);
    else if (a->i)
        memcpy((*out)->i, a->i + f * per, (size_t)per * sizeof *a->i);
    return CM_OK;
}

static cm_status stack_frame(cm_array **all, const cm_array *one, int64_t f, int64_t frames,
                             cm_error *err)
{
    if (!*all) {
        int64_t dims[CM_ARRAY_MAX_RANK];
        int rank = one->rank ? one->rank : 1;
        memcpy(dims, one->dims, sizeof dims);
        if (!one->rank)
            dims[0] = 1;
        dims[0] *= frames;
        cm_status st = cm_array_new(one->dtype, rank, dims, all, err);
        if (st != CM_OK)
            return st;
    }
    cm_array *a = *all;
    if (one->count * frames != a->count || one->dtype != a->dtype)
        return cm_error_set(err, CM_EINPUT, "frame %lld gives an output of another shape",
                            (long long)f);
    if (a->f)
        memcpy(a->f + f * one->count, one->f, (size_t)one->count * sizeof *a->f);
    else if (a->i)
        memcpy(a->i + f * one->count, one->i, (size_t)one->count * sizeof *a->i);
    return CM_OK;
}

cm_status cm_runner_run_batch(cm_runner *r, const cm_array *const *inputs, int n_inputs,
                              const char *output_name, cm_array **output,
                              cm_run_progress_fn progress, void *user, cm_error *err)
{
    *output = NULL;
    if (n_inputs != r->n_inputs)
        return cm_error_set(err, CM_EINPUT, "%s: the model takes %d input%s, not %d", r->origin,
                            r->n_inputs, r->n_inputs == 1 ? "" : "s", n_inputs);
    if (r->n_inputs < 1 || r->n_inputs > 64)
        return cm_error_set(err, CM_EINPUT, "%s: the model has %d graph inputs", r->origin,
                            r->n_inputs);
    int64_t frames = -1;
    for (int k = 0; k < n_inputs; k++) {
        cm_status st = check_input(r, &r->inputs[k], inputs[k], true, err);
        if (st != CM_OK)
            return st;
        if (frames >= 0 && inputs[k]->dims[0] != frames)
            return cm_error_set(err, CM_EINPUT, "inputs hold batches of %lld and %lld frames",
                                (long long)frames, (long long)inputs[k]->dims[0]);
        frames = inputs[k]->dims[0];
    }
    if (frames < 1)
        return cm_error_set(err, CM_EINPUT, "the input holds no frame");
    const char *name = output_name ? output_name : r->outputs[0].name;
    cm_array *all = NULL;
    cm_status st = CM_OK;
    for (int64_t f = 0; f < frames && st == CM_OK; f++) {
        cm_array *one_in[64] = {0};
        for (int k = 0; k < n_inputs && st == CM_OK; k++)
            st = frame_of(inputs[k], f, &one_in[k], err);
        cm_array *one_out = NULL;
        if (st == CM_OK)
            st = cm_runner_execute(r, (const cm_array *const *)one_in, n_inputs, &name, 1,
                                   &one_out, err);
        if (st == CM_OK)
            st = stack_frame(&all, one_out, f, frames, err);
        cm_array_free(one_out);
        for (int k = 0; k < n_inputs; k++)
            cm_array_free(one_in[k]);
        if (progress)
            progress(user, f + 1, frames);
    }
    if (st != CM_OK) {
        cm_array_free(all);
        return st;
    }
    *output = all;
    return CM_OK;
}
