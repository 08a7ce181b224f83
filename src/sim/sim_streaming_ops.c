/* Op lists and task chains for the streaming builders (sim_streaming.h): runs, evenly
 * spread runs, loops, which window outputs an input position completes, and a
 * resize's walk. */
#include "sim/sim_streaming.h"

#include <stdlib.h>
#include <string.h>

static bool fits32(int64_t v)
{
    return v >= 0 && v <= INT32_MAX;
}

static sim_op *ops_push(st_ops *o)
{
    if (o->bad)
        return NULL;
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 16;
        sim_op *v = realloc(o->v, (size_t)cap * sizeof *v);
        if (!v) {
            o->bad = true;
            return NULL;
        }
        o->v = v;
        o->cap = cap;
    }
    sim_op *op = &o->v[o->n++];
    memset(op, 0, sizeof *op);
    return op;
}

void st_run_ports(st_ops *o, int64_t count, int64_t ii, int64_t lat, const int64_t *rd, int n,
                  int64_t wr)
{
    if (count <= 0)
        return;
    if (ii < 1)
        ii = 1;
    if (lat < 1)
        lat = 1;
    bool ok = fits32(ii) && fits32(lat) && fits32(wr);
    for (int p = 0; p < n; p++)
        ok = ok && fits32(rd[p]);
    if (!ok) {
        o->bad = true;
        return;
    }
    sim_op *op = ops_push(o);
    if (!op)
        return;
    op->kind = SIM_RUN;
    op->seg.count = count;
    op->seg.ii = (int32_t)ii;
    op->seg.latency = (int32_t)lat;
    for (int p = 0; p < n; p++)
        op->seg.rd[p] = (int32_t)rd[p];
    op->seg.wr[0] = (int32_t)wr;
}

void st_run(st_ops *o, int64_t count, int64_t ii, int64_t lat, int64_t rd, int64_t wr)
{
    st_run_ports(o, count, ii, lat, &rd, 1, wr);
}

void st_run_spread(st_ops *o, int64_t count, int64_t total, bool at_end, int64_t rd, int64_t wr)
{
    if (count <= 0)
        return;
    const int64_t base = total / count, longer = total % count;
    /* the longer iterations first: a frame's work then ends at the same cycle as the
     * model's whatever the rounding */
    st_run(o, longer, base + 1, at_end ? base + 1 : 1, rd, wr);
    st_run(o, count - longer, base, at_end ? base : 1, rd, wr);
}

int st_loop(st_ops *o, int64_t count)
{
    sim_op *op = ops_push(o);
    if (!op)
        return -1;
    op->kind = SIM_LOOP;
    op->count = count;
    return o->n - 1;
}

void st_end(st_ops *o, int at)
{
    if (at < 0 || o->bad)
        return;
    o->v[at].body = o->n - at - 1;
    if (o->v[at].body == 0 || o->v[at].count <= 0)
        o->n = at; /* an empty loop, or one that never runs: drop it */
}

st_ops *st_task_add(st_chain *c, const char *suffix, const char *kind)
{
    if (c->n >= ST_MAX_TASKS)
        return NULL;
    st_task *t = &c->t[c->n++];
    memset(t, 0, sizeof *t);
    t->suffix = suffix;
    t->kind = kind;
    return &t->ops;
}

void st_chain_free(st_chain *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->t[i].ops.v);
    c->n = 0;
}

int64_t *st_window_ends(int64_t n, int64_t pad_before, int64_t pad_after, int64_t extent,
                        int64_t stride, int64_t outputs, bool padded)
{
    const int64_t len = padded ? n + pad_before + pad_after : n;
    int64_t *ends = calloc((size_t)(len > 0 ? len : 1), sizeof *ends);
    if (!ends || len <= 0)
        return ends;
    for (int64_t out = 0; out < outputs; out++) {
        int64_t end = out * stride + extent - 1; /* in padded positions */
        if (!padded)
            end -= pad_before; /* a window ending in padding completes with the last input */
        if (end >= len)
            end = len - 1;
        if (end < 0)
            end = 0;
        ends[end]++;
    }
    return ends;
}

