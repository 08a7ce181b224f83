/* Internal pieces of the nn2FPGA backend: memory-bank mapping, the residual-block
 * analysis behind temporal reuse and loop merge, the per-layer design space and the
 * GLPK programs of the two phases. */
#ifndef CM_NN2FPGA_INTERNAL_H
#define CM_NN2FPGA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/nn2fpga.h>

/* Memories smaller than this are left to LUTs and registers, as Vitis HLS does for
 * small arrays and shallow FIFOs; they cost no BRAM bank. */
#define N2_LUT_MEMORY_BITS 1024

/* BRAM18 banks for a memory of `width` bits x `depth` words: the best of the six
 * BRAM18 aspect ratios (16K x 1 ... 512 x 36); 0 when it fits in LUTs. */
int64_t n2_bram18_banks(int64_t width, int64_t depth);

/* URAM288 banks (4K x 72) for the same memory; 0 when it fits in LUTs. */
int64_t n2_uram_banks(int64_t width, int64_t depth);

/* A residual add whose two branches meet at a fork: the main branch's windowed layers
 * and the short branch's convolution (downsampling), if any. */
typedef struct n2_block {
    int add;
    int first_main;   /* first layer of the main branch after the fork, or -1 */
    int ds_conv;      /* the short branch's single convolution, or -1 (identity skip) */
    bool mergeable;   /* ds_conv and first_main are convolutions of the same tensor */
    int64_t lag_first, lag_rest, lag_short; /* in pixels of the skip tensor */
} n2_block;

/* Finds the residual blocks of g (one per two-input add); *out is malloc'd. */
cm_status n2_find_blocks(const cm_graph *g, n2_block **out, int *n, cm_error *err);

/* One point of a layer's design space. */
typedef struct n2_config {
    int ow_par, och_par, ich_par;
    bool uram;
    int64_t lc, lw, dsp, bram, uram_banks;
} n2_config;

static inline int64_t n2_config_latency(const n2_config *c)
{
    return c->lc > c->lw ? c->lc : c->lw;
}

/* The configurations of every layer, those of layer t at cfg[first[t]..first[t+1]). */
typedef struct n2_space {
    int n_layers;
    int *first;
    int *enumerated_in; /* per layer, before pruning */
    n2_config *cfg;
    int n_cfg;
    int enumerated;
    int64_t period_floor; /* the ports' cycles a frame (cm_nn2fpga_result.port_cycles) */
} n2_space;

/* What the board offers the layers (skip buffers already taken out of BRAM). */
typedef struct n2_budget {
    int64_t dsp, bram, uram;
    int64_t bram_skip; /* the skip buffers' BRAM18, which bram already leaves out */
} n2_budget;

/* CM_EINFEASIBLE naming the resource (0 DSP, 1 BRAM18, 2 URAM) that `need` of the
 * layers exceeds, with the board's own figure and, for BRAM18, what the skip buffers
 * take of it. */
cm_status n2_short_of(const cm_board *board, const n2_budget *b, int which, int64_t need,
                      cm_error *err);

/* Enumerates the divisor triples of every layer that fit the budget on their own and,
 * when `prune`, drops the dominated ones. Fails with CM_EINFEASIBLE naming the layer and resource
 * when a layer has no configuration at all. */
cm_status n2_space_build(const cm_nn2fpga_result *r, const cm_board *board, const n2_budget *b,
                         bool prune, n2_space *sp, cm_error *err);
void n2_space_free(n2_space *sp);

/* Fails with CM_EINFEASIBLE naming the resource that the cheapest configuration of
 * every layer already exceeds. */
cm_status n2_space_check_minimum(const n2_space *sp, const n2_budget *b, const cm_board *board,
                                 cm_error *err);

/* The phases. choice[t] is an index into sp->cfg. */
typedef struct n2_solve_options {
    double deadline; /* n2_now() at which every program stops (GLPK's tm_lim is the time
                      * left, the search is stopped there); the solver is not called after */
    int *nodes_left; /* NULL: each program may make N2_NODE_BUDGET branch-and-bound nodes;
                      * else the nodes its programs may still make together (n2_bip.c) */
    const int *hint; /* a choice known to meet the period and budgets (phase 1's), or NULL:
                      * phase 2 searches only what costs no more than it */
} n2_solve_options;

/* Phase 1 as one program, S a variable (the exact optimiser). *found is false (and CM_OK
 * returned, ph->stopped_early set) when the deadline came before any design. */
cm_status n2_phase1(const n2_space *sp, const n2_budget *b, const n2_solve_options *o,
                    int *choice, bool *found, cm_nn2fpga_phase *ph, cm_error *err);
/* The program with every layer's latency at most `period`, minimising the normalised
 * resources when `minimise` (phase 2), else any feasible choice. *feasible is false
 * (and CM_OK returned) when no design meets the period. */
cm_status n2_phase2(const n2_space *sp, const n2_budget *b, const n2_solve_options *o,
                    int64_t period, bool minimise, int *choice, bool *feasible,
                    cm_nn2fpga_phase *ph, cm_error *err);
/* Phase 1 of the bip optimiser: the smallest candidate period whose program is
 * feasible, by bisection; ph1 records the probes and ph1->objective the period. At the
 * deadline it stops with the best period found (*found false when none). */
cm_status n2_bisect(const n2_space *sp, const n2_budget *b, const n2_solve_options *o,
                    int *choice, bool *found, cm_nn2fpga_phase *ph1, cm_error *err);

/* A bisection probe settled without a program: N2_INFEASIBLE when the layers' least
 * use of some resource within `period` already overruns the budget, N2_FEASIBLE (with
 * choice[t] set for every layer) when a Lagrangian choice of configurations fits,
 * N2_UNKNOWN when neither (n2_quick.c). */
typedef enum n2_verdict { N2_UNKNOWN, N2_FEASIBLE, N2_INFEASIBLE } n2_verdict;
n2_verdict n2_quick_verdict(const n2_space *sp, const n2_budget *b, int64_t period, int *choice);

/* The bounds that decide "no feasible design" before any configuration is enumerated:
 * the skip buffers' BRAM18 alone, and every layer at unroll factor 1 (each layer's
 * fewest DSPs) summed. CM_EINFEASIBLE naming the resource. */
cm_status n2_check_bounds(const cm_nn2fpga_result *r, const cm_board *board, const n2_budget *b,
                          cm_error *err);

/* The figures that follow from the layers' configurations, for a fresh optimisation
 * and a design file alike: the totals (layers plus skip buffers), the period S, the
 * latency of `batch` frames (saturating) and the steady-state fps. r->clock_mhz must
 * be set. */
void n2_totals(cm_nn2fpga_result *r, int batch);

double n2_now(void);

#endif
