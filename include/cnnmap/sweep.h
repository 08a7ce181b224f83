/* Design-space sweeps: one model's streaming designs on several boards and backends
 * under DSP and BRAM caps from 10% to 100% of each board, the latency (or throughput)
 * each cap gives, and the Pareto front of latency against the share of the board used,
 * per board and backend. The points run on several threads; the result is the same,
 * point for point, whatever the number of threads. */
#ifndef CNNMAP_SWEEP_H
#define CNNMAP_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/board.h>
#include <cnnmap/design.h>
#include <cnnmap/error.h>
#include <cnnmap/optimise.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The budget of design points each point's optimiser runs with (rule and anneal stop by
 * their own criterion or after this many): a sweep runs tens of optimisations, and
 * fpgaConvNet's MobileNetV1 on a ZCU102 spends its default budget (65 M) in 30 s. */
#define CM_SWEEP_POINTS 300000ull
#define CM_SWEEP_MAX_STEPS 100
#define CM_SWEEP_MAX_THREADS 64

typedef struct cm_sweep_options {
    const char *model_path;
    const cm_board *boards;
    int n_boards;
    const cm_backend *backends;   /* streaming backends (not nn2fpga) */
    int n_backends;
    cm_design_options design;     /* objective, batch, bits (backend and max_util are set
                                   * per point) */
    cm_optimiser optimiser;
    uint64_t seed;
    int steps;                    /* caps 10% ... 100% in steps - 1 equal steps (1: 100%) */
    double time_limit_s;          /* > 0: no point starts after it, and each point's
                                   * optimiser stops at it; 0: none */
    int threads;                  /* < 1: 1 */
    bool progress;                /* a progress bar on stderr */
} cm_sweep_options;

typedef struct cm_sweep_point {
    int board, backend;           /* indices into the options' arrays */
    double cap;                   /* the DSP and BRAM18 share allowed */
    bool done;                    /* false: the time limit came before it started */
    bool built;                   /* false: the backend cannot build the model (error) */
    bool feasible;
    bool stopped_early;           /* its optimiser was stopped by the time limit or budget */
    bool on_front;                /* non-dominated among its board and backend's points */
    double latency_s, throughput_fps;
    cm_resources used;            /* the largest use of each resource over partitions */
    double util;                  /* max(DSP, BRAM18) used as a share of the board */
    int partitions;
    double time_s;                /* the point's optimisation (varies from run to run) */
    char error[160];              /* why the design could not be built */
} cm_sweep_point;

typedef struct cm_sweep_result {
    cm_sweep_point *points;       /* by board, then backend, then cap ascending */
    int n_points;
    bool stopped_early;           /* the time limit left points undone */
    int points_done;
    double time_s;
} cm_sweep_result;

void cm_sweep_options_init(cm_sweep_options *o);

/* The cap of step i of n: 10% to 100% in equal steps. */
double cm_sweep_cap(int step, int steps);

/* Runs the sweep. CM_EINPUT when the model cannot be loaded; CM_EUSAGE for bad options
 * (no board or backend, steps outside 1..CM_SWEEP_MAX_STEPS, nn2fpga). A backend that
 * cannot build the model leaves its points unbuilt with the reason, not an error. */
cm_status cm_sweep_run(const cm_sweep_options *o, cm_sweep_result *r, cm_error *err);
void cm_sweep_result_free(cm_sweep_result *r);

/* Marks each point's on_front: among the feasible points of one board and backend, the
 * point whose latency no point of at most its utilisation beats or equals (the first of
 * equal points kept). Along the front, more of the board always gives a lower latency. */
void cm_sweep_mark_fronts(cm_sweep_result *r);

/* Writes the sweep to path as JSON (points and fronts), CSV (one row a point, on_front
 * a column) or self-contained HTML (one SVG scatter a board, the fronts as lines, one
 * colour a backend), chosen by the extension (.json, .csv, .html); all at once, nothing
 * left behind on failure. CM_EUSAGE for another extension. */
/* CM_OK when path's extension names a format cm_sweep_write knows, else CM_EUSAGE (so a
 * command can refuse it before sweeping). */
cm_status cm_sweep_check_output(const char *path, cm_error *err);
cm_status cm_sweep_write(const cm_sweep_options *o, const cm_sweep_result *r, const char *path,
                         cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
