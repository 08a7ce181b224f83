/* hl_lower: the QONNX model, as the reference executor loaded it (weight quantisers
 * already folded into constants), becomes a network of integer tasks. Each ONNX value
 * maps to an integer tensor (or a ReLU or Flatten view of one); the scales are powers of
 * two, so every rescaling is a shift and the network computes exactly what the QONNX
 * definition computes in float64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hls/hls_ir.h"
#include "model/import.h"
#include "run/run_internal.h"

/* Codes above 2^40 mean a broken quantiser, not a network (and keep sums in int64). */
#define HL_CODE_MAX ((int64_t)1 << 40)

const char *hl_kind_name(hl_kind k)
{
    static const char *const names[] = {"input", "conv", "dwconv", "fc", "maxpool",
                                        "gmaxpool", "gavgpool", "add", "requant"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

int hl_bits_for_range(int64_t lo, int64_t hi, bool *is_signed)
{
    *is_signed = lo < 0;
    int bits = 1;
    if (*is_signed) {
        while (bits < 63 && (lo < -((int64_t)1 << (bits - 1)) || hi > ((int64_t)1 << (bits - 1)) - 1))
            bits++;
    } else {
        while (bits < 63 && hi > ((int64_t)1 << bits) - 1)
            bits++;
    }
    return bits;
}

typedef struct lower {
    const cm_runner *r;
    hl_net *net;
    int *tensor_of;  /* per ONNX value: tensor index, or -1 */
    bool *relu_of;   /* per value: a ReLU view not yet applied */
    const cm_run_node *node;
    cm_error *err;
} lower;

static const char *node_name(const cm_run_node *n)
{
    const Onnx__NodeProto *p = n->proto;
    if (p->name && *p->name)
        return p->name;
    return p->n_output ? p->output[0] : p->op_type;
}

static cm_status fail(lower *L, const char *fmt, const char *detail)
{
    char what[160];
    snprintf(what, sizeof what, fmt, detail);
    return cm_error_set(L->err, CM_EINPUT, "%s: node %s (%s): %s", L->r->origin,
                        node_name(L->node), L->node->proto->op_type, what);
}

static int value_in(const lower *L, int j)
{
    return j < L->node->n_in ? L->node->in[j] : -1;
}

static const cm_array *const_in(const lower *L, int j)
{
    int v = value_in(L, j);
    return v >= 0 ? L->r->consts[v] : NULL;
}

static cm_status grow(void **p, int n, size_t size, cm_error *err)
{
    if ((n & (n - 1)) != 0 && n != 0)
        return CM_OK;
    void *q = realloc(*p, (size_t)(n ? 2 * n : 8) * size);
    if (!q)
        return cm_error_nomem(err);
    *p = q;
    return CM_OK;
}

static cm_status new_tensor(lower *L, int64_t c, int64_t h, int64_t w, int64_t lo, int64_t hi,
                            int frac, int *out)
{
    hl_net *net = L->net;
    cm_status st = grow((void **)&net->t, net->n_t, sizeof *net->t, L->err);
    if (st != CM_OK)
        return st;
    if (lo < -HL_CODE_MAX * 64 || hi > HL_CODE_MAX * 64)
        return fail(L, "%s", "its integer values would need more than 46 bits");
    hl_tensor *t = &net->t[net->n_t];
    *t = (hl_tensor){.c = c, .h = h, .w = w, .lo = lo, .hi = hi, .frac = frac, .div = 1,
                     .producer = net->n_op - 1};
    *out = net->n_t++;
    return CM_OK;
}

static cm_status new_op(lower *L, hl_kind kind, hl_op **out)
{
    hl_net *net = L->net;
    cm_status st = grow((void **)&net->op, net->n_op, sizeof *net->op, L->err);
    if (st != CM_OK)
        return st;
    hl_op *op = &net->op[net->n_op];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->stride = 1;
    op->groups = 1;
    net->n_op++;
    if (!(op->name = strdup(node_name(L->node))))
        return cm_error_nomem(L->err);
    *out = op;
    return CM_OK;
}

/* The tensor feeding input j: a Quant's codes (no ReLU still to apply), or, when
 * sums_too, any integer tensor whose scale is a power of two (an accumulator). */
static cm_status integer_in(lower *L, int j, bool sums_too, int *t)
{
    int v = value_in(L, j);
    if (v < 0 || L->tensor_of[v] < 0)
        return fail(L, "input %s is not an integer activation of this flow (a Quant must "
                       "precede it)", v >= 0 ? L->r->value_names[v] : "(missing)");
    const hl_tensor *x = &L->net->t[L->tensor_of[v]];
    if (L->relu_of[v] || (!x->is_codes && !(sums_too && x->div == 1)))
        return fail(L, "input %s must be quantised by a Quant first", L->r->value_names[v]);
    *t = L->tensor_of[v];
    return CM_OK;
}

static cm_status codes_in(lower *L, int j, int *t)
{
    return integer_in(L, j, false, t);
}

static void set_output(lower *L, int t, bool relu)
{
    int v = L->node->n_out ? L->node->out[0] : -1;
    if (v >= 0) {
        L->tensor_of[v] = t;
        L->relu_of[v] = relu;
    }
}

/* Wires a one-input op: x in, t out, and the node's output value to t. */
static void connect(lower *L, hl_op *op, int x, int t)
{
    op->in[0] = x;
    op->n_in = 1;
    op->out = t;
    L->net->t[x].n_consumers++;
    set_output(L, t, false);
}

/* The exponent e with x = 2^e exactly, or false. */
static bool power_of_two(double x, int *e)
{
    if (!(x > 0) || !isfinite(x) || frexp(x, e) != 0.5)
        return false;
    (*e)--;
    return true;
}

/* The coarsest power-of-two grid that holds a constant's values exactly (values = codes
 * * 2^-frac), and the codes' range, without keeping the codes. */
static cm_status const_grid(lower *L, const cm_array *a, const char *what, int *frac,
                            int64_t *lo, int64_t *hi)
{
    if (!a || !a->f)
        return fail(L, "its %s are not constant floats", what);
    int f = -40;
    for (int64_t k = 0; k < a->count; k++) {
        double v = a->f[k];
        /* Read from the bits, not with frexp/ldexp: MobileNetV2 has millions of
         * weights and the library calls were most of the lowering's instructions. */
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        int biased = (int)((bits >> 52) & 0x7ff);
        uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
        if (biased == 0x7ff)
            return fail(L, "its %s hold a value that is not finite", what);
        if (m == 0 && biased == 0)
            continue; /* +0 or -0 */
        /* |v| = m * 2^q with an integer m (the implicit leading 1 added for a normal
         * number): v * 2^f is an integer from f = -q - (m's trailing zero bits) on. */
        int q = biased ? biased - 1075 : -1074;
        if (biased)
            m |= UINT64_C(1) << 52;
        int need = -q - __builtin_ctzll(m);
        f = need > f ? need : f;
    }
    if (f > 60)
        return fail(L, "its %s are not on a power-of-two grid", what);
    double scale = ldexp(1.0, f); /* a power of two: the products below are exact */
    int64_t min = 0, max = 0;
    for (int64_t k = 0; k < a->count; k++) {
        double s = a->f[k] * scale;
        if (fabs(s) > (double)HL_CODE_MAX)
            return fail(L, "its %s need more than 40 bits as integers", what);
        int64_t c = (int64_t)s;
        min = c < min ? c : min;
        max = c > max ? c : max;
    }
    *lo = min;
    *hi = max;
    *frac = f;
    return CM_OK;
}

/* A constant's values as integer codes on its grid (const_grid). */
static cm_status const_codes(lower *L, const cm_array *a, const char *what, int64_t **codes,
                             int *frac, int64_t *lo, int64_t *hi)
{
    cm_status st = const_grid(L, a, what, frac, lo, hi);
    if (st != CM_OK)
        return st;
    int64_t *c = malloc((size_t)(a->count ? a->count : 1) * sizeof *c);
    if (!c)
        return cm_error_nomem(L->err);
    double scale = ldexp(1.0, *frac);
    for (int64_t k = 0; k < a->count; k++)
        c[k] = (int64_t)(a->f[k] * scale);
    *codes = c;
    return CM_OK;
}

/* ---- Quant ---- */

typedef struct quant_params {
    int bits, frac;
    bool is_signed, narrow;
    int64_t lo, hi;
} quant_params;

static cm_status read_quant(lower *L, quant_params *q)
{
    const cm_array *s = const_in(L, 1), *zp = const_in(L, 2), *b = const_in(L, 3);
    if (!s || !zp || !b || s->count != 1 || zp->count != 1 || b->count != 1)
        return fail(L, "%s", "scale, zero point and bit width must be constant scalars");
    int e;
    if (!power_of_two(cm_run_getf(s, 0), &e))
        return fail(L, "%s", "its scale is not a power of two");
    if (cm_run_getf(zp, 0) != 0)
        return fail(L, "%s", "its zero point is not 0");
    double bits = cm_run_getf(b, 0);
    if (!(bits >= 1 && bits <= 32) || bits != floor(bits))
        return fail(L, "%s", "its bit width is not an integer from 1 to 32");
    char mode[32];
    cm_attr_string(L->node->proto, "rounding_mode", mode, sizeof mode);
    if (*mode && strcmp(mode, "ROUND") != 0)
        return fail(L, "rounding_mode %s (only ROUND, half to even, has a building block)", mode);
    q->bits = (int)bits;
    q->frac = -e;
    q->is_signed = cm_attr_int(L->node->proto, "signed", 1) != 0;
    q->narrow = cm_attr_int(L->node->proto, "narrow", 0) != 0;
    if (q->is_signed) {
        q->lo = -((int64_t)1 << (q->bits - 1)) + (q->narrow ? 1 : 0);
        q->hi = ((int64_t)1 << (q->bits - 1)) - 1;
    } else {
        q->lo = 0;
        q->hi = ((int64_t)1 << q->bits) - 1 - (q->narrow ? 1 : 0);
    }
    return CM_OK;
}

static bool is_graph_input(const lower *L, int v)
{
    for (int i = 0; i < L->r->n_inputs; i++)
        if (L->r->input_value[i] == v)
            return true;
    return false;
}

static cm_status lower_input(lower *L, const quant_params *q)
{
    const cm_runner_io *io = cm_runner_input(L->r, 0);
    if (L->r->n_inputs != 1 || io->rank != 4)
        return fail(L, "%s", "the flow takes one N x C x H x W input");
    hl_net *net = L->net;
    for (int d = 0; d < 4; d++)
        net->in_dims[d] = d == 0 ? 1 : io->dims[d];
    if (net->in_dims[1] < 1 || net->in_dims[2] < 1 || net->in_dims[3] < 1)
        return fail(L, "%s", "the input's C, H and W must be fixed");
    hl_op *op;
    int t;
    cm_status st = new_op(L, HL_INPUT, &op);
    if (st == CM_OK)
        st = new_tensor(L, net->in_dims[1], net->in_dims[2], net->in_dims[3], q->lo, q->hi, q->frac, &t);
    if (st != CM_OK)
        return st;
    op->out = t; /* the tensor's range is the quantiser's: the testbench clamps to it */
    net->t[t].is_codes = true;
    net->input = t;
    set_output(L, t, false);
    return CM_OK;
}

static cm_status lower_quant(lower *L)
{
    quant_params q = {0};
    cm_status st = read_quant(L, &q);
    if (st != CM_OK)
        return st;
    int v = value_in(L, 0);
    if (v >= 0 && is_graph_input(L, v)) {
        if (L->net->n_op > 0)
            return fail(L, "%s", "the graph input is quantised twice");
        return lower_input(L, &q);
    }
    if (v < 0 || L->tensor_of[v] < 0)
        return fail(L, "%s", "it quantises a value this flow does not compute");
    int x = L->tensor_of[v];
    const hl_tensor in_copy = L->net->t[x], *in = &in_copy; /* new_tensor may move net->t */
    /* A Quant that cannot change any value (exporters put one before every layer, on a
     * tensor already quantised the same way) is no task at all. */
    bool relu = L->relu_of[v];
    if (in->is_codes && in->frac == q.frac && in->lo >= (relu ? 0 : q.lo) && in->hi <= q.hi) {
        set_output(L, x, false);
        return CM_OK;
    }
    hl_op *op;
    int t;
    if ((st = new_op(L, HL_REQUANT, &op)) != CM_OK ||
        (st = new_tensor(L, in->c, in->h, in->w, q.lo, q.hi, q.frac, &t)) != CM_OK)
        return st;
    op->in[0] = x;
    op->n_in = 1;
    op->out = t;
    op->obits = q.bits;
    op->osigned = q.is_signed;
    op->narrow = q.narrow;
    op->relu = L->relu_of[v];
    op->shift = in->frac - q.frac;
    if (op->relu && L->net->t[t].lo < 0)
        L->net->t[t].lo = 0;
    L->net->t[t].is_codes = true;
    L->net->t[x].n_consumers++;
    set_output(L, t, false);
    return CM_OK;
}

/* ---- convolution and Gemm ---- */

static cm_status conv_geometry(lower *L, const hl_tensor *x, const cm_array *w, hl_op *op)
{
    int64_t ks[2] = {w->dims[2], w->dims[3]}, pads[4] = {0, 0, 0, 0}, st[2] = {1, 1}, dil[2] = {1, 1};
    const Onnx__NodeProto *p = L->node->proto;
    char auto_pad[32];
    cm_attr_string(p, "auto_pad", auto_pad, sizeof auto_pad);
    if (*auto_pad && strcmp(auto_pad, "NOTSET") != 0)
        return fail(L, "auto_pad %s (explicit pads only)", auto_pad);
    if (cm_attr_ints(p, "pads", pads, 4) > 4 || cm_attr_ints(p, "strides", st, 2) > 2 ||
        cm_attr_ints(p, "dilations", dil, 2) > 2)
        return fail(L, "%s", "it is not a 2-D operation");
    if (dil[0] != 1 || dil[1] != 1)
        return fail(L, "%s", "dilation other than 1 has no building block");
    if (st[0] != st[1])
        return fail(L, "%s", "different strides along H and W have no building block");
    if (pads[0] != pads[1] || pads[0] != pads[2] || pads[0] != pads[3])
        return fail(L, "%s", "asymmetric padding has no building block");
    if (pads[0] >= ks[0] || pads[0] >= ks[1] || st[0] < 1 || st[0] > 64)
        return fail(L, "%s", "its padding or stride is out of the building blocks' range");
    op->fh = (int)ks[0];
    op->fw = (int)ks[1];
    op->stride = (int)st[0];
    op->pad = (int)pads[0];
    int64_t oh = (x->h + 2 * pads[0] - ks[0]) / st[0] + 1, ow = (x->w + 2 * pads[0] - ks[1]) / st[0] + 1;
    if (oh < 1 || ow < 1)
        return fail(L, "%s", "its window is larger than the padded input");
    return CM_OK;
}

static int64_t out_size(int64_t in, int f, int s, int pad)
{
    return (in + 2 * pad - f) / s + 1;
}

/* Weights and bias codes; the accumulator's frac is input frac + weight frac, made
 * finer (weights shifted left) when the bias sits on a finer grid. */
static cm_status weights_and_bias(lower *L, hl_op *op, const hl_tensor *x, int64_t outputs,
                                  int *acc_frac)
{
    int wf, bf = 0;
    const cm_array *w = const_in(L, 1);
    cm_status st = const_grid(L, w, "weights", &wf, &op->w_lo, &op->w_hi);
    if (st != CM_OK)
        return st;
    op->w_src = w->f;
    op->n_w = w->count;
    int w_exp = wf; /* codes = values * 2^w_exp */
    const cm_array *b = value_in(L, 2) >= 0 ? const_in(L, 2) : NULL;
    if (value_in(L, 2) >= 0 && !b)
        return fail(L, "%s", "its bias is not constant");
    if (b) {
        if (b->count != outputs)
            return fail(L, "%s", "its bias does not have one value per output channel");
        if ((st = const_codes(L, b, "bias", &op->b, &bf, &op->b_lo, &op->b_hi)) != CM_OK)
            return st;
        op->n_b = b->count;
    }
    if (op->w_lo == 0 && op->w_hi == 0)
        wf = 0; /* all-zero weights sit on every grid */
    int af = x->frac + wf;
    if (b && op->b_lo == 0 && op->b_hi == 0)
        bf = af;
    if (b && bf > af) { /* finer bias: shift the weights up to its grid */
        w_exp += bf - af;
        op->w_lo *= (int64_t)1 << (bf - af);
        op->w_hi *= (int64_t)1 << (bf - af);
        af = bf;
    }
    if (b && bf < af) {
        if (af - bf > 30)
            return fail(L, "%s", "its bias and accumulator scales are too far apart");
        for (int64_t k = 0; k < op->n_b; k++)
            op->b[k] *= (int64_t)1 << (af - bf);
        op->b_lo *= (int64_t)1 << (af - bf);
        op->b_hi *= (int64_t)1 << (af - bf);
    }
    op->w_scale = ldexp(1.0, w_exp);
    *acc_frac = af;
    return CM_OK;
}

/* The accumulator's exact range: per output, the input range against each weight. */
static void accumulator_range(const hl_op *op, const hl_tensor *x, int64_t outputs, int64_t *lo,
                              int64_t *hi)
{
    int64_t per = op->n_w / outputs;
    *lo = *hi = 0;
    for (int64_t o = 0; o < outputs; o++) {
        int64_t a = op->b ? op->b[o] : 0, b = a;
        for (int64_t k = 0; k < per; k++) {
            int64_t wv = hl_weight(op, o * per + k);
            int64_t p1 = wv * x->lo, p2 = wv * x->hi;
            a += p1 < p2 ? p1 : p2;
            b += p1 < p2 ? p2 : p1;
        }
        *lo = a < *lo ? a : *lo;
        *hi = b > *hi ? b : *hi;
    }
}

static cm_status lower_conv(lower *L)
{
    int x = -1;
    cm_status st = codes_in(L, 0, &x);
    if (st != CM_OK)
        return st;
    const cm_array *w = const_in(L, 1);
    if (!w || w->rank != 4)
        return fail(L, "%s", "its weights are not a constant 4-D tensor");
    hl_tensor in = L->net->t[x];
    int64_t group = cm_attr_int(L->node->proto, "group", 1);
    hl_kind kind = HL_CONV;
    if (group == in.c && group > 1 && w->dims[0] == in.c && w->dims[1] == 1)
        kind = HL_DWCONV;
    else if (group < 1 || group > in.c || w->dims[1] * group != in.c || w->dims[0] % group != 0)
        return fail(L, "%s", "its group count does not divide its input and output channels "
                    "as its weights say");
    hl_op *op;
    if ((st = new_op(L, kind, &op)) != CM_OK)
        return st;
    if (kind == HL_CONV)
        op->groups = (int)group;
    if ((st = conv_geometry(L, &in, w, op)) != CM_OK)
        return st;
    int af;
    if ((st = weights_and_bias(L, op, &in, w->dims[0], &af)) != CM_OK)
        return st;
    int64_t lo, hi;
    accumulator_range(op, &in, w->dims[0], &lo, &hi);
    int t;
    if ((st = new_tensor(L, w->dims[0], out_size(in.h, op->fh, op->stride, op->pad),
                         out_size(in.w, op->fw, op->stride, op->pad), lo, hi, af, &t)) != CM_OK)
        return st;
    connect(L, op, x, t);
    return CM_OK;
}

static cm_status lower_gemm(lower *L)
{
    int x = -1;
    cm_status st = codes_in(L, 0, &x);
    if (st != CM_OK)
        return st;
    const Onnx__NodeProto *p = L->node->proto;
    const cm_array *w = const_in(L, 1);
    hl_tensor in = L->net->t[x];
    if (in.h != 1 || in.w != 1)
        return fail(L, "%s", "it reads a feature map that is not flattened to a vector");
    if (!w || w->rank != 2 || cm_attr_int(p, "transA", 0) != 0 ||
        cm_attr_float(p, "alpha", 1.0) != 1.0 || cm_attr_float(p, "beta", 1.0) != 1.0)
        return fail(L, "%s", "only Gemm with constant weights, alpha = beta = 1 and no transA");
    bool trans_b = cm_attr_int(p, "transB", 0) != 0;
    int64_t och = trans_b ? w->dims[0] : w->dims[1], ich = trans_b ? w->dims[1] : w->dims[0];
    if (ich != in.c)
        return fail(L, "%s", "its weights do not match the input's length");
    hl_op *op;
    if ((st = new_op(L, HL_FC, &op)) != CM_OK)
        return st;
    op->fh = op->fw = 1;
    int af;
    if ((st = weights_and_bias(L, op, &in, och, &af)) != CM_OK)
        return st;
    if (!trans_b) /* the templates take weights[o][i]: hl_weight reads across */
        op->w_ich = ich;
    int64_t lo, hi;
    accumulator_range(op, &in, och, &lo, &hi);
    int t;
    if ((st = new_tensor(L, och, 1, 1, lo, hi, af, &t)) != CM_OK)
        return st;
    connect(L, op, x, t);
    return CM_OK;
}

/* ---- pooling, add, views ---- */

static cm_status lower_pool(lower *L, bool global, bool max)
{
    int x = -1;
    cm_status st = codes_in(L, 0, &x);
    if (st != CM_OK)
        return st;
    hl_tensor in = L->net->t[x];
    hl_op *op;
    if ((st = new_op(L, max ? HL_MAXPOOL : HL_GAVGPOOL, &op)) != CM_OK)
        return st;
    if (!global) {
        if (cm_attr_int(L->node->proto, "ceil_mode", 0) != 0 ||
            cm_attr_int(L->node->proto, "storage_order", 0) != 0)
            return fail(L, "%s", "ceil_mode and storage_order are not supported");
        int64_t ks[2] = {0, 0};
        if (cm_attr_ints(L->node->proto, "kernel_shape", ks, 2) != 2)
            return fail(L, "%s", "it has no 2-D kernel_shape");
        cm_array kernel = {.rank = 4, .dims = {1, 1, ks[0], ks[1]}};
        if ((st = conv_geometry(L, &in, &kernel, op)) != CM_OK)
            return st;
        global = op->fh == in.h && op->fw == in.w && op->pad == 0;
    }
    int64_t lo = in.lo, hi = in.hi, div = 1;
    if (global && !max) {
        div = in.h * in.w;
        lo *= div;
        hi *= div;
    }
    op->kind = !max ? HL_GAVGPOOL : global ? HL_GMAXPOOL : HL_MAXPOOL;
    if (global)
        op->fh = (int)in.h, op->fw = (int)in.w;
    int t;
    if ((st = new_tensor(L, in.c, global ? 1 : out_size(in.h, op->fh, op->stride, op->pad),
                         global ? 1 : out_size(in.w, op->fw, op->stride, op->pad), lo, hi, in.frac,
                         &t)) != CM_OK)
        return st;
    op->in[0] = x;
    op->n_in = 1;
    op->out = t;
    L->net->t[t].is_codes = max; /* a max of codes is a code; sums still need their divide */
    L->net->t[t].div = div;
    L->net->t[x].n_consumers++;
    set_output(L, t, false);
    return CM_OK;
}

static cm_status lower_add(lower *L)
{
    int a = -1, b = -1;
    cm_status st = integer_in(L, 0, true, &a);
    if (st == CM_OK)
        st = integer_in(L, 1, true, &b);
    if (st != CM_OK)
        return st;
    const hl_tensor *ta = &L->net->t[a], *tb = &L->net->t[b];
    if (ta->c != tb->c || ta->h != tb->h || ta->w != tb->w)
        return fail(L, "%s", "its operands differ in shape (broadcasting has no building block)");
    int f = ta->frac > tb->frac ? ta->frac : tb->frac;
    int sa = f - ta->frac, sb = f - tb->frac;
    if (sa > 20 || sb > 20)
        return fail(L, "%s", "its operands' scales are too far apart");
    int64_t lo = ta->lo * ((int64_t)1 << sa) + tb->lo * ((int64_t)1 << sb);
    int64_t hi = ta->hi * ((int64_t)1 << sa) + tb->hi * ((int64_t)1 << sb);
    hl_op *op;
    int t;
    int64_t c = ta->c, h = ta->h, w = ta->w;
    if ((st = new_op(L, HL_ADD, &op)) != CM_OK ||
        (st = new_tensor(L, c, h, w, lo, hi, f, &t)) != CM_OK)
        return st;
    op->in[0] = a;
    op->in[1] = b;
    op->n_in = 2;
    op->out = t;
    op->shift_a = sa;
    op->shift_b = sb;
    L->net->t[a].n_consumers++;
    L->net->t[b].n_consumers++;
    set_output(L, t, false);
    return CM_OK;
}

static cm_status lower_view(lower *L, bool relu)
{
    int v = value_in(L, 0);
    if (v < 0 || L->tensor_of[v] < 0)
        return fail(L, "%s", "it reads a value this flow does not compute");
    const hl_tensor *t = &L->net->t[L->tensor_of[v]];
    if (!relu && (t->h != 1 || t->w != 1))
        return fail(L, "%s", "flattening a feature map (not 1 x 1) reorders it; no building block");
    if (!relu && cm_attr_int(L->node->proto, "axis", 1) != 1)
        return fail(L, "%s", "only Flatten at axis 1");
    set_output(L, L->tensor_of[v], L->relu_of[v] || relu);
    return CM_OK;
}

static cm_status lower_node(lower *L)
{
    const char *op = L->node->proto->op_type;
    const char *domain = L->node->proto->domain ? L->node->proto->domain : "";
    if (!strcmp(op, "Quant") && cm_run_is_qonnx_domain(domain))
        return lower_quant(L);
    if (*domain && strcmp(domain, "ai.onnx") != 0)
        return fail(L, "%s", "no building block for this operator");
    if (!strcmp(op, "Conv"))
        return lower_conv(L);
    if (!strcmp(op, "Gemm"))
        return lower_gemm(L);
    if (!strcmp(op, "MaxPool"))
        return lower_pool(L, false, true);
    if (!strcmp(op, "GlobalMaxPool"))
        return lower_pool(L, true, true);
    if (!strcmp(op, "GlobalAveragePool"))
        return lower_pool(L, true, false);
    if (!strcmp(op, "Add"))
        return lower_add(L);
    if (!strcmp(op, "Relu"))
        return lower_view(L, true);
    if (!strcmp(op, "Flatten"))
        return lower_view(L, false);
    return fail(L, "%s", "no building block for this operator");
}

static cm_status check_output(lower *L)
{
    hl_net *net = L->net;
    if (L->r->n_outputs != 1)
        return cm_error_set(L->err, CM_EINPUT, "%s: the flow takes one graph output, not %d",
                            L->r->origin, L->r->n_outputs);
    int v = L->r->output_value[0];
    if (L->tensor_of[v] < 0 || L->relu_of[v] || !net->t[L->tensor_of[v]].is_codes)
        return cm_error_set(L->err, CM_EINPUT,
                            "%s: the graph output %s is not the output of a Quant", L->r->origin,
                            L->r->value_names[v]);
    net->output = L->tensor_of[v];
    const cm_runner_io *io = cm_runner_output(L->r, 0);
    const hl_tensor *t = &net->t[net->output];
    net->out_rank = io->rank;
    int64_t count = 1;
    bool dynamic = false;
    for (int d = 0; d < io->rank; d++) {
        net->out_dims[d] = d == 0 ? 1 : io->dims[d];
        dynamic |= net->out_dims[d] < 1;
        count *= net->out_dims[d] > 0 ? net->out_dims[d] : 1;
    }
    if (dynamic && io->rank == 4) { /* N x C x H x W as computed */
        net->out_dims[1] = t->c, net->out_dims[2] = t->h, net->out_dims[3] = t->w;
        count = t->c * t->h * t->w;
    } else if (dynamic && io->rank == 2) {
        net->out_dims[1] = count = t->c * t->h * t->w;
    }
    if (count != t->c * t->h * t->w)
        return cm_error_set(L->err, CM_EINPUT, "%s: the graph output's declared shape does not "
                            "hold its %lld values", L->r->origin, (long long)(t->c * t->h * t->w));
    return CM_OK;
}

cm_status hl_lower(const cm_runner *r, hl_net *net, cm_error *err)
{
    memset(net, 0, sizeof *net);
    net->input = net->output = -1;
    lower L = {.r = r, .net = net, .err = err};
    L.tensor_of = malloc((size_t)(r->n_values + 1) * sizeof *L.tensor_of);
    L.relu_of = calloc((size_t)r->n_values + 1, sizeof *L.relu_of);
    if (!L.tensor_of || !L.relu_of) {
        free(L.tensor_of);
        free(L.relu_of);
        return cm_error_nomem(err);
    }
    for (int v = 0; v < r->n_values; v++)
        L.tensor_of[v] = -1;
    cm_status st = CM_OK;
    for (int k = 0; k < r->n_nodes && st == CM_OK; k++) {
        L.node = &r->nodes[k];
        st = lower_node(&L);
    }
    if (st == CM_OK && net->input < 0)
        st = cm_error_set(err, CM_EINPUT, "%s: the graph input is not quantised by a Quant",
                          r->origin);
    if (st == CM_OK)
        st = check_output(&L);
    free(L.tensor_of);
    free(L.relu_of);
    if (st != CM_OK)
        hl_net_free(net);
    return st;
}

void hl_net_free(hl_net *net)
{
    for (int i = 0; i < net->n_op; i++) {
        free(net->op[i].name);
        free(net->op[i].b);
    }
    free(net->op);
    free(net->t);
    memset(net, 0, sizeof *net);
}
