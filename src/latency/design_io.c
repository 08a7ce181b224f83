/* Latency-driven design files: writing a design as its point (cuts by weight-layer
 * name, per block of the reference architecture its foldings and bank), its options,
 * run and figures; reading one back by re-costing the point with cm_latency_evaluate
 * (no search) and checking it: the blocks must be those the cuts give, values must be
 * in range, and a point that breaks a constraint is refused naming the block or
 * resource. Also the two files a choice between the flows is written as (the chosen
 * design with what evaluate needs to print the comparison again). */
#include "latency/latency_internal.h"
#include "util/json_file.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/model.h>

#include "design/design_file.h"
#include "design/design_json.h"
#include "latency/latency_json.h"
#include "hw/fpgaconvnet_blocks.h"
#include "util/json_fields.h"
#include "util/json_file.h"
#include "util/path.h"
#include "util/json_build.h"

#define LAT_FORMAT "cnnmap-latency-design"
#define LAT_VERSION 1
#define LAT_FOLD_MAX (1 << 16)   /* coarse, macc: far beyond any board's DSPs */
#define LAT_BANK_MAX (1 << 24)   /* BRAM18 per bank: beyond any board */
#define LAT_BATCH_MAX (1 << 20)  /* the range of --batch */
#define LAT_BANDWIDTH_MAX 1e4    /* GB/s */

/* The prefixes sdf.c names the design's blocks with; the point's blocks are named the
 * same way over the whole architecture. */
static const char *const kind_prefix[] = {
    [CM_LATENCY_CONV] = "conv", [CM_LATENCY_POOL] = "pool", [CM_LATENCY_RELU] = "relu",
    [CM_LATENCY_ACCUM] = "accum", [CM_LATENCY_ELTWISE] = "eltwise",
};

static const char *search_name(cm_latency_search s)
{
    return s == CM_LATENCY_SEARCH_MINIMAL ? "none" : s == CM_LATENCY_SEARCH_EXACT ? "exact" : "rule";
}

static void arch_names(const cm_lat_arch *a, char (*names)[24])
{
    int count[CM_LAT_KINDS] = {0};
    for (int b = 0; b < a->n_blocks; b++)
        snprintf(names[b], sizeof names[b], "%s%d", kind_prefix[a->kind[b]], count[a->kind[b]]++);
}

/* The architecture blocks a design uses: every group's steps when it runs unfolded,
 * else its passes' steps' blocks and its accumulation pattern's (evaluate.c, schedule). */
static void arch_usage(const cm_lat_arch *a, const int *fin_of_layer, bool *used)
{
    memset(used, 0, (size_t)a->n_blocks * sizeof *used);
    for (int gi = 0; gi < a->n_groups; gi++) {
        const cm_lat_group *g = &a->groups[gi];
        int fin = g->foldable ? fin_of_layer[a->net->l[g->steps[g->lead].layer].graph_index] : 1;
        for (int s = 0; s < (fin > 1 ? g->lead + 1 : g->n_steps); s++)
            used[g->steps[s].block] = true;
        for (int s = 0; fin > 1 && s < g->n_acc_steps; s++)
            used[g->acc_steps[s].block] = true;
    }
}

/* ---- writing ---- */

/* The clock and bandwidth the design was costed at: options may leave them 0 ("the
 * board's"), which the reader would refuse. */
static json_t *options_json(const cm_latency_options *o, const cm_latency_design *d)
{
    return json_pack("{sf sf si si sb sb}", "clock_mhz", d->clock_mhz, "bandwidth_gbps",
                     d->bandwidth_gbps, "word_bits", o->word_bits, "batch", o->batch,
                     "weights_reloading", o->weights_reloading, "input_folding", o->input_folding);
}

/* Cuts are where subgraphs start: a group's passes and accumulation start at its
 * first layer too. */
static void design_cuts(const cm_lat_net *net, const cm_latency_design *d, bool *cut)
{
    for (int w = 1; w < net->n_weight; w++) {
        int gi = net->l[net->weight_at[w]].graph_index;
        cut[w] = false;
        for (int s = 0; s < d->n_subgraphs; s++)
            cut[w] |= d->subgraphs[s].first_layer == gi;
    }
}

static json_t *blocks_json(const cm_lat_arch *a, const cm_latency_design *d, cm_error *err)
{
    bool ok = true, *used = calloc((size_t)a->n_blocks + 1, sizeof *used);
    char (*names)[24] = calloc((size_t)a->n_blocks + 1, sizeof *names);
    json_t *arr = json_array();
    if (!used || !names || !arr) {
        ok = false;
        cm_error_nomem(err);
    }
    int k = 0;
    if (ok) {
        arch_usage(a, d->fin, used);
        arch_names(a, names);
    }
    for (int b = 0; ok && b < a->n_blocks; b++) {
        const cm_latency_block *x = used[b] && k < d->n_blocks ? &d->blocks[k++] : NULL;
        bool conv = a->kind[b] == CM_LATENCY_CONV;
        json_t *o = json_pack("{ss ss si}", "name", names[b], "kind",
                              cm_latency_block_kind_name(a->kind[b]), "coarse", x ? x->coarse : 1);
        if (o && conv) {
            cm_json_put(o, "macc", json_integer(x ? x->macc : 1), &ok);
            cm_json_put(o, "bank_bram18", json_integer(x ? x->bank_bram : 1), &ok);
        }
        cm_json_append(arr, o, &ok);
        if (!ok)
            cm_error_nomem(err);
    }
    if (ok && k != d->n_blocks)
        ok = cm_error_set(err, CM_EINTERNAL, "latency design file: %d blocks used, %d costed", k,
                          d->n_blocks) == CM_OK;
    free(used);
    free(names);
    return cm_json_finish(arr, ok);
}

