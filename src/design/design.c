/* A design's life cycle and its incremental evaluation: creation from a graph (the
 * resource-minimal design), folding changes that re-cost one node from its memo and
 * patch its partition's sums and maximum, and the whole-design figures of SAMO
 * eqs. 2-4 computed from the partition aggregates. */
#include "design/design_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Folding spaces up to this many points per node are tabulated. */
#define CM_MEMO_MAX_ENTRIES 65536

void cm_design_options_init(cm_design_options *o)
{
    memset(o, 0, sizeof *o);
    o->backend = CM_BACKEND_FPGACONVNET;
    o->objective = CM_OBJECTIVE_LATENCY;
    o->batch = 256;
    o->reconfiguration = true;
    o->weights_reloading = true;
    cm_util_caps_set_all(&o->max_util, 1.0);
}

/* Entries in node i's memo: one per valid folding, 0 where the space is too large to
 * tabulate. */
static size_t memo_entries(const cm_design *d, int i)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    int64_t entries = (int64_t)n->fold[0].count * n->fold[1].count * n->fold[2].count;
    return entries <= 0 || entries > CM_MEMO_MAX_ENTRIES ? 0 : (size_t)entries;
}

/* Each node's memo is a slice of one table of slots, one per valid folding, and a slot
 * names a cost in one pool, where costs are appended as they are first asked for.
 * Costs kept a node at a time (about 190 bytes a folding) put every node's first cost
 * on a page of its own: on a 30,000-node design that was a page fault a node, a tenth
 * of making it, and most of its memory. The memo is only a cache: without memory for
 * it, every node is costed directly. */
static void memo_init(cm_design *d)
{
    size_t total = 0;
    for (int i = 0; i < d->hd.n_nodes; i++)
        total += memo_entries(d, i);
    if (total == 0)
        return;
    d->memo_slots = calloc(total, sizeof *d->memo_slots);
    d->memo_cap = (size_t)d->hd.n_nodes + 16;
    d->memo_pool = malloc(d->memo_cap * sizeof *d->memo_pool);
    if (!d->memo_slots || !d->memo_pool) {
        free(d->memo_slots);
        free(d->memo_pool);
        d->memo_slots = NULL;
        d->memo_pool = NULL;
        return;
    }
    size_t at = 0;
    for (int i = 0; i < d->hd.n_nodes; i++) {
        const size_t entries = memo_entries(d, i);
        if (entries > 0)
            d->memo[i] = d->memo_slots + at;
        at += entries;
    }
}

/* A new slot in the pool for a cost (its number, from 1), or 0 when the pool can grow
 * no more: the cost is then not kept. */
static uint32_t memo_append(cm_design *d, const cm_block_cost *c)
{
    if (d->memo_len == d->memo_cap) {
        if (d->memo_cap >= UINT32_MAX / 2)
            return 0;
        cm_block_cost *grown = realloc(d->memo_pool, 2 * d->memo_cap * sizeof *grown);
        if (!grown)
            return 0;
        d->memo_pool = grown;
        d->memo_cap *= 2;
    }
    d->memo_pool[d->memo_len++] = *c;
    return (uint32_t)d->memo_len;
}

/* v's position in the sorted valid list, -1 when absent. Halving without a branch on
 * the comparison: a search's moves pick values at random, so a branching search
 * mispredicts about every other step, and this lookup is part of every move. */
static int value_index(const cm_hd_values *vals, int64_t v)
{
    const int64_t *base = vals->v;
    int n = vals->count;
    if (n <= 0)
        return -1;
    while (n > 1) {
        const int half = n / 2;
        base = base[half] <= v ? base + half : base;
        n -= half;
    }
    return *base == v ? (int)(base - vals->v) : -1;
}

static int64_t valid_at_most(const cm_hd_values *vals, int64_t v)
{
    int64_t best = vals->v[0];
    for (int i = 0; i < vals->count && vals->v[i] <= v; i++)
        best = vals->v[i];
    return best;
}

