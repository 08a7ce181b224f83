/* The HLS generator's plan as data: every stream of the generated top function (its
 * name, values per word and depth as the depth pragma gives it) and every building-block
 * call (its tasks.in kind, the @KEY@ values it was filled with, and the layer it belongs
 * to), recorded while the planner and emitter run exactly as for the export. The
 * simulator (src/sim/sim_nn2fpga.c) builds its task graph from this, so that it steps
 * the tasks the export writes and nothing else. */
#ifndef CM_HLS_GRAPH_H
#define CM_HLS_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/error.h>
#include <cnnmap/nn2fpga.h>

typedef struct hg_gstream {
    char *name;      /* "s<k>"; the top function's ports "in" and "out" are not listed */
    int values;      /* values per word */
    int64_t depth;   /* the depth pragma's (the design's fifo_depths included) */
} hg_gstream;

typedef struct hg_gtask {
    char *kind;      /* the tasks.in line: "window_buffer", "conv", "fork", "pack", ... */
    char *name;      /* its TASK value */
    char *layer;     /* the model layer whose stream or call it serves ("" for the output's
                      * adapters) */
    int n_kv;        /* pairs */
    char **kv;       /* KEY, VALUE, KEY, VALUE, ... as the call was filled */
} hg_gtask;

typedef struct hg_graph {
    int n_streams, cap_streams;
    hg_gstream *streams;
    int n_tasks, cap_tasks;
    hg_gtask *tasks;
    int64_t in_words, out_words; /* per frame on the ports "in" (a pixel of all channels a
                                  * word) and "out" (one value a word) */
    /* the residual adds' skip FIFOs: add[k]'s skip side is stream skip_stream[k] */
    int n_skips;
    char **skip_add, **skip_stream;
    bool failed;     /* out of memory while recording */
} hg_graph;

/* Plans and emits d's top function as cm_hls_export does (the design's lowered model when
 * it kept one, else the model loaded again), writing no file, and records it in out.
 * CM_EINPUT as cm_hls_export for a model or design the flow cannot take. */
cm_status hg_task_graph(const cm_nn2fpga_design *d, hg_graph *out, cm_error *err);
void hg_graph_free(hg_graph *g);

/* Replaces d's fifo_depths by depths[k] for the stream names[k] (k < n), kept in the
 * export's stream order. A name the generated top function does not declare, or a depth
 * outside 1 .. 2^31, is CM_EINPUT "ORIGIN: fifo_depths: ..."; d is unchanged then. */
cm_status hg_set_fifo_depths(cm_nn2fpga_design *d, const char *const *names,
                             const int64_t *depths, int n, const char *origin, cm_error *err);
#define HG_FIFO_DEPTH_MAX (INT64_C(1) << 31)

/* Recording, for the emitter (hls_generate.c). */
void hg_graph_add_stream(hg_graph *g, const char *name, int values, int64_t depth);
void hg_graph_add_task(hg_graph *g, const char *kind, const char *layer, const char *const *kv);
void hg_graph_add_skip(hg_graph *g, const char *add, const char *stream);

/* A task's value for KEY, or NULL; as an integer (0 when absent or not a number). */
const char *hg_task_value(const hg_gtask *t, const char *key);
int64_t hg_task_int(const hg_gtask *t, const char *key);
/* The index of the stream named name, or -1. */
int hg_graph_stream(const hg_graph *g, const char *name);

#endif
