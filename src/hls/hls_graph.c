/* The HLS generator's plan as data (hls_graph.h): the recording the emitter does when a
 * graph is attached to its context, and lookups over it. hg_task_graph itself is in
 * hls_project.c, beside the planning it shares with the export. */
#include <stdlib.h>
#include <string.h>

#include "hls/hls_graph.h"

static bool grow(void **items, int *cap, int n, size_t size)
{
    if (n < *cap)
        return true;
    int next = *cap ? 2 * *cap : 16;
    void *p = realloc(*items, (size_t)next * size);
    if (!p)
        return false;
    *items = p;
    *cap = next;
    return true;
}

void hg_graph_add_stream(hg_graph *g, const char *name, int values, int64_t depth)
{
    if (g->failed || !grow((void **)&g->streams, &g->cap_streams, g->n_streams, sizeof *g->streams)) {
        g->failed = true;
        return;
    }
    hg_gstream *s = &g->streams[g->n_streams];
    *s = (hg_gstream){.name = strdup(name), .values = values, .depth = depth};
    if (!s->name) {
        g->failed = true;
        return;
    }
    g->n_streams++;
}

static void task_free(hg_gtask *t)
{
    for (int k = 0; k < 2 * t->n_kv; k++)
        free(t->kv[k]);
    free(t->kv);
    free(t->kind);
    free(t->name);
    free(t->layer);
}

void hg_graph_add_task(hg_graph *g, const char *kind, const char *layer, const char *const *kv)
{
    if (g->failed || !grow((void **)&g->tasks, &g->cap_tasks, g->n_tasks, sizeof *g->tasks)) {
        g->failed = true;
        return;
    }
    int n = 0;
    while (kv[2 * n])
        n++;
    hg_gtask *t = &g->tasks[g->n_tasks];
    *t = (hg_gtask){.kind = strdup(kind), .layer = strdup(layer), .kv = calloc((size_t)(2 * n + 1),
                                                                               sizeof(char *))};
    bool ok = t->kind && t->layer && t->kv;
    t->n_kv = ok ? n : 0; /* kv is zeroed: task_free frees what was copied */
    for (int k = 0; ok && k < 2 * n; k++)
        ok = (t->kv[k] = strdup(kv[k])) != NULL;
    const char *task = ok ? hg_task_value(t, "TASK") : NULL;
    ok = ok && (t->name = strdup(task ? task : kind)) != NULL;
    if (!ok) {
        task_free(t);
        g->failed = true;
        return;
    }
    g->n_tasks++;
}

void hg_graph_add_skip(hg_graph *g, const char *add, const char *stream)
{
    if (g->failed)
        return;
    char **a = realloc(g->skip_add, (size_t)(g->n_skips + 1) * sizeof *a);
    if (a)
        g->skip_add = a;
    char **s = a ? realloc(g->skip_stream, (size_t)(g->n_skips + 1) * sizeof *s) : NULL;
    if (s)
        g->skip_stream = s;
    char *add_copy = s ? strdup(add) : NULL, *stream_copy = add_copy ? strdup(stream) : NULL;
    if (!stream_copy) {
        free(add_copy);
        g->failed = true;
        return;
    }
    g->skip_add[g->n_skips] = add_copy;
    g->skip_stream[g->n_skips++] = stream_copy;
}

void hg_graph_free(hg_graph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n_streams; i++)
        free(g->streams[i].name);
    for (int i = 0; i < g->n_tasks; i++)
        task_free(&g->tasks[i]);
    for (int i = 0; i < g->n_skips; i++) {
        free(g->skip_add[i]);
        free(g->skip_stream[i]);
    }
    free(g->skip_add);
    free(g->skip_stream);
    free(g->streams);
    free(g->tasks);
    memset(g, 0, sizeof *g);
}