static json_t *point_json(const cm_graph *g, const cm_latency_options *o,
                          const cm_latency_design *d, cm_error *err)
{
    cm_lat_net net;
    if (cm_lat_net_build(g, &net, err) != CM_OK)
        return NULL;
    bool ok = true, *cut = calloc((size_t)net.n_weight + 1, sizeof *cut);
    json_t *p = json_object(), *cuts = json_array(), *blocks = NULL;
    cm_lat_arch a = {0};
    if (!cut || !p || !cuts || cm_lat_arch_build(&net, cut, o->input_folding, &a, err) != CM_OK)
        ok = false;
    if (ok) {
        cm_lat_arch_free(&a);
        design_cuts(&net, d, cut);
        ok = cm_lat_arch_build(&net, cut, o->input_folding, &a, err) == CM_OK;
    }
    for (int w = 1; ok && w < net.n_weight; w++)
        if (cut[w])
            cm_json_append(cuts, json_string(g->layers[net.l[net.weight_at[w]].graph_index].name), &ok);
    if (ok)
        ok = (blocks = blocks_json(&a, d, err)) != NULL;
    cm_json_put(p, "cuts", cuts, &ok);
    cm_json_put(p, "blocks", blocks, &ok);
    cm_lat_arch_free(&a);
    cm_lat_net_free(&net);
    free(cut);
    return cm_json_finish(p, ok);
}

static json_t *run_json(const cm_latency_options *o, const cm_latency_design *d)
{
    json_t *r = json_pack("{ss sI sf sb sb}", "optimiser", search_name(o->search), "evaluations",
                          (json_int_t)d->evaluations, "time_s", d->time_s, "stopped_early",
                          d->stopped_early, "stopped_by_budget", d->stopped_by_budget);
    bool ok = r != NULL;
    if (ok && d->has_lower_bound) {
        cm_json_put(r, "lower_bound_s", json_real(d->lower_bound_s), &ok);
        cm_json_put(r, "optimal", json_boolean(d->optimal), &ok);
    }
    return cm_json_finish(r, ok);
}

/* For human readers only: reading re-derives all of it. */
static json_t *figures_json(const cm_graph *g, const cm_latency_design *d)
{
    bool ok = true;
    json_t *f = json_pack("{sb sf sf sf sf sf si}", "feasible", d->feasible, "latency_s",
                          d->latency_s, "exec_s", d->exec_s, "weights_s", d->weights_s, "gops",
                          d->gops, "peak_gops", d->peak_gops, "subgraphs", d->n_subgraphs);
    json_t *sched = json_array(), *fin = json_object();
    if (!f)
        ok = false;
    for (int s = 0; ok && s < d->n_subgraphs; s++) {
        const cm_latency_subgraph *x = &d->subgraphs[s];
        cm_json_append(sched, json_pack("{ss ss si si sf sf sI}", "first", g->layers[x->first_layer].name,
                                "last", g->layers[x->last_layer].name, "fold", x->fold, "folds",
                                x->folds, "exec_s", x->exec_s, "weights_s", x->weights_s,
                                "weight_words", (json_int_t)x->weight_words), &ok);
    }
    for (int i = 0; ok && i < d->n_layers; i++)
        if (d->fin[i] > 1)
            cm_json_put(fin, g->layers[i].name, json_integer(d->fin[i]), &ok);
    if (f)
        cm_json_put(f, "resources", cm_resources_json(&d->resources, false), &ok);
    if (f) {
        cm_json_put(f, "schedule", sched, &ok);
        cm_json_put(f, "fin", fin, &ok);
    } else {
        json_decref(sched);
        json_decref(fin);
    }
    return cm_json_finish(f, ok);
}

/* options, point, run and figures: the latency-driven design in either file */
static json_t *design_body(const cm_graph *g, const cm_latency_options *o,
                           const cm_latency_design *d, cm_error *err)
{
    json_t *point = point_json(g, o, d, err);
    if (!point)
        return NULL;
    json_t *body = json_object();
    bool ok = body != NULL;
    if (ok) {
        cm_json_put(body, "options", options_json(o, d), &ok);
        cm_json_put(body, "point", point, &ok);
        cm_json_put(body, "run", run_json(o, d), &ok);
        cm_json_put(body, "figures", figures_json(g, d), &ok);
    } else {
        json_decref(point);
    }
    if (!ok)
        cm_error_nomem(err);
    return cm_json_finish(body, ok);
}

