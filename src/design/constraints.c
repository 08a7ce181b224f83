/* The constraints of SAMO section III-E (resources eq. 6, bandwidth eq. 7, channel
 * factor eq. 8, intra and inter folding matching eqs. 9-10, plus the backends'
 * divisibility across edges and allowed cut points): listing the violations of a
 * design, and propagating one folding change through the matching constraints so
 * that a design stays consistent across branches and merges. */
#include "design/design_internal.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cm_constraint_name(cm_constraint c)
{
    static const char *const names[] = {
        [CM_CONSTRAINT_RESOURCE] = "resource (eq. 6)",
        [CM_CONSTRAINT_BANDWIDTH] = "bandwidth (eq. 7)",
        [CM_CONSTRAINT_CHANNEL_FACTOR] = "channel factor (eq. 8)",
        [CM_CONSTRAINT_INTRA_MATCHING] = "intra folding matching (eq. 9)",
        [CM_CONSTRAINT_INTER_MATCHING] = "inter folding matching (eq. 10)",
        [CM_CONSTRAINT_DIVISIBLE] = "divisible folding",
        [CM_CONSTRAINT_CUT] = "partition cut",
    };
    return (unsigned)c < sizeof names / sizeof *names ? names[c] : "constraint";
}

typedef struct violations {
    cm_violation *out;
    int cap, count;
} violations;

__attribute__((format(printf, 5, 6))) static void report(violations *v, cm_constraint c, int node,
                                                         int partition, const char *fmt, ...)
{
    if (v->count < v->cap) {
        cm_violation *x = &v->out[v->count];
        x->constraint = c;
        x->node = node;
        x->partition = partition;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(x->message, sizeof x->message, fmt, ap);
        va_end(ap);
    }
    v->count++;
}

static const char *const fold_names[3] = {"channel-in", "channel-out", "kernel"};

static void check_node(const cm_design *d, int i, violations *v)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    const cm_node_state *s = &d->state[i];
    int p = d->part_of[i];
    for (int k = 0; k < 3; k++) {
        if (s->idx[k] >= 0)
            continue;
        if (k < 2 && n->fold[k].v[n->fold[k].count - 1] > 1)
            report(v, CM_CONSTRAINT_CHANNEL_FACTOR, i, p,
                   "node %s: %s folding %lld is not a factor of its %d channels", n->name,
                   fold_names[k], (long long)s->fold[k], k == 0 ? n->channels_in : n->channels_out);
        else
            report(v, CM_CONSTRAINT_CHANNEL_FACTOR, i, p,
                   "node %s: %s folding %lld is not one of the backend's values (%lld to %lld)",
                   n->name, fold_names[k], (long long)s->fold[k], (long long)n->fold[k].v[0],
                   (long long)n->fold[k].v[n->fold[k].count - 1]);
    }
    if ((n->flags & CM_HD_INTRA) && s->fold[0] != s->fold[1])
        report(v, CM_CONSTRAINT_INTRA_MATCHING, i, p,
               "node %s: channel-in folding %lld differs from channel-out folding %lld", n->name,
               (long long)s->fold[0], (long long)s->fold[1]);
    for (int k = 0; k < n->n_succ; k++) {
        int j = n->succ[k];
        if (!cm_design_edge_bad(d, i, j))
            continue;
        bool inter = n->flags & CM_HD_INTER;
        report(v, inter ? CM_CONSTRAINT_INTER_MATCHING : CM_CONSTRAINT_DIVISIBLE, i, p,
               "node %s: channel-out folding %lld %s channel-in folding %lld of %s", n->name,
               (long long)s->fold[1], inter ? "differs from" : "and", (long long)d->state[j].fold[0],
               d->hd.nodes[j].name);
    }
}

/* The node using the most of one resource in a partition, to name in messages. */
static int largest_user(const cm_design *d, int p, size_t offset)
{
    int best = d->parts[p].first;
    int64_t most = -1;
    for (int i = d->parts[p].first; i < d->parts[p].end; i++) {
        int64_t used = *(const int64_t *)((const char *)&d->state[i].cost.res + offset);
        if (used > most) {
            most = used;
            best = i;
        }
    }
    return best;
}

