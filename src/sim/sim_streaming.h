/* The streaming builders' shared pieces (sim_streaming.c wires a partition, the
 * sim_streaming_*.c files describe each backend's node as a chain of tasks): op lists
 * built run by run, and a node's chain of tasks with the words each of its end tokens
 * stands for.
 *
 * Units. Inside a node's chain the streams carry tokens (one per pixel, window or
 * vector, whatever the two tasks exchange per iteration). Between nodes the streams
 * carry data words, so that two nodes with different parallelism (coarse, SIMD, PE)
 * meet without a converter of their own: the chain's first task reads in_words[p] words
 * per token on input port p, its last task writes out_words per token. Streams from a
 * source or to a sink stay in tokens (the source then writes one token every
 * in_words / beat cycles). */
#ifndef CM_SIM_STREAMING_H
#define CM_SIM_STREAMING_H

#include <stdbool.h>
#include <stdint.h>

#include "design/design_internal.h"
#include "sim/engine.h"

typedef struct st_ops {
    sim_op *v;
    int n, cap;
    bool bad; /* out of memory or a figure beyond the engine's 32-bit fields */
} st_ops;

/* A run of `count` iterations of ii cycles, writing at start + lat; rd on input port 0
 * and wr on output port 0 (tokens). Runs of 0 are dropped. */
void st_run(st_ops *o, int64_t count, int64_t ii, int64_t lat, int64_t rd, int64_t wr);
/* The same reading rd[p] tokens on each of n input ports. */
void st_run_ports(st_ops *o, int64_t count, int64_t ii, int64_t lat, const int64_t *rd, int n,
                  int64_t wr);
/* `count` iterations sharing `total` cycles as evenly as integers allow (ii differs by
 * at most 1, at least 1), each writing at its own end (lat = ii) when at_end. */
void st_run_spread(st_ops *o, int64_t count, int64_t total, bool at_end, int64_t rd, int64_t wr);
/* A loop of `count` repetitions around the ops added until st_end(o, at). */
int st_loop(st_ops *o, int64_t count);
void st_end(st_ops *o, int at);

#define ST_MAX_TASKS 6

typedef struct st_task {
    const char *suffix; /* appended to the node's name ("" for a one-task node) */
    const char *kind;
    st_ops ops;
} st_task;

typedef struct st_chain {
    int n;
    st_task t[ST_MAX_TASKS];
    int main_task;                  /* the one that carries the node's analytic cycles */
    int n_in;                       /* input ports of the first task */
    int64_t in_words[SIM_MAX_PORTS]; /* words per token read on each input port */
    int64_t out_words;              /* words per token written */
    int64_t beat_in, beat_out;      /* words per cycle at the node's input and output */
    int64_t fifo_words;             /* depth the backend gives its output streams, 0: none */
} st_chain;

/* A new task at the end of the chain; NULL past ST_MAX_TASKS. */
st_ops *st_task_add(st_chain *c, const char *suffix, const char *kind);
void st_chain_free(st_chain *c);

/* Which of the window's output positions end at each input position along one axis:
 * ends[i] (i in 0..n) counts the outputs whose window is complete once input i has
 * arrived, pad_before / pad_after padded positions before / after the n inputs. For a
 * window generator that walks the padded axis instead (padded = true), positions run
 * over the n + pads padded inputs. Returns the array (n or n + pads entries) or NULL. */
int64_t *st_window_ends(int64_t n, int64_t pad_before, int64_t pad_after, int64_t extent,
                        int64_t stride, int64_t outputs, bool padded);

/* A walk over a grid of positions (a feature map, padded or not), one iteration of ii
 * cycles per position: it reads a token where both real_r[y] and real_c[x] are set and
 * writes wr_r[y] * wr_c[x] tokens. Identical rows become one loop. */
typedef struct st_grid {
    int64_t rows, cols, ii, lat;
    const int64_t *real_r, *real_c, *wr_r, *wr_c;
} st_grid;
void st_grid_walk(st_ops *o, const st_grid *g);
/* A resize's walk (cm_resize_axis) over rows r and columns c, `pixel` cycles a pixel
 * read or written, each output pixel written a cycle after its iteration starts. False
 * when out of memory or the ops overflowed. */
/* A pointwise node's pixels, `ii` cycles each: the first reads every input, the rest
 * only those of more than one pixel (an input of one pixel, squeeze-excitation's scale,
 * is broadcast over the map). */
void st_run_pixels(st_ops *o, const cm_design *d, int node, int n_in, int64_t pixels,
                   int64_t ii);
bool st_resize_walk(st_ops *o, const cm_resize_axis *r, const cm_resize_axis *c, int64_t pixel);

/* Each backend's node as tasks (the node's folding as the design holds it).
 * CM_EINPUT naming the node when the backend's block has no task model. */
cm_status st_chain_fpgaconvnet(const cm_design *d, int node, st_chain *c, cm_error *err);
cm_status st_chain_finn(const cm_design *d, int node, st_chain *c, cm_error *err);
cm_status st_chain_hls4ml(const cm_design *d, int node, st_chain *c, cm_error *err);

/* Which of names[0..n) the simulation of d gives no stream: *unknown is the first
 * such index, -1 when every name is a stream of it. CM_EINPUT when d cannot be laid
 * out as tasks. */
cm_status sim_streaming_unknown_stream(const cm_design *d, const char *const *names, int n,
                                       int *unknown, cm_error *err);

#endif
