/* Residual blocks: for every two-input add, the fork where its branches split, the
 * main branch's windowed layers and the short branch's downsampling convolution.
 * Their window lags give the skip-connection buffer of section 3.6.4: the skip FIFO
 * must hold the block input for as long as the main branch's window buffers delay it. */
#include <stdlib.h>
#include <string.h>

#include "nn2fpga/n2_internal.h"

/* Sources are numbered layers first, then graph inputs, for the visited marks. */
static int source_slot(const cm_graph *g, cm_source s)
{
    return CM_SOURCE_IS_INPUT(s) ? g->n_layers + CM_SOURCE_INPUT_INDEX(s) : s;
}

static cm_source producer(const cm_graph *g, cm_source s)
{
    if (CM_SOURCE_IS_INPUT(s) || g->layers[s].n_inputs == 0)
        return CM_SOURCE_IS_INPUT(s) ? s : -1 - g->n_inputs; /* a sentinel nobody marks */
    return g->layers[s].inputs[0];
}

static bool valid_source(const cm_graph *g, cm_source s)
{
    return CM_SOURCE_IS_INPUT(s) ? CM_SOURCE_INPUT_INDEX(s) < g->n_inputs : s < g->n_layers;
}

/* The first source on b's chain of first inputs that also lies on a's chain. */
static cm_source find_fork(const cm_graph *g, cm_source a, cm_source b, char *mark)
{
    int slots = g->n_layers + g->n_inputs;
    memset(mark, 0, (size_t)slots);
    for (cm_source s = a; valid_source(g, s); s = producer(g, s)) {
        mark[source_slot(g, s)] = 1;
        if (CM_SOURCE_IS_INPUT(s))
            break;
    }
    for (cm_source s = b; valid_source(g, s); s = producer(g, s)) {
        if (mark[source_slot(g, s)])
            return s;
        if (CM_SOURCE_IS_INPUT(s))
            break;
    }
    return -1 - g->n_inputs;
}

static bool windowed(const cm_layer *l)
{
    return l->op == CM_OP_CONV || l->op == CM_OP_POOL_MAX || l->op == CM_OP_POOL_AVG;
}

/* A windowed layer's lag, (fh - 1) * iw + fw - 1 input pixels (eq. 3.5 per channel),
 * in pixels of the skip tensor of `pixels` pixels. */
static int64_t lag_in_skip_pixels(const cm_layer *l, int64_t pixels)
{
    int64_t lag = (int64_t)(l->kernel[0] - 1) * l->in_shape.w + l->kernel[1] - 1;
    int64_t in_pixels = l->in_shape.h * l->in_shape.w;
    return in_pixels > 0 ? (lag * pixels + in_pixels - 1) / in_pixels : 0;
}

/* Walks a branch from the add back to the fork; returns its number of convolutions,
 * the lag of all its windowed layers and the one nearest the fork. */
static int walk_branch(const cm_graph *g, cm_source from, cm_source fork, int64_t pixels,
                       int64_t *lag, int *nearest, int *conv)
{
    int convs = 0;
    *lag = 0;
    *nearest = *conv = -1;
    for (cm_source s = from; s != fork && !CM_SOURCE_IS_INPUT(s); s = producer(g, s)) {
        const cm_layer *l = &g->layers[s];
        if (l->op == CM_OP_CONV) {
            convs++;
            *conv = s;
        }
        if (windowed(l))
            *lag += lag_in_skip_pixels(l, pixels);
        *nearest = s;
    }
    return convs;
}

static void analyse(const cm_graph *g, int add, cm_source fork, n2_block *b)
{
    const cm_layer *l = &g->layers[add];
    int64_t pixels = l->out_shape.h * l->out_shape.w;
    int64_t lag[2];
    int nearest[2], conv[2], convs[2];
    for (int i = 0; i < 2; i++)
        convs[i] = walk_branch(g, l->inputs[i], fork, pixels, &lag[i], &nearest[i], &conv[i]);
    int m = convs[0] >= convs[1] ? 0 : 1; /* the main branch holds more convolutions */
    memset(b, 0, sizeof *b);
    b->add = add;
    b->first_main = nearest[m];
    b->ds_conv = convs[1 - m] == 1 ? conv[1 - m] : -1;
    b->lag_short = lag[1 - m];
    b->lag_first = 0;
    if (nearest[m] >= 0 && windowed(&g->layers[nearest[m]]))
        b->lag_first = lag_in_skip_pixels(&g->layers[nearest[m]], pixels);
    b->lag_rest = lag[m] - b->lag_first;
    const cm_layer *first = nearest[m] >= 0 ? &g->layers[nearest[m]] : NULL;
    b->mergeable = b->ds_conv >= 0 && nearest[1 - m] == b->ds_conv && first &&
                   first->op == CM_OP_CONV && first->groups == 1 &&
                   g->layers[b->ds_conv].groups == 1 &&
                   memcmp(&first->out_shape, &g->layers[b->ds_conv].out_shape,
                          sizeof first->out_shape) == 0;
}

cm_status n2_find_blocks(const cm_graph *g, n2_block **out, int *n, cm_error *err)
{
    *out = NULL;
    *n = 0;
    char *mark = malloc((size_t)(g->n_layers + g->n_inputs) + 1);
    n2_block *blocks = calloc((size_t)g->n_layers + 1, sizeof *blocks);
    if (!mark || !blocks) {
        free(mark);
        free(blocks);
        return cm_error_nomem(err);
    }
    for (int i = 0; i < g->n_layers; i++) {
        const cm_layer *l = &g->layers[i];
        if (l->op != CM_OP_ADD || l->n_inputs != 2 || l->has_const_operand)
            continue;
        cm_source fork = find_fork(g, l->inputs[0], l->inputs[1], mark);
        if (!valid_source(g, fork))
            continue;
        analyse(g, i, fork, &blocks[*n]);
        (*n)++;
    }
    free(mark);
    *out = blocks;
    return CM_OK;
}