/* The cost of node i at folding f (memo indices idx, -1 where f is not valid). The
 * memo is a cache, filled even through a const design. */
static void cost_lookup(const cm_design *d, int i, const int64_t f_in[3], const int idx[3],
                        cm_block_cost *out)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    uint32_t *slots = d->memo[i];
    if (slots && idx[0] >= 0 && idx[1] >= 0 && idx[2] >= 0) {
        size_t k = ((size_t)idx[0] * (size_t)n->fold[1].count + (size_t)idx[1]) *
                       (size_t)n->fold[2].count + (size_t)idx[2];
        if (slots[k]) {
            *out = d->memo_pool[slots[k] - 1];
            return;
        }
        cm_hd_node_cost(n, f_in[0], f_in[1], f_in[2], out);
        slots[k] = memo_append((cm_design *)d, out);
        return;
    }
    /* A value outside the valid list (a hand-edited design) is costed at the nearest
     * valid value below it: the cost models assume factors, and the design is
     * reported infeasible by the channel-factor check anyway. */
    int64_t f[3];
    for (int k = 0; k < 3; k++)
        f[k] = idx[k] >= 0 ? f_in[k] : valid_at_most(&n->fold[k], f_in[k]);
    cm_hd_node_cost(n, f[0], f[1], f[2], out);
}

static void node_cost(cm_design *d, int i, cm_block_cost *out)
{
    d->evaluations++;
    cost_lookup(d, i, d->state[i].fold, d->state[i].idx, out);
}

void cm_design_node_cost_at(const cm_design *d, int node, int64_t in, int64_t out, int64_t kernel,
                            double *cycles, double *pipeline_depth, cm_resources *res)
{
    const cm_hd_node *n = &d->hd.nodes[node];
    int64_t f[3] = {in, out, kernel};
    int idx[3];
    for (int k = 0; k < 3; k++)
        idx[k] = value_index(&n->fold[k], f[k]);
    cm_block_cost c;
    cost_lookup(d, node, f, idx, &c);
    if (cycles)
        *cycles = c.cycles;
    if (pipeline_depth)
        *pipeline_depth = c.pipeline_depth;
    if (res)
        *res = c.res;
}

void cm_design_node_block_cost(const cm_design *d, int node, const int64_t fold[3],
                               cm_block_cost *out)
{
    const cm_hd_node *n = &d->hd.nodes[node];
    int idx[3];
    for (int k = 0; k < 3; k++)
        idx[k] = value_index(&n->fold[k], fold[k]);
    cost_lookup(d, node, fold, idx, out);
}

bool cm_design_node_bad(const cm_design *d, int i)
{
    const cm_node_state *s = &d->state[i];
    if (s->idx[0] < 0 || s->idx[1] < 0 || s->idx[2] < 0)
        return true;
    return (d->hd.nodes[i].flags & CM_HD_INTRA) && s->fold[0] != s->fold[1];
}

bool cm_design_edge_bad(const cm_design *d, int u, int v)
{
    /* Between partitions the data goes through off-chip memory, so the stream
     * widths of the two configurations need not match. */
    if (d->part_of[u] != d->part_of[v])
        return false;
    unsigned flags = d->hd.nodes[u].flags;
    int64_t a = d->state[u].fold[CM_FOLD_OUT], b = d->state[v].fold[CM_FOLD_IN];
    if ((flags & CM_HD_INTER) && a != b)
        return true;
    if (flags & CM_HD_DIVISIBLE) {
        int64_t hi = a > b ? a : b, lo = a > b ? b : a;
        return lo <= 0 || hi % lo != 0;
    }
    return false;
}

static int incident_bad_edges(const cm_design *d, int i)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    int bad = 0;
    for (int k = 0; k < n->n_pred; k++)
        bad += cm_design_edge_bad(d, n->pred[k], i);
    for (int k = 0; k < n->n_succ; k++)
        bad += cm_design_edge_bad(d, i, n->succ[k]);
    return bad;
}

