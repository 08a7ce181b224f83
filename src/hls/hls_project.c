/* cm_hls_export: writes the HLS project of an nn2FPGA design. The model is loaded by the
 * reference executor and lowered to integer tasks (hls_lower.c), bound to the design's
 * unroll factors by layer name, planned and emitted (hls_generate.c), and written with
 * the embedded building blocks, weight headers, testbench, Makefile, Vitis HLS script
 * and test vectors (random frames and `cnnmap run`'s outputs on them) into a temporary
 * folder that is renamed into place only when everything is written. */
#define _XOPEN_SOURCE 700
#include <cnnmap/hls.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cnnmap/run.h>
#include <cnnmap/version.h>

#include "hls/hls_files.h"
#include "hls/hls_gen.h"
#include "hls/hls_graph.h"
#include "run/run_internal.h"
#include "util/atomic_file.h"
#include "util/rng.h"

#define HG_TOP "cnnmap_top"

void cm_hls_options_init(cm_hls_options *o)
{
    memset(o, 0, sizeof *o);
    o->test_vectors = 10;
}

const cm_hls_file *cm_hls_file_find(const char *path)
{
    return cm_embedded_find(cm_hls_files, cm_hls_files_count, path);
}

/* The executor's model and its integer tasks with a design's factors bound. */
struct cm_hls_lowered {
    cm_runner *runner;
    hl_net net;
};

void cm_hls_lowered_free(struct cm_hls_lowered *l)
{
    if (!l)
        return;
    hl_net_free(&l->net);
    cm_runner_free(l->runner);
    free(l);
}

typedef struct project {
    const cm_nn2fpga_design *d;
    const cm_hls_options *o;
    const char *origin;
    char *tmp;          /* the folder being written */
    struct cm_hls_lowered *lowered; /* the design's, or owned when `owned` */
    bool owned;
    hg_ctx g;
    cm_hls_summary *summary;
    cm_error *err;
} project;

/* ---- binding the design ---- */

static int design_layer_named(const cm_nn2fpga_design *d, const char *name, bool *merged)
{
    for (int i = 0; i < d->result.n_layers; i++) {
        const cm_nn2fpga_layer *l = &d->result.layers[i];
        if (l->layer >= 0 && l->layer < d->graph->n_layers &&
            strcmp(d->graph->layers[l->layer].name, name) == 0) {
            *merged = false;
            return i;
        }
        if (l->merged_layer >= 0 && l->merged_layer < d->graph->n_layers &&
            strcmp(d->graph->layers[l->merged_layer].name, name) == 0) {
            *merged = true;
            return i;
        }
    }
    return -1;
}

static bool needs_factors(hl_kind k)
{
    return k == HL_CONV || k == HL_DWCONV || k == HL_FC || k == HL_MAXPOOL || k == HL_GMAXPOOL ||
           k == HL_GAVGPOOL;
}

static cm_status bind_design(project *p)
{
    for (int i = 0; i < p->lowered->net.n_op; i++) {
        hl_op *op = &p->lowered->net.op[i];
        if (!needs_factors(op->kind))
            continue;
        bool merged;
        int k = design_layer_named(p->d, op->name, &merged);
        if (k < 0)
            return cm_error_set(p->err, CM_EINPUT, "%s: layer %s of the model is not in the "
                                "design (was the model changed?)", p->origin, op->name);
        const cm_nn2fpga_layer *l = &p->d->result.layers[k];
        const hl_tensor *x = &p->lowered->net.t[op->in[0]], *y = &p->lowered->net.t[op->out];
        /* a loop-merged downsampling convolution runs on the tapped grid, which is the
         * fused layer's output grid, at that layer's factors (its cost model counts the
         * 1 x 1 products at them): one at a time it was the slowest task of the design */
        op->ow_par = op->kind == HL_FC ? 1 : l->ow_par;
        op->ich_par = l->ich_par;
        op->och_par = op->kind == HL_CONV || op->kind == HL_FC ? l->och_par : 1;
        int groups = op->kind == HL_CONV ? op->groups : 1; /* factors of a group's channels */
        if (x->c / groups % op->ich_par != 0 || y->c / groups % op->och_par != 0 ||
            y->w % op->ow_par != 0)
            return cm_error_set(p->err, CM_EINPUT, "%s: layer %s: the design's factors do not "
                                "divide the model's %lld x %lld x %lld -> %lld x %lld x %lld",
                                p->origin, op->name, (long long)x->c, (long long)x->h,
                                (long long)x->w, (long long)y->c, (long long)y->h, (long long)y->w);
    }
    return CM_OK;
}