static json_t *file_json(const char *model_path, const char *board_ref, const cm_graph *g,
                         const cm_latency_options *o, const cm_latency_design *d, cm_error *err)
{
    cm_board builtin;
    bool is_builtin = cm_board_builtin(board_ref, &builtin, NULL) == CM_OK;
    char *model = cm_path_absolute(model_path);
    char *board = is_builtin ? strdup(builtin.name) : cm_path_absolute(board_ref);
    json_t *body = model && board ? design_body(g, o, d, err) : NULL;
    json_t *head = body ? json_pack("{ss si ss ss}", "format", LAT_FORMAT, "version", LAT_VERSION,
                                    "model_path", model, "board", board)
                        : NULL;
    if (!model || !board)
        cm_error_nomem(err);
    if (head && json_object_update(head, body) != 0) {
        json_decref(head);
        head = NULL;
    }
    if (body && !head)
        cm_error_nomem(err);
    json_decref(body);
    free(model);
    free(board);
    return head;
}

cm_status cm_latency_design_save(const char *path, const char *model_path, const char *board_ref,
                                 const cm_graph *g, const cm_latency_options *o,
                                 const cm_latency_design *d, cm_error *err)
{
    json_t *root = file_json(model_path, board_ref, g, o, d, err);
    return root ? cm_design_json_save(path, root, err) : (err ? err->code : CM_EINTERNAL);
}

/* ---- reading ---- */

/* `f` names the block as well as the key where a value inside "blocks" is wrong. */
typedef struct lreader {
    const char *path;
    cm_error *err;
    cm_json_fields f;
} lreader;

static cm_status read_options(lreader *r, json_t *body, cm_latency_options *o)
{
    json_t *j = NULL;
    int64_t bits = 0, batch = 0;
    cm_latency_options_init(o);
    cm_status st = cm_json_get_object(&r->f, body, "", "options", &j);
    if (st == CM_OK)
        st = cm_json_get_number(&r->f, j, "options: ", "clock_mhz", CM_BOARD_CLOCK_MHZ_MIN,
                                CM_BOARD_CLOCK_MHZ_MAX, &o->clock_mhz);
    if (st == CM_OK)
        st = cm_json_get_number(&r->f, j, "options: ", "bandwidth_gbps", 1e-6,
                                LAT_BANDWIDTH_MAX, &o->bandwidth_gbps);
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, j, "options: ", "word_bits", 1, 64, &bits);
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, j, "options: ", "batch", 1, LAT_BATCH_MAX, &batch);
    if (st == CM_OK)
        st = cm_json_get_bool(&r->f, j, "options: ", "weights_reloading",
                              &o->weights_reloading);
    if (st == CM_OK)
        st = cm_json_get_bool(&r->f, j, "options: ", "input_folding", &o->input_folding);
    o->word_bits = (int)bits;
    o->batch = (int)batch;
    return st;
}

/* The run's records, kept for printing: evaluate_point cleared the design. */
static cm_status read_run(lreader *r, json_t *body, cm_latency_options *o, cm_latency_design *d)
{
    json_t *j = NULL, *name = NULL;
    int64_t evals = 0;
    cm_status st = cm_json_get_object(&r->f, body, "", "run", &j);
    if (st == CM_OK && (name = cm_json_get_value(&r->f, j, "run: ", "optimiser", &st)) != NULL) {
        const char *n = json_string_value(name);
        if (n && strcmp(n, "none") == 0)
            o->search = CM_LATENCY_SEARCH_MINIMAL;
        else if (n && strcmp(n, "exact") == 0)
            o->search = CM_LATENCY_SEARCH_EXACT;
        else if (!n || strcmp(n, "rule") != 0)
            st = cm_error_set(r->err, CM_EINPUT, "%s: run: \"optimiser\" must be rule, none or exact",
                              r->path);
    }
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, j, "run: ", "evaluations", 0, INT64_MAX, &evals);
    if (st == CM_OK)
        st = cm_json_get_number(&r->f, j, "run: ", "time_s", 0, 1e12, &d->time_s);
    if (st == CM_OK)
        st = cm_json_get_bool(&r->f, j, "run: ", "stopped_early", &d->stopped_early);
    if (st == CM_OK && json_object_get(j, "stopped_by_budget")) /* absent before 2026-12 */
        st = cm_json_get_bool(&r->f, j, "run: ", "stopped_by_budget", &d->stopped_by_budget);
    d->has_lower_bound = st == CM_OK && json_object_get(j, "lower_bound_s");
    if (d->has_lower_bound)
        st = cm_json_get_number(&r->f, j, "run: ", "lower_bound_s", 0, 1e12,
                                &d->lower_bound_s);
    if (st == CM_OK && d->has_lower_bound)
        st = cm_json_get_bool(&r->f, j, "run: ", "optimal", &d->optimal);
    d->evaluations = (uint64_t)evals;
    return st;
}