/* What the first frame takes beyond the interval (first_frame.c), from node `from` on
 * timed again. */
static double part_depth(const cm_design *d, const cm_part *p, bool whole)
{
    const double ff = cm_design_first_frame(d, p->first, p->end, whole ? p->first : p->stale_from,
                                            p->stale_to, whole);
    /* a frame never takes less than the modelled interval (fpgaConvNet's rate balancing
     * can make the interval longer than the modules' own work) */
    return ff > p->interval ? ff - p->interval : 0.0;
}

/* The partition's depth, brought up to date first: a folding change only marks it
 * stale, since searches change several nodes before they look at the cost. The design
 * is the caller's own (never shared between threads), so the cache may be written
 * through a const pointer. */
static double depth_of(const cm_design *d, const cm_part *p)
{
    if (p->stale_from < p->end) {
        cm_part *w = (cm_part *)p;
        w->depth = part_depth(d, p, false);
        w->stale_from = INT_MAX;
        w->stale_to = -1;
    }
    return p->depth;
}

static void part_rescan_interval(const cm_design *d, cm_part *p)
{
    p->interval = 0.0;
    p->slowest = p->first;
    for (int i = p->first; i < p->end; i++)
        if (d->state[i].cost.cycles > p->interval) {
            p->interval = d->state[i].cost.cycles;
            p->slowest = i;
        }
}

static double part_io_bits(const cm_design *d, const cm_part *p)
{
    double bits = 0.0;
    for (int i = p->first; i < p->end; i++) {
        const cm_hd_node *n = &d->hd.nodes[i];
        if (n->n_pred == 0)
            bits += (double)n->size_in * n->bits_in;
        for (int k = 0; k < n->n_pred; k++)
            if (n->pred[k] < p->first) {
                const cm_hd_node *u = &d->hd.nodes[n->pred[k]];
                bits += (double)u->size_out * u->bits_out;
            }
        bool leaves = n->n_succ == 0;
        for (int k = 0; k < n->n_succ; k++)
            leaves |= n->succ[k] >= p->end;
        if (leaves)
            bits += (double)n->size_out * n->bits_out;
    }
    return bits;
}

/* True when every node has at most one predecessor and one successor inside the
 * partition: then the longest path is the whole partition. */
static bool part_is_chain(const cm_design *d, const cm_part *p)
{
    /* In topological order, one node without a predecessor inside, every other with
     * exactly one, and none with two successors inside: a single path. */
    for (int i = p->first; i < p->end; i++) {
        const cm_hd_node *n = &d->hd.nodes[i];
        int succ_inside = 0, pred_inside = 0;
        for (int k = 0; k < n->n_succ; k++)
            succ_inside += n->succ[k] < p->end;
        for (int k = 0; k < n->n_pred; k++)
            pred_inside += n->pred[k] >= p->first;
        if (succ_inside > 1 || pred_inside != (i == p->first ? 0 : 1))
            return false;
    }
    return true;
}

void cm_design_part_refresh(cm_design *d, int pi)
{
    cm_part *p = &d->parts[pi];
    p->chain = part_is_chain(d, p);
    memset(&p->res, 0, sizeof p->res);
    for (int i = p->first; i < p->end; i++) {
        cm_resources_add(&p->res, &d->state[i].cost.res);
        d->part_of[i] = pi;
    }
    cm_fifo_cost_add(d, pi, &p->res); /* recorded FIFO depths (design/fifo_cost.c) */
    part_rescan_interval(d, p);
    p->depth = part_depth(d, p, true);
    cm_design_frame_layout(d, p->first, p->end); /* after: it reads the late bounds' cache */
    p->stale_from = INT_MAX;
    p->stale_to = -1;
    p->io_bits = part_io_bits(d, p);
}

