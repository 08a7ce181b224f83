/* What each architecture's simulation builder hands to cm_simulate: the design as one
 * or more engine graphs (one per partition or subgraph execution, run in order), and the
 * analytic figures the design's own cost model gives for the same things, so that every
 * simulated figure is printed beside the one it checks. */
#ifndef CM_SIM_BUILD_H
#define CM_SIM_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/error.h>
#include <cnnmap/nn2fpga.h>

#include "sim/engine.h"

struct cm_design;
struct cm_latency_file;

/* One graph the design runs: a partition (streaming), a subgraph execution (latency-
 * driven) or the whole accelerator (nn2FPGA). */
typedef struct sim_part {
    sim_graph *graph;
    char label[64];          /* "partition 0", "subgraph 2 (conv3, pass 1 of 4)", ... */
    int frames;              /* frames this graph streams per run (0: the option's) */
    int64_t before_cycles;   /* reconfiguration or weight loading before it runs */
    /* the cost model's figures for this graph, per frame (0 when it has none) */
    int64_t analytic_latency, analytic_interval;
    /* per task of graph (index by task): the cost model's cycles per frame, or 0 */
    int64_t *analytic_task_cycles;
} sim_part;

typedef struct sim_build {
    int n_parts, cap_parts;
    sim_part *parts;
    double clock_mhz;
    int batch;               /* frames per run for partitioned designs */
    /* the whole design per the cost model: latency of a run and interval between frames */
    int64_t analytic_latency, analytic_interval;
    /* Partitioned designs (several parts, each running `frames` frames before the next
     * is configured): whole latency = sum of before_cycles + span (first input word in to
     * the last frame's last output word out), interval = latency / frames. One part:
     * latency and interval as the engine measures them. */
} sim_build;

/* Appends a part that takes ownership of graph; returns it (NULL when out of memory,
 * then graph is freed). */
sim_part *sim_build_add(sim_build *b, sim_graph *graph, const char *label);
void sim_build_free(sim_build *b);

/* The builders. Each reads an already loaded design. CM_EINPUT naming the layer when a
 * part of the design has no task model. */
cm_status sim_build_nn2fpga(const cm_nn2fpga_design *d, sim_build *out, cm_error *err);
cm_status sim_build_streaming(const struct cm_design *d, sim_build *out, cm_error *err);
cm_status sim_build_latency(const struct cm_latency_file *f, sim_build *out, cm_error *err);

#endif

/* sim_size_fifos (sim/engine.h) within a deadline (cm_seconds_now(), 0: none): a
 * sizing the deadline stops keeps the depths it had proven, and *final is the last run
 * at them (no further run); *cut says so. An unbounded first run the deadline cuts
 * leaves the graph's depths as they were and *final->stopped_early set. */
cm_status sim_size_fifos_until(sim_graph *g, int frames, int max_runs, double deadline,
                               int64_t *depths, sim_run_result *final, bool *cut, cm_error *err);
