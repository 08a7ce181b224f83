/* nn2FPGA design files: creating a design (optimise and record where the model and
 * board came from), writing it as JSON (the figures of n2_json.c plus the keys that
 * rebuild it), and reading one back by rebuilding G from the model with the recorded
 * options and applying each layer's recorded unroll factors, without searching. Only
 * the factors are trusted; every figure is computed again, and the phase records of
 * the search that made the design are kept for printing. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/hls.h>
#include <cnnmap/model.h>

#include "hls/hls_graph.h"
#include "nn2fpga/n2_internal.h"
#include "nn2fpga/n2_json.h"
#include "util/json_fields.h"
#include "util/json_file.h"
#include "util/path.h"

#define N2_DESIGN_FORMAT "cnnmap-nn2fpga-design"
#define N2_DESIGN_VERSION 1
/* Beyond any dimension a model may hold (README: up to 2^24), so a larger factor can
 * only be a typing error; refusing it early keeps the products below in range. */
#define N2_FACTOR_MAX (INT64_C(1) << 24)
#define N2_BATCH_MAX (INT64_C(1) << 20) /* the range of --batch */
#define N2_TIME_LIMIT_MAX 1e7           /* the range of --time-limit */

void cm_nn2fpga_design_free(cm_nn2fpga_design *d)
{
    if (!d)
        return;
    free(d->model_path);
    free(d->model_file);
    free(d->board_ref);
    cm_graph_free(d->graph);
    cm_nn2fpga_result_free(&d->result);
    cm_hls_lowered_free(d->lowered);
    for (int k = 0; k < d->n_fifo_depths; k++)
        free(d->fifo_depths[k].stream);
    free(d->fifo_depths);
    memset(d, 0, sizeof *d);
}

/* Design files record the model and a board file by absolute path, so they work from
 * any folder; a built-in board by its name. */
static cm_status set_sources(cm_nn2fpga_design *d, const char *model_path, const char *board_ref,
                             cm_error *err)
{
    cm_board builtin;
    bool is_builtin = cm_board_builtin(board_ref, &builtin, NULL) == CM_OK;
    d->model_path = cm_path_absolute(model_path);
    d->model_file = strdup(model_path);
    d->board_ref = is_builtin ? strdup(builtin.name) : cm_path_absolute(board_ref);
    return d->model_path && d->model_file && d->board_ref ? CM_OK : cm_error_nomem(err);
}

/* The skip FIFOs as the generated dataflow builds them (their BRAM18 replaces the
 * thesis's in the totals); a model without an integer form keeps the thesis's figures. */
static cm_status size_skips(cm_nn2fpga_design *d, cm_error *err)
{
    cm_nn2fpga_result *r = &d->result;
    r->skips_built = false;
    if (r->n_skips == 0)
        return CM_OK;
    cm_error why;
    cm_status st = cm_hls_size_skips(d, &why);
    if (st == CM_EINPUT)
        return CM_OK;
    if (st != CM_OK)
        return cm_error_set(err, st, "%s", why.message);
    r->skips_built = true;
    return CM_OK;
}

/* The totals with the FIFOs' BRAM18 once their depths are settled. */
static void apply_skip_fifos(cm_nn2fpga_result *r, int batch)
{
    if (r->skips_built) {
        r->bram_skip = 0;
        for (int k = 0; k < r->n_skips; k++) {
            cm_nn2fpga_skip *s = &r->skips[k];
            s->fifo_bram = n2_bram18_banks(s->fifo_word_activations * s->bits, s->fifo_words);
            r->bram_skip += s->fifo_bram;
        }
    }
    n2_totals(r, batch);
}