/* ---- writing files ---- */

static cm_status write_text(project *p, const char *rel, const char *text, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", p->tmp, rel);
    char *slash = strrchr(path, '/');
    for (char *s = strchr(path + strlen(p->tmp) + 1, '/'); s && s <= slash; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            cm_status st = cm_error_set(p->err, CM_EINPUT, "%s: cannot create: %s", path,
                                        strerror(errno));
            return st;
        }
        *s = '/';
    }
    p->summary->files++;
    if (strncmp(rel, "src/", 4) == 0)
        for (size_t i = 0; i < len; i++)
            p->summary->lines += text[i] == '\n';
    return cm_write_file_atomic(path, text, len, p->err);
}

static cm_status write_filled(project *p, const char *tpl_path, const char *rel,
                              const char *const *kv)
{
    const cm_hls_file *f = cm_hls_file_find(tpl_path);
    if (!f)
        return cm_error_set(p->err, CM_EINTERNAL, "the HLS template %s is missing", tpl_path);
    cm_strbuf b = {0};
    hg_fill(&b, f->data, f->len, kv);
    size_t len = b.len;
    char *text = cm_strbuf_take(&b);
    if (!text)
        return cm_error_nomem(p->err);
    cm_status st = write_text(p, rel, text, len);
    free(text);
    return st;
}

static cm_status copy_blocks(project *p)
{
    cm_status st = CM_OK;
    for (size_t i = 0; i < cm_hls_files_count && st == CM_OK; i++) {
        const cm_hls_file *f = &cm_hls_files[i];
        if (strncmp(f->path, "include/", 8) == 0 || strncmp(f->path, "templates/", 10) == 0)
            st = write_text(p, f->path, f->data, f->len);
    }
    return st;
}