static void check_resources(const cm_design *d, int p, violations *v)
{
    static const struct {
        const char *name;
        size_t offset;
    } kinds[] = {
        {"DSP", offsetof(cm_resources, dsp)},    {"BRAM18", offsetof(cm_resources, bram18)},
        {"URAM", offsetof(cm_resources, uram)},  {"LUT", offsetof(cm_resources, lut)},
        {"FF", offsetof(cm_resources, ff)},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        int64_t used = *(const int64_t *)((const char *)&d->parts[p].res + kinds[k].offset);
        int64_t have = *(const int64_t *)((const char *)&d->limits + kinds[k].offset);
        int64_t total = *(const int64_t *)((const char *)&d->board.resources + kinds[k].offset);
        if (used <= have)
            continue;
        int node = largest_user(d, p, kinds[k].offset);
        int64_t node_used = *(const int64_t *)((const char *)&d->state[node].cost.res + kinds[k].offset);
        report(v, CM_CONSTRAINT_RESOURCE, node, p,
               "partition %d needs %lld %s, %s has %lld%s (largest: layer %s, node %s, with %lld)",
               p, (long long)used, kinds[k].name, d->board.display_name, (long long)have,
               have < total ? " under --max-util" : "", d->graph->layers[d->hd.nodes[node].layer].name, d->hd.nodes[node].name,
               (long long)node_used);
    }
}

static void check_partition(const cm_design *d, int p, violations *v)
{
    check_resources(d, p, v);
    cm_partition_info info;
    cm_design_partition_info(d, p, &info);
    if (d->parts[p].io_bits * d->clock_hz >= d->board.bandwidth_gbps * 8e9 * d->parts[p].interval)
        report(v, CM_CONSTRAINT_BANDWIDTH, -1, p,
               "partition %d moves %.3f GB/s off-chip, %s has %.3f GB/s", p, info.bandwidth_gbps,
               d->board.display_name, d->board.bandwidth_gbps);
    if (p > 0 && !(d->hd.nodes[d->parts[p].first - 1].flags & CM_HD_CUT_AFTER))
        report(v, CM_CONSTRAINT_CUT, d->parts[p].first - 1, p,
               "partition %d starts after node %s, where the %s backend cannot cut", p,
               d->hd.nodes[d->parts[p].first - 1].name, cm_backend_name(d->hd.backend));
}

int cm_design_check(const cm_design *d, cm_violation *out, int cap)
{
    violations v = {out, cap, 0};
    for (int i = 0; i < d->hd.n_nodes; i++)
        check_node(d, i, &v);
    for (int p = 0; p < d->n_parts; p++)
        check_partition(d, p, &v);
    return v.count;
}

/* ---- propagation ---- */

/* One pending change: a node side (in = 0, out = 1) that must take a value. The
 * scratch arrays hold the proposed foldings; scratch_mark says which sides are
 * already decided in this round (bit 0 in, bit 1 out, bit 2 touched). */
typedef struct propagation {
    cm_design *d;
    int *queue;
    int head, tail, touched;
} propagation;

static bool divides(int64_t a, int64_t b)
{
    int64_t hi = a > b ? a : b, lo = a > b ? b : a;
    return lo > 0 && hi % lo == 0;
}

static bool valid_value(const cm_hd_node *n, int side, int64_t value)
{
    const cm_hd_values *vals = &n->fold[side];
    for (int i = 0; i < vals->count; i++)
        if (vals->v[i] == value)
            return true;
    return false;
}

/* Decides side `side` of node i; false on a conflict or an invalid value. */
static bool assign(propagation *pr, int i, int side, int64_t value)
{
    cm_design *d = pr->d;
    int64_t *f = &d->scratch_fold[2 * i];
    int bit = 1 << side;
    if (d->scratch_mark[i] & bit)
        return f[side] == value;
    if (!(d->scratch_mark[i] & 4)) {
        d->scratch_mark[i] |= 4;
        f[0] = d->state[i].fold[0];
        f[1] = d->state[i].fold[1];
        d->scratch_list[pr->touched++] = i;
    }
    d->scratch_mark[i] |= bit;
    if (f[side] == value)
        return true;
    if (!valid_value(&d->hd.nodes[i], side, value))
        return false;
    f[side] = value;
    pr->queue[pr->tail++] = 2 * i + side;
    return true;
}

