/* The inside of the multi-CNN flow, shared by the files of src/multi: the expanded
 * scheduling instance (every subgraph execution of one period, in chain order per
 * network), the list scheduler and its slow-down search (rcls.c, search.c), the exact
 * ILP (ilp.c), the objectives and the fluid bound (objective.c), the per-network
 * Pareto fronts (engine.c), the rate-partitioned schedules (partition.c), the
 * design-space exploration tying them together (dse.c), the figures of a chosen point
 * (figures.c) and the engines and schedules of a loaded design file (point.c,
 * design_load.c). */
#ifndef CM_MULTI_INTERNAL_H
#define CM_MULTI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/latency.h>
#include <cnnmap/multi.h>

/* The design file's "version": 2 records each engine's design point, the options and
 * the search's facts, so that a loaded design is costed again without a search;
 * version 1 files held only the figures and the inputs. */
#define CM_MT_DESIGN_VERSION 2

/* Slow-downs never go below this: a subgraph a hundred times slower is never useful
 * and the bound keeps every L' finite. */
#define CM_MT_MIN_SLOWDOWN (1.0 / 64.0)

/* One subgraph execution of the period. */
typedef struct cm_mt_task {
    int job, sub, rep;
    double latency;  /* L(s), seconds */
    double bytes;
    double bw;       /* b(s), bytes per second */
} cm_mt_task;

/* A problem expanded over its repetitions: job j's tasks are t[first[j] .. first[j+1]),
 * in precedence order (subgraphs in turn, repetition after repetition). */
typedef struct cm_mt_inst {
    int n_jobs, n_tasks;
    int *first;
    cm_mt_task *t;
    double bandwidth;
} cm_mt_inst;

cm_status cm_mt_inst_build(const cm_multi_problem *p, cm_mt_inst *x, cm_error *err);
void cm_mt_inst_free(cm_mt_inst *x);

/* Scratch for the list scheduler, sized for one instance. */
typedef struct cm_mt_ws {
    double deadline;  /* cm_seconds_now() at which the slow-down search stops */
    int *next, *busy, *order;
    int *rank;        /* per job: lower runs first among ready jobs (0 for all: the
                       * longest remaining chain first) */
    double *ready, *remaining, *load, *end;
    int *by_start;
} cm_mt_ws;

cm_status cm_mt_ws_init(const cm_mt_inst *x, cm_mt_ws *w, cm_error *err);
void cm_mt_ws_free(cm_mt_ws *w);

/* Resource-constrained list scheduling: at each completion, idle jobs whose next task is
 * ready start in order of their rank, then of the work left on their chain (longest
 * first), while their
 * slowed-down bandwidth fits beside the running ones (limit false: always). Fills
 * start (per task) and returns the makespan; *flow gets the sum of end times. */
double cm_mt_rcls(const cm_mt_inst *x, const double *sl, bool limit, cm_mt_ws *w, double *start,
                  double *flow);

/* Alg. 1 lines 3-5: each task's slow-down that removes the largest overlap of bandwidth
 * demand it sees in the schedule `start` (built without the limit). */
void cm_mt_proposals(const cm_mt_inst *x, const double *sl, const double *start, cm_mt_ws *w,
                     double *sl0);

/* Pattern search over the slow-downs from sl (changed in place) for the shortest
 * makespan; returns it, with start filled and *evals counting schedules. */
double cm_mt_search(const cm_mt_inst *x, uint64_t budget, cm_mt_ws *w, double *sl, double *start,
                    uint64_t *evals);

/* Alg. 1 on one instance: proposals from the violations of an unconstrained schedule,
 * then the pattern search (budget 0: one that grows with the tasks). */
double cm_mt_schedule_instance(const cm_mt_inst *x, uint64_t budget, cm_mt_ws *w, double *sl,
                               double *start, uint64_t *evals);

/* Fills a public schedule from an instance, slow-downs and start times. */
cm_status cm_mt_fill_schedule(const cm_mt_inst *x, const double *sl, const double *start,
                              double period, cm_multi_schedule *out, cm_error *err);

/* Something that schedules one instance (fills sl, start, period; optimal and evals
 * when it knows them). */
typedef struct cm_mt_solver {
    cm_status (*run)(const cm_mt_inst *x, const void *ctx, double *sl, double *start,
                     double *period, bool *optimal, uint64_t *evals, cm_error *err);
    const void *ctx;
} cm_mt_solver;

/* The list scheduler's limits: schedules built (0: a default that grows with the
 * tasks) and a wall-clock deadline (INFINITY: none). */
typedef struct cm_mt_list_limits {
    uint64_t budget;
    double deadline;
} cm_mt_list_limits;

/* The list scheduler as a solver; ctx points at its cm_mt_list_limits. */
cm_status cm_mt_list_run(const cm_mt_inst *x, const void *ctx, double *sl, double *start,
                         double *period, bool *optimal, uint64_t *evals, cm_error *err);

/* Expands a problem, runs the solver on it and fills the public schedule. */
cm_status cm_mt_solve(const cm_multi_problem *p, const cm_mt_solver *solver,
                      cm_multi_schedule *out, cm_error *err);

/* The ILP on an instance; *period gets its optimum. GLPK stops at the deadline (and
 * after two minutes in any case); without an incumbent by then the schedule is the
 * list schedule without slow-downs. */
cm_status cm_mt_ilp(const cm_mt_inst *x, int modes, double deadline, double *sl, double *start,
                    double *period, bool *optimal, cm_error *err);

/* ---- objectives (eqs. 5 and 6) ---- */

