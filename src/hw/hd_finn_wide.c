/* FINN merges and forks wider than one node takes (hd_finn_wide.h). FINN builds one
 * StreamingConcat per Concat and one DuplicateStreams per fork whatever their width; the
 * simulation's tasks have at most four ports, so cnnmap builds a graph FINN also accepts:
 * a cascade of concats (the first takes four maps, each next one the previous concat and
 * three more) and a chain of duplicates (each feeds three consumers and the next).
 * Neither changes the interval: a concat's cycles are its pixels times its channels over
 * SIMD, and only the last of a cascade carries all the channels; each duplicate takes
 * the same cycles as the one it extends. Helper nodes are named after the node they
 * split ("StreamingConcat_3_1"). */
#include "hw/hdgraph.h"
#include "hw/hd_finn_wide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WIDE = CM_FINN_CONCAT_MAX };

/* Helpers a node of `ports` inputs (concat) or outputs (duplicate) needs. */
static int helpers_for(int ports)
{
    return ports > WIDE ? (ports - WIDE + WIDE - 2) / (WIDE - 1) : 0;
}

static bool splits(const cm_hd_node *n)
{
    return (n->hw.finn.kind == CM_FINN_CONCAT && n->n_pred > WIDE) ||
           (n->hw.finn.kind == CM_FINN_DUPLICATE && n->n_succ > WIDE);
}

static void replace(int *list, int count, int from, int to)
{
    for (int i = 0; i < count; i++)
        if (list[i] == from) {
            list[i] = to;
            return;
        }
}

static cm_status set_list(int **list, int *count, const int *v, int n, cm_error *err)
{
    int *l = realloc(*list, (size_t)(n > 0 ? n : 1) * sizeof *l);
    if (!l)
        return cm_error_nomem(err);
    memcpy(l, v, (size_t)n * sizeof *l);
    *list = l;
    *count = n;
    return CM_OK;
}

/* Appends helper k of node i (a copy of its block without edges or foldings). */
static int add_helper(cm_hdgraph *h, int i, int k)
{
    char name[256];
    snprintf(name, sizeof name, "%s_%d", h->nodes[i].name, k + 1);
    const cm_hd_node copy = h->nodes[i];
    cm_hd_node *n = cm_hd_add_node(h, name, copy.op, copy.layer);
    if (!n)
        return -1;
    n->channels_in = copy.channels_in;
    n->channels_out = copy.channels_out;
    n->size_in = copy.size_in;
    n->size_out = copy.size_out;
    n->bits_in = copy.bits_in;
    n->bits_out = copy.bits_out;
    n->flags = copy.flags & ~CM_HD_CUT_AFTER;
    n->hw.finn = copy.hw.finn;
    return h->n_nodes - 1;
}

/* Concat c's inputs P: helper 0 takes P[0..3], helper j the previous one and three more,
 * c the last helper and the rest. */
static cm_status cascade_concat(cm_hdgraph *h, int c, const int *helper, int count, cm_error *err)
{
    const int m = h->nodes[c].n_pred;
    int *p = malloc((size_t)m * sizeof *p);
    if (!p)
        return cm_error_nomem(err);
    memcpy(p, h->nodes[c].pred, (size_t)m * sizeof *p);
    cm_status st = CM_OK;
    int at = 0, prev = -1;
    for (int j = 0; j <= count && st == CM_OK; j++) {
        const int node = j < count ? helper[j] : c;
        int in[WIDE], n_in = 0;
        if (prev >= 0)
            in[n_in++] = prev;
        while (n_in < WIDE && at < m) {
            replace(h->nodes[p[at]].succ, h->nodes[p[at]].n_succ, c, node);
            in[n_in++] = p[at++];
        }
        st = set_list(&h->nodes[node].pred, &h->nodes[node].n_pred, in, n_in, err);
        if (st == CM_OK && prev >= 0)
            st = set_list(&h->nodes[prev].succ, &h->nodes[prev].n_succ, &node, 1, err);
        prev = node;
    }
    free(p);
    return st;
}

/* Duplicate d's outputs S: d and each helper but the last feed three and the next. */
static cm_status chain_duplicate(cm_hdgraph *h, int d, const int *helper, int count, cm_error *err)
{
    const int m = h->nodes[d].n_succ;
    int *s = malloc((size_t)m * sizeof *s);
    if (!s)
        return cm_error_nomem(err);
    memcpy(s, h->nodes[d].succ, (size_t)m * sizeof *s);
    cm_status st = CM_OK;
    int at = 0, prev = -1;
    for (int j = -1; j < count && st == CM_OK; j++) {
        const int node = j < 0 ? d : helper[j];
        int out[WIDE], n_out = 0;
        const int room = j < count - 1 ? WIDE - 1 : WIDE;
        while (n_out < room && at < m) {
            replace(h->nodes[s[at]].pred, h->nodes[s[at]].n_pred, d, node);
            out[n_out++] = s[at++];
        }
        if (j < count - 1)
            out[n_out++] = helper[j + 1];
        st = set_list(&h->nodes[node].succ, &h->nodes[node].n_succ, out, n_out, err);
        if (st == CM_OK && prev >= 0)
            st = set_list(&h->nodes[node].pred, &h->nodes[node].n_pred, &prev, 1, err);
        prev = node;
    }
    free(s);
    return st;
}