/* Records node i's folding before its first change since the journal began. */
static void journal_note(cm_design *d, int i)
{
    if (d->journal_mark[i])
        return;
    d->journal_mark[i] = 1;
    memcpy(&d->journal_fold[3 * i], d->state[i].fold, 3 * sizeof(int64_t));
    if (d->journal_lo > d->journal_hi)
        d->journal_lo = d->journal_hi = i;
    else if (i < d->journal_lo)
        d->journal_lo = i;
    else if (i > d->journal_hi)
        d->journal_hi = i;
}

bool cm_design_journal_start(cm_design *d)
{
    if (!d->journal_mark) {
        const size_t n = (size_t)d->hd.n_nodes + 1;
        d->journal_fold = malloc(3 * n * sizeof *d->journal_fold);
        d->journal_mark = calloc(n, 1);
        if (!d->journal_fold || !d->journal_mark) {
            free(d->journal_fold);
            free(d->journal_mark);
            d->journal_fold = NULL;
            d->journal_mark = NULL;
            return false;
        }
    }
    d->journal_on = true;
    d->journal_lo = 1;
    d->journal_hi = 0; /* empty */
    return true;
}

void cm_design_journal_end(cm_design *d)
{
    if (d->journal_lo <= d->journal_hi)
        memset(d->journal_mark + d->journal_lo, 0, (size_t)(d->journal_hi - d->journal_lo + 1));
    d->journal_on = false;
}

/* In node order, as a search restoring a partition node by node would, so that the
 * partition's aggregates (its slowest node among equals) come back the same way. The
 * changed nodes lie within one partition, so their span is at most its size. */
void cm_design_journal_undo(cm_design *d)
{
    d->journal_on = false;
    for (int i = d->journal_lo; i <= d->journal_hi; i++) {
        if (!d->journal_mark[i])
            continue;
        const int64_t *f = &d->journal_fold[3 * i];
        const int64_t *now = d->state[i].fold;
        /* a node set back to the folding it had is left alone, as if never touched */
        if (now[0] != f[0] || now[1] != f[1] || now[2] != f[2])
            cm_design_set_folding(d, i, f[0], f[1], f[2]);
    }
    cm_design_journal_end(d);
}

void cm_design_set_folding(cm_design *d, int i, int64_t in, int64_t out, int64_t kernel)
{
    cm_node_state *s = &d->state[i];
    if (d->journal_on)
        journal_note(d, i);
    const cm_hd_node *n = &d->hd.nodes[i];
    int bad_before = incident_bad_edges(d, i);
    d->bad_nodes -= s->bad;
    int64_t f[3] = {in, out, kernel};
    for (int k = 0; k < 3; k++) {
        s->fold[k] = f[k];
        s->idx[k] = value_index(&n->fold[k], f[k]);
    }
    const cm_resources old_res = s->cost.res;
    node_cost(d, i, &s->cost);
    d->frame_late[i] = s->cost.timing.late_in_rows > 0;
    s->bad = cm_design_node_bad(d, i);
    d->bad_nodes += s->bad;
    d->bad_edges += incident_bad_edges(d, i) - bad_before;

    cm_part *p = &d->parts[d->part_of[i]];
    cm_resources_sub(&p->res, &old_res);
    cm_resources_add(&p->res, &s->cost.res);
    if (s->cost.cycles >= p->interval) {
        p->interval = s->cost.cycles;
        p->slowest = i;
    } else if (p->slowest == i) {
        part_rescan_interval(d, p);
    }
    if (i < p->stale_from)
        p->stale_from = i;
    if (i > p->stale_to)
        p->stale_to = i;
    d->frame_stale[i] = 1;
}