static bool propagate_one(propagation *pr, int i, int side)
{
    cm_design *d = pr->d;
    const cm_hd_node *n = &d->hd.nodes[i];
    int64_t value = d->scratch_fold[2 * i + side];
    if ((n->flags & CM_HD_INTRA) && !assign(pr, i, 1 - side, value))
        return false;
    if (side == 0) {
        for (int k = 0; k < n->n_pred; k++) {
            int u = n->pred[k];
            if (d->part_of[u] != d->part_of[i])
                continue; /* through off-chip memory: no matching needed */
            unsigned fl = d->hd.nodes[u].flags;
            int64_t out = (d->scratch_mark[u] & 4) ? d->scratch_fold[2 * u + 1] : d->state[u].fold[1];
            bool need = ((fl & CM_HD_INTER) && out != value) ||
                        ((fl & CM_HD_DIVISIBLE) && !divides(out, value));
            if (need && !assign(pr, u, 1, value))
                return false;
        }
    } else if (n->flags & (CM_HD_INTER | CM_HD_DIVISIBLE)) {
        for (int k = 0; k < n->n_succ; k++) {
            int v = n->succ[k];
            if (d->part_of[v] != d->part_of[i])
                continue;
            int64_t in = (d->scratch_mark[v] & 4) ? d->scratch_fold[2 * v] : d->state[v].fold[0];
            bool need = (n->flags & CM_HD_INTER) ? in != value : !divides(value, in);
            if (need && !assign(pr, v, 0, value))
                return false;
        }
    }
    return true;
}

bool cm_design_set_fold_propagate(cm_design *d, int node, cm_fold which, int64_t value)
{
    if (which == CM_FOLD_KERNEL) {
        const cm_node_state *s = &d->state[node];
        if (!valid_value(&d->hd.nodes[node], 2, value))
            return false;
        cm_design_set_folding(d, node, s->fold[0], s->fold[1], value);
        return true;
    }
    /* Each side of each node is decided at most once, so the queue holds at most 2n. */
    propagation pr = {.d = d, .queue = d->scratch_list + d->hd.n_nodes};
    bool ok = assign(&pr, node, (int)which, value);
    while (ok && pr.head < pr.tail) {
        int item = pr.queue[pr.head++];
        ok = propagate_one(&pr, item / 2, item % 2);
    }
    for (int t = 0; t < pr.touched; t++) {
        int i = d->scratch_list[t];
        const int64_t *f = &d->scratch_fold[2 * i];
        if (ok && (f[0] != d->state[i].fold[0] || f[1] != d->state[i].fold[1]))
            cm_design_set_folding(d, i, f[0], f[1], d->state[i].fold[2]);
        d->scratch_mark[i] = 0;
    }
    return ok;
}

/* ---- matching groups ---- */

struct cm_fold_groups {
    int first, count;  /* the partition's nodes [first, first + count) */
    int *of;           /* per side, 2 * (node - first) + (0 in, 1 out): its group */
    bool *rigid;       /* per group: closed and holding one value (cm_fold_groups_new) */
    int *valid_at;     /* per group + 1: its run in `valid` */
    int64_t *valid;    /* per group, ascending: the values every one of its sides takes */
};

