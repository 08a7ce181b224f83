/* The exact optimiser's shared model (exact*.c): every node's candidate
 * configurations (valid (in, out, kernel) triples with their costs, filtered by the
 * intra rule and annotated for dominance pruning), the cut positions with the
 * folding values that cross them, the segments between cuts, and the entry points of
 * the segment integer program (exact_ilp.c) and the lazy dynamic programme
 * (exact_dp.c). Everything is in cycles per segment; the DP works in seconds. */
#ifndef CM_OPTIMISE_EXACT_H
#define CM_OPTIMISE_EXACT_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/board.h>

#include "design/design_internal.h"
#include "platform/res_staircase.h"
#include "optimise/optimisers.h"

/* One valid folding of a node and its cost. `dom_cycles` is the largest cycle count
 * among the configurations that dominate this one within its interface (-1 when none
 * does): the configuration can be dropped from a segment unless it is the only kind
 * of node slow enough to keep the segment under the bandwidth limit (eq. 7). */
typedef struct ex_config {
    int64_t in, out, kernel;
    double cycles;
    cm_block_timing timing; /* the first frame's terms, compared for dominance */
    cm_resources res;
    double dom_cycles;
    double slowest; /* cm_design_depth_terms' slowest, which ex_cost_floor asks per segment */
} ex_config;

typedef struct ex_node {
    int n_cfg;
    ex_config *cfg;
    unsigned flags;        /* CM_HD_INTER / CM_HD_DIVISIBLE of the node's out side */
    double fast_alone;     /* fewest cycles of a configuration that fits the board alone */
    double least_before, least_after; /* cm_design_depth_terms' least over the
                                       * configurations that fit (ex_cost_floor) */
    cm_resources min_res;  /* per resource, the least any configuration needs */
    cm_resources min_fit;  /* the same over the configurations that fit alone */
    cm_resources closest;  /* the configuration nearest to fitting (least worst ratio) */
    double closest_ratio;
    int n_out_vals;        /* distinct out-foldings, ascending (for DP states) */
    int64_t *out_vals;
    cm_res_staircase steps; /* the least resources by interval (ex_time_floor's) */
} ex_node;

/* What the search needs of a segment's program: a bound at which every path through the
 * segment costs at least the incumbent less the gap, the path's other steps costing at
 * least rest_lb. The incumbent is total_ub, or (once the program has a design of cost c)
 * c + rest_ub if less: the program's design with the best designs around it. Seconds;
 * gap 0: none. */
typedef struct ex_goal {
    double gap, total_ub, rest_lb, rest_ub;
} ex_goal;

/* The bound (s) at which a program whose best design costs `own` (INFINITY: none) may
 * stop; 0 when it must not. */
double ex_goal_bound(const ex_goal *g, double own);

typedef struct ex_problem {
    cm_design *d;
    int n;
    ex_node *nodes;
    double *levels;        /* every configuration's cycles, distinct, ascending */
    int n_levels;
    double batch, clock_hz, reconf_s;
    bool has_depth;        /* fpgaConvNet models pipeline depth */
    double deadline;       /* cm_seconds_now() value at which to stop */
    double setup_grace;    /* a small cut graph's set-up may run until then (>= deadline) */
    double warm_ub;        /* cost of a known feasible design (INFINITY if none): a
                            * cutoff before the search has an incumbent of its own */
    const cm_design_point *warm; /* that design (NULL: none known) */
    double enough_s;       /* > 0: an incumbent of at most this cost ends the search */
    double gap;            /* relative gap at which the search may stop (--gap; 0: none) */
    ex_goal goal;          /* what the search needs of a program with the first frame
                            * (set per step, exact_dp.c) */
    bool progress;         /* draw a progress bar */
    int threads;           /* threads a round's segment programs run on (< 1: one) */
    int64_t bb_nodes;      /* GLPK branch-and-bound nodes over every program so far */
    int64_t bb_budget;     /* ... and the most allowed */
    bool budget_hit;       /* the node budget stopped a program or the search */
    bool init_stopped;     /* setup_grace passed before every node's configurations were
                            * listed: no search, no bound */
    uint64_t evaluations;  /* cm_design_node_cost_at calls */
    int ilps;              /* integer programs solved */
} ex_problem;

/* A segment solution: bounds on its best time in seconds (reconfiguration excluded)
 * and, when ub is finite, the configuration index chosen for each node. */
