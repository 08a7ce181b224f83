/* Several CNNs on one FPGA (f-CNNx, Venieris and Bouganis, FPL 2018, sections III-IV).
 *
 * Every network gets its own streaming engine (the latency-driven fpgaConvNet flow:
 * subgraphs cut before weight layers, input feature-map folding, weights reloaded
 * between subgraphs). Each network's latency-resource Pareto front is found by
 * searching its engine under scaled-down copies of the board; joint design points are
 * the combinations whose summed resources fit the board. The engines share the
 * off-chip bandwidth through a static schedule of their subgraphs: a cyclic schedule
 * (period K, repetitions per network, precedence inside each network, aggregate
 * bandwidth at most B_mem) with slow-downs (eqs. 3-4) found by resource-constrained
 * list scheduling and a pattern search (Alg. 1), or exactly by an ILP on small cases.
 * The chosen point minimises FPSobj (eq. 5) or MaxThrpt (eq. 6); the hardware
 * scheduler's slot table follows from eq. 7. The contention-unaware baseline is the
 * joint point that is best when every engine is assumed to own the whole bandwidth,
 * run with every engine on its own asynchronous DMA and the bandwidth split evenly. */
#ifndef CNNMAP_MULTI_H
#define CNNMAP_MULTI_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/board.h>
#include <cnnmap/error.h>
#include <cnnmap/graph.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cm_multi_objective {
    CM_MULTI_FPS,        /* eq. 5: reach each network's target frame rate */
    CM_MULTI_THROUGHPUT  /* eq. 6: each network's GOp/s as close to its own maximum */
} cm_multi_objective;

typedef enum cm_multi_scheduler {
    CM_MULTI_LIST,  /* list scheduling with slow-down proposals and pattern search */
    CM_MULTI_ILP    /* exact: GLPK on the disjunctive program (small problems only) */
} cm_multi_scheduler;

typedef struct cm_multi_options {
    cm_multi_objective objective;
    cm_multi_scheduler scheduler;
    double bandwidth_gbps;  /* B_mem; 0: the board's */
    double clock_mhz;       /* 0: the board's */
    int word_bits;          /* 16 (Q8.8, as f-CNNx) */
    int front_caps;         /* resource caps swept per network for its Pareto front */
    int max_repetitions;    /* the largest rep(i) tried */
    int max_tasks;          /* subgraph executions per period the list scheduler takes */
    int ilp_max_tasks;      /* ... and the ILP scheduler (it refuses larger problems) */
    int ilp_modes;          /* slow-down levels the ILP chooses from: 1, 3/4, 1/2, 1/4 */
    int burst_length;       /* cycles (words per port cycle) of one slot (eq. 7): 1024 */
    int max_slots;          /* the most slots one round of the hardware scheduler has */
    double time_limit_s;    /* the user's cap on the whole command; 0: none but the
                             * safety cap CM_MULTI_DEFAULT_TIME_LIMIT_S */
    uint64_t work;          /* the joint search's budget; 0: CM_MULTI_WORK */
} cm_multi_options;

/* Without a time limit every part of the exploration stops by a budget of work, so the
 * same inputs give the same design on any machine: each front point by the
 * latency-driven search's own evaluation budget, the joint search after
 * CM_MULTI_WORK scheduled subgraph executions (list-schedule evaluations times the
 * executions of their period), each ILP program after CM_MULTI_ILP_NODES branch-and-bound
 * nodes. A budget that ends a search says so (stopped_early) as a time limit does. The
 * default time limit is only a safety cap far above what the budgets take (the Table III
 * sets: 1-3 s). */
#define CM_MULTI_DEFAULT_TIME_LIMIT_S 600.0
#define CM_MULTI_WORK 400000000ull
#define CM_MULTI_ILP_NODES 200000

/* Eq. 5, list scheduler, the board's bandwidth and clock, 16 bits, 10 caps, 8
 * repetitions, 2000 and 48 tasks, 4 ILP modes, bursts of 1024, 64 slots, 60 s. */
void cm_multi_options_init(cm_multi_options *o);