static cm_status design_alloc(cm_design *d, cm_error *err)
{
    size_t n = (size_t)d->hd.n_nodes;
    d->state = calloc(n, sizeof *d->state);
    d->memo = calloc(n, sizeof *d->memo);
    d->part_of = calloc(n, sizeof *d->part_of);
    d->parts = calloc(n, sizeof *d->parts);
    d->scratch_fold = calloc(2 * n, sizeof *d->scratch_fold);
    d->scratch_mark = calloc(n, sizeof *d->scratch_mark);
    d->scratch_list = calloc(4 * n + 4, sizeof *d->scratch_list);
    d->scratch_time = calloc((2 + CM_LATE_STRIDE) * n + 3, sizeof *d->scratch_time);
    d->frame_moved = calloc(n + 1, sizeof *d->frame_moved);
    d->frame_block_shift = cm_design_frame_block_shift((int)n);
    d->frame_owed = calloc(cm_design_frame_owed_size((int)n, d->frame_block_shift),
                           sizeof *d->frame_owed);
    d->frame_reads = calloc(n + 1, sizeof *d->frame_reads);
    d->next_leaving = calloc(n + 1, sizeof *d->next_leaving);
    d->frame_unbound = calloc(n + 1, sizeof *d->frame_unbound);
    d->frame_stale = calloc(n + 1, sizeof *d->frame_stale);
    d->last_succ = calloc(n + 1, sizeof *d->last_succ);
    d->only_pred = calloc(n + 1, sizeof *d->only_pred);
    d->row_source = calloc(n + 1, sizeof *d->row_source);
    d->frame_late = calloc(n + 1, sizeof *d->frame_late);
    d->late_at = calloc(n + 1, sizeof *d->late_at);
    if (!d->state || !d->memo || !d->part_of || !d->parts || !d->scratch_fold ||
        !d->scratch_mark || !d->scratch_list || !d->scratch_time || !d->frame_moved ||
        !d->frame_owed || !d->frame_reads || !d->next_leaving || !d->frame_unbound || !d->frame_stale || !d->last_succ ||
        !d->only_pred || !d->row_source || !d->frame_late || !d->late_at)
        return cm_error_nomem(err);
    size_t most = 1;
    for (size_t i = 0; i < n; i++) {
        const size_t cap = (size_t)cm_design_late_cap(d, (int)i);
        d->late_at[i + 1] = d->late_at[i] + cap;
        most = cap > most ? cap : most;
    }
    d->late_bounds = malloc((2 * d->late_at[n] + 1) * sizeof *d->late_bounds);
    d->late_scratch = malloc(most * sizeof *d->late_scratch);
    if (!d->late_bounds || !d->late_scratch)
        return cm_error_nomem(err);
    for (size_t i = 0; i < n; i++) {
        const cm_hd_node *node = &d->hd.nodes[i];
        d->last_succ[i] = -1;
        for (int k = 0; k < node->n_succ; k++)
            if (node->succ[k] > d->last_succ[i])
                d->last_succ[i] = node->succ[k];
    }
    return CM_OK;
}

/* Node i's one producer, for first_frame.c's inputs_moved: -1 for none, -2 for several
 * or for one passing a window's rows on (node i's figures then also move with that
 * window's input). Its producer's row source is known (an earlier index). */
static int only_producer(const cm_design *d, int i)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    if (n->n_pred != 1)
        return n->n_pred == 0 ? -1 : -2;
    const int p = n->pred[0];
    return d->row_source[p] >= 0 && d->row_source[p] != p ? -2 : p;
}

/* Every folding at its smallest valid value (1), or as in `like` (a design of the same
 * hardware graph, whose costs are taken as they are), the whole network one partition. */