/* Adds and wires node i's helpers; their indices go to helper[0..count). */
static cm_status split_node(cm_hdgraph *h, int i, int *helper, int *count, cm_error *err)
{
    const bool concat = h->nodes[i].hw.finn.kind == CM_FINN_CONCAT;
    *count = helpers_for(concat ? h->nodes[i].n_pred : h->nodes[i].n_succ);
    for (int k = 0; k < *count; k++)
        if ((helper[k] = add_helper(h, i, k)) < 0)
            return cm_error_nomem(err);
    if (concat)
        return cascade_concat(h, i, helper, *count, err);
    cm_status st = chain_duplicate(h, i, helper, *count, err);
    for (int k = 0; st == CM_OK && k < *count; k++)
        st = cm_hd_values_intra(&h->nodes[helper[k]], h->nodes[i].channels_out, err);
    return st;
}

/* Puts the nodes in `order` (old indices) and renumbers every edge. */
static cm_status reorder(cm_hdgraph *h, const int *order, cm_error *err)
{
    const int n = h->n_nodes;
    cm_hd_node *nodes = malloc((size_t)h->cap_nodes * sizeof *nodes);
    int *to = malloc((size_t)n * sizeof *to);
    if (!nodes || !to) {
        free(nodes);
        free(to);
        return cm_error_nomem(err);
    }
    for (int k = 0; k < n; k++) {
        nodes[k] = h->nodes[order[k]];
        to[order[k]] = k;
    }
    for (int k = 0; k < n; k++) {
        for (int e = 0; e < nodes[k].n_pred; e++)
            nodes[k].pred[e] = to[nodes[k].pred[e]];
        for (int e = 0; e < nodes[k].n_succ; e++)
            nodes[k].succ[e] = to[nodes[k].succ[e]];
    }
    free(h->nodes);
    h->nodes = nodes;
    free(to);
    return CM_OK;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        const int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* A concat's ChannelsPerStream from its producers, its width and its foldings (SIMD
 * divides every input's channels). */
static cm_status fill_concat(cm_hdgraph *h, int i, cm_error *err)
{
    cm_hd_node *n = &h->nodes[i];
    cm_finn_node *f = &n->hw.finn;
    int64_t total = 0, g = 0;
    f->n_inputs = n->n_pred;
    for (int k = 0; k < n->n_pred; k++) {
        f->in_channels[k] = h->nodes[n->pred[k]].channels_out;
        total += f->in_channels[k];
        g = gcd64(g, f->in_channels[k]);
    }
    f->channels = (int)total;
    n->channels_in = n->channels_out = (int)total;
    n->size_in = n->size_out = total * f->num_vectors;
    return cm_hd_values_intra(n, g, err);
}

static cm_status place_helpers(cm_hdgraph *h, int n0, const int *first, const int *count,
                               cm_error *err)
{
    int *order = malloc((size_t)h->n_nodes * sizeof *order);
    if (!order)
        return cm_error_nomem(err);
    int k = 0;
    for (int i = 0; i < n0; i++) {
        const bool concat = h->nodes[i].hw.finn.kind == CM_FINN_CONCAT;
        for (int j = 0; concat && j < count[i]; j++)
            order[k++] = first[i] + j;
        order[k++] = i;
        for (int j = 0; !concat && j < count[i]; j++)
            order[k++] = first[i] + j;
    }
    cm_status st = reorder(h, order, err);
    free(order);
    return st;
}

cm_status cm_hd_finn_split_wide(cm_hdgraph *h, cm_error *err)
{
    const int n0 = h->n_nodes;
    int *first = calloc((size_t)n0 + 1, sizeof *first);
    int *count = calloc((size_t)n0 + 1, sizeof *count);
    cm_status st = first && count ? CM_OK : cm_error_nomem(err);
    bool any = false;
    for (int i = 0; st == CM_OK && i < n0; i++) {
        if (!splits(&h->nodes[i]))
            continue;
        int *helper = malloc((size_t)h->nodes[i].n_succ * sizeof *helper +
                             (size_t)h->nodes[i].n_pred * sizeof *helper);
        if (!helper) {
            st = cm_error_nomem(err);
            break;
        }
        first[i] = h->n_nodes;
        st = split_node(h, i, helper, &count[i], err);
        free(helper);
        any = true;
    }
    if (st == CM_OK && any)
        st = place_helpers(h, n0, first, count, err);
    for (int i = 0; st == CM_OK && i < h->n_nodes; i++)
        if (h->nodes[i].hw.finn.kind == CM_FINN_CONCAT)
            st = fill_concat(h, i, err);
    free(first);
    free(count);
    return st;
}