cm_status cm_nn2fpga_design_create(const char *model_path, const char *board_ref,
                                   const cm_nn2fpga_options *o, bool latency_objective,
                                   cm_nn2fpga_design *out, cm_error *err)
{
    memset(out, 0, sizeof *out);
    out->options = *o;
    out->latency_objective = latency_objective;
    cm_status st = cm_board_resolve(board_ref, &out->board, err);
    if (st == CM_OK)
        st = cm_model_load(model_path, &out->graph, err);
    if (st == CM_OK && (st = cm_nn2fpga_optimise(out->graph, &out->board, o, &out->result, err)) != CM_OK)
        cm_error_prefix(err, model_path);
    if (st == CM_OK)
        st = set_sources(out, model_path, board_ref, err);
    if (st == CM_OK && (st = size_skips(out, err)) == CM_OK) {
        apply_skip_fifos(&out->result, o->batch);
        if (out->result.bram18 > out->board.resources.bram18)
            st = cm_error_set(err, CM_EINFEASIBLE, "%s: no feasible design: with the skip FIFOs "
                              "the dataflow needs (%lld BRAM18) the design needs %lld BRAM18, "
                              "%s has %lld", model_path, (long long)out->result.bram_skip,
                              (long long)out->result.bram18, out->board.name,
                              (long long)out->board.resources.bram18);
    }
    if (st != CM_OK)
        cm_nn2fpga_design_free(out);
    return st;
}

/* ---- writing ---- */

/* The rebuilding keys first, then the figures; "board" stays the reference (a name or
 * a file) rather than the board's name, and update_missing keeps it so. */
static json_t *design_file_json(const cm_nn2fpga_design *d)
{
    json_t *report = cm_nn2fpga_report_json(d);
    json_t *o = json_pack("{ss si ss ss ss si sb sb sf}", "format", N2_DESIGN_FORMAT, "version",
                          N2_DESIGN_VERSION, "model_path", d->model_path, "board", d->board_ref,
                          "solver", cm_nn2fpga_solver_name(d->options.solver), "default_bits",
                          d->options.default_bits, "temporal_reuse", d->options.temporal_reuse,
                          "loop_merge", d->options.loop_merge, "time_limit_s",
                          d->options.time_limit_s);
    if (o && d->n_fifo_depths > 0) { /* the streams' depths simulate -o chose */
        json_t *depths = json_object();
        for (int k = 0; depths && k < d->n_fifo_depths; k++)
            json_object_set_new(depths, d->fifo_depths[k].stream,
                                json_integer((json_int_t)d->fifo_depths[k].depth));
        if (!depths || json_object_set_new(o, "fifo_depths", depths) != 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return cm_design_json_with_report(o, report);
}

cm_status cm_nn2fpga_design_save(const cm_nn2fpga_design *d, const char *path, cm_error *err)
{
    return cm_design_json_save(path, design_file_json(d), err);
}

/* ---- reading ---- */

/* `f` names the layer as well as the key where a value inside "layers" is wrong
 * ("layer NAME: "). */
typedef struct n2_reader {
    const char *path;
    json_t *root;
    cm_error *err;
    cm_json_fields f;
} n2_reader;

static cm_status check_format(n2_reader *r)
{
    const char *format = NULL;
    int64_t version = 0;
    if (!json_is_object(r->root))
        return cm_error_set(r->err, CM_EINPUT, "%s: a design file holds one JSON object", r->path);
    cm_status st = cm_json_get_string(&r->f, r->root, "", "format", 0, &format);
    if (st == CM_OK && strcmp(format, N2_DESIGN_FORMAT) != 0)
        st = cm_error_set(r->err, CM_EINPUT, "%s: not an nn2FPGA design file (format '%.64s')",
                          r->path, format);
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, r->root, "", "version", N2_DESIGN_VERSION, N2_DESIGN_VERSION,
                             &version);
    return st;
}

static cm_status read_solver(n2_reader *r, cm_nn2fpga_solver *out)
{
    static const cm_nn2fpga_solver solvers[] = {CM_NN2FPGA_BIP, CM_NN2FPGA_EXACT, CM_NN2FPGA_NONE};
    const char *name = NULL;
    cm_status st = cm_json_get_string(&r->f, r->root, "", "solver", 0, &name);
    if (st != CM_OK)
        return st;
    for (int i = 0; i < 3; i++)
        if (strcmp(name, cm_nn2fpga_solver_name(solvers[i])) == 0) {
            *out = solvers[i];
            return CM_OK;
        }
    return cm_error_set(r->err, CM_EINPUT, "%s: \"solver\" must be bip, exact or none, not '%.64s'",
                        r->path, name);
}

static cm_status read_options(n2_reader *r, cm_nn2fpga_design *d)
{
    cm_nn2fpga_options *o = &d->options;
    cm_nn2fpga_options_init(o);
    const char *objective = NULL;
    int64_t bits = 0, batch = 0;
    cm_status st = read_solver(r, &o->solver);
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, r->root, "", "default_bits", 1, 32, &bits);
    if (st == CM_OK)
        st = cm_json_get_bool(&r->f, r->root, "", "temporal_reuse", &o->temporal_reuse);
    if (st == CM_OK)
        st = cm_json_get_bool(&r->f, r->root, "", "loop_merge", &o->loop_merge);
    /* The range of --clock and of a board's clock (board.h): beyond it the figures
     * overflow. */
    if (st == CM_OK)
        st = cm_json_get_number(&r->f, r->root, "", "clock_mhz", CM_BOARD_CLOCK_MHZ_MIN,
                                CM_BOARD_CLOCK_MHZ_MAX, &o->clock_mhz);
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, r->root, "", "batch", 1, N2_BATCH_MAX, &batch);
    if (st == CM_OK)
        st = cm_json_get_number(&r->f, r->root, "", "time_limit_s", 0, N2_TIME_LIMIT_MAX,
                                &o->time_limit_s);
    if (st == CM_OK)
        st = cm_json_get_string(&r->f, r->root, "", "objective", 0, &objective);
    if (st == CM_OK && strcmp(objective, "latency") != 0 && strcmp(objective, "throughput") != 0)
        st = cm_error_set(r->err, CM_EINPUT,
                          "%s: \"objective\" must be latency or throughput, not '%.64s'", r->path,
                          objective);
    o->default_bits = (int)bits;
    o->batch = (int)batch;
    d->latency_objective = st == CM_OK && strcmp(objective, "latency") == 0;
    return st;
}

