/* Weights reloading's subgraphs and the reference architecture (paper III-A2, III-A3).
 * A cut vector splits the net before weight layers into groups (a layer that reads its
 * main operand from memory begins one too). Each group's pattern
 * is its sequence of block kinds; the reference architecture is a common supersequence
 * of all patterns (built by pairwise shortest-common-supersequence merges in group
 * order), so every group maps onto it with the blocks it does not use bypassed. A group
 * whose only weight layer comes first may be folded over its input maps; its
 * accumulation pattern (accumulate, then the rest of the group) joins the merge. Each
 * pattern is embedded leftmost, which fixes the workload alignment of Alg. 1. */
#include "latency/latency_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct kind_seq {
    int n;
    cm_latency_block_kind *k;
} kind_seq;

/* Shortest common supersequence of a and b into out (capacity a.n + b.n), from the
 * longest-common-subsequence table of their suffixes; ties keep a's order first. */
static cm_status scs_merge(const kind_seq *a, const kind_seq *b, kind_seq *out, cm_error *err)
{
    int n = a->n, m = b->n, w = m + 1;
    int *L = calloc((size_t)(n + 1) * (size_t)w, sizeof *L);
    if (!L)
        return cm_error_nomem(err);
    for (int i = n - 1; i >= 0; i--)
        for (int j = m - 1; j >= 0; j--) {
            int skip_a = L[(i + 1) * w + j], skip_b = L[i * w + j + 1];
            L[i * w + j] = a->k[i] == b->k[j] ? 1 + L[(i + 1) * w + j + 1]
                                              : (skip_a > skip_b ? skip_a : skip_b);
        }
    int i = 0, j = 0;
    out->n = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a->k[i] == b->k[j]) {
            out->k[out->n++] = a->k[i];
            i++, j++;
        } else if (j == m || (i < n && L[(i + 1) * w + j] >= L[i * w + j + 1])) {
            out->k[out->n++] = a->k[i++];
        } else {
            out->k[out->n++] = b->k[j++];
        }
    }
    free(L);
    return CM_OK;
}

/* Leftmost embedding of a pattern's steps into the reference blocks. */
static void embed(const cm_lat_arch *a, cm_lat_step *steps, int n)
{
    int b = 0;
    for (int s = 0; s < n; s++) {
        while (b < a->n_blocks && a->kind[b] != steps[s].kind)
            b++;
        steps[s].block = b++; /* always found: the reference contains the pattern */
    }
}

static cm_status merge_pattern(cm_lat_arch *a, const cm_lat_step *steps, int n, cm_error *err)
{
    kind_seq ref = {a->n_blocks, a->kind}, pat = {n, NULL}, out = {0, NULL};
    pat.k = malloc((size_t)n * sizeof *pat.k);
    out.k = malloc((size_t)(a->n_blocks + n) * sizeof *out.k);
    cm_status st = pat.k && out.k ? CM_OK : cm_error_nomem(err);
    for (int s = 0; st == CM_OK && s < n; s++)
        pat.k[s] = steps[s].kind;
    if (st == CM_OK)
        st = scs_merge(&ref, &pat, &out, err);
    free(pat.k);
    if (st != CM_OK) {
        free(out.k);
        return st;
    }
    free(a->kind);
    a->kind = out.k;
    a->n_blocks = out.n;
    return CM_OK;
}

/* A step that can run on a slice of the maps ahead of a folded weight layer: it works
 * channel by channel (a normalisation over each pixel's channels does not) and nothing
 * else reads it. */
static bool channelwise(const cm_lat_layer *l)
{
    return (l->kind == CM_LATENCY_POOL || l->kind == CM_LATENCY_RELU) && l->nin == l->nout &&
           l->side_words == 0 && !l->spills && !l->normalise;
}

static cm_status group_steps(const cm_lat_net *net, cm_lat_group *g, bool input_folding,
                             cm_error *err)
{
    int weights = 0, lead = -1;
    bool ahead = true; /* every step before the weight layer is channel-wise */
    for (int i = g->first; i < g->end; i++) {
        if (net->l[i].kind == CM_LATENCY_CONV) {
            weights++;
            lead = lead < 0 ? i - g->first : lead;
        } else if (lead < 0) {
            ahead &= channelwise(&net->l[i]);
        }
    }
    g->foldable = input_folding && weights == 1 && ahead && net->l[g->first + lead].nin > 1;
    g->lead = g->foldable ? lead : 0;
    g->n_steps = g->end - g->first;
    if (g->n_steps < 1)
        return cm_error_set(err, CM_EINTERNAL, "latency flow: a group without layers");
    g->n_acc_steps = g->foldable ? g->n_steps - g->lead : 0;
    g->steps = calloc((size_t)g->n_steps, sizeof *g->steps);
    g->acc_steps = g->foldable ? calloc((size_t)g->n_acc_steps, sizeof *g->acc_steps) : NULL;
    if (!g->steps || (g->foldable && !g->acc_steps))
        return cm_error_nomem(err);
    for (int s = 0; s < g->n_steps; s++)
        g->steps[s] = (cm_lat_step){g->first + s, net->l[g->first + s].kind, -1};
    for (int s = 0; s < g->n_acc_steps; s++) {
        const int at = g->first + g->lead + s;
        g->acc_steps[s] = (cm_lat_step){at, s ? net->l[at].kind : CM_LATENCY_ACCUM, -1};
    }
    return CM_OK;
}