static int find_layer(const cm_graph *g, const char *name)
{
    for (int i = 0; i < g->n_layers; i++)
        if (strcmp(g->layers[i].name, name) == 0)
            return i;
    return -1;
}

/* One named cut: the weight layer it comes before, not the first (which always starts
 * the first subgraph). */
static cm_status read_cut(lreader *r, const cm_graph *g, const cm_lat_net *net, json_t *v,
                          bool *cut)
{
    const char *name = json_string_value(v);
    if (!name)
        return cm_error_set(r->err, CM_EINPUT, "%s: every entry of \"cuts\" must be a layer name",
                            r->path);
    int i = find_layer(g, name), w = 0;
    if (i < 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: cut before '%.128s': the model has no such "
                                               "layer", r->path, name);
    while (w < net->n_weight && net->l[net->weight_at[w]].graph_index != i)
        w++;
    if (w == net->n_weight)
        return cm_error_set(r->err, CM_EINPUT, "%s: cut before '%.128s': cuts come before "
                            "convolution or dense layers only", r->path, name);
    if (w == 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: cut before '%.128s': the first weight layer "
                            "starts the first subgraph already", r->path, name);
    if (cut[w])
        return cm_error_set(r->err, CM_EINPUT, "%s: cut before '%.128s' is listed twice", r->path,
                            name);
    cut[w] = true;
    return CM_OK;
}

static cm_status read_cuts(lreader *r, json_t *point, const cm_graph *g, const cm_lat_net *net,
                           const cm_latency_options *o, bool *cut)
{
    json_t *cuts = NULL;
    cm_status st = cm_json_get_array(&r->f, point, "", "cuts", 0, SIZE_MAX, &cuts);
    if (st == CM_OK && !o->weights_reloading && json_array_size(cuts) > 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: \"cuts\" must be empty without weights "
                                               "reloading (the network is one subgraph)", r->path);
    for (size_t k = 0; st == CM_OK && k < json_array_size(cuts); k++)
        st = read_cut(r, g, net, json_array_get(cuts, k), cut);
    return st;
}

/* The file's block k against the architecture's: the same name and kind in order. */
static cm_status match_block(lreader *r, const cm_lat_arch *a, char (*names)[24], json_t *blocks,
                             int k)
{
    int n = (int)json_array_size(blocks);
    json_t *e = json_array_get(blocks, (size_t)k);
    const char *name = json_string_value(json_object_get(e, "name"));
    const char *kind = json_string_value(json_object_get(e, "kind"));
    if (k < n && (!json_is_object(e) || !name || !kind))
        return cm_error_set(r->err, CM_EINPUT, "%s: blocks[%d] must be an object with a \"name\" "
                            "and a \"kind\"", r->path, k);
    if (k >= a->n_blocks)
        return cm_error_set(r->err, CM_EINPUT, "%s: block '%.64s' is not in the reference "
                            "architecture the cuts give (%d blocks)", r->path, name, a->n_blocks);
    const char *want = cm_latency_block_kind_name(a->kind[k]);
    if (k >= n)
        return cm_error_set(r->err, CM_EINPUT, "%s: block '%s' (%s), which the cuts give, is "
                            "missing", r->path, names[k], want);
    if (strcmp(name, names[k]) != 0 || strcmp(kind, want) != 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: block '%.64s' (%.32s): the cuts give '%s' (%s) "
                            "in its place", r->path, name, kind, names[k], want);
    return CM_OK;
}

static cm_status read_block(lreader *r, const cm_lat_arch *a, char (*names)[24], json_t *e, int b,
                            int *coarse, int *macc, int *bank)
{
    char where[48];
    snprintf(where, sizeof where, "block %s: ", names[b]);
    bool conv = a->kind[b] == CM_LATENCY_CONV;
    int64_t c = 1, m = 1, k = 1;
    cm_status st = cm_json_get_int(&r->f, e, where, "coarse", 1, LAT_FOLD_MAX, &c);
    if (st == CM_OK && (conv || json_object_get(e, "macc")))
        st = cm_json_get_int(&r->f, e, where, "macc", 1, conv ? LAT_FOLD_MAX : 1, &m);
    if (st == CM_OK && (conv || json_object_get(e, "bank_bram18")))
        st = cm_json_get_int(&r->f, e, where, "bank_bram18", conv ? 1 : 0,
                             conv ? LAT_BANK_MAX : 0, &k);
    coarse[b] = (int)c;
    macc[b] = (int)m;
    bank[b] = conv ? (int)k : 1;
    return st;
}