/* Appends the decimal digits of v to *at. */
static void put_int(char **at, int64_t v)
{
    char digits[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do
        digits[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        *(*at)++ = '-';
    while (n > 0)
        *(*at)++ = digits[--n];
}

/* Values of an array whose inner dimensions span the given strides (outermost first),
 * with the braces of each sub-array, as compilers ask of multi-dimensional initialisers.
 * A line of 24 values is formatted here and appended at once: millions of printf calls
 * were most of MobileNetV2's export time. */
static void append_values(cm_strbuf *b, const int64_t *v, int64_t n, const int64_t *strides,
                          int n_strides)
{
    char line[24 * (24 + 8) + 16];
    char *at = line;
    for (int64_t k = 0; k < n; k++) {
        if (k > 0) {
            *at++ = ',';
            *at++ = k % 24 == 0 ? '\n' : ' ';
        }
        if (k > 0 && k % 24 == 0) {
            *at++ = ' ';
            *at++ = ' ';
            cm_strbuf_append(b, line, (size_t)(at - line));
            at = line;
        }
        for (int s = 0; s < n_strides; s++)
            if (k % strides[s] == 0)
                *at++ = '{';
        put_int(&at, v ? v[k] : 0);
        for (int s = 0; s < n_strides; s++)
            if ((k + 1) % strides[s] == 0)
                *at++ = '}';
    }
    cm_strbuf_append(b, line, (size_t)(at - line));
}

/* The narrowest C integer type holding [lo, hi], for the C simulation's weight arrays. */
static const char *store_type(int64_t lo, int64_t hi)
{
    bool s;
    int bits = hl_bits_for_range(lo, hi, &s);
    if (bits <= 8)
        return s ? "signed char" : "unsigned char";
    if (bits <= 16)
        return s ? "short" : "unsigned short";
    if (bits <= 32)
        return s ? "int" : "unsigned int";
    return "long long";
}

static cm_status write_weights(project *p, int i, cm_strbuf *includes, cm_strbuf *pragmas)
{
    const hl_op *op = &p->lowered->net.op[i];
    const hl_tensor *x = &p->lowered->net.t[op->in[0]], *y = &p->lowered->net.t[op->out];
    char id[HG_NAME_LEN], rel[HG_NAME_LEN + 16], guard[HG_NAME_LEN + 8], dims[96];
    hg_identifier(op->name, i, id, sizeof id);
    snprintf(rel, sizeof rel, "src/weights/%s.h", id);
    snprintf(guard, sizeof guard, "CM_W_%s_H", id);
    int64_t ich = op->kind == HL_CONV ? x->c / op->groups : x->c; /* a group's channels */
    if (op->kind == HL_CONV)
        snprintf(dims, sizeof dims, "[%lld][%lld][%d][%d]", (long long)y->c, (long long)ich,
                 op->fh, op->fw);
    else if (op->kind == HL_DWCONV)
        snprintf(dims, sizeof dims, "[%lld][%d][%d]", (long long)y->c, op->fh, op->fw);
    else
        snprintf(dims, sizeof dims, "[%lld][%lld]", (long long)y->c, (long long)x->c);
    cm_strbuf w = {0}, b = {0};
    int64_t strides[3] = {ich * op->fh * op->fw, op->fh * op->fw, op->fw};
    int n_strides = 3;
    if (op->kind == HL_DWCONV)
        strides[0] = op->fh * op->fw, strides[1] = op->fw, n_strides = 2;
    if (op->kind == HL_FC)
        strides[0] = x->c, n_strides = 1;
    int64_t *codes = malloc((size_t)(op->n_w + 1) * sizeof *codes);
    for (int64_t k = 0; codes && k < op->n_w; k++)
        codes[k] = hl_weight(op, k);
    append_values(&w, codes, op->n_w, strides, n_strides);
    append_values(&b, op->b, y->c, strides, 0);
    bool nomem = !codes;
    free(codes);
    char *wt = cm_strbuf_take(&w), *bt = cm_strbuf_take(&b);
    char wtype[32], btype[32], wfrac[16], afrac[16], count[24];
    snprintf(afrac, sizeof afrac, "%d", y->frac);
    snprintf(wfrac, sizeof wfrac, "%d", y->frac - x->frac);
    snprintf(count, sizeof count, "%lld", (long long)y->c);
    cm_status st = !wt || !bt || nomem ? cm_error_nomem(p->err) : CM_OK;
    if (st == CM_OK) {
        const char *kv[] = {"FILE", rel + 4, "LAYER", op->name, "W_FRAC", wfrac, "ACC_FRAC", afrac,
                            "GUARD", guard, "ID", id, "W_T",
                            hg_type_name(wtype, sizeof wtype, op->w_lo, op->w_hi),
                            "W_STORE", store_type(op->w_lo, op->w_hi), "B_STORE",
                            store_type(op->b_lo, op->b_hi),
                            "W_DIMS", dims, "W_VALUES", wt, "B_T",
                            hg_type_name(btype, sizeof btype, op->b_lo, op->b_hi), "B_COUNT",
                            count, "B_VALUES",
                            bt, NULL};
        st = write_filled(p, "project/weights.h.in", rel, kv);
    }
    free(wt);
    free(bt);
    cm_strbuf_printf(includes, "#include \"weights/%s.h\"\n", id);
    /* the banks the design's parallelism reads in one cycle (thesis section 3.5.3) */
    char arr[HG_NAME_LEN + 4], f1[16], f2[16];
    snprintf(arr, sizeof arr, "%s_w", id);
    snprintf(f1, sizeof f1, "%d", op->kind == HL_DWCONV ? op->ich_par : op->och_par);
    snprintf(f2, sizeof f2, "%d", op->ich_par);
    const char *kv1[] = {"ARRAY", arr, "DIM", "1", "FACTOR", f1, NULL};
    const char *kv2[] = {"ARRAY", arr, "DIM", "2", "FACTOR", f2, NULL};
    hg_emit(&p->g, pragmas, "partition", kv1);
    if (op->kind != HL_DWCONV)
        hg_emit(&p->g, pragmas, "partition", kv2);
    return st;
}

static cm_status write_sources(project *p)
{
    cm_strbuf includes = {0}, pragmas = {0};
    cm_status st = CM_OK;
    for (int i = 0; i < p->lowered->net.n_op && st == CM_OK; i++) {
        hl_kind k = p->lowered->net.op[i].kind;
        if (k == HL_CONV || k == HL_DWCONV || k == HL_FC)
            st = write_weights(p, i, &includes, &pragmas);
    }
    char *inc = cm_strbuf_take(&includes), *prag = cm_strbuf_take(&pragmas);
    char *streams = cm_strbuf_take(&p->g.streams), *tasks = cm_strbuf_take(&p->g.tasks);
    if (st == CM_OK && (!inc || !prag || !streams || !tasks))
        st = cm_error_nomem(p->err);
    const hl_net *net = &p->lowered->net;
    const hl_tensor *in = &net->t[net->input], *out = &net->t[net->output];
    char v[16][48], dims[160] = "", in_t[32], out_t[32];
    for (int d = 1; d < net->out_rank; d++)
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%lld", d > 1 ? ", " : "",
                 (long long)net->out_dims[d]);
    if (net->out_rank <= 1)
        snprintf(dims, sizeof dims, "0");
    snprintf(v[0], 48, "%lld", (long long)in->c);
    snprintf(v[1], 48, "%lld", (long long)in->h);
    snprintf(v[2], 48, "%lld", (long long)in->w);
    snprintf(v[3], 48, "%d", in->frac);
    snprintf(v[4], 48, "%lldLL", (long long)in->lo);
    snprintf(v[5], 48, "%lldLL", (long long)in->hi);
    snprintf(v[6], 48, "%lld", (long long)out->c);
    snprintf(v[7], 48, "%lld", (long long)out->h);
    snprintf(v[8], 48, "%lld", (long long)out->w);
    snprintf(v[9], 48, "%d", out->frac);
    snprintf(v[10], 48, "%d", net->out_rank - 1);
    snprintf(v[11], 48, "%.6g", p->d->result.clock_mhz);
    snprintf(v[12], 48, "%.4f", 1000.0 / p->d->result.clock_mhz);
    const char *kv[] = {"TOP", HG_TOP, "TOP_GUARD", "CNNMAP_TOP_H", "VERSION", CM_VERSION, "MODEL",
                        p->d->model_path, "BOARD", p->d->board.name, "DESIGN", p->origin, "IN_T",
                        hg_type_name(in_t, sizeof in_t, in->lo, in->hi), "IN_C", v[0], "IN_H",
                        v[1], "IN_W",
                        v[2], "IN_FRAC", v[3], "IN_MIN", v[4], "IN_MAX", v[5], "OUT_T",
                        hg_type_name(out_t, sizeof out_t, out->lo, out->hi), "OUT_C", v[6],
                        "OUT_H", v[7],
                        "OUT_W", v[8], "OUT_FRAC", v[9], "OUT_RANK", v[10], "OUT_DIMS", dims,
                        "WEIGHT_INCLUDES", inc ? inc : "", "PRAGMAS", prag ? prag : "", "STREAMS",
                        streams ? streams : "", "TASKS", tasks ? tasks : "", "PART",
                        p->d->board.part, "CLOCK_MHZ", v[11], "CLOCK_NS", v[12], NULL};
    if (st == CM_OK)
        st = write_filled(p, "project/top.h.in", "src/" HG_TOP ".h", kv);
    if (st == CM_OK)
        st = write_filled(p, "project/top.cpp.in", "src/" HG_TOP ".cpp", kv);
    if (st == CM_OK)
        st = write_filled(p, "project/testbench.cpp.in", "src/testbench.cpp", kv);
    if (st == CM_OK)
        st = write_filled(p, "project/Makefile.in", "Makefile", kv);
    if (st == CM_OK)
        st = write_filled(p, "project/run_hls.tcl.in", "run_hls.tcl", kv);
    free(inc);
    free(prag);
    free(streams);
    free(tasks);
    return st;
}

/* ---- test vectors ---- */

/* Random frames around the input quantiser's range: codes beyond both ends (clamping),
 * exact halves (rounding to even) and values off the grid. */
static cm_status write_vectors(project *p)
{
    const hl_net *net = &p->lowered->net;
    const hl_tensor *in = &net->t[net->input];
    int64_t dims[4] = {p->o->test_vectors, in->c, in->h, in->w};
    cm_array *x = NULL, *y = NULL;
    cm_status st = cm_array_new(CM_DTYPE_FLOAT32, 4, dims, &x, p->err);
    if (st != CM_OK)
        return st;
    cm_rng rng;
    cm_rng_seed(&rng, p->o->seed);
    int64_t span = in->hi - in->lo + 5;
    for (int64_t k = 0; k < x->count; k++) {
        double code = (double)(in->lo - 2 + (int64_t)cm_rng_below(&rng, (uint64_t)span));
        uint64_t kind = cm_rng_below(&rng, 4);
        double frac = kind == 0 ? 0.0 : kind == 1 ? 0.5 : cm_rng_unit(&rng) - 0.5;
        x->f[k] = (double)(float)ldexp(code + frac, -in->frac);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/tests", p->tmp);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        st = cm_error_set(p->err, CM_EINPUT, "%s: cannot create: %s", path, strerror(errno));
    if (st == CM_OK) {
        snprintf(path, sizeof path, "%s/tests/inputs.npy", p->tmp);
        st = cm_array_save_npy(path, x, p->err);
    }
    const cm_array *const inputs[1] = {x};
    if (st == CM_OK)
        st = cm_runner_run_batch(p->lowered->runner, inputs, 1, NULL, &y, NULL, NULL, p->err);
    if (st == CM_OK && y->dtype != CM_DTYPE_FLOAT32)
        st = cm_error_set(p->err, CM_EINPUT, "%s: the model's output is %s; the testbench "
                          "writes float32", p->origin, cm_dtype_name(y->dtype));
    if (st == CM_OK) {
        snprintf(path, sizeof path, "%s/tests/expected.npy", p->tmp);
        st = cm_array_save_npy(path, y, p->err);
    }
    p->summary->files += 2;
    cm_array_free(x);
    cm_array_free(y);
    return st;
}

/* ---- the folder ---- */

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static bool is_empty_dir(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return false;
    struct dirent *e;
    bool empty = true;
    while (empty && (e = readdir(d)) != NULL)
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

static cm_status check_target(const char *dir, bool force, cm_error *err)
{
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return CM_OK;
    if (!S_ISDIR(sb.st_mode))
        return cm_error_set(err, CM_EINPUT, "%s: exists and is not a folder", dir);
    if (!force && !is_empty_dir(dir))
        return cm_error_set(err, CM_EINPUT, "%s: the folder exists and is not empty (--force "
                            "replaces it)", dir);
    return CM_OK;
}

static cm_status place(project *p, const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) == 0) {
        char *old = malloc(strlen(dir) + 16);
        if (!old)
            return cm_error_nomem(p->err);
        sprintf(old, "%s.old-XXXXXX", dir);
        if (!mkdtemp(old) || rename(dir, old) != 0) {
            free(old);
            return cm_error_set(p->err, CM_EINPUT, "%s: cannot replace: %s", dir, strerror(errno));
        }
        if (rename(p->tmp, dir) != 0) {
            cm_status st = cm_error_set(p->err, CM_EINPUT, "%s: cannot write: %s", dir,
                                        strerror(errno));
            rename(old, dir);
            free(old);
            return st;
        }
        remove_tree(old);
        free(old);
        return CM_OK;
    }
    if (rename(p->tmp, dir) != 0)
        return cm_error_set(p->err, CM_EINPUT, "%s: cannot write: %s", dir, strerror(errno));
    return CM_OK;
}

static cm_status make_tmp(project *p, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    p->tmp = malloc(n + 16);
    if (!p->tmp)
        return cm_error_nomem(p->err);
    snprintf(p->tmp, n + 16, "%.*s.tmp-XXXXXX", (int)n, dir);
    if (!mkdtemp(p->tmp)) {
        cm_status st = cm_error_set(p->err, CM_EINPUT, "%.*s: cannot create: %s", (int)n, dir,
                                    strerror(errno));
        free(p->tmp);
        p->tmp = NULL;
        return st;
    }
    return CM_OK;
}

/* Activations per word of an add's skip FIFO: the tapped window's group, or the fork's
 * packing. */
static int64_t skip_word_activations(const project *p, const hg_add *add)
{
    const hl_op *m = add->reuse ? &p->lowered->net.op[add->tap_op] : NULL;
    const hg_packing *fp = &p->g.pack[add->fork];
    return m ? (int64_t)m->ow_par * m->ich_par : (int64_t)fp->p * fp->cp;
}

static void record_skips(project *p)
{
    for (int a = 0; a < p->g.n_adds && p->summary->n_skips < 64; a++) {
        const hg_add *add = &p->g.adds[a];
        cm_hls_skip *s = &p->summary->skips[p->summary->n_skips++];
        const hl_op *op = &p->lowered->net.op[add->op];
        snprintf(s->name, sizeof s->name, "%s", op->name);
        snprintf(s->stream, sizeof s->stream, "%s", add->fifo);
        s->reuse = add->reuse;
        s->depth_words = hg_stream_depth(&p->g, add->fifo, add->depth);
        s->activations = s->depth_words * skip_word_activations(p, add);
        int i = hg_design_skip(&p->d->result, op->name);
        const cm_nn2fpga_skip *k = i >= 0 ? &p->d->result.skips[i] : NULL;
        if (k)
            s->design_activations = k->fifo_words > 0 ? k->fifo_words * k->fifo_word_activations
                                                      : k->activations_after;
    }
}

/* The integer network with the design's factors (the design's own when it kept one),
 * its packings and skip depths. */
static cm_status plan(project *p)
{
    p->lowered = p->d->lowered;
    if (!p->lowered) {
        if (!(p->lowered = calloc(1, sizeof *p->lowered)))
            return cm_error_nomem(p->err);
        p->owned = true;
        cm_status st = cm_runner_load_lean(p->d->model_file, &p->lowered->runner, p->err);
        if (st == CM_OK)
            st = hl_lower(p->lowered->runner, &p->lowered->net, p->err);
        if (st == CM_OK)
            st = bind_design(p);
        if (st != CM_OK)
            return st;
    }
    const cm_hls_file *tasks = cm_hls_file_find("project/tasks.in");
    p->g = (hg_ctx){.net = &p->lowered->net, .design = &p->d->result, .origin = p->origin,
                    .tasks_in = tasks ? tasks->data : NULL,
                    .err = p->err, .n_fifo_depths = p->d->n_fifo_depths,
                    .fifo_depths = p->d->fifo_depths, .cur_op = -1};
    p->g.ts = calloc((size_t)p->lowered->net.n_t, sizeof *p->g.ts);
    p->g.pack = calloc((size_t)p->lowered->net.n_t, sizeof *p->g.pack);
    if (!p->g.ts || !p->g.pack)
        return cm_error_nomem(p->err);
    return hg_plan(&p->g);
}

static cm_status generate(project *p, const char *dir)
{
    cm_status st = plan(p);
    if (st != CM_OK)
        return st;
    hg_emit_tasks(&p->g);
    if ((st = make_tmp(p, dir)) != CM_OK)
        return st;
    if ((st = copy_blocks(p)) == CM_OK && (st = write_sources(p)) == CM_OK &&
        (st = write_vectors(p)) == CM_OK)
        st = place(p, dir);
    if (st == CM_OK) {
        p->summary->tasks = p->g.n_tasks;
        p->summary->streams = p->g.n_streams;
        record_skips(p);
    }
    return st;
}

static void project_free(project *p)
{
    free(p->g.ts);
    free(p->g.pack);
    free(cm_strbuf_take(&p->g.streams));
    free(cm_strbuf_take(&p->g.tasks));
    if (p->owned)
        cm_hls_lowered_free(p->lowered);
}

cm_status cm_hls_size_skips(cm_nn2fpga_design *d, cm_error *err)
{
    cm_nn2fpga_result *r = &d->result;
    for (int k = 0; k < r->n_skips; k++)
        r->skips[k].fifo_words = r->skips[k].fifo_word_activations = 0;
    cm_hls_lowered_free(d->lowered); /* factors may have changed: lower again */
    d->lowered = NULL;
    project p = {.d = d, .origin = d->model_path, .err = err};
    cm_status st = plan(&p);
    for (int a = 0; st == CM_OK && a < p.g.n_adds; a++) {
        const hg_add *add = &p.g.adds[a];
        int i = hg_design_skip(r, p.lowered->net.op[add->op].name);
        if (i < 0) {
            st = cm_error_set(err, CM_EINTERNAL, "%s: add %s is not a skip connection of the design",
                              p.origin, p.lowered->net.op[add->op].name);
            break;
        }
        r->skips[i].fifo_words = add->depth;
        r->skips[i].fifo_word_activations = skip_word_activations(&p, add);
    }
    if (st == CM_OK) { /* the design keeps it for the export */
        d->lowered = p.lowered;
        p.owned = false;
    }
    project_free(&p);
    return st;
}

cm_status hg_task_graph(const cm_nn2fpga_design *d, hg_graph *out, cm_error *err)
{
    memset(out, 0, sizeof *out);
    project p = {.d = d, .origin = d->model_path, .err = err};
    cm_status st = plan(&p);
    if (st == CM_OK) {
        const hl_net *net = &p.lowered->net;
        const hl_tensor *x = &net->t[net->input], *y = &net->t[net->output];
        out->in_words = x->h * x->w; /* one pixel a word */
        out->out_words = y->c * y->h * y->w;
        p.g.rec = out;
        hg_emit_tasks(&p.g);
        for (int a = 0; a < p.g.n_adds; a++)
            hg_graph_add_skip(out, net->op[p.g.adds[a].op].name, p.g.adds[a].fifo);
        if (out->failed || p.g.streams.failed || p.g.tasks.failed)
            st = cm_error_nomem(err);
    }
    project_free(&p);
    if (st != CM_OK)
        hg_graph_free(out);
    return st;
}

cm_status cm_hls_export(const cm_nn2fpga_design *d, const char *dir, const cm_hls_options *o,
                        cm_hls_summary *summary, cm_error *err)
{
    cm_hls_summary unused;
    summary = summary ? summary : &unused;
    memset(summary, 0, sizeof *summary);
    if (o->test_vectors < 1 || o->test_vectors > 100000)
        return cm_error_set(err, CM_EUSAGE, "test vectors must be 1 to 100000, not %d",
                            o->test_vectors);
    cm_status st = check_target(dir, o->force, err);
    if (st != CM_OK)
        return st;
    project p = {.d = d, .o = o, .origin = d->model_path, .summary = summary, .err = err};
    st = generate(&p, dir);
    if (p.tmp) {
        if (st != CM_OK)
            remove_tree(p.tmp);
        free(p.tmp);
    }
    project_free(&p);
    return st;
}