static void design_reset(cm_design *d, const cm_design *like)
{
    d->n_parts = 1;
    d->parts[0].first = 0;
    d->parts[0].end = d->hd.n_nodes;
    d->bad_nodes = d->bad_edges = 0;
    if (like)
        memcpy(d->state, like->state, (size_t)d->hd.n_nodes * sizeof *d->state);
    for (int i = 0; i < d->hd.n_nodes; i++) {
        cm_node_state *s = &d->state[i];
        const cm_hd_node *n = &d->hd.nodes[i];
        if (!like) {
            for (int k = 0; k < 3; k++) {
                s->fold[k] = n->fold[k].v[0];
                s->idx[k] = 0;
            }
            node_cost(d, i, &s->cost);
        }
        d->frame_late[i] = s->cost.timing.late_in_rows > 0;
        d->row_source[i] = cm_design_row_source(d, i);
        d->only_pred[i] = only_producer(d, i);
        s->bad = cm_design_node_bad(d, i);
        d->bad_nodes += s->bad;
    }
    cm_design_part_refresh(d, 0);
    cm_design_recount_edges(d);
}

void cm_design_recount_edges(cm_design *d)
{
    d->bad_edges = 0;
    for (int i = 0; i < d->hd.n_nodes; i++)
        for (int k = 0; k < d->hd.nodes[i].n_succ; k++)
            d->bad_edges += cm_design_edge_bad(d, i, d->hd.nodes[i].succ[k]);
}

/* A design of graph's hardware graph, resource-minimal; or of `like`'s hardware graph
 * (which must outlive it) at like's foldings. */
static cm_status design_create(cm_graph *graph, const cm_board *board, const cm_design_options *o,
                               const cm_design *like, cm_design **out, cm_error *err)
{
    *out = NULL;
    if (o->batch < 1)
        return cm_error_set(err, CM_EUSAGE, "the batch size must be at least 1");
    cm_design *d = calloc(1, sizeof *d);
    if (!d)
        return cm_error_nomem(err);
    d->board = *board;
    d->opt = *o;
    cm_util_caps_apply(&o->max_util, &board->resources, &d->limits);
    if (d->opt.objective == CM_OBJECTIVE_LATENCY)
        d->opt.batch = 1;
    if (d->opt.clock_mhz <= 0)
        d->opt.clock_mhz = board->clock_mhz;
    d->clock_hz = d->opt.clock_mhz * 1e6;
    cm_hd_options ho = {
        .default_weight_bits = o->default_weight_bits > 0 ? o->default_weight_bits : 4,
        .default_act_bits = o->default_act_bits > 0 ? o->default_act_bits : 4,
    };
    cm_status st = CM_OK;
    if (like) {
        d->hd = like->hd;
        d->hd_shared = true;
    } else {
        st = cm_hdgraph_build(graph, o->backend, &ho, &d->hd, err);
    }
    if (st == CM_OK)
        st = design_alloc(d, err);
    if (st != CM_OK) {
        cm_design_free(d);
        return st;
    }
    memo_init(d);
    d->total_macs = cm_graph_totals_of(graph).macs;
    d->graph = graph;
    design_reset(d, like);
    *out = d;
    return CM_OK;
}

cm_status cm_design_create(cm_graph *graph, const cm_board *board, const cm_design_options *o,
                           cm_design **out, cm_error *err)
{
    return design_create(graph, board, o, NULL, out, err);
}

cm_status cm_design_create_sharing(const cm_design *src, cm_design **out, cm_error *err)
{
    return design_create(src->graph, &src->board, &src->opt, src, out, err);
}

void cm_design_free(cm_design *d)
{
    if (!d)
        return;
    free(d->memo_slots);
    free(d->memo_pool);
    free(d->memo);
    free(d->journal_fold);
    free(d->journal_mark);
    free(d->state);
    free(d->part_of);
    free(d->parts);
    free(d->scratch_fold);
    free(d->scratch_mark);
    free(d->scratch_list);
    free(d->scratch_time);
    free(d->frame_moved);
    free(d->frame_owed);
    free(d->frame_reads);
    free(d->next_leaving);
    free(d->frame_unbound);
    free(d->frame_stale);
    free(d->last_succ);
    free(d->only_pred);
    free(d->row_source);
    free(d->frame_late);
    free(d->late_at);
    free(d->late_bounds);
    free(d->late_scratch);
    cm_fifo_set_free(d->fifo);
    if (!d->hd_shared)
        cm_hdgraph_free(&d->hd);
    cm_graph_free(d->graph);
    free(d->model_path);
    free(d->board_ref);
    free(d);
}