/* One network to map. */
typedef struct cm_multi_input {
    const cm_graph *graph;
    const char *name;     /* how reports name it */
    double fps;           /* the user's target frame rate; 0: none (its maximum) */
} cm_multi_input;

/* One scheduled unit of an engine: one or more of the latency flow's subgraphs (the
 * passes of a layer folded over its input maps stay together, so that every
 * subgraph holds a convolution or dense layer). */
typedef struct cm_multi_subgraph {
    int first_layer, last_layer;  /* graph layers */
    int passes;                   /* latency-flow subgraphs it merges */
    double latency_s;             /* L(s): execution plus weight loading, eq. 1 with B = 1 */
    double bytes;                 /* off-chip traffic: maps in and out, reloaded weights */
    double bandwidth;             /* b(s) = bytes / L(s), bytes per second */
    uint64_t macs;
} cm_multi_subgraph;

/* One block of an engine's reference architecture as the latency-driven flow sizes it
 * (cm_latency_block): conv blocks have coarse units of macc MACC units and weight banks
 * of bank_bram BRAM18; the other blocks only streams (coarse), macc 1 and bank 0. */
typedef struct cm_multi_block {
    char name[24];                /* "conv0", "pool1", ... in the architecture's order */
    int coarse, macc, bank_bram;
} cm_multi_block;

/* An engine as a concrete latency-driven design point (cm_latency_point by names): what
 * a design file records so that the engine can be costed again without a search. */
typedef struct cm_multi_point {
    int n_cuts;
    char **cuts;                  /* the weight layers (graph names) a subgraph starts at,
                                   * the first subgraph's excepted */
    int n_folds;
    char **fold_layers;           /* weight layers split over their input maps ... */
    int *folds;                   /* ... into this many passes (f_in > 1) */
    int n_blocks;
    cm_multi_block *blocks;       /* the blocks some subgraph uses */
} cm_multi_point;

/* One design point on a network's Pareto front. */
typedef struct cm_multi_engine {
    double latency_s;             /* eq. 2: every subgraph in turn, batch 1 */
    double bytes;                 /* off-chip bytes per inference */
    double cap;                   /* the fraction of the board it was searched under */
    cm_resources resources;
    int n_subgraphs;
    cm_multi_subgraph *subgraphs;
    int n_blocks;                 /* blocks of its reference architecture */
    int dsp_coarse;               /* sum of coarse x MACC units over its conv blocks */
    cm_multi_point point;         /* the latency-driven design it is */
} cm_multi_engine;

/* One entry of the schedule and the slot table (eq. 7). */
typedef struct cm_multi_task {
    int model, subgraph, repetition;
    double start_s;               /* within the period (rate-partitioned: the network's cycle) */
    double latency_s;             /* L'(s) = L(s) / sl (eq. 4) */
    double bandwidth;             /* b'(s) = sl b(s), bytes per second (eq. 4) */
    double slowdown;              /* sl in (0, 1] (eq. 3) */
    int slots;                    /* consecutive burst slots per round (eq. 7) */
    double share;                 /* slots / slots of the round when it starts */
    int64_t words;                /* words it transfers */
    int64_t rounds;               /* rounds of the slot table it needs for them */
} cm_multi_task;

typedef enum cm_multi_schedule_kind {
    CM_MULTI_CYCLIC,       /* one period K with rep(i) inferences of network i */
    CM_MULTI_PARTITIONED   /* each engine repeats on its own with a fixed bandwidth share */
} cm_multi_schedule_kind;

/* A schedule of one joint design point. */
typedef struct cm_multi_schedule {
    cm_multi_schedule_kind kind;
    int n_engines;
    int *repetitions;             /* per engine (1 when partitioned) */
    double *cycle_s;              /* per engine: period K, or its own inference time */
    double *share;                /* partitioned: each engine's fraction of B_mem */
    int n_tasks;
    cm_multi_task *tasks;         /* by engine, then repetition, then subgraph */
    double period_s;              /* cyclic: K */
    bool optimal;                 /* proven by the ILP */
    uint64_t evaluations;         /* schedules built by the search */
} cm_multi_schedule;

void cm_multi_schedule_free(cm_multi_schedule *s);

