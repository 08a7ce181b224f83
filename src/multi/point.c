/* An engine of a multi design file costed again at its recorded design point, without a
 * search: the cut vector and the input foldings are recorded by layer name, the block
 * sizes (coarse, MACC units, bank BRAM18) in the order of the blocks the design uses.
 * cm_latency_evaluate takes sizes for every block of the reference architecture, which
 * also holds blocks no subgraph uses (the accumulation of a layer left unfolded), so the
 * architecture of the cuts is rebuilt here to place the recorded sizes: this is the one
 * place outside src/latency that reads its internal header, and the mapping from a
 * design's used blocks to its architecture belongs in the latency library's API. */
#include "latency/latency_internal.h"
#include "multi/multi_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/json_file.h"

typedef struct point_ctx {
    const cm_graph *g;
    const cm_lat_net *net;
    const cm_multi_point *p;
    const char *path, *field;  /* for messages */
    cm_error *err;
} point_ctx;

static cm_status bad(const point_ctx *c, cm_status code, const char *what, const char *name)
{
    return cm_error_set(c->err, code, "%s: %s.%s%.128s%s", c->path, c->field, what,
                        name ? name : "", name ? "\"" : "");
}

static const char *weight_name(const point_ctx *c, int w)
{
    return c->g->layers[c->net->l[c->net->weight_at[w]].graph_index].name;
}

/* The index among weight layers of the layer named name, -1 when none. */
static int weight_of(const point_ctx *c, const char *name)
{
    for (int w = 0; w < c->net->n_weight; w++)
        if (strcmp(weight_name(c, w), name) == 0)
            return w;
    return -1;
}

static cm_status cut_vector(const point_ctx *c, bool *cut)
{
    for (int k = 0; k < c->p->n_cuts; k++) {
        int w = weight_of(c, c->p->cuts[k]);
        if (w < 1)
            return bad(c, CM_EINPUT, "cuts: no convolution or dense layer after the first is "
                       "named \"", c->p->cuts[k]);
        if (cut[w])
            return bad(c, CM_EINPUT, "cuts: a cut named twice: \"", c->p->cuts[k]);
        cut[w] = true;
    }
    return CM_OK;
}

static cm_status fold_vector(const point_ctx *c, int *fin)
{
    for (int w = 0; w < c->net->n_weight; w++)
        fin[w] = 1;
    for (int k = 0; k < c->p->n_folds; k++) {
        int w = weight_of(c, c->p->fold_layers[k]);
        if (w < 0)
            return bad(c, CM_EINPUT, "folds: no convolution or dense layer is named \"",
                       c->p->fold_layers[k]);
        if (fin[w] > 1)
            return bad(c, CM_EINPUT, "folds: a layer folded twice: \"", c->p->fold_layers[k]);
        fin[w] = c->p->folds[k];
    }
    return CM_OK;
}

/* The blocks the subgraphs of a[] use when the weight layers are folded as fin says: a
 * folded group runs its first layer alone, then its accumulation pattern. */
static void used_blocks(const cm_lat_arch *a, const int *fin, bool *used)
{
    for (int gi = 0; gi < a->n_groups; gi++) {
        const cm_lat_group *g = &a->groups[gi];
        bool folded = g->foldable && fin[g->weight] > 1;
        for (int s = 0; s < (folded ? 1 : g->n_steps); s++)
            used[g->steps[s].block] = true;
        for (int s = 0; folded && s < g->n_acc_steps; s++)
            used[g->acc_steps[s].block] = true;
    }
}

/* The recorded sizes in the order of the used blocks; the others get 1 (unused, so
 * they cost nothing). Sizes of pointwise blocks other than their streams mean nothing. */
static cm_status place_sizes(const point_ctx *c, const cm_lat_arch *a, const bool *used,
                             int *coarse, int *macc, int *bank)
{
    int k = 0;
    for (int b = 0; b < a->n_blocks; b++) {
        coarse[b] = macc[b] = bank[b] = 1;
        if (!used[b] || k >= c->p->n_blocks) {
            k += used[b];
            continue;
        }
        const cm_multi_block *x = &c->p->blocks[k++];
        coarse[b] = x->coarse;
        if (a->kind[b] == CM_LATENCY_CONV) {
            macc[b] = x->macc;
            bank[b] = x->bank_bram;
        }
    }
    if (k != c->p->n_blocks)
        return cm_error_set(c->err, CM_EINPUT, "%s: %s.blocks: %d blocks recorded; the "
                            "architecture of its cuts and folds uses %d", c->path, c->field,
                            c->p->n_blocks, k);
    return CM_OK;
}