const char *hg_task_value(const hg_gtask *t, const char *key)
{
    for (int k = 0; k < t->n_kv; k++)
        if (t->kv[2 * k] && strcmp(t->kv[2 * k], key) == 0)
            return t->kv[2 * k + 1];
    return NULL;
}

int64_t hg_task_int(const hg_gtask *t, const char *key)
{
    const char *v = hg_task_value(t, key);
    char *end;
    long long x = v ? strtoll(v, &end, 10) : 0;
    return v && end != v && *end == '\0' ? (int64_t)x : 0;
}

int hg_graph_stream(const hg_graph *g, const char *name)
{
    for (int i = 0; i < g->n_streams; i++)
        if (strcmp(g->streams[i].name, name) == 0)
            return i;
    return -1;
}

/* ---- the design's stream depths ---- */

typedef struct depth_entry {
    int stream; /* index in the generated graph */
    int64_t depth;
} depth_entry;

static int by_stream(const void *a, const void *b)
{
    const depth_entry *x = a, *y = b;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

static void fifos_free(cm_nn2fpga_fifo *f, int n)
{
    for (int k = 0; f && k < n; k++)
        free(f[k].stream);
    free(f);
}

/* Checks names and depths against the graph g generated without any recorded depth. */
static cm_status check_depths(const hg_graph *g, const char *const *names, const int64_t *depths,
                              int n, const char *origin, depth_entry *e, cm_error *err)
{
    for (int k = 0; k < n; k++) {
        e[k] = (depth_entry){hg_graph_stream(g, names[k]), depths[k]};
        if (e[k].stream < 0)
            return cm_error_set(err, CM_EINPUT, "%s: fifo_depths: no stream \"%.64s\" in the "
                                "generated top function (s0 .. s%d)", origin, names[k],
                                g->n_streams - 1);
        if (depths[k] < 1 || depths[k] > HG_FIFO_DEPTH_MAX)
            return cm_error_set(err, CM_EINPUT, "%s: fifo_depths: \"%s\" must be an integer from "
                                "1 to %lld", origin, names[k], (long long)HG_FIFO_DEPTH_MAX);
        for (int j = 0; j < k; j++)
            if (e[j].stream == e[k].stream)
                return cm_error_set(err, CM_EINPUT, "%s: fifo_depths: \"%s\" given twice",
                                    origin, names[k]);
    }
    return CM_OK;
}

cm_status hg_set_fifo_depths(cm_nn2fpga_design *d, const char *const *names,
                             const int64_t *depths, int n, const char *origin, cm_error *err)
{
    if (n > 0 && !d->lowered)
        return cm_error_set(err, CM_EINPUT, "%s: fifo_depths: the model has no integer form, so "
                            "the design generates no streams", origin);
    /* the names are those of the export without recorded depths (they do not move) */
    cm_nn2fpga_design plain = *d;
    plain.n_fifo_depths = 0;
    plain.fifo_depths = NULL;
    hg_graph g;
    depth_entry *e = calloc((size_t)n + 1, sizeof *e);
    cm_nn2fpga_fifo *f = calloc((size_t)n + 1, sizeof *f);
    cm_status st = !e || !f ? cm_error_nomem(err) : n == 0 ? CM_OK : hg_task_graph(&plain, &g, err);
    if (st == CM_OK && n > 0) {
        st = check_depths(&g, names, depths, n, origin, e, err);
        qsort(e, (size_t)n, sizeof *e, by_stream);
        for (int k = 0; st == CM_OK && k < n; k++) {
            f[k].depth = e[k].depth;
            if (!(f[k].stream = strdup(g.streams[e[k].stream].name)))
                st = cm_error_nomem(err);
        }
        hg_graph_free(&g);
    }
    free(e);
    if (st != CM_OK) {
        fifos_free(f, n);
        return st;
    }
    fifos_free(d->fifo_depths, d->n_fifo_depths);
    d->fifo_depths = n > 0 ? f : NULL;
    d->n_fifo_depths = n;
    if (n == 0)
        free(f);
    return CM_OK;
}