/* One network of a result. */
typedef struct cm_multi_model {
    char *name;
    double user_fps;              /* 0: none */
    double max_fps;               /* fps_max: the whole board and bandwidth to itself */
    double target_fps;            /* min(user, max) (eq. 5) */
    double gop;                   /* GOp per inference (a MAC is two operations) */
    double fps, gops;             /* scheduled; fps objective: at most the target */
    int engine;                   /* index on its front */
    double baseline_fps, baseline_gops;
    int baseline_engine;
    int n_front;
    cm_multi_engine *front;       /* Pareto front, fastest first (a loaded design: its
                                   * engine and its baseline engine only) */
    int front_size;               /* points the search found on the front */
} cm_multi_model;

typedef struct cm_multi_result {
    cm_multi_objective objective;
    cm_multi_scheduler scheduler;
    char board[CM_BOARD_TEXT_MAX];
    double bandwidth_gbps, clock_mhz;
    int word_bits, burst_length, max_slots;
    double words_per_cycle;       /* off-chip words per clock cycle at B_mem */
    int n_models;
    cm_multi_model *models;
    double objective_value, baseline_objective_value;
    cm_multi_schedule schedule;   /* of the chosen joint point */
    cm_resources resources;       /* the engines' sum */
    uint64_t joint_points, joint_feasible, joint_scheduled;
    uint64_t joint_distinct;      /* fitting points up to permuting copies of a network */
    double front_time_s, schedule_time_s;
    double time_limit_s;          /* the limit the exploration ran under */
    bool stopped_early;           /* the limit cut the exploration short: the result is
                                   * the best found by then, not the search's answer */
} cm_multi_result;

/* Maps n >= 2 networks. CM_EUSAGE for bad options, CM_EINFEASIBLE when no joint point
 * fits (the message names the resource) or the ILP is asked for a problem too large
 * for it (the message gives the size). The Pareto fronts are always built; the
 * exploration after them stops at the time limit with the best schedule found so far
 * (stopped_early). Networks with identical fronts and targets are interchangeable, so
 * of the joint points that only permute their engines one is scheduled. */
cm_status cm_multi_map(const cm_multi_input *models, int n, const cm_board *board,
                       const cm_multi_options *o, cm_multi_result **out, cm_error *err);
void cm_multi_result_free(cm_multi_result *r);

/* ---- the scheduling problem on its own (tests, benchmarks) ---- */

typedef struct cm_multi_job {
    int n_subgraphs;
    const double *latency_s;      /* L(s) per subgraph */
    const double *bytes;          /* off-chip bytes per subgraph */
    int repetitions;              /* rep(i) */
} cm_multi_job;

typedef struct cm_multi_problem {
    int n_jobs;
    const cm_multi_job *jobs;
    double bandwidth;             /* B_mem, bytes per second */
} cm_multi_problem;

/* The shortest period for the given repetitions: list scheduling with slow-downs
 * (proposals from the violations of an unconstrained schedule, then pattern search).
 * max_evaluations bounds the search (0: the default budget). */
cm_status cm_multi_schedule_list(const cm_multi_problem *p, uint64_t max_evaluations,
                                 cm_multi_schedule *out, cm_error *err);
/* The same exactly (slow-downs from the first `modes` of 1, 3/4, 1/2, 1/4); refuses
 * (CM_EINFEASIBLE, naming the size) beyond max_tasks subgraph executions. `optimal`
 * is false when GLPK's two-minute guard stopped it first. */
cm_status cm_multi_schedule_ilp(const cm_multi_problem *p, int modes, int max_tasks,
                                cm_multi_schedule *out, cm_error *err);

/* ---- eqs. 4 and 7 ---- */

/* Eq. 4: a subgraph slowed down by sl takes latency / sl and needs sl x bandwidth. */
void cm_multi_slow_down(double sl, double latency, double bandwidth, double *latency_out,
                        double *bandwidth_out);
/* Eq. 7 solved for slots: the fewest slots per round (at most max_slots) whose
 * integer counts give each of n concurrent subgraphs its bandwidth fraction
 * (need[k] / available) to within half a slot; every count at least 1. */