/* Loads the board and the model and builds G at unroll factors 1. */
static cm_status build(n2_reader *r, cm_nn2fpga_design *d)
{
    const char *model_path = NULL, *board_ref = NULL;
    cm_status st = cm_json_get_string(&r->f, r->root, "", "model_path", 0, &model_path);
    if (st == CM_OK)
        st = cm_json_get_string(&r->f, r->root, "", "board", 0, &board_ref);
    if (st == CM_OK)
        st = read_options(r, d);
    if (st != CM_OK)
        return st;
    d->model_path = strdup(model_path);
    d->board_ref = strdup(board_ref);
    d->model_file = cm_path_beside(r->path, model_path);
    if (!d->model_path || !d->board_ref || !d->model_file)
        return cm_error_nomem(r->err);
    st = cm_board_resolve(board_ref, &d->board, r->err);
    if (st == CM_OK)
        st = cm_model_load(d->model_file, &d->graph, r->err);
    if (st == CM_OK)
        st = cm_nn2fpga_build(d->graph, &d->options, &d->result, r->err);
    if (st == CM_OK && d->result.n_layers == 0)
        st = cm_error_set(r->err, CM_EINPUT, "the model has no convolution, fully connected or "
                                             "pooling layer for the nn2fpga backend");
    if (st != CM_OK)
        return cm_design_source_error(r->err, r->path, st);
    d->result.clock_mhz = d->options.clock_mhz;
    return CM_OK;
}

static int find_layer(const cm_nn2fpga_result *res, const char *name)
{
    for (int t = 0; t < res->n_layers; t++)
        if (strcmp(res->layers[t].name, name) == 0)
            return t;
    return -1;
}

/* Maps every entry of "layers" to its layer of G (entry_of[t]); each must name a layer
 * of G once, and every layer of G must have one. */
