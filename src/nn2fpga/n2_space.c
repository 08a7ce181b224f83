/* The design space of section 4.4.1: for every layer, each (ow_par, och_par, ich_par)
 * of divisors of (ow, och, ich) (of a group's channels for a grouped convolution), with the weights in BRAM or URAM, that fits the board
 * on its own. The exact optimiser also drops a configuration no better than another in
 * every latency and resource, which changes neither phase's optimum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn2fpga/n2_internal.h"

static int divisors(int64_t n, int *out, int cap)
{
    int k = 0;
    for (int64_t d = 1; d <= n && k < cap; d++)
        if (n % d == 0)
            out[k++] = (int)d;
    return k;
}

/* b is at least as good as a in everything that either phase looks at. */
static bool covers(const n2_config *b, const n2_config *a)
{
    return n2_config_latency(b) <= n2_config_latency(a) && b->dsp <= a->dsp &&
           b->bram <= a->bram && b->uram_banks <= a->uram_banks;
}

static bool same_costs(const n2_config *b, const n2_config *a)
{
    return covers(b, a) && covers(a, b);
}

/* Keeps the configurations that no other covers; of equal ones, the first. */
static int prune_dominated(n2_config *c, int n)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        bool dominated = false;
        for (int j = 0; j < n && !dominated; j++)
            dominated = j != i && covers(&c[j], &c[i]) && (!same_costs(&c[j], &c[i]) || j < i);
        if (!dominated)
            c[kept++] = c[i];
    }
    return kept;
}

static bool fits(const n2_config *c, const n2_budget *b)
{
    return c->dsp <= b->dsp && c->bram <= b->bram && c->uram_banks <= b->uram;
}

typedef struct factor_sets {
    int ow[64], och[128], ich[128];
    int n_ow, n_och, n_ich, n_uram;
} factor_sets;

static void factor_sets_of(const cm_nn2fpga_layer *l, const n2_budget *b, factor_sets *f)
{
    f->n_ow = divisors(l->ow, f->ow, 64);
    int64_t groups = l->groups > 1 ? l->groups : 1; /* the factors divide a group's channels */
    f->n_och = l->kind == CM_NN2FPGA_CONV ? divisors(l->och / groups, f->och, 128) : 1;
    f->och[0] = 1;
    f->n_ich = divisors(l->ich / groups, f->ich, 128);
    bool weighted = l->kind == CM_NN2FPGA_CONV || l->kind == CM_NN2FPGA_DWCONV;
    f->n_uram = weighted && b->uram > 0 ? 2 : 1;
}

/* Appends layer l's fitting configurations to c (room for all of them). */
static int enumerate_layer(const cm_nn2fpga_layer *layer, const n2_budget *b, n2_config *c)
{
    factor_sets f;
    factor_sets_of(layer, b, &f);
    cm_nn2fpga_layer l = *layer;
    int n = 0;
    for (int u = 0; u < f.n_uram; u++)
        for (int x = 0; x < f.n_ow; x++)
            for (int y = 0; y < f.n_och; y++)
                for (int z = 0; z < f.n_ich; z++) {
                    if (cm_nn2fpga_configure(&l, f.ow[x], f.och[y], f.ich[z], u == 1, NULL) != CM_OK)
                        continue;
                    n2_config k = {l.ow_par, l.och_par, l.ich_par, l.weights_in_uram, l.lc, l.lw,
                                   l.dsp, l.bram_weights + l.bram_window, l.uram_weights};
                    if (fits(&k, b))
                        c[n++] = k;
                }
    return n;
}

static size_t layer_capacity(const cm_nn2fpga_layer *l, const n2_budget *b)
{
    factor_sets f;
    factor_sets_of(l, b, &f);
    return (size_t)f.n_ow * (size_t)f.n_och * (size_t)f.n_ich * (size_t)f.n_uram;
}

static const char *const resource_names[] = {"DSP", "BRAM18", "URAM"};

/* What the board has of a resource, as a phrase: the board's own figure, and for BRAM18
 * what the skip buffers take of it before the layers get theirs. */