void cm_multi_slots(const double *need, int n, double available, int max_slots, int *slots);
/* Eq. 7: the fraction of the bandwidth each of n subgraphs in one round receives. */
void cm_multi_slot_shares(const int *slots, int n, double *share);
/* Rounds of the slot table a subgraph with `slots` slots needs to move `words` words
 * when the port moves words_per_cycle words a cycle and a slot is burst_length cycles. */
int64_t cm_multi_slot_rounds(int64_t words, int slots, int burst_length, double words_per_cycle);

/* ---- mapping files: what `cnnmap multi` and its design files hold ---- */

#define CM_MULTI_MAX_MODELS 16

/* The files and options a multi design is mapped from. A design file records them as
 * its "inputs" object, typed fields read as data, so that `export` can map the same
 * networks again. */
typedef struct cm_multi_request {
    char *board;                       /* a built-in board name or a board file */
    int n_models;
    char *model[CM_MULTI_MAX_MODELS];  /* ONNX or QONNX files */
    double fps[CM_MULTI_MAX_MODELS];   /* target frame rates; 0: the most each reaches */
    cm_multi_options options;
} cm_multi_request;

void cm_multi_request_init(cm_multi_request *q);   /* no files, default options */
void cm_multi_request_free(cm_multi_request *q);   /* frees the strings */

/* Loads the board and every model of q and maps them. A file that cannot be loaded is
 * CM_EINPUT with its own message (naming it); the rest as cm_multi_map. */
cm_status cm_multi_map_request(const cm_multi_request *q, cm_multi_result **out,
                               cm_error *err);

/* Reads the "inputs" of a design file written by `multi -o`. Anything missing, of the
 * wrong type or out of range is CM_EINPUT with a message naming the file and the
 * field. Relative model and board paths are taken from the design file's folder. */
cm_status cm_multi_request_read(const char *design_path, cm_multi_request *q, cm_error *err);

/* Whether path is a JSON file whose "format" is "cnnmap-multi-design". */
bool cm_multi_is_design_file(const char *path);

/* Reads a design file written by `multi -o` (version 2) and derives its figures again
 * from its models and board without any search: each recorded engine is costed by the
 * latency-driven flow at its recorded point (cm_latency_evaluate), the recorded
 * schedule (start times and slow-downs of a cyclic one, shares of a rate-partitioned
 * one) gives the period, each network's fps and GOp/s, the slot table and the
 * objective, and the contention-unaware baseline's engines are costed the same way.
 * Search facts (front sizes, joint points, stopped early, ILP optimality) are read as
 * recorded. CM_EINPUT naming the file and field for anything missing, mistyped, out of
 * range or inconsistent (version 1 files record no design points); CM_EINFEASIBLE
 * naming the network, engine, resource or subgraph for a broken constraint: the engines
 * together over the board, a schedule naming an engine or subgraph that does not
 * exist, missing or repeating one, overlapping runs of one engine, running a subgraph
 * before the one it follows, exceeding B_mem, shares over the whole bandwidth, or (fps
 * objective) a network below the frame rate the design reached towards its target. */
cm_status cm_multi_design_load(const char *path, cm_multi_result **out, cm_error *err);

/* `export --format report-md` of a multi design file: the loaded design's report
 * (cm_multi_design_load; a version 1 file's inputs are mapped again, as before version
 * 2), written to out_path whole or not at all. Every failure names the design file; a
 * design that cannot be read is CM_EINPUT, a broken constraint CM_EINFEASIBLE. */
cm_status cm_multi_export_report_md(const char *design_path, const char *out_path,
                                    cm_error *err);

/* ---- reports ---- */

/* The design file written by `multi -o` (version 2): engines with their design points,
 * schedule and slot table, options, the search's facts and, when q is given, its inputs
 * (absolute paths). NULL on out-of-memory; the caller frees it. */
char *cm_multi_design_json_inputs(const cm_multi_result *r, const cm_multi_request *q);
/* The same without the inputs. */
char *cm_multi_design_json(const cm_multi_result *r);
/* A Markdown report with the engines, the schedule and the slot table. */
char *cm_multi_report_md(const cm_multi_result *r);

const char *cm_multi_objective_name(cm_multi_objective o);  /* "fps", "throughput" */

#ifdef __cplusplus
}
#endif
#endif
