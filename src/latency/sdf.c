/* The SDF view of a finished latency-driven design (paper II-E, III-B, III-C): the
 * reference architecture's topology matrix Gamma (arcs x nodes, a ring from the memory
 * node through every block's nodes and back), and for each subgraph its workload matrix
 * aligned onto the reference by Alg. 1 and its initiation-interval matrix II = W / Gamma.
 *
 * Alg. 1 shifts each column of the subgraph's own workload right to the reference
 * column of the block it is scheduled on (the shift vector) and each entry down to that
 * column's own arcs: node c consumes on arc c - 1 and produces on arc c, and a bypassed
 * block's column stays zero. The shifts are applied as index moves, which is what the
 * products with the shift matrices compute. */
#include "latency/latency_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct layout {
    int *block_map;  /* architecture block -> design block, -1 when unused */
    int *first_col;  /* design block -> its first SDF column */
} layout;

static const char *const kind_prefix[] = {
    [CM_LATENCY_CONV] = "conv", [CM_LATENCY_POOL] = "pool", [CM_LATENCY_RELU] = "relu",
    [CM_LATENCY_ACCUM] = "accum", [CM_LATENCY_ELTWISE] = "eltwise",
};

/* Blocks used by some subgraph, named by kind and order. */
static cm_status export_blocks(const cm_lat_arch *a, const cm_lat_fold *f, const cm_lat_eval *e,
                               cm_latency_design *out, layout *lay, cm_error *err)
{
    out->blocks = calloc((size_t)a->n_blocks + 1, sizeof *out->blocks);
    lay->block_map = malloc(((size_t)a->n_blocks + 1) * sizeof *lay->block_map);
    lay->first_col = malloc(((size_t)a->n_blocks + 1) * sizeof *lay->first_col);
    if (!out->blocks || !lay->block_map || !lay->first_col)
        return cm_error_nomem(err);
    int count[CM_LAT_KINDS] = {0};
    out->n_nodes = 1;
    for (int b = 0; b < a->n_blocks; b++) {
        lay->block_map[b] = -1;
        if (e->block_layers[b] == 0)
            continue;
        int d = lay->block_map[b] = out->n_blocks++;
        cm_latency_block *x = &out->blocks[d];
        x->kind = a->kind[b];
        snprintf(x->name, sizeof x->name, "%s%d", kind_prefix[x->kind], count[x->kind]++);
        x->coarse = f->coarse[b];
        x->macc = x->kind == CM_LATENCY_CONV ? f->macc[b] : 1;
        x->bank_bram = x->kind == CM_LATENCY_CONV ? f->bank[b] : 0;
        x->n_layers = e->block_layers[b];
        x->kernel[0] = e->block_kernel[2 * b];
        x->kernel[1] = e->block_kernel[2 * b + 1];
        x->res = e->block_res[b];
        lay->first_col[d] = out->n_nodes;
        out->n_nodes += cm_lat_block_nodes(x->kind);
    }
    out->n_arcs = out->n_nodes;
    return CM_OK;
}

static cm_status export_nodes(cm_latency_design *out, const layout *lay, cm_error *err)
{
    out->node_names = calloc((size_t)out->n_nodes, sizeof *out->node_names);
    out->node_block = calloc((size_t)out->n_nodes, sizeof *out->node_block);
    out->gamma = calloc((size_t)out->n_nodes * (size_t)out->n_arcs, sizeof *out->gamma);
    if (!out->node_names || !out->node_block || !out->gamma)
        return cm_error_nomem(err);
    snprintf(out->node_names[0], sizeof out->node_names[0], "memory");
    out->node_block[0] = -1;
    for (int d = 0; d < out->n_blocks; d++) {
        int c = lay->first_col[d];
        const char *name = out->blocks[d].name;
        out->node_block[c] = d;
        if (out->blocks[d].kind != CM_LATENCY_CONV) {
            snprintf(out->node_names[c], sizeof out->node_names[c], "%s", name);
            continue;
        }
        out->node_block[c + 1] = d;
        snprintf(out->node_names[c], sizeof out->node_names[c], "%s.window", name);
        snprintf(out->node_names[c + 1], sizeof out->node_names[c + 1], "%s.bank", name);
    }
    return CM_OK;
}

/* Places one node's entries on its reference arcs (consumes on c - 1, produces on c). */
static void place(const cm_latency_design *out, cm_latency_subgraph *s, int c,
                  const cm_lat_entry *x)
{
    const int n = out->n_nodes, in_row = (c + out->n_arcs - 1) % out->n_arcs;
    s->workload[in_row * n + c] = x->w_in;
    s->workload[c * n + c] = x->w_out;
    out->gamma[in_row * n + c] = x->g_in;
    out->gamma[c * n + c] = x->g_out;
}

static void fill_ii(const cm_latency_design *out, cm_latency_subgraph *s)
{
    for (int i = 0; i < out->n_arcs * out->n_nodes; i++)
        s->ii[i] = s->workload[i] != 0.0 && out->gamma[i] != 0.0 ? s->workload[i] / out->gamma[i]
                                                                  : 0.0;
}