cm_status cm_design_set_sources(cm_design *d, const char *model_path, const char *board_ref,
                                cm_error *err)
{
    char *m = strdup(model_path ? model_path : ""), *b = strdup(board_ref ? board_ref : "");
    if (!m || !b) {
        free(m);
        free(b);
        return cm_error_nomem(err);
    }
    free(d->model_path);
    free(d->board_ref);
    d->model_path = m;
    d->board_ref = b;
    return CM_OK;
}

const char *cm_design_model_path(const cm_design *d) { return d->model_path ? d->model_path : ""; }
const char *cm_design_board_ref(const cm_design *d) { return d->board_ref ? d->board_ref : d->board.name; }
const cm_graph *cm_design_graph(const cm_design *d) { return d->graph; }
const cm_board *cm_design_board(const cm_design *d) { return &d->board; }
const cm_design_options *cm_design_options_of(const cm_design *d) { return &d->opt; }
int cm_design_node_count(const cm_design *d) { return d->hd.n_nodes; }
uint64_t cm_design_evaluations(const cm_design *d) { return d->evaluations; }

int cm_design_node_find(const cm_design *d, const char *name)
{
    for (int i = 0; i < d->hd.n_nodes; i++)
        if (strcmp(d->hd.nodes[i].name, name) == 0)
            return i;
    return -1;
}

void cm_design_node_info(const cm_design *d, int i, cm_node_info *out)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    const cm_node_state *s = &d->state[i];
    memset(out, 0, sizeof *out);
    out->name = n->name;
    out->op = n->op;
    out->layer_index = n->layer;
    out->layer = d->graph->layers[n->layer].name;
    out->partition = d->part_of[i];
    out->channels_in = n->channels_in;
    out->channels_out = n->channels_out;
    out->kernel_size = n->kernel_size;
    out->size_in = n->size_in;
    out->size_out = n->size_out;
    out->fold_in = s->fold[0];
    out->fold_out = s->fold[1];
    out->fold_kernel = s->fold[2];
    out->matching_intra = n->flags & CM_HD_INTRA;
    out->matching_inter = n->flags & CM_HD_INTER;
    out->divisible_inter = n->flags & CM_HD_DIVISIBLE;
    out->cycles = s->cost.cycles;
    out->pipeline_depth = s->cost.pipeline_depth;
    out->res = s->cost.res;
    out->n_pred = n->n_pred;
    out->n_succ = n->n_succ;
}

void cm_design_node_folding(const cm_design *d, int node, int64_t fold[3])
{
    memcpy(fold, d->state[node].fold, 3 * sizeof *fold);
}

double cm_design_node_cycles(const cm_design *d, int node) { return d->state[node].cost.cycles; }

const int64_t *cm_design_fold_values(const cm_design *d, int node, cm_fold which, int *count)
{
    const cm_hd_values *v = &d->hd.nodes[node].fold[which];
    *count = v->count;
    return v->v;
}

const int *cm_design_node_preds(const cm_design *d, int node, int *count)
{
    *count = d->hd.nodes[node].n_pred;
    return d->hd.nodes[node].pred;
}

const int *cm_design_node_succs(const cm_design *d, int node, int *count)
{
    *count = d->hd.nodes[node].n_succ;
    return d->hd.nodes[node].succ;
}

static double part_time_s(const cm_design *d, const cm_part *p)
{
    return ((double)d->opt.batch * p->interval + depth_of(d, p)) / d->clock_hz;
}

double cm_design_cost(const cm_design *d)
{
    double t = 0.0;
    for (int p = 0; p < d->n_parts; p++)
        t += part_time_s(d, &d->parts[p]);
    return t + (double)(d->n_parts - 1) * d->board.reconfiguration_s;
}

