/* The cycle-level dataflow engine every architecture's simulation runs on: tasks joined
 * by bounded FIFO streams, each task a fixed program of pipelined loop iterations (a
 * cyclo-static dataflow actor, the shape of every HLS task cnnmap generates and of every
 * building block the backends' cost models describe).
 *
 * Timing semantics (the tests work cycle counts out from these):
 * - An iteration of a task starts at cycle t. It reads rd[p] words from each input port p
 *   at t and writes wr[q] words to each output port q at t + latency.
 * - Iteration k+1 starts no earlier than t_k + ii_k (ii and latency of iteration k's run).
 * - A word written at cycle w can be read at any cycle >= w.
 * - A stream of depth D holds at most D words: word n may be written at cycle w only if
 *   word n - D was read at a cycle < w. An iteration is therefore started late enough
 *   that none of its writes has to wait (its pipeline never stalls half-way).
 * - Write cycles on a stream never decrease: when runs of one task have different
 *   latencies, a later word is not written before an earlier one.
 * - So each start time is the max of: the previous start + ii, the write cycle of the
 *   last word it reads on each port, and (read cycle of word n - D) + 1 - latency for the
 *   last word n it writes on each port. The engine computes these exactly, task by task
 *   (a max-plus recurrence), without stepping through idle cycles: a design with millions
 *   of cycles per frame costs work in proportion to its iterations, not its cycles.
 * - Since every program is fixed, the run is deterministic, and a deadlock (no task can
 *   start its next iteration, not all done) is a property of the design, not of the
 *   order in which the engine visits tasks.
 *
 * Measured figures: a frame's first input word is "in" when its consumer reads it from a
 * source's stream; its last output word is "out" when a sink reads it. Latency is
 * out[0] - in[0] (frame 0); the interval is out[N-1] - out[N-2] (the last two of N
 * frames; 0 when N = 1). */
#ifndef CM_SIM_ENGINE_H
#define CM_SIM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/error.h>

#define SIM_MAX_PORTS 4
#define SIM_DEADLOCK_MAX 1024 /* the deadlock cycle's text */
#define SIM_UNBOUNDED 0 /* a stream depth: no limit */

/* A run of identical iterations. */
typedef struct sim_seg {
    int64_t count;             /* iterations (a run of 0 is skipped) */
    int32_t ii;                /* cycles from one iteration's start to the next's (>= 1) */
    int32_t latency;           /* cycles from an iteration's start to its writes (>= 1) */
    int32_t rd[SIM_MAX_PORTS]; /* words each iteration reads from input port p */
    int32_t wr[SIM_MAX_PORTS]; /* words each iteration writes to output port q */
} sim_seg;

/* A task's behaviour over one frame, as an iterator over runs. The engine calls
 * begin_frame before each frame, then next until it returns false. The engine owns state
 * once the task is added and frees it with free (which may be NULL). */
typedef struct sim_program {
    void *state;
    void (*begin_frame)(void *state);
    bool (*next)(void *state, sim_seg *out);
    void (*free)(void *state);
} sim_program;

/* ---- programs as nested loops (for tasks whose loop nest has fixed trip counts) ----
 * A loop program is a list of ops: SIM_RUN is a run (its seg); SIM_LOOP repeats the
 * `body` ops that follow it `count` times. Loops nest (up to 8 deep). */
typedef enum sim_op_kind { SIM_RUN, SIM_LOOP } sim_op_kind;

typedef struct sim_op {
    sim_op_kind kind;
    int64_t count; /* SIM_LOOP: repetitions */
    int body;      /* SIM_LOOP: how many of the following ops form its body */
    sim_seg seg;   /* SIM_RUN */
} sim_op;

/* A program over a copy of ops[0..n). CM_EINTERNAL when out of memory; CM_EINPUT for a
 * malformed list (a body running past the end, nesting deeper than 8). */
cm_status sim_program_loops(const sim_op *ops, int n, sim_program *out, cm_error *err);

/* A run with the given words per iteration on port 0 (in and out), ii 1, latency 1;
 * other fields zero. A convenience for builders and tests. */
sim_seg sim_seg_make(int64_t count, int32_t rd0, int32_t wr0);

/* ---- the graph ---- */

typedef struct sim_graph sim_graph;

sim_graph *sim_graph_new(void);
void sim_graph_free(sim_graph *g);

/* A stream of `depth` words (SIM_UNBOUNDED: none). Returns its index, or -1 when out of
 * memory. Each stream must get exactly one writer and one reader. */
int sim_stream_add(sim_graph *g, const char *name, int64_t depth);