static int side_root(int *parent, int x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

static void side_join(int *parent, int a, int b)
{
    a = side_root(parent, a);
    b = side_root(parent, b);
    if (a != b)
        parent[a > b ? a : b] = a < b ? a : b;
}

/* Joins the sides that propagate_one ties within the partition, and marks open (rigid
 * false) the groups a divisibility rule links to another side: that link moves a side
 * only for some values, so a change to such a group can reach beyond it. */
static void tie_sides(const cm_design *d, cm_fold_groups *g, int *parent, bool *open)
{
    for (int i = g->first; i < g->first + g->count; i++) {
        const cm_hd_node *n = &d->hd.nodes[i];
        int x = 2 * (i - g->first);
        if (n->flags & CM_HD_INTRA)
            side_join(parent, x, x + 1);
        for (int k = 0; k < n->n_succ; k++) {
            int v = n->succ[k];
            if (v < g->first || v >= g->first + g->count)
                continue; /* through off-chip memory: no matching needed */
            int y = 2 * (v - g->first);
            if (n->flags & CM_HD_INTER)
                side_join(parent, x + 1, y);
            else if (n->flags & CM_HD_DIVISIBLE)
                open[x + 1] = open[y] = true;
        }
    }
}

/* Each group's values: those every one of its sides takes, in order (its leader's list
 * filtered by the others'). next[x] is the side after x in x's group, -1 after the last. */
static void group_values(const cm_design *d, cm_fold_groups *g, int groups, const int *leader,
                         const int *next)
{
    int at = 0;
    for (int q = 0; q < groups; q++) {
        g->valid_at[q] = at;
        const cm_hd_values *base = &d->hd.nodes[g->first + leader[q] / 2].fold[leader[q] % 2];
        for (int k = 0; k < base->count; k++) {
            bool all = true;
            for (int x = next[leader[q]]; x >= 0 && all; x = next[x])
                all = valid_value(&d->hd.nodes[g->first + x / 2], x % 2, base->v[k]);
            if (all)
                g->valid[at++] = base->v[k];
        }
    }
    g->valid_at[groups] = at;
}

cm_fold_groups *cm_fold_groups_new(const cm_design *d, int p)
{
    cm_fold_groups *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->first = d->parts[p].first;
    g->count = d->parts[p].end - g->first;
    int sides = 2 * g->count, values = 0;
    for (int i = g->first; i < g->first + g->count; i++)
        values += d->hd.nodes[i].fold[0].count + d->hd.nodes[i].fold[1].count;
    int *parent = malloc((size_t)sides * sizeof *parent);
    int *leader = malloc((size_t)sides * sizeof *leader);
    int *last = malloc((size_t)sides * sizeof *last);
    int *next = malloc((size_t)sides * sizeof *next);
    bool *open = calloc((size_t)sides, sizeof *open);
    g->of = malloc((size_t)sides * sizeof *g->of);
    g->rigid = malloc((size_t)sides * sizeof *g->rigid);
    g->valid_at = malloc(((size_t)sides + 1) * sizeof *g->valid_at);
    g->valid = malloc(((size_t)values + 1) * sizeof *g->valid);
    if (!parent || !leader || !last || !next || !open || !g->of || !g->rigid || !g->valid_at ||
        !g->valid) {
        free(parent);
        free(leader);
        free(last);
        free(next);
        free(open);
        cm_fold_groups_free(g);
        return NULL;
    }
    for (int x = 0; x < sides; x++)
        parent[x] = x;
    tie_sides(d, g, parent, open);
    /* A root is its group's smallest side, so groups number in side order, and each
     * group's sides are chained in that order (last[q]: its last side so far). */
    int groups = 0;
    for (int x = 0; x < sides; x++) {
        int r = side_root(parent, x);
        next[x] = -1;
        if (r == x) {
            leader[groups] = last[groups] = x;
            g->rigid[groups] = true;
            g->of[x] = groups++;
        } else {
            g->of[x] = g->of[r];
            next[last[g->of[x]]] = x;
            last[g->of[x]] = x;
        }
        int q = g->of[x], l = leader[q];
        g->rigid[q] = g->rigid[q] && !open[x] &&
                      d->state[g->first + x / 2].fold[x % 2] ==
                          d->state[g->first + l / 2].fold[l % 2];
    }
    group_values(d, g, groups, leader, next);
    free(parent);
    free(leader);
    free(last);
    free(next);
    free(open);
    return g;
}

void cm_fold_groups_free(cm_fold_groups *g)
{
    if (!g)
        return;
    free(g->of);
    free(g->rigid);
    free(g->valid_at);
    free(g->valid);
    free(g);
}

int cm_fold_groups_of(const cm_fold_groups *g, int node, cm_fold side, bool *rigid)
{
    int q = g->of[2 * (node - g->first) + (int)side];
    *rigid = g->rigid[q];
    return q;
}

bool cm_fold_groups_takes(const cm_fold_groups *g, int group, int64_t value)
{
    for (int k = g->valid_at[group]; k < g->valid_at[group + 1]; k++)
        if (g->valid[k] == value)
            return true;
    return false;
}