typedef struct ex_sol {
    double lb, ub;
    bool cut_off;  /* the program only showed that the time is at least lb */
    bool loose;    /* solved without the first frame (a branching segment's quick first
                    * program): lb is the interval's, raised by the relaxation with the
                    * first frame; ub is the design's cost */
    bool at_goal;  /* stopped once its bound reached the problem's goal */
    double t_lb;   /* cycles: no choice the program allows has a shorter interval */
    int *choice;
} ex_sol;

/* A run of nodes that one FPGA configuration would hold. */
typedef struct ex_segment {
    int first, end;          /* nodes [first, end) */
    double io_bits;          /* bits per sample in and out of the segment (eq. 7) */
    bool chain;              /* one path: the depth is a sum */
} ex_segment;

/* The exact search's budget is cm_optimise_options.max_nodes (CM_OPTIMISE_EXACT_NODES):
 * branch-and-bound nodes over all its integer programs. It ends the search alike on any
 * machine; the time limit is only the user's cap (and, without one, a safety cap far
 * above what the budget takes on this project's models). EX_SETUP_WORK is the segment
 * set-up's (segments times nodes: each costs a pass over the design) before the cut
 * graph is given up as incomplete: about 20 s here. The programs of one round of the
 * search (exact_dp.c) run at once on cm_optimise_options.threads threads, each with the
 * budget left when the round began, so a round may overrun it; the next round does not
 * start. */
#define EX_SETUP_WORK 500000000LL

/* The share by which a segment's priced floor must exceed its cheap bound to replace it
 * (exact_dp.c, price_row): a smaller rise moves the search's path without telling it
 * anything (EfficientNet-B0's throughput, fpgaConvNet, U250: rises of a fraction of a
 * percent on the interval's bound, 1.16% -> 2.61% at 30 s). */
#define EX_PRICE_RISE 0.01

/* A branching segment's first program (the interval alone) gets the linear relaxation
 * of its program with the first frame when its choice's cost is at least this share
 * above its bound (exact_ilp.c, ex_solve_segment). */
#define EX_RELAX_SHARE 0.05

/* GLPK's presolver and first basis, and its wind-down once its time limit has passed, do
 * not look at the clock (EfficientNet-B0's one partition for FINN on a U250, 7,468 rows:
 * 1.3 s past the deadline with the other core busy; DenseNet-121's, 23,719 rows: 1.7 s),
 * so a program stops this many seconds a row of it before the deadline, and is not
 * begun when that time has passed (exact_ilp.c, program_deadline). */
#define EX_SETUP_S_PER_ROW 1e-4

/* The share of the time left that the linear relaxation of a branching segment's
 * program (exact_ilp.c, frame_relaxation) may take: GLPK needs about a simplex iteration
 * a row, and a row's iteration costs more the more rows there are (DenseNet-121 for
 * FINN on a U250, 23,718 rows: 9,489 iterations in 20 s, not done; EfficientNet-B0's
 * 7,468: 28 s), and a bound that comes at the deadline is of no use to the search. */
#define EX_RELAX_TIME_SHARE 0.25

/* GLPK's feasibility pump runs on a program only when, after its root, it has this many
 * times what the program took up to then (ex_pump_seconds). */
#define EX_PUMP_ROOTS 1.0

/* The seconds GLPK's feasibility pump may run on a program that took took_s up to its
 * root's linear program, left_s before its deadline; 0: it does not run. The pump's
 * linear programs have no time limit and GLPK looks at the clock only between them
 * (EfficientNet-B0's latency for FINN on a ZCU102: 36.2 s at --time-limit 30 with the
 * pump on every program), so its time ends what the program took so far (an estimate of
 * one of its linear programs) before the deadline, and it runs only where that leaves it
 * EX_PUMP_ROOTS times as much. */
double ex_pump_seconds(double took_s, double left_s);

/* Whether the node budget or the deadline has ended the search. */
bool ex_out_of_work(const ex_problem *p);

/* ---- exact_model.c ---- */
/* Resource k of r, in cm_resources order (DSP, BRAM18, URAM, LUT, FF). */
#define EX_RESOURCES 5
int64_t ex_res_kind(const cm_resources *r, int k);
/* qsort's and bsearch's order of doubles, ascending. */
int ex_cmp_double(const void *a, const void *b);
/* Sorts v[0..n) ascending and keeps each value once; returns how many are left. */
int ex_sort_distinct(double *v, int n);
/* Lists every node's configurations for a search that stops at `deadline`; its set-up
 * may run until setup_grace (>= deadline), and listing stops there too, with
 * p->init_stopped (10,000 layers take a few tenths of a second). */