/* One row of a grid walk: runs of positions with the same reads and writes. */
static void grid_row(st_ops *o, const st_grid *g, int64_t y)
{
    int64_t x = 0;
    while (x < g->cols) {
        const int64_t rd = g->real_r[y] && g->real_c[x], wr = g->wr_r[y] * g->wr_c[x];
        int64_t x1 = x + 1;
        while (x1 < g->cols && (g->real_r[y] && g->real_c[x1]) == rd &&
               g->wr_r[y] * g->wr_c[x1] == wr)
            x1++;
        st_run(o, x1 - x, g->ii, g->lat, rd, wr);
        x = x1;
    }
}

void st_grid_walk(st_ops *o, const st_grid *g)
{
    int64_t y = 0;
    while (y < g->rows) {
        int64_t y1 = y + 1;
        while (y1 < g->rows && g->real_r[y1] == g->real_r[y] && g->wr_r[y1] == g->wr_r[y])
            y1++;
        int at = st_loop(o, y1 - y);
        grid_row(o, g, y);
        st_end(o, at);
        y = y1;
    }
}

/* The runs of one fresh input row: each pixel read, then the rest of its outputs. */
static void resize_row(st_ops *o, const int64_t *per_col, int64_t cols, int64_t pixel)
{
    for (int64_t x = 0; x < cols;) {
        int64_t x1 = x + 1;
        while (x1 < cols && per_col[x1] == per_col[x])
            x1++;
        const int64_t w = per_col[x];
        if (w == 0) {
            st_run(o, x1 - x, pixel, 1, 1, 0);
        } else {
            int at = st_loop(o, x1 - x);
            st_run(o, 1, pixel, 1, 1, 1);
            st_run(o, w - 1, pixel, 1, 0, 1);
            st_end(o, at);
        }
        x = x1;
    }
}

/* Output rows from y on that need input row `need`. */
static int64_t resize_rows_of(const cm_resize_axis *r, int64_t y, int64_t need)
{
    int64_t m = 1;
    while (y + m < r->n_out && cm_resize_need(r, y + m) == need)
        m++;
    return m;
}

bool st_resize_walk(st_ops *o, const cm_resize_axis *r, const cm_resize_axis *c, int64_t pixel)
{
    int64_t *per_col = calloc((size_t)(c->n_in > 0 ? c->n_in : 1), sizeof *per_col);
    if (!per_col)
        return false;
    for (int64_t x = 0; x < c->n_out; x++)
        per_col[cm_resize_need(c, x)]++;
    /* blocks of a fresh row, the rows skipped before it and its repeats; equal blocks
     * in a row become one loop */
    int64_t y = 0, read = 0;
    while (y < r->n_out) {
        const int64_t need = cm_resize_need(r, y);
        const int64_t skip = need - read, rows = resize_rows_of(r, y, need);
        int64_t count = 1, y2 = y + rows, read2 = need + 1;
        while (y2 < r->n_out) {
            const int64_t n2 = cm_resize_need(r, y2);
            const int64_t rows2 = resize_rows_of(r, y2, n2);
            if (n2 - read2 != skip || rows2 != rows)
                break;
            count++;
            y2 += rows2;
            read2 = n2 + 1;
        }
        int at = st_loop(o, count);
        st_run(o, skip * c->n_in, pixel, 1, 1, 0);
        resize_row(o, per_col, c->n_in, pixel);
        st_run(o, (rows - 1) * c->n_out, pixel, 1, 0, 1);
        st_end(o, at);
        y = y2;
        read = read2;
    }
    st_run(o, (r->n_in - read) * c->n_in, pixel, 1, 1, 0);
    free(per_col);
    return !o->bad;
}

void st_run_pixels(st_ops *o, const cm_design *d, int node, int n_in, int64_t pixels,
                   int64_t ii)
{
    const cm_hd_node *n = &d->hd.nodes[node];
    const int64_t pixel = d->graph->layers[n->layer].out_shape.c;
    int64_t all[SIM_MAX_PORTS] = {0}, map_only[SIM_MAX_PORTS] = {0};
    for (int p = 0; p < n_in && p < SIM_MAX_PORTS; p++) {
        all[p] = 1;
        map_only[p] = !(pixels > 1 && p < n->n_pred && d->hd.nodes[n->pred[p]].size_out == pixel);
    }
    st_run_ports(o, 1, ii, 1, all, n_in, 1);
    st_run_ports(o, pixels - 1, ii, 1, map_only, n_in, 1);
}