/* The costed design must be the recorded one: the same foldings and block names. */
static cm_status same_point(const point_ctx *c, const cm_latency_design *ld, const int *fin)
{
    for (int w = 0; w < c->net->n_weight; w++) {
        int got = ld->fin[c->net->l[c->net->weight_at[w]].graph_index];
        if (got != fin[w])
            return cm_error_set(c->err, CM_EINPUT, "%s: %s.folds: the recorded banks split "
                                "layer %.128s over %d passes, not %d", c->path, c->field,
                                weight_name(c, w), got, fin[w]);
    }
    if (ld->n_blocks != c->p->n_blocks)
        return cm_error_set(c->err, CM_EINPUT, "%s: %s.blocks: %d blocks recorded; the design "
                            "uses %d", c->path, c->field, c->p->n_blocks, ld->n_blocks);
    for (int b = 0; b < ld->n_blocks; b++)
        if (strcmp(ld->blocks[b].name, c->p->blocks[b].name) != 0)
            return cm_error_set(c->err, CM_EINPUT, "%s: %s.blocks[%d]: named \"%.24s\"; the "
                                "architecture's block there is %s", c->path, c->field, b,
                                c->p->blocks[b].name, ld->blocks[b].name);
    return CM_OK;
}

static cm_status cost(const point_ctx *c, const cm_board *board, const cm_latency_options *lo,
                      const bool *cut, const int *fin, cm_latency_design *ld)
{
    cm_lat_arch a;
    cm_status st = cm_lat_arch_build(c->net, cut, lo->input_folding, &a, c->err);
    if (st != CM_OK)
        return st;
    size_t n = (size_t)a.n_blocks + 1;
    bool *used = calloc(n, sizeof *used);
    int *coarse = calloc(n, sizeof *coarse), *macc = calloc(n, sizeof *macc),
        *bank = calloc(n, sizeof *bank);
    st = used && coarse && macc && bank ? CM_OK : cm_error_nomem(c->err);
    if (st == CM_OK) {
        used_blocks(&a, fin, used);
        st = place_sizes(c, &a, used, coarse, macc, bank);
    }
    if (st == CM_OK) {
        cm_latency_point p = {cut, coarse, macc, bank};
        st = cm_latency_evaluate(c->g, board, lo, &p, ld, c->err);
        if (st != CM_OK) {
            cm_error_prefix(c->err, c->field);
            st = cm_design_source_error(c->err, c->path, st);
        }
    }
    free(used);
    free(coarse);
    free(macc);
    free(bank);
    cm_lat_arch_free(&a);
    return st;
}

static cm_status check_banks(const point_ctx *c, const cm_board *board, const cm_latency_design *ld)
{
    if (ld->feasible || !cm_resources_fit(&ld->resources, &board->resources))
        return CM_OK; /* the engines' resources are checked together */
    return cm_error_set(c->err, CM_EINFEASIBLE, "%s: %s: the weights of some layer fit none of "
                        "its block's banks at any input folding (bank_bram too small)", c->path,
                        c->field);
}

cm_status cm_mt_engine_at(const cm_graph *g, const cm_board *board, const cm_latency_options *lo,
                          const cm_multi_point *p, double cap, const char *design_path,
                          const char *field, cm_multi_engine *e, cm_error *err)
{
    memset(e, 0, sizeof *e);
    cm_lat_net net;
    cm_status st = cm_lat_net_build(g, &net, err);
    if (st != CM_OK) {
        cm_error_prefix(err, field);
        return cm_design_source_error(err, design_path, st);
    }
    point_ctx c = {g, &net, p, design_path, field, err};
    bool *cut = calloc((size_t)net.n_weight, sizeof *cut);
    int *fin = calloc((size_t)net.n_weight, sizeof *fin);
    cm_latency_design ld;
    memset(&ld, 0, sizeof ld);
    st = cut && fin ? cut_vector(&c, cut) : cm_error_nomem(err);
    if (st == CM_OK)
        st = fold_vector(&c, fin);
    if (st == CM_OK)
        st = cost(&c, board, lo, cut, fin, &ld);
    if (st == CM_OK)
        st = same_point(&c, &ld, fin);
    if (st == CM_OK)
        st = check_banks(&c, board, &ld);
    if (st == CM_OK)
        st = cm_mt_engine_of(g, &ld, lo->word_bits / 8.0, cap, e, err);
    cm_latency_design_free(&ld);
    free(cut);
    free(fin);
    cm_lat_net_free(&net);
    return st;
}