static void board_has(const cm_board *board, const n2_budget *b, int which, char *out, size_t cap)
{
    const int64_t have[] = {board->resources.dsp, board->resources.bram18, board->resources.uram};
    if (which == 1 && b->bram_skip > 0)
        snprintf(out, cap, "%s has %lld BRAM18, %lld of them taken by the skip buffers, which "
                 "leaves %lld for the layers' weights and window buffers", board->name,
                 (long long)have[1], (long long)b->bram_skip, (long long)b->bram);
    else
        snprintf(out, cap, "%s has %lld %s", board->name, (long long)have[which],
                 resource_names[which]);
}

cm_status n2_short_of(const cm_board *board, const n2_budget *b, int which, int64_t need,
                      cm_error *err)
{
    char has[256];
    board_has(board, b, which, has, sizeof has);
    return cm_error_set(err, CM_EINFEASIBLE, "no feasible design: even the minimal design's "
                        "layers need %lld %s%s; %s", (long long)need, resource_names[which],
                        which == 1 ? " for weights and window buffers" : "", has);
}

static cm_status no_config(const cm_nn2fpga_layer *l, const cm_board *board, const n2_budget *b,
                           cm_error *err)
{
    int which = l->dsp > b->dsp ? 0 : l->bram_weights + l->bram_window > b->bram ? 1 : 2;
    char has[256];
    board_has(board, b, which, has, sizeof has);
    return cm_error_set(err, CM_EINFEASIBLE,
                        "no feasible design: layer %s needs %lld DSP and %lld BRAM18 even with "
                        "every unroll factor 1 (%s is short: %s)",
                        l->name, (long long)l->dsp, (long long)(l->bram_weights + l->bram_window),
                        resource_names[which], has);
}

cm_status n2_space_build(const cm_nn2fpga_result *r, const cm_board *board, const n2_budget *b,
                         bool prune, n2_space *sp, cm_error *err)
{
    memset(sp, 0, sizeof *sp);
    size_t cap = 0;
    for (int t = 0; t < r->n_layers; t++)
        cap += layer_capacity(&r->layers[t], b);
    sp->n_layers = r->n_layers;
    sp->period_floor = r->port_cycles;
    sp->first = calloc((size_t)r->n_layers + 1, sizeof *sp->first);
    sp->enumerated_in = calloc((size_t)r->n_layers + 1, sizeof *sp->enumerated_in);
    sp->cfg = malloc((cap + 1) * sizeof *sp->cfg);
    if (!sp->first || !sp->enumerated_in || !sp->cfg) {
        n2_space_free(sp);
        return cm_error_nomem(err);
    }
    for (int t = 0; t < r->n_layers; t++) {
        sp->first[t] = sp->n_cfg;
        int n = enumerate_layer(&r->layers[t], b, sp->cfg + sp->n_cfg);
        if (n == 0) {
            n2_space_free(sp);
            return no_config(&r->layers[t], board, b, err);
        }
        sp->enumerated += n;
        sp->enumerated_in[t] = n;
        sp->n_cfg += prune ? prune_dominated(sp->cfg + sp->n_cfg, n) : n;
    }
    sp->first[r->n_layers] = sp->n_cfg;
    return CM_OK;
}

void n2_space_free(n2_space *sp)
{
    free(sp->first);
    free(sp->enumerated_in);
    free(sp->cfg);
    memset(sp, 0, sizeof *sp);
}

/* The least of one resource over a layer's configurations. */
static int64_t least(const n2_space *sp, int t, int which)
{
    int64_t best = INT64_MAX;
    for (int k = sp->first[t]; k < sp->first[t + 1]; k++) {
        const n2_config *c = &sp->cfg[k];
        int64_t v = which == 0 ? c->dsp : which == 1 ? c->bram : c->uram_banks;
        if (v < best)
            best = v;
    }
    return best;
}

cm_status n2_space_check_minimum(const n2_space *sp, const n2_budget *b, const cm_board *board,
                                 cm_error *err)
{
    const int64_t have[] = {b->dsp, b->bram, b->uram};
    for (int which = 0; which < 3; which++) {
        int64_t need = 0;
        for (int t = 0; t < sp->n_layers; t++)
            need += least(sp, t, which);
        if (need > have[which])
            return n2_short_of(board, b, which, need, err);
    }
    return CM_OK;
}
