/* The layer graph: construction, removal of pass-through layers, totals and names. */
#include <cnnmap/graph.h>

#include <stdlib.h>
#include <string.h>

static const char *const op_names[CM_OP_COUNT] = {
    [CM_OP_CONV] = "conv",
    [CM_OP_FC] = "fc",
    [CM_OP_POOL_MAX] = "pool_max",
    [CM_OP_POOL_AVG] = "pool_avg",
    [CM_OP_GLOBAL_POOL_AVG] = "global_pool_avg",
    [CM_OP_GLOBAL_POOL_MAX] = "global_pool_max",
    [CM_OP_RELU] = "relu",
    [CM_OP_ACTIVATION] = "activation",
    [CM_OP_ADD] = "add",
    [CM_OP_MUL] = "mul",
    [CM_OP_CONCAT] = "concat",
    [CM_OP_SLICE] = "slice",
    [CM_OP_SHUFFLE] = "shuffle",
    [CM_OP_UPSAMPLE] = "upsample",
    [CM_OP_FLATTEN] = "flatten",
    [CM_OP_SOFTMAX] = "softmax",
    [CM_OP_BATCHNORM] = "batchnorm",
    [CM_OP_LAYERNORM] = "layernorm",
    [CM_OP_PAD] = "pad",
    [CM_OP_RESHAPE] = "reshape",
};

static const char *const activation_names[CM_ACT_COUNT] = {
    [CM_ACT_NONE] = "none",
    [CM_ACT_RELU] = "relu",
    [CM_ACT_RELU6] = "relu6",
    [CM_ACT_CLIP] = "clip",
    [CM_ACT_LEAKY_RELU] = "leaky_relu",
    [CM_ACT_SIGMOID] = "sigmoid",
    [CM_ACT_HARD_SIGMOID] = "hard_sigmoid",
    [CM_ACT_HARD_SWISH] = "hard_swish",
    [CM_ACT_TANH] = "tanh",
    [CM_ACT_ERF] = "erf",
    [CM_ACT_GELU] = "gelu",
};

const char *cm_op_name(cm_op op)
{
    return (unsigned)op < CM_OP_COUNT ? op_names[op] : "unknown";
}

const char *cm_activation_name(cm_activation a)
{
    return (unsigned)a < CM_ACT_COUNT ? activation_names[a] : "unknown";
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

cm_graph *cm_graph_new(const char *name)
{
    cm_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->name = dup_string(name ? name : "");
    if (!g->name) {
        free(g);
        return NULL;
    }
    return g;
}

static void layer_free(cm_layer *l)
{
    free(l->name);
    free(l->inputs);
    free(l->weights);
    free(l->bias);
}

void cm_graph_free(cm_graph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n_layers; i++)
        layer_free(&g->layers[i]);
    for (int i = 0; i < g->n_inputs; i++)
        free(g->inputs[i].name);
    free(g->inputs);
    free(g->layers);
    free(g->outputs);
    free(g->name);
    free(g);
}