/* The blocks as cm_latency_evaluate takes them, after checking they are the cuts'. */
static cm_status read_blocks(lreader *r, json_t *point, const cm_lat_arch *a, int *coarse,
                             int *macc, int *bank)
{
    json_t *blocks = NULL;
    char (*names)[24] = calloc((size_t)a->n_blocks + 1, sizeof *names);
    cm_status st = names ? cm_json_get_array(&r->f, point, "", "blocks", 0, SIZE_MAX, &blocks)
                         : cm_error_nomem(r->err);
    if (st == CM_OK)
        arch_names(a, names);
    int n = (int)json_array_size(blocks), most = n > a->n_blocks ? n : a->n_blocks;
    for (int k = 0; st == CM_OK && k < most; k++)
        st = match_block(r, a, names, blocks, k);
    for (int b = 0; st == CM_OK && b < a->n_blocks; b++)
        st = read_block(r, a, names, json_array_get(blocks, (size_t)b), b, coarse, macc, bank);
    free(names);
    return st;
}

/* ---- why a point does not fit ---- */

static int64_t bank_bram(const cm_lat_layer *l, int folds, int coarse, int macc, int word_bits)
{
    return cm_fcn_bram_mem(cm_lat_bank_words(l, folds, coarse, macc), word_bits);
}

static cm_status bank_too_small(lreader *r, const cm_lat_arch *a, const cm_latency_options *o,
                                const cm_latency_design *d, const int *coarse, const int *macc,
                                const int *bank, const cm_graph *g)
{
    char (*names)[24] = calloc((size_t)a->n_blocks + 1, sizeof *names);
    if (!names)
        return cm_error_nomem(r->err);
    arch_names(a, names);
    cm_status st = CM_OK;
    for (int gi = 0; st == CM_OK && gi < a->n_groups; gi++) {
        const cm_lat_group *grp = &a->groups[gi];
        for (int s = 0; st == CM_OK && s < grp->n_steps; s++) {
            const cm_lat_step *x = &grp->steps[s];
            const cm_lat_layer *l = &a->net->l[x->layer];
            int fin = grp->foldable ? d->fin[l->graph_index] : 1, b = x->block;
            int64_t need = x->kind == CM_LATENCY_CONV
                               ? bank_bram(l, fin, coarse[b], macc[b], o->word_bits) : 0;
            if (need > bank[b])
                st = cm_error_set(r->err, CM_EINFEASIBLE,
                                  "%s: block %s: bank_bram18 %d is too small for layer %s's "
                                  "weights (%lld BRAM18 a bank%s; bank constraint)", r->path,
                                  names[b], bank[b], g->layers[l->graph_index].name, (long long)need,
                                  grp->foldable ? " at the largest input folding" : "");
        }
    }
    free(names);
    return st;
}

static cm_status over_board(lreader *r, const cm_latency_design *d, const cm_board *board)
{
    static const char *const what[5] = {"DSP", "BRAM18", "LUT", "FF", "URAM"};
    const cm_resources *u = &d->resources, *h = &board->resources;
    const int64_t used[5] = {u->dsp, u->bram18, u->lut, u->ff, u->uram};
    const int64_t have[5] = {h->dsp, h->bram18, h->lut, h->ff, h->uram};
    for (int i = 0; i < 5; i++) {
        if (used[i] <= have[i])
            continue;
        int top = 0;
        for (int b = 1; b < d->n_blocks; b++) {
            const cm_resources *x = &d->blocks[b].res, *t = &d->blocks[top].res;
            const int64_t xv[5] = {x->dsp, x->bram18, x->lut, x->ff, x->uram};
            const int64_t tv[5] = {t->dsp, t->bram18, t->lut, t->ff, t->uram};
            if (xv[i] > tv[i])
                top = b;
        }
        const cm_latency_block *t = &d->blocks[top];
        return cm_error_set(r->err, CM_EINFEASIBLE,
                            "%s: %s %lld exceed the board's %lld (%s; resource constraint); block "
                            "%s (coarse %d, macc %d) is the largest user", r->path, what[i],
                            (long long)used[i], (long long)have[i], board->name, t->name,
                            t->coarse, t->macc);
    }
    return cm_error_set(r->err, CM_EINFEASIBLE, "%s: the design does not fit %s", r->path,
                        board->name);
}

/* ---- the point, costed ---- */

typedef struct lat_point {
    cm_lat_net net;
    cm_lat_arch arch;
    bool *cut;
    int *coarse, *macc, *bank;
} lat_point;

static void point_free(lat_point *p)
{
    cm_lat_arch_free(&p->arch);
    cm_lat_net_free(&p->net);
    free(p->cut);
    free(p->coarse);
    free(p->macc);
    free(p->bank);
}