static cm_status match_layers(n2_reader *r, const cm_nn2fpga_result *res, json_t **entry_of)
{
    json_t *layers = NULL;
    cm_status st = cm_json_get_array(&r->f, r->root, "", "layers", 0, SIZE_MAX, &layers);
    for (size_t k = 0; st == CM_OK && k < json_array_size(layers); k++) {
        json_t *e = json_array_get(layers, k);
        const char *name = NULL;
        if (!json_is_object(e))
            return cm_error_set(r->err, CM_EINPUT, "%s: every entry of \"layers\" must be an object",
                                r->path);
        st = cm_json_get_string(&r->f, e, "layers[]: ", "name", 0, &name);
        int t = st == CM_OK ? find_layer(res, name) : -1;
        if (st == CM_OK && t < 0)
            st = cm_error_set(r->err, CM_EINPUT, "%s: unknown layer '%.128s' (the model's nn2fpga "
                                                 "graph has no such layer)", r->path, name);
        else if (st == CM_OK && entry_of[t])
            st = cm_error_set(r->err, CM_EINPUT, "%s: layer '%.128s' is listed twice", r->path, name);
        else if (st == CM_OK)
            entry_of[t] = e;
    }
    if (st != CM_OK)
        return st;
    for (int t = 0; t < res->n_layers; t++)
        if (!entry_of[t])
            return cm_error_set(r->err, CM_EINPUT, "%s: layer '%s' is missing from \"layers\"",
                                r->path, res->layers[t].name);
    return CM_OK;
}

typedef struct n2_entry {
    int64_t par[3]; /* ow_par, och_par, ich_par */
    bool uram;
    int64_t enumerated, kept;
} n2_entry;

static cm_status read_entry(n2_reader *r, json_t *e, const cm_nn2fpga_layer *l, n2_entry *out)
{
    static const char *const keys[3] = {"ow_par", "och_par", "ich_par"};
    char where[CM_ERROR_MESSAGE_MAX / 2];
    snprintf(where, sizeof where, "layer %.128s: ", l->name);
    cm_status st = CM_OK;
    for (int k = 0; k < 3 && st == CM_OK; k++)
        st = cm_json_get_int(&r->f, e, where, keys[k], 1, N2_FACTOR_MAX, &out->par[k]);
    if (st == CM_OK)
        st = cm_json_get_bool(&r->f, e, where, "weights_in_uram", &out->uram);
    /* Records of the search, for printing only; a hand-written file may leave them out. */
    out->enumerated = out->kept = 0;
    if (st == CM_OK && json_object_get(e, "configs_enumerated"))
        st = cm_json_get_int(&r->f, e, where, "configs_enumerated", 0, INT_MAX, &out->enumerated);
    if (st == CM_OK && json_object_get(e, "configs_kept"))
        st = cm_json_get_int(&r->f, e, where, "configs_kept", 0, INT_MAX, &out->kept);
    return st;
}

/* The constraints of cm_nn2fpga_configure, each named with the layer and dimension. */
static cm_status check_entry(n2_reader *r, const cm_nn2fpga_layer *l, const n2_entry *e)
{
    static const char *const keys[3] = {"ow_par", "och_par", "ich_par"};
    static const char *const dims[3] = {"output width", "output channels", "input channels"};
    static const char *const group_dims[3] = {"output width", "output channels of a group",
                                              "input channels of a group"};
    int64_t groups = l->groups > 1 ? l->groups : 1;
    const int64_t size[3] = {l->ow, l->och / groups, l->ich / groups};
    if (e->par[1] != 1 && l->kind != CM_NN2FPGA_CONV)
        return cm_error_set(r->err, CM_EINFEASIBLE, "%s: layer %s: och_par %lld must be 1 for a %s "
                                                    "layer", r->path, l->name, (long long)e->par[1],
                            cm_nn2fpga_kind_name(l->kind));
    for (int k = 0; k < 3; k++)
        if (size[k] % e->par[k] != 0)
            return cm_error_set(r->err, CM_EINFEASIBLE,
                                "%s: layer %s: %s %lld does not divide the %s %lld", r->path, l->name,
                                keys[k], (long long)e->par[k], groups > 1 ? group_dims[k] : dims[k],
                                (long long)size[k]);
    if (e->uram && l->kind != CM_NN2FPGA_CONV && l->kind != CM_NN2FPGA_DWCONV)
        return cm_error_set(r->err, CM_EINFEASIBLE,
                            "%s: layer %s: weights_in_uram is true, but a %s layer has no weights",
                            r->path, l->name, cm_nn2fpga_kind_name(l->kind));
    return CM_OK;
}

