/* Cycle-level simulation of a design (`cnnmap simulate`): the design file's hardware as
 * a graph of tasks and bounded FIFO streams, stepped by the dataflow engine, giving the
 * measured first-frame latency and steady-state interval beside the cost model's
 * figures, each task's busy fraction and what stalled it, each stream's most occupied
 * moment, FIFO depths sized by simulation, and deadlocks named by the cycle of tasks and
 * streams that wait on each other.
 *
 * nn2FPGA designs are simulated as the HLS export builds them (the same tasks, loop
 * trip counts and stream depths); streaming designs (fpgaConvNet, FINN, hls4ml) per
 * partition from the backend's building blocks; latency-driven designs as the schedule
 * of subgraphs on the reference architecture with their weight loads. */
#ifndef CNNMAP_SIMULATE_H
#define CNNMAP_SIMULATE_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/error.h>
#include <cnnmap/map.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CM_SIM_DEFAULT_FRAMES 4

typedef enum cm_sim_fifo_mode {
    CM_SIM_FIFO_DESIGN, /* the depths the design gives its streams */
    CM_SIM_FIFO_AUTO    /* the smallest depths that keep the unbounded interval */
} cm_sim_fifo_mode;

typedef struct cm_sim_options {
    int frames;             /* >= 1 */
    cm_sim_fifo_mode fifo;
    bool progress;          /* a progress bar on stderr (the CLI decides) */
    uint64_t max_iterations;/* 0: no limit; else a run that would simulate more task
                             * iterations is CM_EINFEASIBLE (bounds the work) */
    double time_limit_s;    /* > 0: wall-clock cap from the call, loading included: a
                             * simulation or FIFO sizing still running then stops and
                             * the result says so (stopped_early); 0: none */
} cm_sim_options;

/* The CLI's --time-limit when none is given, seconds. */
#define CM_SIM_DEFAULT_TIME_LIMIT_S 60.0

/* CM_SIM_DEFAULT_FRAMES frames, the design's depths, no progress bar, no time limit. */
void cm_sim_options_init(cm_sim_options *o);

typedef struct cm_sim_figures {
    int64_t latency_cycles;  /* first input word in to last output word out, frame 0 */
    int64_t interval_cycles; /* between the last two frames' last output words */
} cm_sim_figures;

typedef struct cm_sim_partition {
    char label[64];
    int frames;
    int64_t before_cycles;   /* reconfiguration or weight loading before it */
    cm_sim_figures simulated, analytic;
} cm_sim_partition;

typedef struct cm_sim_task {
    char *name, *kind;
    int partition;
    int64_t iterations;
    double busy;             /* busy cycles over the partition's simulated span */
    int64_t starved_cycles, blocked_cycles;
    char *stalled_by;        /* "words in S" or "room in S" it waited longest for, or NULL */
    int64_t analytic_cycles; /* the cost model's cycles per frame, 0 when it has none */
    int64_t simulated_cycles;/* busy cycles per frame */
} cm_sim_task;

typedef struct cm_sim_stream {
    char *name;
    int partition;
    int64_t design_depth;    /* what the design gives it (0: unbounded) */
    int64_t depth;           /* as simulated (auto: the sized depth) */
    int64_t max_occupancy;
    /* when the run wrote its first and its last word, in cycles from the partition's
     * first input word (0 and -1 when it wrote none): with one frame, the first frame's
     * first and last word out of the task that writes it, beside the cost model's
     * first and last output of that node */
    int64_t first_word_cycle, last_word_cycle;
} cm_sim_stream;

typedef struct cm_sim_result {
    cm_architecture architecture;
    int frames;
    double clock_mhz;
    cm_sim_figures simulated, analytic;
    bool deadlock;
    char deadlock_cycle[1100]; /* the partition, tasks and streams */
    cm_sim_fifo_mode fifo;
    int n_partitions, n_tasks, n_streams;
    cm_sim_partition *partitions;
    cm_sim_task *tasks;
    cm_sim_stream *streams;
    uint64_t iterations;     /* task iterations simulated, over every run */
    int64_t cycles;          /* cycles simulated, over every run */
    int runs;                /* engine runs (FIFO sizing runs several) */
    double time_s;
    /* The time limit stopped the work: with `partial` a simulation run was cut (its
     * figures cover only what ran, later partitions did not run); without it only FIFO
     * sizing was cut (the depths proven by then, larger than the smallest, and the
     * figures at them are complete). warning says which, in a sentence. */
    bool stopped_early, partial;
    double time_limit_s;
    char warning[256];
} cm_sim_result;

/* Loads the design file at path (any architecture but overlay and multi, which are
 * CM_EINPUT saying so), builds its task graph and simulates it. A deadlock is CM_OK with
 * out->deadlock set (the CLI exits 3). Bad files are CM_EINPUT naming the file. */
cm_status cm_simulate(const char *design_path, const cm_sim_options *o, cm_sim_result *out,
                      cm_error *err);

/* Writes the design file at design_path again to out_path with the simulated stream
 * depths, atomically: nn2FPGA designs (the HLS export then uses them) and streaming
 * designs ("fifo_depths", which the simulation then uses, the resources then count and
 * the FINN export writes as inFIFODepths/outFIFODepths). CM_EINPUT for architectures
 * whose files hold no stream depths and for a partial result (r->partial);
 * CM_EINFEASIBLE, naming the resource, when the FIFOs push a feasible streaming design
 * over the board (nothing written). */
cm_status cm_simulate_save_depths(const char *design_path, const cm_sim_result *r,
                                  const char *out_path, cm_error *err);

void cm_sim_result_free(cm_sim_result *r);

#ifdef __cplusplus
}
#endif
#endif