static cm_status read_point(lreader *r, json_t *body, const cm_graph *g,
                            const cm_latency_options *o, lat_point *p)
{
    memset(p, 0, sizeof *p);
    json_t *point = NULL;
    cm_status st = cm_json_get_object(&r->f, body, "", "point", &point);
    if (st == CM_OK && (st = cm_lat_net_build(g, &p->net, r->err)) != CM_OK) {
        cm_error_prefix(r->err, r->path);
        return st;
    }
    if (st == CM_OK && !(p->cut = calloc((size_t)p->net.n_weight + 1, sizeof *p->cut)))
        st = cm_error_nomem(r->err);
    if (st == CM_OK)
        st = read_cuts(r, point, g, &p->net, o, p->cut);
    if (st == CM_OK)
        st = cm_lat_arch_build(&p->net, p->cut, o->input_folding, &p->arch, r->err);
    size_t n = (size_t)p->arch.n_blocks + 1;
    if (st == CM_OK && (!(p->coarse = calloc(n, sizeof(int))) || !(p->macc = calloc(n, sizeof(int))) ||
                        !(p->bank = calloc(n, sizeof(int)))))
        st = cm_error_nomem(r->err);
    if (st == CM_OK)
        st = read_blocks(r, point, &p->arch, p->coarse, p->macc, p->bank);
    return st;
}

/* Reads and costs the design in `body` (options, point, run) on g and board. must_fit:
 * a point that breaks a constraint is CM_EINFEASIBLE; otherwise it is kept with
 * feasible false. */
static cm_status read_design(lreader *r, json_t *body, const cm_graph *g, const cm_board *board,
                             bool must_fit, cm_latency_options *o, cm_latency_design *d)
{
    lat_point p;
    memset(d, 0, sizeof *d);
    cm_status st = read_options(r, body, o);
    if (st == CM_OK)
        st = read_point(r, body, g, o, &p);
    else
        memset(&p, 0, sizeof p);
    if (st == CM_OK) {
        cm_latency_point lp = {p.cut, p.coarse, p.macc, p.bank};
        if ((st = cm_latency_evaluate(g, board, o, &lp, d, r->err)) != CM_OK)
            cm_error_prefix(r->err, r->path);
    }
    if (st == CM_OK && must_fit && !d->feasible) {
        st = bank_too_small(r, &p.arch, o, d, p.coarse, p.macc, p.bank, g);
        if (st == CM_OK)
            st = over_board(r, d, board);
    }
    if (st == CM_OK)
        st = read_run(r, body, o, d);
    point_free(&p);
    if (st != CM_OK)
        cm_latency_design_free(d);
    return st;
}