static cm_status apply_layers(n2_reader *r, cm_nn2fpga_result *res)
{
    json_t **entry_of = calloc((size_t)res->n_layers, sizeof *entry_of);
    n2_entry *e = calloc((size_t)res->n_layers, sizeof *e);
    cm_status st = entry_of && e ? match_layers(r, res, entry_of) : cm_error_nomem(r->err);
    /* Every entry is read before any is checked: a malformed file is bad input even
     * when an earlier layer also breaks a constraint. */
    for (int t = 0; st == CM_OK && t < res->n_layers; t++)
        st = read_entry(r, entry_of[t], &res->layers[t], &e[t]);
    for (int t = 0; st == CM_OK && t < res->n_layers; t++) {
        cm_nn2fpga_layer *l = &res->layers[t];
        st = check_entry(r, l, &e[t]);
        if (st == CM_OK && cm_nn2fpga_configure(l, (int)e[t].par[0], (int)e[t].par[1],
                                                (int)e[t].par[2], e[t].uram, r->err) != CM_OK) {
            /* check_entry holds every constraint configure checks; should they drift
             * apart, the design is still refused as infeasible. */
            cm_error_prefix(r->err, r->path);
            if (r->err)
                r->err->code = CM_EINFEASIBLE;
            st = CM_EINFEASIBLE;
        }
        l->configs_enumerated = (int)e[t].enumerated;
        l->configs_kept = (int)e[t].kept;
    }
    free(entry_of);
    free(e);
    return st;
}

static cm_status check_board(n2_reader *r, const cm_nn2fpga_design *d)
{
    const cm_nn2fpga_result *res = &d->result;
    const cm_resources *h = &d->board.resources;
    const char *names[3] = {"DSPs", "BRAM18 banks", "URAM banks"};
    const int64_t used[3] = {res->dsp, res->bram18, res->uram}, have[3] = {h->dsp, h->bram18, h->uram};
    for (int i = 0; i < 3; i++)
        if (used[i] > have[i])
            return cm_error_set(r->err, CM_EINFEASIBLE, "%s: %s %lld exceed the board's %lld (%s)",
                                r->path, names[i], (long long)used[i], (long long)have[i],
                                d->board.name);
    return CM_OK;
}