static cm_status alloc_sub(const cm_latency_design *out, cm_latency_subgraph *s, int columns,
                           cm_error *err)
{
    size_t cells = (size_t)out->n_arcs * (size_t)out->n_nodes;
    s->workload = calloc(cells, sizeof *s->workload);
    s->ii = calloc(cells, sizeof *s->ii);
    s->column = calloc((size_t)columns, sizeof *s->column);
    s->shift = calloc((size_t)columns, sizeof *s->shift);
    s->layers = calloc((size_t)columns, sizeof *s->layers);
    return s->workload && s->ii && s->column && s->shift && s->layers ? CM_OK
                                                                      : cm_error_nomem(err);
}

static void add_column(cm_latency_subgraph *s, int c)
{
    s->column[s->n_columns] = c;
    s->shift[s->n_columns] = c - s->n_columns;
    s->n_columns++;
}

static cm_status export_sub(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f,
                            const cm_lat_eval *e, int si, cm_latency_design *out,
                            const layout *lay, cm_error *err)
{
    const cm_lat_sub *src = &e->subs[si];
    cm_latency_subgraph *s = &out->subgraphs[si];
    cm_status st = alloc_sub(out, s, 1 + 2 * src->n_steps, err);
    if (st != CM_OK)
        return st;
    double in, outw;
    cm_lat_sub_io(a->net, src, &in, &outw);
    cm_lat_entry mem = {-outw, -m->bw_words, in, m->bw_words};
    place(out, s, 0, &mem);
    add_column(s, 0);
    for (int k = 0; k < src->n_steps; k++) {
        const cm_lat_step *x = &src->steps[k];
        const cm_lat_layer *l = &a->net->l[x->layer];
        cm_lat_entry ent[2];
        double depth;
        int n = cm_lat_step_entries(l, x->kind, cm_lat_step_slices(src->fold, src->folds, x->kind),
                                    f->coarse[x->block], f->macc[x->block],
                                    ent, &depth);
        int c = lay->first_col[lay->block_map[x->block]];
        for (int i = 0; i < n; i++) {
            place(out, s, c + i, &ent[i]);
            add_column(s, c + i);
        }
        if (x->kind == CM_LATENCY_CONV)
            s->macs += l->macs / (uint64_t)src->folds;
        s->layers[s->n_layers++] = l->graph_index;
    }
    s->first_layer = a->net->l[src->steps[0].layer].graph_index;
    s->last_layer = a->net->l[src->steps[src->n_steps - 1].layer].graph_index;
    s->fold = src->fold;
    s->folds = src->folds;
    s->weight_words = e->sub_weight_words[si];
    s->ii_max_cycles = e->sub_ii[si];
    s->depth_cycles = e->sub_depth[si];
    s->exec_s = e->sub_exec[si];
    s->weights_s = e->sub_weights_s[si];
    fill_ii(out, s);
    return CM_OK;
}

static void export_totals(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_eval *e,
                          cm_latency_design *out)
{
    out->feasible = e->feasible;
    out->latency_s = e->latency_s;
    out->exec_s = e->exec_s;
    out->weights_s = e->weights_s;
    out->resources = e->res;
    out->batch = m->batch;
    out->clock_mhz = m->clock_hz / 1e6;
    out->bandwidth_gbps = m->bw_bytes_s / 1e9;
    out->gops = e->latency_s > 0 ? 2.0 * (double)a->net->macs * m->batch / e->latency_s / 1e9 : 0;
    for (int b = 0; b < out->n_blocks; b++)
        if (out->blocks[b].kind == CM_LATENCY_CONV)
            out->peak_gops += 2.0 * out->blocks[b].coarse * out->blocks[b].macc * m->clock_hz / 1e9;
}

static cm_status export_fin(const cm_lat_arch *a, const cm_lat_eval *e, cm_latency_design *out,
                            cm_error *err)
{
    out->n_layers = a->net->n_graph_layers;
    out->fin = malloc((size_t)out->n_layers * sizeof *out->fin);
    if (!out->fin)
        return cm_error_nomem(err);
    for (int i = 0; i < out->n_layers; i++)
        out->fin[i] = 1;
    for (int w = 0; w < a->net->n_weight; w++)
        out->fin[a->net->l[a->net->weight_at[w]].graph_index] = e->fin[w];
    return CM_OK;
}

cm_status cm_lat_export(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f,
                        const cm_lat_eval *e, cm_latency_design *out, cm_error *err)
{
    layout lay = {0};
    cm_status st = export_blocks(a, f, e, out, &lay, err);
    if (st == CM_OK)
        st = export_nodes(out, &lay, err);
    if (st == CM_OK) {
        out->subgraphs = calloc((size_t)e->n_subs, sizeof *out->subgraphs);
        out->n_subgraphs = out->subgraphs ? e->n_subs : 0;
        if (!out->subgraphs)
            st = cm_error_nomem(err);
    }
    for (int si = 0; st == CM_OK && si < e->n_subs; si++)
        st = export_sub(a, m, f, e, si, out, &lay, err);
    if (st == CM_OK)
        st = export_fin(a, e, out, err);
    if (st == CM_OK)
        export_totals(a, m, e, out);
    free(lay.block_map);
    free(lay.first_col);
    return st;
}