cm_status ex_problem_init(ex_problem *p, cm_design *d, double deadline, double setup_grace,
                          cm_error *err);
void ex_problem_free(ex_problem *p);
/* Whether out-folding a of a node with `flags` may feed in-folding b (the design's
 * edge rule: equal for INTER, dividing for DIVISIBLE). */
bool ex_compatible(unsigned flags, int64_t a, int64_t b);
/* The segment's off-chip bits per sample and shape, read from the design's own
 * partition bookkeeping so that eq. 7 is evaluated exactly as the design does. */
void ex_segment_init(ex_problem *p, int first, int end, ex_segment *s);
/* The least batch * T + D (cycles) of any choice for the segment whose interval T is at
 * least t_min: over each node as the slowest, at each of its configurations no faster
 * than t_min, batch times its cycles plus the least first frame beyond them on the
 * longest path through it of the other nodes' least cm_design_depth_terms. INFINITY
 * when no configuration is that slow. */
double ex_cost_floor(const ex_problem *p, const ex_segment *s, double t_min);
/* The share of a producer's output span after which a node's k-th input word is in, of
 * `words` arriving in bursts of `burst` (first_frame.c's word_at). */
double ex_span_share(double k, double words, double burst);
/* The first frame's floor (cycles) of every segment [first, i + 1), i from first to
 * end - 1, in out[i - first]: the board's resources priced (a Lagrangian of eq. 6) on the
 * first frame's longest path (first_frame.c's recurrence and FINN's late records, each
 * node's least priced term; where a time follows a share of the input's span, a
 * weighted mean of two paths). */
cm_status ex_priced_floors(const ex_problem *p, int first, int end, double *out, cm_error *err);
/* Whether a configuration's cycles satisfy the segment's bandwidth limit on their own
 * (the design's eq. 7 test with this configuration as the slowest node). */
bool ex_bandwidth_ok(const ex_problem *p, const ex_segment *s, double cycles);
/* Whether configuration c of node n stays in the segment's integer program. */
bool ex_config_kept(const ex_problem *p, const ex_segment *s, int n, int c);
/* The least interval (cycles) at which, for every resource on its own, the segment's
 * cheapest configurations no slower than it fit the board; keep (flattened over the
 * segment's configurations, or NULL for all) limits the choice. INFINITY when no
 * interval does. */
double ex_time_floor(const ex_problem *p, const ex_segment *s, const uint8_t *keep);

/* ---- exact_ilp.c ---- */
/* Solves min batch*T + D over the segment's foldings (without D, a lower bound, unless
 * `frame`: sol->loose says which). allowed is NULL or one flag per
 * configuration of each node of the segment (node first's configurations first);
 * fills sol (lb = ub on an optimum, lb = ub = INFINITY when infeasible, lb < ub when
 * the deadline stopped the search). Answers of cutoff_s seconds or more are of no
 * use to the caller: when none is better, sol->cut_off is set and lb = cutoff_s.
 * sol->choice must hold end - first entries. `again`: sol holds an earlier answer of
 * the same program set (same allowed; solve_into in exact_dp.c), whose search of the
 * interval's levels (sol->t_lb, sol->choice) is taken up where it ended. */
cm_status ex_solve_segment(ex_problem *p, const ex_segment *s, const uint8_t *allowed,
                           bool frame, bool again, double cutoff_s, ex_sol *sol,
                           cm_error *err);
/* The segment's time in seconds at the chosen configurations, evaluated by the
 * design itself (which is left with those foldings and a partition [first, end));
 * INFINITY when the design finds the partition infeasible. */
double ex_evaluate_choice(ex_problem *p, const ex_segment *s, const int *choice);

/* ---- exact_dp.c ---- */
typedef struct ex_result {
    double lb, ub;           /* seconds, whole network */
    int n_parts;
    int *first;              /* first node of each partition of the best design */
    int *choice;             /* configuration index per node */
    bool timed_out;
    bool no_bound;           /* stopped before the search had a valid bound */
    char why[160];           /* why the gap is open, when it is */
} ex_result;

cm_status ex_search(ex_problem *p, ex_result *res, cm_error *err);
void ex_result_free(ex_result *res);

#endif