cm_layer *cm_graph_add_layer(cm_graph *g, const char *name, cm_op op)
{
    if (g->n_layers == g->cap_layers) {
        int cap = g->cap_layers ? g->cap_layers * 2 : 16;
        cm_layer *grown = realloc(g->layers, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        g->layers = grown;
        g->cap_layers = cap;
    }
    cm_layer *l = &g->layers[g->n_layers];
    memset(l, 0, sizeof *l);
    l->name = dup_string(name);
    if (!l->name)
        return NULL;
    l->op = op;
    l->stride[0] = l->stride[1] = 1;
    l->dilation[0] = l->dilation[1] = 1;
    l->upsample[0] = l->upsample[1] = 1;
    l->groups = 1;
    g->n_layers++;
    return l;
}

cm_status cm_layer_set_inputs(cm_layer *l, const cm_source *inputs, int n, cm_error *err)
{
    cm_source *copy = malloc((size_t)(n > 0 ? n : 1) * sizeof *copy);
    if (!copy)
        return cm_error_nomem(err);
    if (n > 0)
        memcpy(copy, inputs, (size_t)n * sizeof *copy);
    free(l->inputs);
    l->inputs = copy;
    l->n_inputs = n;
    return CM_OK;
}

/* After removing layer `index` whose producer is `source`, every reference to it
 * becomes `source`, and references to later layers shift down by one. */
static cm_source renumber(cm_source s, int index, cm_source source)
{
    if (CM_SOURCE_IS_INPUT(s) || s < index)
        return s;
    if (s == index)
        return source;
    return s - 1;
}

cm_status cm_graph_bypass_layer(cm_graph *g, int index, cm_error *err)
{
    cm_layer *l = &g->layers[index];
    if (l->n_inputs != 1)
        return cm_error_set(err, CM_EINTERNAL, "layer '%s' has %d inputs and cannot be bypassed",
                            l->name, l->n_inputs);
    cm_source source = l->inputs[0];
    for (int o = 0; o < g->n_outputs; o++) {
        if (g->outputs[o] == index && CM_SOURCE_IS_INPUT(source))
            return cm_error_set(err, CM_EINTERNAL,
                                "layer '%s' joins a graph input to an output directly", l->name);
    }
    layer_free(l);
    memmove(l, l + 1, (size_t)(g->n_layers - index - 1) * sizeof *l);
    g->n_layers--;
    for (int i = 0; i < g->n_layers; i++) {
        cm_layer *c = &g->layers[i];
        for (int k = 0; k < c->n_inputs; k++)
            c->inputs[k] = renumber(c->inputs[k], index, source);
    }
    for (int o = 0; o < g->n_outputs; o++)
        g->outputs[o] = renumber(g->outputs[o], index, source);
    return CM_OK;
}

int cm_graph_consumers(const cm_graph *g, int index, int *first_consumer)
{
    int count = 0;
    for (int i = index + 1; i < g->n_layers; i++) {
        const cm_layer *c = &g->layers[i];
        for (int k = 0; k < c->n_inputs; k++) {
            if (c->inputs[k] == index) {
                if (count == 0 && first_consumer)
                    *first_consumer = i;
                count++;
            }
        }
    }
    return count;
}

/* Sums MACs and params; false when either overflows (the sums then saturate). */
static bool sum_totals(const cm_graph *g, cm_graph_totals *t)
{
    bool ok = true;
    *t = (cm_graph_totals){.layers = g->n_layers};
    for (int i = 0; i < g->n_layers; i++) {
        if (__builtin_add_overflow(t->macs, g->layers[i].macs, &t->macs)) {
            t->macs = UINT64_MAX;
            ok = false;
        }
        if (__builtin_add_overflow(t->params, g->layers[i].params, &t->params)) {
            t->params = UINT64_MAX;
            ok = false;
        }
    }
    return ok;
}

cm_graph_totals cm_graph_totals_of(const cm_graph *g)
{
    cm_graph_totals t;
    sum_totals(g, &t);
    return t;
}

cm_status cm_graph_check_totals(const cm_graph *g, cm_error *err)
{
    cm_graph_totals t;
    if (!sum_totals(g, &t))
        return cm_error_set(err, CM_EINPUT,
                            "the network's total operation or parameter count overflows 64 bits");
    return CM_OK;
}

cm_status cm_graph_remove_unreachable(cm_graph *g, cm_error *err)
{
    if (g->n_layers == 0)
        return CM_OK;
    int *new_index = malloc((size_t)g->n_layers * sizeof *new_index);
    if (!new_index)
        return cm_error_nomem(err);
    for (int i = 0; i < g->n_layers; i++)
        new_index[i] = -1; /* -1: not (yet) known to reach an output */
    for (int o = 0; o < g->n_outputs; o++)
        if (g->outputs[o] >= 0 && g->outputs[o] < g->n_layers)
            new_index[g->outputs[o]] = 0;
    /* Producers precede consumers, so one backward sweep marks every ancestor. */
    for (int i = g->n_layers - 1; i >= 0; i--) {
        if (new_index[i] < 0)
            continue;
        const cm_layer *l = &g->layers[i];
        for (int k = 0; k < l->n_inputs; k++)
            if (!CM_SOURCE_IS_INPUT(l->inputs[k]) && l->inputs[k] < i)
                new_index[l->inputs[k]] = 0;
    }
    int kept = 0;
    for (int i = 0; i < g->n_layers; i++) {
        if (new_index[i] < 0) {
            layer_free(&g->layers[i]);
            continue;
        }
        new_index[i] = kept;
        if (kept != i)
            g->layers[kept] = g->layers[i];
        kept++;
    }
    for (int i = 0; i < kept; i++) {
        cm_layer *l = &g->layers[i];
        for (int k = 0; k < l->n_inputs; k++)
            if (!CM_SOURCE_IS_INPUT(l->inputs[k]))
                l->inputs[k] = new_index[l->inputs[k]];
    }
    for (int o = 0; o < g->n_outputs; o++)
        if (g->outputs[o] >= 0 && g->outputs[o] < g->n_layers)
            g->outputs[o] = new_index[g->outputs[o]];
    g->n_removed_unreachable += g->n_layers - kept;
    g->n_layers = kept;
    free(new_index);
    return CM_OK;
}

/* The bit width with the largest MAC share, given each layer's width via pick. */
static int heaviest_bits(const cm_graph *g, int (*pick)(const cm_layer *))
{
    uint64_t macs_at[65] = {0};
    int best = 0;
    for (int i = 0; i < g->n_layers; i++) {
        const cm_layer *l = &g->layers[i];
        int bits = pick(l);
        if ((l->op == CM_OP_CONV || l->op == CM_OP_FC) && bits >= 1 && bits <= 64)
            macs_at[bits] += l->macs;
    }
    for (int b = 1; b <= 64; b++)
        if (macs_at[b] > macs_at[best])
            best = b;
    return best;
}

static int weight_bits_of(const cm_layer *l)
{
    return l->weight_q.bits;
}

static int act_bits_of(const cm_layer *l)
{
    return l->in_q.bits;
}

void cm_graph_typical_bits(const cm_graph *g, int *weight_bits, int *act_bits)
{
    *weight_bits = heaviest_bits(g, weight_bits_of);
    *act_bits = heaviest_bits(g, act_bits_of);
}

static bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

cm_status cm_layer_compute_cost(cm_layer *l, cm_error *err)
{
    if (l->groups < 1)
        return cm_error_set(err, CM_EINPUT, "layer '%s': group count %d is not positive", l->name,
                            l->groups);
    const cm_shape *in = &l->in_shape, *out = &l->out_shape;
    uint64_t bias = l->has_bias ? (uint64_t)out->c : 0;
    uint64_t per_output = 0, outputs = 0;
    bool ok = true;
    switch (l->op) {
    case CM_OP_CONV:
        ok = mul_ok((uint64_t)(in->c / l->groups), (uint64_t)l->kernel[0], &per_output) &&
             mul_ok(per_output, (uint64_t)l->kernel[1], &per_output) &&
             mul_ok((uint64_t)out->c, (uint64_t)out->h, &outputs) &&
             mul_ok(outputs, (uint64_t)out->w, &outputs) && mul_ok(outputs, per_output, &l->macs) &&
             mul_ok((uint64_t)out->c, per_output, &l->params) &&
             !__builtin_add_overflow(l->params, bias, &l->params);
        break;
    case CM_OP_FC:
        ok = mul_ok((uint64_t)in->c, (uint64_t)in->h, &per_output) &&
             mul_ok(per_output, (uint64_t)in->w, &per_output) &&
             mul_ok(per_output, (uint64_t)out->c, &l->macs) &&
             !__builtin_add_overflow(l->macs, bias, &l->params);
        break;
    case CM_OP_BATCHNORM:
        l->macs = 0;
        l->params = 2 * (uint64_t)out->c; /* scale and shift once folded */
        break;
    case CM_OP_LAYERNORM:
        l->macs = 0;
        l->params = l->has_bias ? 2 * (uint64_t)out->c : (uint64_t)out->c; /* scale, shift */
        break;
    case CM_OP_ADD:
    case CM_OP_MUL:
        l->macs = 0;
        break;
    default:
        l->macs = 0;
        l->params = 0;
        break;
    }
    if (!ok)
        return cm_error_set(err, CM_EINPUT, "layer '%s': operation count overflows 64 bits",
                            l->name);
    return CM_OK;
}

const char *cm_graph_source_name(const cm_graph *g, cm_source s)
{
    if (CM_SOURCE_IS_INPUT(s)) {
        int i = CM_SOURCE_INPUT_INDEX(s);
        return i < g->n_inputs ? g->inputs[i].name : "?";
    }
    return s < g->n_layers ? g->layers[s].name : "?";
}