/* A task reading in[0..n_in) and writing out[0..n_out) (stream indices; ports are in
 * that order). Takes ownership of prog (frees it even on failure). Returns the task's
 * index, or -1 when out of memory or a stream index is invalid or taken. `kind` is a
 * short label for reports ("conv", "window", ...). */
int sim_task_add(sim_graph *g, const char *name, const char *kind, const int *in, int n_in,
                 const int *out, int n_out, sim_program prog);

/* The graph's input: writes words_per_frame words per frame to `stream`, one every ii
 * cycles (latency 1). Returns the task index or -1. */
int sim_source_add(sim_graph *g, const char *name, int stream, int64_t words_per_frame, int ii);
/* The graph's output: reads words_per_frame words per frame from `stream`, one every ii
 * cycles. Returns the task index or -1. */
int sim_sink_add(sim_graph *g, const char *name, int stream, int64_t words_per_frame, int ii);

int sim_graph_tasks(const sim_graph *g);
int sim_graph_streams(const sim_graph *g);
const char *sim_task_name(const sim_graph *g, int task);
const char *sim_task_kind(const sim_graph *g, int task);
const char *sim_stream_name(const sim_graph *g, int stream);
int64_t sim_stream_depth(const sim_graph *g, int stream);
void sim_stream_set_depth(sim_graph *g, int stream, int64_t depth);

/* ---- running ---- */

typedef struct sim_run_options {
    int frames;           /* >= 1 */
    bool unbounded;       /* every stream without limit (its depth ignored) */
    uint64_t max_iterations; /* 0: no limit; else CM_EINFEASIBLE... see sim_run */
    double deadline_s;    /* > 0: at this cm_seconds_now() the run stops (r->stopped_early) */
} sim_run_options;

typedef struct sim_task_stats {
    int64_t iterations;
    int64_t first_start, last_end; /* cycles: first iteration's start, last one's start + ii */
    int64_t busy_cycles;    /* sum of ii over its iterations */
    /* Each start later than the previous start + ii counts the whole gap against the one
     * constraint that set the start (the last one found to bind), so starved + blocked
     * is the task's stall. */
    int64_t starved_cycles; /* waiting for words on an input beyond ii */
    int64_t blocked_cycles; /* waiting for room on an output beyond ii */
    int starved_on, blocked_on; /* the stream it waited on longest that way, or -1 */
} sim_task_stats;

typedef struct sim_stream_stats {
    int64_t words;         /* written over the run */
    int64_t first_write, last_write; /* cycles of the run's first and last word written */
    int64_t max_occupancy; /* most words held at once (counted just after each write) */
} sim_stream_stats;

typedef struct sim_run_result {
    int frames;
    bool deadlock;
    /* when deadlock: the cycle of tasks and streams that wait on each other, as
     * "A waits for room in s1 (read by B) -> B waits for words in s2 (written by A)" */
    char deadlock_cycle[SIM_DEADLOCK_MAX];
    int runs;            /* engine runs behind these figures (FIFO sizing makes several) */
    int64_t *in_first;   /* per frame: the cycle its first input word was read */
    int64_t *out_last;   /* per frame: the cycle its last output word was read */
    int64_t latency_cycles, interval_cycles;
    int64_t end_cycle;   /* the last iteration's end over all tasks */
    uint64_t iterations; /* over all tasks */
    int n_tasks, n_streams;
    sim_task_stats *tasks;
    sim_stream_stats *streams;
    bool stopped_early;  /* the deadline stopped it: the figures cover what ran (CM_OK) */
} sim_run_result;

/* Runs g for o->frames frames. A deadlock is not an error: r->deadlock is set, the
 * figures cover what ran. CM_EINPUT when a stream lacks a writer or a reader or the graph
 * has no source or sink; CM_EINTERNAL when out of memory; CM_EINFEASIBLE when
 * max_iterations is set and reached. */
cm_status sim_run(const sim_graph *g, const sim_run_options *o, sim_run_result *r, cm_error *err);
void sim_run_result_free(sim_run_result *r);

/* FIFO sizing: the smallest depth per stream that keeps the interval and latency of
 * unbounded streams. Runs unbounded for `frames` frames (max occupancy is an upper bound
 * that keeps that schedule exactly), then lowers the deepest streams by bisection, each
 * kept only if the run's interval and latency are unchanged and nothing deadlocks, within
 * `max_runs` runs in all. depths[] (one per stream) receives the result and the graph's
 * depths are set to it; *final the run at those depths. Deterministic. */
cm_status sim_size_fifos(sim_graph *g, int frames, int max_runs, int64_t *depths,
                         sim_run_result *final, cm_error *err);

#endif