void cm_design_part_retime(cm_design *d, int pi)
{
    cm_part *p = &d->parts[pi];
    p->depth = part_depth(d, p, true);
    p->stale_from = INT_MAX;
    p->stale_to = -1;
}

void cm_design_retime(cm_design *d)
{
    for (int pi = 0; pi < d->n_parts; pi++)
        cm_design_part_retime(d, pi);
}

bool cm_design_part_fits(const cm_design *d, int pi)
{
    const cm_part *p = &d->parts[pi];
    if (!cm_resources_fit(&p->res, &d->limits))
        return false;
    /* eq. 7: bits per sample over the sample interval, strictly below the board's. */
    return p->io_bits * d->clock_hz < d->board.bandwidth_gbps * 8e9 * p->interval;
}

int cm_design_violation_count(const cm_design *d)
{
    int count = d->bad_nodes + d->bad_edges;
    const cm_resources *max = &d->limits;
    for (int p = 0; p < d->n_parts; p++) {
        const cm_part *q = &d->parts[p];
        /* each resource on its own, as cm_design_check lists them */
        count += (q->res.dsp > max->dsp) + (q->res.bram18 > max->bram18) +
                 (q->res.uram > max->uram) + (q->res.lut > max->lut) + (q->res.ff > max->ff);
        count += !(q->io_bits * d->clock_hz < d->board.bandwidth_gbps * 8e9 * q->interval);
    }
    for (int p = 1; p < d->n_parts; p++)
        count += !(d->hd.nodes[d->parts[p].first - 1].flags & CM_HD_CUT_AFTER);
    return count;
}

bool cm_design_feasible(const cm_design *d)
{
    if (d->bad_nodes || d->bad_edges)
        return false;
    for (int p = 0; p < d->n_parts; p++)
        if (!cm_design_part_fits(d, p))
            return false;
    for (int p = 1; p < d->n_parts; p++)
        if (!(d->hd.nodes[d->parts[p].first - 1].flags & CM_HD_CUT_AFTER))
            return false;
    return true;
}

void cm_design_partition_info(const cm_design *d, int pi, cm_partition_info *out)
{
    const cm_part *p = &d->parts[pi];
    out->first = p->first;
    out->last = p->end - 1;
    out->interval_cycles = p->interval;
    out->depth_cycles = depth_of(d, p);
    out->time_s = part_time_s(d, p);
    out->bandwidth_gbps = p->interval > 0 ? p->io_bits / 8.0 / (p->interval / d->clock_hz) / 1e9 : 0;
    out->res = p->res;
    out->slowest_node = p->slowest;
}

static void res_max(cm_resources *acc, const cm_resources *r)
{
    if (r->dsp > acc->dsp) acc->dsp = r->dsp;
    if (r->bram18 > acc->bram18) acc->bram18 = r->bram18;
    if (r->uram > acc->uram) acc->uram = r->uram;
    if (r->lut > acc->lut) acc->lut = r->lut;
    if (r->ff > acc->ff) acc->ff = r->ff;
}

void cm_design_summarise(const cm_design *d, cm_design_summary *out)
{
    memset(out, 0, sizeof *out);
    out->feasible = cm_design_feasible(d);
    out->latency_s = cm_design_cost(d);
    for (int p = 0; p < d->n_parts; p++) {
        out->latency_cycles +=
            (double)d->opt.batch * d->parts[p].interval + depth_of(d, &d->parts[p]);
        res_max(&out->resources, &d->parts[p].res);
    }
    out->throughput_fps = out->latency_s > 0 ? d->opt.batch / out->latency_s : 0.0;
    out->gops = out->latency_s > 0
                    ? 2.0 * (double)d->total_macs * d->opt.batch / out->latency_s / 1e9
                    : 0.0;
    out->partitions = d->n_parts;
    out->clock_mhz = d->opt.clock_mhz;
    out->batch = d->opt.batch;
}