static cm_status read_phase(n2_reader *r, json_t *p, int i, cm_nn2fpga_result *res)
{
    cm_nn2fpga_phase *ph = &res->phases[i];
    char where[32];
    snprintf(where, sizeof where, "phases[%d]: ", i);
    int64_t n[4] = {0, 0, 0, 0}, period = 0;
    static const char *const keys[4] = {"phase", "variables", "constraints", "programs"};
    cm_status st = json_is_object(p) ? CM_OK
                                     : cm_error_set(r->err, CM_EINPUT,
                                                    "%s: every entry of \"phases\" must be an object",
                                                    r->path);
    for (int k = 0; k < 4 && st == CM_OK; k++)
        st = cm_json_get_int(&r->f, p, where, keys[k], k == 0 ? i + 1 : 0,
                             k == 0 ? i + 1 : INT_MAX, &n[k]);
    if (st == CM_OK)
        st = cm_json_get_number(&r->f, p, where, "time_s", 0, 1e12, &ph->time_s);
    if (st == CM_OK)
        st = cm_json_get_bool(&r->f, p, where, "optimal", &ph->optimal);
    /* optional: files written before the time limit covered the whole run lack it */
    ph->stopped_early = json_is_true(json_object_get(p, "stopped_early"));
    if (st == CM_OK)
        st = cm_json_get_number(&r->f, p, where, "objective", -1e300, 1e300, &ph->objective);
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, p, where, "period", 0, INT64_MAX, &period);
    ph->variables = (int)n[1];
    ph->constraints = (int)n[2];
    ph->programs = (int)n[3];
    /* optional: files written before bisection probes were settled without programs */
    int64_t settled = 0;
    if (st == CM_OK && json_object_get(p, "settled"))
        st = cm_json_get_int(&r->f, p, where, "settled", 0, INT_MAX, &settled);
    ph->settled = (int)settled;
    if (st != CM_OK || i != 0)
        return st;
    /* Phase 1's own design is gone once phase 2 has run; only its figures remain. */
    json_t *rsc = NULL;
    int64_t v[3] = {0, 0, 0};
    static const char *const rkeys[3] = {"DSP", "BRAM18", "URAM"};
    st = cm_json_get_object(&r->f, p, "", "resources", &rsc);
    for (int k = 0; k < 3 && st == CM_OK; k++)
        st = cm_json_get_int(&r->f, rsc, "phases[0].resources: ", rkeys[k], 0, INT64_MAX, &v[k]);
    res->period_phase1 = period;
    res->dsp_phase1 = v[0];
    res->bram_phase1 = v[1];
    res->uram_phase1 = v[2];
    return st;
}

/* The records of the search that made the design (phases, times, sizes): kept so that
 * evaluate prints what optimise printed, never used to compute a figure. */
static cm_status read_records(n2_reader *r, cm_nn2fpga_result *res)
{
    json_t *phases = NULL, *opt = NULL, *space = NULL;
    int64_t enumerated = 0;
    res->period_phase1 = res->period;
    res->dsp_phase1 = res->dsp;
    res->bram_phase1 = res->bram18;
    res->uram_phase1 = res->uram;
    cm_status st = cm_json_get_bool(&r->f, r->root, "", "optimal", &res->optimal);
    res->stopped_early = json_is_true(json_object_get(r->root, "stopped_early"));
    if (st == CM_OK)
        st = cm_json_get_object(&r->f, r->root, "", "optimiser", &opt);
    if (st == CM_OK)
        st = cm_json_get_number(&r->f, opt, "optimiser: ", "time_s", 0, 1e12, &res->time_s);
    if (st == CM_OK)
        st = cm_json_get_object(&r->f, r->root, "", "design_space", &space);
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, space, "design_space: ", "enumerated", 0, INT_MAX, &enumerated);
    if (st == CM_OK)
        st = cm_json_get_array(&r->f, r->root, "", "phases", 0, 2, &phases);
    for (size_t i = 0; st == CM_OK && i < json_array_size(phases); i++)
        st = read_phase(r, json_array_get(phases, i), (int)i, res);
    res->variables_enumerated = (int)enumerated;
    return st;
}

/* A skip connection's recorded FIFO depth: more than the dataflow needs is the user's
 * choice; less would deadlock the generated top function. */