/* Per network: the normaliser (target fps for eq. 5, maximum fps for eq. 6, the
 * throughput ratio T / T_max being the fps ratio) and the fps beyond which the
 * objective gains nothing (the target for eq. 5: a faster engine idles). */
typedef struct cm_mt_goal {
    int n;
    const double *norm;
    const double *cap;
} cm_mt_goal;

double cm_mt_objective(const cm_mt_goal *g, const double *fps);

/* The fluid bound: the lowest objective any schedule can reach when network i runs at
 * most at u[i] fps and moves c[i] bytes per inference through bandwidth B (every
 * schedule moves the same bytes, slow-downs or not). f gets the fluid rates. */
double cm_mt_fluid_bound(const cm_mt_goal *g, const double *u, const double *c, double bandwidth,
                         double *f);

/* cm_multi_map with the time limit counted from t0 (a cm_seconds_now() value), so that
 * a request's model loading counts too. */
cm_status cm_mt_map_since(const cm_multi_input *models, int n, const cm_board *board,
                          const cm_multi_options *o, double t0, cm_multi_result **out,
                          cm_error *err);

/* The result a mapping (or a loaded design) fills: each network's name, user target
 * and GOp from its input, the board's or o's bandwidth and clock. */
cm_status cm_mt_new_result(const cm_multi_input *models, int n, const cm_board *b,
                           const cm_multi_options *o, cm_multi_result **out, cm_error *err);

/* Loads q's board and models (g[i] freed on failure); in[i] names each network by its
 * file's base name. A file that cannot be loaded is CM_EINPUT naming it. */
cm_status cm_mt_request_load(const cm_multi_request *q, cm_board *board, cm_graph **g,
                             cm_multi_input *in, cm_error *err);
void cm_mt_graphs_free(cm_graph **g, int n);

/* ---- figures of a chosen point (figures.c) ---- */

/* The first resource (DSP, BRAM18, URAM, LUT, FF) where need exceeds have: its name,
 * with both amounts; NULL when need fits. */
const char *cm_mt_resource_over(const cm_resources *need, const cm_resources *have,
                                int64_t *needed, int64_t *available);

/* Per network: eq. 5's normaliser and cap (the target fps) or eq. 6's (the maximum fps,
 * no cap), for r's objective. */
void cm_mt_goal_terms(const cm_multi_result *r, double *norm, double *cap);

/* Each network's fps and GOp/s under r->schedule with the engines front[engine] (a
 * cyclic schedule's period, and each engine's cycle, become the end of its last
 * execution), the objective, the engines' resources and the slot table. */
void cm_mt_schedule_figures(cm_multi_result *r, const cm_mt_goal *g, const cm_multi_options *o);

/* The contention-unaware baseline's fps, GOp/s and objective: the engines
 * front[baseline_engine], each on its own DMA with B_mem split evenly. */
void cm_mt_baseline_figures(cm_multi_result *r, const cm_mt_goal *g);

/* ---- Pareto fronts and engines ---- */

/* The latency-driven flow's options for engines of a mapping. */
void cm_mt_latency_options(const cm_multi_options *o, double bandwidth_gbps, double clock_mhz,
                           cm_latency_options *lo);

/* The engine of a latency-driven design of graph g, with the design point it is
 * (frees e on failure). */
cm_status cm_mt_engine_of(const cm_graph *g, const cm_latency_design *ld, double word_bytes,
                          double cap, cm_multi_engine *e, cm_error *err);
void cm_mt_point_free(cm_multi_point *p);

/* Costs the engine recorded as point p on the whole board (point.c). A point that does
 * not match the graph (a cut or fold at no weight layer, a block count or name its
 * architecture does not have, folds the banks do not give) is CM_EINPUT and a bank
 * that holds no folding of its layer CM_EINFEASIBLE, each message starting
 * "design_path: field". */
cm_status cm_mt_engine_at(const cm_graph *g, const cm_board *board, const cm_latency_options *lo,
                          const cm_multi_point *p, double cap, const char *design_path,
                          const char *field, cm_multi_engine *e, cm_error *err);

/* The clock a front is built under: a user's deadline (INFINITY: none, each point then
 * stops by its own budget), the front points of the networks after this one (which
 * share what is left of the time), and whether a point was cut short or skipped. */
typedef struct cm_mt_front_limits {
    double deadline;
    int points_after;
    bool stopped;
} cm_mt_front_limits;

cm_status cm_mt_front(const cm_graph *g, const cm_board *board, const cm_multi_options *o,
                      double bandwidth_gbps, double clock_mhz, cm_multi_model *m,
                      cm_mt_front_limits *lim, cm_error *err);
void cm_mt_engine_free(cm_multi_engine *e);

/* ---- rate-partitioned schedules (the baseline and its optimised shares) ---- */

/* Time of one inference of engine e with a fraction `share` of bandwidth B. */
double cm_mt_partition_time(const cm_multi_engine *e, double share, double bandwidth);

/* Shares (summing to one) for the engines, searched from the even split for the
 * lowest objective; fps gets each engine's rate. Returns the objective. */
double cm_mt_partition_search(const cm_multi_engine *const *e, int n, const cm_mt_goal *g,
                              double bandwidth, double *share, double *fps);

cm_status cm_mt_partition_schedule(const cm_multi_engine *const *e, int n, const double *share,
                                   double bandwidth, cm_multi_schedule *out, cm_error *err);

/* ---- slot table ---- */

/* Fills slots, share, words and rounds of every task of a schedule. */
void cm_mt_slot_table(cm_multi_schedule *s, const cm_multi_options *o, double bandwidth,
                      double words_per_cycle, int word_bits);

#endif