static cm_status check_format(lreader *r, json_t *root)
{
    int64_t version = 0;
    const char *format = json_string_value(json_object_get(root, "format"));
    if (!json_is_object(root))
        return cm_error_set(r->err, CM_EINPUT, "%s: a design file holds one JSON object", r->path);
    if (!format || strcmp(format, LAT_FORMAT) != 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: not a latency-driven design file (format "
                            "'%.64s')", r->path, format ? format : "");
    return cm_json_get_int(&r->f, root, "", "version", LAT_VERSION, LAT_VERSION, &version);
}

static cm_status read_sources(lreader *r, json_t *root, cm_latency_file *f)
{
    cm_status st = CM_OK;
    json_t *m = cm_json_get_value(&r->f, root, "", "model_path", &st);
    json_t *b = st == CM_OK ? cm_json_get_value(&r->f, root, "", "board", &st) : NULL;
    const char *model = json_string_value(m), *board = json_string_value(b);
    if (st != CM_OK)
        return st;
    if (!model || !board)
        return cm_error_set(r->err, CM_EINPUT, "%s: \"model_path\" and \"board\" must be strings",
                            r->path);
    f->model_path = strdup(model);
    f->board_ref = strdup(board);
    char *resolved = cm_path_beside(r->path, model);
    if (!f->model_path || !f->board_ref || !resolved)
        st = cm_error_nomem(r->err);
    if (st == CM_OK)
        st = cm_board_resolve(board, &f->board, r->err);
    if (st == CM_OK)
        st = cm_model_load(resolved, &f->graph, r->err);
    free(resolved);
    return st == CM_OK ? CM_OK : cm_design_source_error(r->err, r->path, st);
}

cm_status cm_latency_design_load(const char *path, cm_latency_file *out, cm_error *err)
{
    memset(out, 0, sizeof *out);
    lreader r = {path, err, {.path = path, .err = err, .missing = true}};
    json_t *root = NULL;
    cm_status st = cm_json_file_read(path, &root, err);
    if (st == CM_OK)
        st = check_format(&r, root);
    if (st == CM_OK)
        st = read_sources(&r, root, out);
    if (st == CM_OK)
        st = read_design(&r, root, out->graph, &out->board, true, &out->options, &out->design);
    json_decref(root);
    if (st != CM_OK)
        cm_latency_file_free(out);
    return st;
}

void cm_latency_file_free(cm_latency_file *f)
{
    free(f->model_path);
    free(f->board_ref);
    cm_graph_free(f->graph);
    cm_latency_design_free(&f->design);
    memset(f, 0, sizeof *f);
}

static const char *format_of(const json_t *root)
{
    return json_string_value(json_object_get(root, "format"));
}

bool cm_latency_is_design_file(const char *path)
{
    json_t *root = cm_json_load_path(path, 0, NULL);
    const char *format = format_of(root);
    bool yes = format && strcmp(format, LAT_FORMAT) == 0;
    json_decref(root);
    return yes;
}

/* A streaming design of fpgaConvNet on the latency objective with weights reloading:
 * optimise compared it with the latency-driven flow. */
static bool compared_streaming(const json_t *root)
{
    const char *format = format_of(root);
    const char *backend = json_string_value(json_object_get(root, "backend"));
    const char *objective = json_string_value(json_object_get(root, "objective"));
    return format && strcmp(format, "cnnmap-design") == 0 && backend &&
           strcmp(backend, "fpgaconvnet") == 0 && objective && strcmp(objective, "latency") == 0 &&
           !json_is_false(json_object_get(root, "weights_reloading"));
}

bool cm_latency_is_choice_json(const json_t *root)
{
    const char *format = format_of(root);
    return (format && strcmp(format, LAT_FORMAT) == 0) || compared_streaming(root);
}

bool cm_latency_is_choice_file(const char *path)
{
    json_t *root = cm_json_load_path(path, 0, NULL);
    bool yes = cm_latency_is_choice_json(root);
    json_decref(root);
    return yes;
}

/* ---- a choice between the flows ---- */

/* The options cm_latency_choose gives the flow: the design's clock, the board's
 * bandwidth, the defaults otherwise, and the search the partitioned run implies. */
static void choice_options(const cm_design *d, const cm_design_run *run, cm_latency_options *o)
{
    cm_latency_options_init(o);
    o->clock_mhz = cm_design_options_of(d)->clock_mhz;
    o->bandwidth_gbps = cm_design_board(d)->bandwidth_gbps;
    o->search = run->optimiser == CM_OPTIMISER_NONE    ? CM_LATENCY_SEARCH_MINIMAL
                : run->optimiser == CM_OPTIMISER_EXACT ? CM_LATENCY_SEARCH_EXACT
                                                       : CM_LATENCY_SEARCH_RULE;
}

static bool alternative_available(const cm_latency_choice *c)
{
    return c->status == CM_OK || c->status == CM_EINFEASIBLE;
}

static const char *reason(const cm_latency_choice *c)
{
    if (!alternative_available(c))
        return "the latency-driven flow does not apply to this model";
    if (!c->ld.feasible)
        return "no latency-driven design fits the board";
    return "the throughput-driven design's latency is not higher";
}

/* The comparison both files carry: which was chosen and the bound over both spaces. */
static json_t *comparison_json(const cm_latency_choice *c)
{
    bool ok = true;
    json_t *o = json_pack("{ss}", "chosen", c->chose_latency ? "latency_driven" : "throughput_driven");
    if (o && !c->chose_latency)
        cm_json_put(o, "reason", json_string(reason(c)), &ok);
    if (o && c->has_lower_bound)
        cm_json_put(o, "lower_bound_s", json_real(c->lower_bound_s), &ok);
    return o ? cm_json_finish(o, ok) : NULL;
}

/* The latency-driven alternative recorded in the partitioned design's file. */
static json_t *alternative_json(const cm_design *d, const cm_design_run *run,
                                const cm_latency_choice *c, cm_error *err)
{
    cm_latency_options o;
    choice_options(d, run, &o);
    json_t *alt = alternative_available(c) ? design_body(cm_design_graph(d), &o, &c->ld, err)
                                           : json_object();
    bool ok = alt != NULL;
    if (ok) {
        cm_json_put(alt, "available", json_boolean(alternative_available(c)), &ok);
        if (c->status != CM_OK)
            cm_json_put(alt, "message", json_string(c->err.message), &ok);
        cm_json_put(alt, "comparison", comparison_json(c), &ok);
    }
    if (alt && !ok)
        cm_error_nomem(err);
    return alt ? cm_json_finish(alt, ok) : NULL;
}

/* The partitioned design's file is streamed inside the choice's (a 10,000-node file's
 * tree took most of writing it); the latency-driven design's part is a tree. */
cm_status cm_latency_choice_text(const cm_design *partitioned, const cm_design_run *run,
                                 const cm_latency_choice *c, cm_strbuf *out, bool *built,
                                 cm_error *err)
{
    *built = false;
    cm_latency_options o;
    choice_options(partitioned, run, &o);
    json_t *latency_part;
    if (c->chose_latency) {
        latency_part = file_json(cm_design_model_path(partitioned), cm_design_board_ref(partitioned),
                                 cm_design_graph(partitioned), &o, &c->ld, err);
        bool ok = latency_part != NULL;
        if (ok)
            cm_json_put(latency_part, "comparison", comparison_json(c), &ok);
        if (!ok) {
            json_decref(latency_part);
            latency_part = NULL;
        }
    } else {
        latency_part = alternative_json(partitioned, run, c, err);
    }
    if (!latency_part)
        return err && err->code != CM_OK ? err->code : cm_error_nomem(err);
    cm_json_stream s;
    cm_json_stream_begin(&s, out, CM_DESIGN_FILE_FLAGS);
    if (c->chose_latency) {
        cm_json_stream_members(&s, latency_part);
        cm_json_stream_open(&s, "throughput_driven", '{');
        cm_design_stream_file(&s, partitioned, run);
        cm_json_stream_close(&s);
    } else {
        cm_design_stream_file(&s, partitioned, run);
        cm_json_stream_put(&s, "latency_driven", latency_part);
    }
    *built = cm_json_stream_end(&s);
    return CM_OK;
}

cm_status cm_latency_choice_save(const cm_design *partitioned, const cm_design_run *run,
                                 const cm_latency_choice *c, const char *path, cm_error *err)
{
    cm_strbuf text = {0};
    bool built;
    cm_status st = cm_latency_choice_text(partitioned, run, c, &text, &built, err);
    if (st != CM_OK) {
        free(cm_strbuf_take(&text));
        return st;
    }
    return cm_json_text_write(path, &text, built, err);
}

static cm_status read_comparison(lreader *r, json_t *body, cm_latency_choice *c)
{
    json_t *j = NULL;
    cm_status st = cm_json_get_object(&r->f, body, "", "comparison", &j);
    c->has_lower_bound = st == CM_OK && json_object_get(j, "lower_bound_s");
    if (c->has_lower_bound)
        st = cm_json_get_number(&r->f, j, "comparison: ", "lower_bound_s", 0, 1e12,
                                &c->lower_bound_s);
    return st;
}

/* A latency-driven design file read as a choice: the partitioned design it was chosen
 * over is inside it, and its model and board are the latency-driven design's. */
static cm_status load_latency_choice(lreader *r, json_t *root, cm_design **d, cm_design_run *run,
                                     cm_latency_choice *c)
{
    json_t *other = NULL;
    cm_latency_options o;
    cm_status st = check_format(r, root);
    if (st == CM_OK)
        st = cm_json_get_object(&r->f, root, "", "throughput_driven", &other);
    if (st == CM_OK)
        st = cm_design_load_json(r->path, other, d, run, r->err);
    if (st == CM_OK && (!json_equal(json_object_get(root, "model_path"), json_object_get(other, "model_path")) ||
                        !json_equal(json_object_get(root, "board"), json_object_get(other, "board"))))
        st = cm_error_set(r->err, CM_EINPUT, "%s: \"model_path\" and \"board\" must be those of "
                          "\"throughput_driven\"", r->path);
    if (st == CM_OK)
        st = read_design(r, root, cm_design_graph(*d), cm_design_board(*d), true, &o, &c->ld);
    if (st == CM_OK)
        st = read_comparison(r, root, c);
    c->chose_latency = true;
    return st;
}

/* The partitioned design's file: the alternative, when recorded, is costed again and
 * kept whether or not it fits (it was not chosen). */
static cm_status load_streaming_choice(lreader *r, json_t *root, cm_design **d, cm_design_run *run,
                                       cm_latency_choice *c)
{
    cm_status st = cm_design_load_json(r->path, root, d, run, r->err);
    json_t *alt = json_object_get(root, "latency_driven");
    cm_latency_options o;
    bool available = false;
    if (st != CM_OK)
        return st;
    if (!alt) {
        c->status = cm_error_set(&c->err, CM_EINPUT, "the file does not record the latency-driven "
                                 "design (an earlier cnnmap wrote it; optimise again to compare)");
        return CM_OK;
    }
    if (!json_is_object(alt))
        return cm_error_set(r->err, CM_EINPUT, "%s: \"latency_driven\" must be an object", r->path);
    st = cm_json_get_bool(&r->f, alt, "latency_driven: ", "available", &available);
    const char *message = json_string_value(json_object_get(alt, "message"));
    if (st == CM_OK && available)
        st = read_design(r, alt, cm_design_graph(*d), cm_design_board(*d), false, &o, &c->ld);
    if (st == CM_OK)
        st = read_comparison(r, alt, c);
    if (st == CM_OK && (!available || !c->ld.feasible))
        c->status = cm_error_set(&c->err, available ? CM_EINFEASIBLE : CM_EINPUT, "%s",
                                 message ? message : "the latency-driven design does not fit");
    return st;
}

cm_status cm_latency_choice_load(const char *path, cm_design **partitioned, cm_design_run *run,
                                 cm_latency_choice *c, cm_error *err)
{
    memset(c, 0, sizeof *c);
    *partitioned = NULL;
    lreader r = {path, err, {.path = path, .err = err, .missing = true}};
    json_t *root = NULL;
    cm_status st = cm_json_file_read(path, &root, err);
    const char *format = format_of(root);
    if (st == CM_OK && format && strcmp(format, LAT_FORMAT) == 0)
        st = load_latency_choice(&r, root, partitioned, run, c);
    else if (st == CM_OK)
        st = load_streaming_choice(&r, root, partitioned, run, c);
    json_decref(root);
    if (st == CM_OK) {
        c->partitioned_s = cm_design_feasible(*partitioned) ? cm_design_cost(*partitioned) : INFINITY;
        return CM_OK;
    }
    cm_latency_choice_free(c);
    cm_design_free(*partitioned);
    *partitioned = NULL;
    return st;
}