static cm_status read_fifo(n2_reader *r, json_t *e, cm_nn2fpga_result *res)
{
    const char *name = NULL;
    json_t *fifo = NULL;
    int64_t words = 0;
    cm_status st = json_is_object(e)
                       ? cm_json_get_string(&r->f, e, "skip_connections: ", "name", 0, &name)
                       : cm_error_set(r->err, CM_EINPUT, "%s: every entry of "
                                      "\"skip_connections\" must be an object", r->path);
    if (st != CM_OK || !res->skips_built || !(fifo = json_object_get(e, "fifo")))
        return st;
    char where[96];
    snprintf(where, sizeof where, "skip connection %.64s: fifo: ", name);
    if (!json_is_object(fifo))
        return cm_error_set(r->err, CM_EINPUT, "%s: %smust be an object", r->path, where);
    if ((st = cm_json_get_int(&r->f, fifo, where, "words", 1, N2_FACTOR_MAX, &words)) != CM_OK)
        return st;
    for (int k = 0; k < res->n_skips; k++) {
        cm_nn2fpga_skip *s = &res->skips[k];
        if (strcmp(s->name, name) != 0 || s->fifo_words == 0)
            continue;
        if (words < s->fifo_words)
            return cm_error_set(r->err, CM_EINFEASIBLE, "%s: skip connection %s: a FIFO of %lld "
                                "words is below the %lld its dataflow needs (it would deadlock; without "
                                "\"fifo\" the design gets the size it needs)",
                                r->path, name, (long long)words, (long long)s->fifo_words);
        s->fifo_words = words;
        return CM_OK;
    }
    return cm_error_set(r->err, CM_EINPUT, "%s: skip connection %s: no such residual add in the "
                        "model", r->path, name);
}

static cm_status read_fifos(n2_reader *r, cm_nn2fpga_design *d)
{
    json_t *skips = json_object_get(r->root, "skip_connections");
    if (!skips)
        return CM_OK;
    if (!json_is_array(skips))
        return cm_error_set(r->err, CM_EINPUT, "%s: \"skip_connections\" must be an array", r->path);
    cm_status st = CM_OK;
    for (size_t i = 0; st == CM_OK && i < json_array_size(skips); i++)
        st = read_fifo(r, json_array_get(skips, i), &d->result);
    return st;
}

/* "fifo_depths": {"s5": 31, ...}, the depths simulate -o wrote for the generated
 * top function's streams. */
static cm_status read_fifo_depths(n2_reader *r, cm_nn2fpga_design *d)
{
    json_t *o = json_object_get(r->root, "fifo_depths");
    if (!o)
        return CM_OK;
    if (!json_is_object(o))
        return cm_error_set(r->err, CM_EINPUT, "%s: \"fifo_depths\" must be an object of stream "
                            "depths", r->path);
    size_t n = json_object_size(o), k = 0;
    const char **names = calloc(n + 1, sizeof *names);
    int64_t *depths = calloc(n + 1, sizeof *depths);
    cm_status st = names && depths ? CM_OK : cm_error_nomem(r->err);
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        if (st != CM_OK)
            break;
        st = cm_json_int_value(&r->f, v, "fifo_depths: ", key, 1, HG_FIFO_DEPTH_MAX, &depths[k]);
        names[k++] = key;
    }
    if (st == CM_OK)
        st = hg_set_fifo_depths(d, names, depths, (int)n, r->path, r->err);
    free(names);
    free(depths);
    return st;
}

cm_status cm_nn2fpga_design_load(const char *path, cm_nn2fpga_design *out, cm_error *err)
{
    memset(out, 0, sizeof *out);
    n2_reader r = {.path = path, .err = err, .f = {.path = path, .err = err, .missing = true}};
    cm_status st = cm_json_file_read(path, &r.root, err);
    if (st == CM_OK)
        st = check_format(&r);
    if (st == CM_OK)
        st = build(&r, out);
    if (st == CM_OK)
        st = apply_layers(&r, &out->result);
    if (st == CM_OK && (st = size_skips(out, err)) == CM_OK)
        st = read_fifos(&r, out);
    if (st == CM_OK)
        st = read_fifo_depths(&r, out);
    if (st == CM_OK) {
        apply_skip_fifos(&out->result, out->options.batch);
        st = read_records(&r, &out->result);
    }
    if (st == CM_OK)
        st = check_board(&r, out);
    json_decref(r.root);
    if (st != CM_OK)
        cm_nn2fpga_design_free(out);
    return st;
}

bool cm_nn2fpga_is_design_file(const char *path)
{
    json_t *root = cm_json_load_path(path, 0, NULL);
    const char *format = json_string_value(json_object_get(root, "format"));
    bool yes = format && strcmp(format, N2_DESIGN_FORMAT) == 0;
    json_decref(root);
    return yes;
}
