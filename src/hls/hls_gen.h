/* The HLS generator's working state, shared by the planner (hls_generate.c) and the
 * project writer (hls_project.c). */
#ifndef CM_HLS_GEN_H
#define CM_HLS_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/error.h>

#include "hls/hls_ir.h"
#include "util/strbuf.h"

#define HG_NAME_LEN 80
#define HG_SCRATCH 64
#define HG_SCRATCH_LEN 64
#define HG_MAX_ADDS 64

/* A residual add: its fork tensor, which operand is the main branch (0 or 1), and the
 * skip FIFO's depth in words of the fork's packing. */
typedef struct hg_add {
    int op, fork, main;
    int64_t depth;
    /* temporal reuse / loop merge (thesis section 3.6.4): the skip side reads the taps of
     * the main branch's first window buffer (tap_op) instead of a fork of the block input;
     * skip_op is the skip side's first task (the add itself, or the downsampling conv) */
    bool reuse;
    int tap_op, skip_op;
    char fifo[HG_NAME_LEN]; /* the skip FIFO's stream (the tap, or the fork's second output) */
} hg_add;

typedef struct hg_tensor_streams {
    char name[HG_NAME_LEN];      /* the producer's output stream */
    bool forked;
    char branch[2][HG_NAME_LEN]; /* main, skip: the fork's outputs */
} hg_tensor_streams;

typedef struct hg_packing {
    int p, cp;
} hg_packing;

typedef struct hg_ctx {
    const hl_net *net;
    const struct cm_nn2fpga_result *design; /* for which skips the design optimised */
    const char *origin;   /* the design file, for messages */
    const char *tasks_in; /* hls/project/tasks.in */
    cm_strbuf streams, tasks;
    int n_streams, n_tasks;
    hg_tensor_streams *ts; /* per tensor */
    hg_packing *pack;      /* per tensor: pixels and channels per word */
    hg_add adds[HG_MAX_ADDS];
    int n_adds;
    /* short-lived texts for template values (a ring: a call fills at most a few dozen) */
    char scratch[HG_SCRATCH][HG_SCRATCH_LEN];
    int next_scratch;
    cm_error *err;
    /* depths the design file gives streams by name (they replace the generated ones) */
    int n_fifo_depths;
    const struct cm_nn2fpga_fifo *fifo_depths;
    /* when set, every stream and task emitted is recorded there (hls_graph.h), tasks
     * with the layer of cur_op (the op being emitted, -1 after the last) */
    struct hg_graph *rec;
    int cur_op;
} hg_ctx;

/* The index of the design's skip connection of the add named `name`, or -1. */
int hg_design_skip(const struct cm_nn2fpga_result *design, const char *name);

/* The design file's depth for stream `name` (its fifo_depths), or `depth`. */
int64_t hg_stream_depth(const hg_ctx *g, const char *name, int64_t depth);
/* Packings and residual adds' skip depths; CM_EINPUT for a shape no block takes. */
cm_status hg_plan(hg_ctx *g);
/* Fills g->streams and g->tasks (the top function's body). */
void hg_emit_tasks(hg_ctx *g);

/* Appends tpl[0..len) to out with every @KEY@ of the NULL-ended key/value list kv
 * replaced by its value. */
void hg_fill(cm_strbuf *out, const char *tpl, size_t len, const char *const *kv);
/* Appends the line `kind` of tasks.in to `to`, filled from kv (counted as a task when
 * `to` is g->tasks); a missing line marks `to` failed. */
void hg_emit(hg_ctx *g, cm_strbuf *to, const char *kind, const char *const *kv);
/* "ap_int<W>" or "ap_uint<W>", the narrowest holding [lo, hi], in buf. */
const char *hg_type_name(char *buf, size_t size, int64_t lo, int64_t hi);
/* A C identifier for a layer: "l<index>_" and the name's letters and digits. */
void hg_identifier(const char *name, int index, char *out, size_t size);

#endif