/* The net layers that begin a group: the first, each weight layer with a cut before
 * it, and each layer that reads its main operand from memory. Returns their count;
 * `first` (NULL to count only) gets them in order. */
static int group_firsts(const cm_lat_net *net, const bool *cut, int *first)
{
    int n = 0, w = 0;
    for (int i = 0; i < net->n; i++) {
        bool conv = net->l[i].kind == CM_LATENCY_CONV;
        bool begins = i == 0 || net->l[i].starts || (conv && w > 0 && cut[w]);
        w += conv;
        if (begins && first)
            first[n] = i;
        n += begins;
    }
    return n;
}

static cm_status make_groups(const cm_lat_net *net, const bool *cut, bool input_folding,
                             cm_lat_arch *a, cm_error *err)
{
    a->n_groups = group_firsts(net, cut, NULL);
    a->groups = calloc((size_t)a->n_groups, sizeof *a->groups);
    int *first = malloc((size_t)a->n_groups * sizeof *first);
    if (!a->groups || !first) {
        free(first);
        return cm_error_nomem(err);
    }
    group_firsts(net, cut, first);
    for (int gi = 0; gi < a->n_groups; gi++) {
        a->groups[gi].first = first[gi];
        a->groups[gi].end = gi + 1 < a->n_groups ? first[gi + 1] : net->n;
    }
    free(first);
    int w = 0;
    for (int gi = 0; gi < a->n_groups; gi++) {
        cm_lat_group *g = &a->groups[gi];
        cm_status st = group_steps(net, g, input_folding, err);
        if (st != CM_OK)
            return st;
        while (w < net->n_weight && net->weight_at[w] < g->first)
            w++;
        g->weight = g->foldable ? w : -1;
    }
    return CM_OK;
}

cm_status cm_lat_arch_build(const cm_lat_net *net, const bool *cut, bool input_folding,
                            cm_lat_arch *a, cm_error *err)
{
    memset(a, 0, sizeof *a);
    a->net = net;
    cm_status st = make_groups(net, cut, input_folding, a, err);
    for (int gi = 0; st == CM_OK && gi < a->n_groups; gi++) {
        cm_lat_group *g = &a->groups[gi];
        st = merge_pattern(a, g->steps, g->n_steps, err);
        if (st == CM_OK && g->foldable)
            st = merge_pattern(a, g->acc_steps, g->n_acc_steps, err);
    }
    if (st != CM_OK) {
        cm_lat_arch_free(a);
        return st;
    }
    for (int gi = 0; gi < a->n_groups; gi++) {
        embed(a, a->groups[gi].steps, a->groups[gi].n_steps);
        embed(a, a->groups[gi].acc_steps, a->groups[gi].n_acc_steps);
    }
    for (int b = 0; b < a->n_blocks; b++)
        a->n_conv += a->kind[b] == CM_LATENCY_CONV;
    return CM_OK;
}

void cm_lat_arch_free(cm_lat_arch *a)
{
    for (int gi = 0; a->groups && gi < a->n_groups; gi++) {
        free(a->groups[gi].steps);
        free(a->groups[gi].acc_steps);
    }
    free(a->groups);
    free(a->kind);
    memset(a, 0, sizeof *a);
}

cm_status cm_lat_breakpoints(const int *values, int n, int **out, int *count, cm_error *err)
{
    int max = 1;
    for (int i = 0; i < n; i++)
        if (values[i] > max)
            max = values[i];
    unsigned char *seen = calloc((size_t)max + 1, 1);
    *out = malloc((size_t)max * sizeof **out);
    *count = 0;
    if (!seen || !*out) {
        free(seen);
        free(*out);
        *out = NULL;
        return cm_error_nomem(err);
    }
    for (int i = 0; i < n; i++)
        for (int q = 1; q <= values[i]; q++)
            seen[(values[i] + q - 1) / q] = 1;
    for (int v = 1; v <= max; v++)
        if (seen[v])
            (*out)[(*count)++] = v;
    free(seen);
    return CM_OK;
}
