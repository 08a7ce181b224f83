/* cm_overlay_map: sizes the array (Algorithm 1), builds the cost graph (section 5.1),
 * solves the algorithm mapping (eq. 8, section 4) and evaluates the single-algorithm
 * and greedy baselines on the same array. */
#include <cnnmap/overlay.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/costgraph.h"
#include "overlay/ov_result.h"
#include "overlay/ov_util.h"
#include "overlay/pbqp.h"
#include "overlay/sizing.h"
#include "util/progress.h"

static const char *const algorithm_names[CM_OVERLAY_ALGORITHM_COUNT] = {
    "im2col", "kn2row", "winograd", "pool", "eltwise"};

const char *cm_overlay_algorithm_name(cm_overlay_algorithm a)
{
    return (unsigned)a < CM_OVERLAY_ALGORITHM_COUNT ? algorithm_names[a] : "?";
}

const char *cm_overlay_dataflow_name(cm_overlay_dataflow d)
{
    static const char *const names[] = {"NS", "WS", "IS"};
    return (unsigned)d < 3 ? names[d] : NULL;
}

const char *cm_overlay_vertex_name(cm_overlay_vertex v)
{
    static const char *const names[] = {"input", "store", "concat"};
    return (unsigned)v < 3 ? names[v] : "?";
}

const char *cm_overlay_layout_name(cm_overlay_layout l)
{
    static const char *const names[] = {"tensor", "toeplitz", "winograd"};
    return (unsigned)l < 3 ? names[l] : "?";
}

void cm_overlay_options_default(cm_overlay_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->dsp_limit = -1;
    opt->algorithms = CM_OVERLAY_ALL_ALGORITHMS;
    opt->wino_m = 2;
    opt->wino_r = 3;
    opt->time_limit_s = CM_OVERLAY_DEFAULT_TIME_LIMIT_S;
}

static int algorithm_by_name(const char *name, size_t len)
{
    for (int a = 0; a < CM_OVERLAY_CONV_ALGORITHMS; a++)
        if (strlen(algorithm_names[a]) == len && strncmp(algorithm_names[a], name, len) == 0)
            return a;
    return -1;
}

cm_status cm_overlay_parse_algorithms(const char *list, unsigned *mask, cm_error *err)
{
    *mask = 0;
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ",");
        int a = algorithm_by_name(p, len);
        if (a < 0)
            return cm_error_set(err, CM_EUSAGE,
                                "unknown algorithm '%.*s' (choose from im2col, kn2row, winograd)",
                                (int)(len > 64 ? 64 : len), p);
        *mask |= 1u << a;
        if (p[len] == '\0')
            return CM_OK;
        p += len + 1;
    }
}

/* ---- options and the array ---- */

cm_status cm_ov_array_setup(const cm_overlay_options *opt, const cm_board *b, int64_t *limit,
                            cm_ov_array *arr, cm_error *err)
{
    if (opt->algorithms == 0 || (opt->algorithms & ~CM_OVERLAY_ALL_ALGORITHMS))
        return cm_error_set(err, CM_EUSAGE, "no convolution algorithm allowed");
    if (opt->wino_m < 1 || opt->wino_r < 1)
        return cm_error_set(err, CM_EUSAGE, "Winograd F(%d, %d) is not a valid transform",
                            opt->wino_m, opt->wino_r);
    if ((opt->array[0] > 0) != (opt->array[1] > 0) || opt->array[0] < 0 || opt->array[1] < 0)
        return cm_error_set(err, CM_EUSAGE, "an array shape needs two positive sides");
    if (!(opt->time_limit_s >= 0) || !isfinite(opt->time_limit_s))
        return cm_error_set(err, CM_EUSAGE, "the time limit must be a positive number of seconds");
    *limit = opt->dsp_limit < 0 ? b->resources.dsp : opt->dsp_limit;
    if (*limit > b->resources.dsp)
        return cm_error_set(err, CM_EINFEASIBLE, "DSP: a limit of %lld DSPs exceeds the %lld of %s",
                            (long long)*limit, (long long)b->resources.dsp, b->name);
    memset(arr, 0, sizeof *arr);
    arr->freq_hz = b->clock_mhz * 1e6;
    arr->bw_bytes_s = b->bandwidth_gbps * 1e9;
    arr->burst_bytes = CM_OV_BURST_BYTES;
    arr->wino_m = opt->wino_m;
    arr->wino_r = opt->wino_r;
    arr->bram18 = b->resources.bram18;
    arr->uram = b->resources.uram;
    if (!(arr->freq_hz > 0) || !(arr->bw_bytes_s > 0))
        return cm_error_set(err, CM_EINPUT, "%s: the board needs a clock and a bandwidth", b->name);
    return CM_OK;
}

cm_status cm_ov_fixed_array(const cm_overlay_options *opt, const cm_board *b, int64_t limit,
                            cm_ov_array *arr, cm_error *err)
{
    int64_t pes = (int64_t)opt->array[0] * opt->array[1];
    if (pes > limit)
        return cm_error_set(err, CM_EINFEASIBLE, "DSP: a %dx%d array needs %lld DSPs, the limit is %lld",
                            opt->array[0], opt->array[1], (long long)pes, (long long)limit);
    int64_t bram = cm_ov_buffer_bram18(opt->array[0], opt->array[1]);
    if (bram > b->resources.bram18)
        return cm_error_set(err, CM_EINFEASIBLE, "BRAM: a %dx%d array's buffers need %lld BRAM18, %s has %lld",
                            opt->array[0], opt->array[1], (long long)bram, b->name,
                            (long long)b->resources.bram18);
    arr->p1 = opt->array[0];
    arr->p2 = opt->array[1];
    return CM_OK;
}

static cm_status choose_array(const cm_graph *g, const cm_board *b, const cm_overlay_options *opt,
                              double deadline, cm_ov_array *arr, bool *stopped, cm_error *err)
{
    int64_t limit = 0;
    cm_status st = cm_ov_array_setup(opt, b, &limit, arr, err);
    if (st != CM_OK)
        return st;
    if (opt->array[0] > 0)
        return cm_ov_fixed_array(opt, b, limit, arr, err);
    return cm_ov_size_array(g, arr, opt->algorithms, limit, b->resources.bram18, deadline,
                            opt->sizing_work, stopped, err);
}

/* ---- mappings ---- */

typedef enum forcing { FORCE_NONE, FORCE_IM2COL, FORCE_KN2ROW, FORCE_WINOGRAD, FORCE_GREEDY } forcing;

static int find_option(const cm_ov_node *n, cm_overlay_algorithm a)
{
    for (int x = 0; x < n->n_options; x++)
        if (n->choices[x].algorithm == a)
            return x;
    return -1;
}

static int fastest_option(const cm_ov_node *n)
{
    int best = 0;
    for (int x = 1; x < n->n_options; x++)
        if (n->choices[x].cycles < n->choices[best].cycles)
            best = x;
    return best;
}

/* The option a baseline gives a vertex: its algorithm where it applies, im2col
 * elsewhere; greedy takes the fewest compute cycles. -1 leaves it free. */
static int forced_option(const cm_ov_node *n, forcing f)
{
    if (n->is_format || f == FORCE_NONE)
        return -1;
    if (f == FORCE_GREEDY)
        return fastest_option(n);
    int x = find_option(n, (cm_overlay_algorithm)(f - FORCE_IM2COL));
    return x >= 0 ? x : find_option(n, CM_OVERLAY_IM2COL);
}

static bool baseline_possible(unsigned algorithms, forcing f)
{
    if (f == FORCE_GREEDY)
        return true;
    unsigned need = 1u << (f - FORCE_IM2COL);
    if (f == FORCE_WINOGRAD)
        need |= 1u << CM_OVERLAY_IM2COL;
    return (algorithms & need) == need;
}

static cm_status solve_forced(const cm_ov_costgraph *cg, const cm_pbqp *p, forcing f, int *choice,
                              cm_pbqp_solution *sol, cm_error *err)
{
    int *fixed = cm_ov_calloc(cg->n_nodes, sizeof *fixed);
    if (!fixed)
        return cm_error_nomem(err);
    for (int n = 0; n < cg->n_nodes; n++)
        fixed[n] = forced_option(&cg->nodes[n], f);
    cm_status st = cm_pbqp_solve(p, fixed, choice, sol, err);
    free(fixed);
    return st;
}

/* The baselines, and when the mapping is heuristic, the best of it and them: so the
 * result is never worse than greedy or a single algorithm. */
static cm_status run_baselines(const cm_ov_costgraph *cg, const cm_pbqp *p, unsigned algorithms,
                               int *choice, cm_pbqp_solution *best, cm_overlay_result *r,
                               cm_error *err)
{
    int *alt = cm_ov_calloc(cg->n_nodes, sizeof *alt);
    if (!alt)
        return cm_error_nomem(err);
    cm_status st = CM_OK;
    for (forcing f = FORCE_IM2COL; st == CM_OK && f <= FORCE_GREEDY; f++) {
        if (!baseline_possible(algorithms, f))
            continue;
        cm_pbqp_solution sol;
        st = solve_forced(cg, p, f, alt, &sol, err);
        if (st != CM_OK)
            break;
        cm_overlay_baseline *b = f == FORCE_GREEDY ? &r->greedy : &r->baselines[f - FORCE_IM2COL];
        b->present = true;
        b->latency_s = sol.cost;
        if (!best->optimal && sol.cost < best->cost) {
            best->cost = sol.cost;
            memcpy(choice, alt, (size_t)cg->n_nodes * sizeof *choice);
        }
    }
    free(alt);
    return st;
}

/* ---- the result ---- */

static void explain_heuristic(const cm_ov_costgraph *cg, const cm_pbqp_solution *sol,
                              cm_overlay_result *r)
{
    char name[200];
    cm_ov_node_name(cg, sol->heuristic_vertex, name, sizeof name);
    snprintf(r->not_optimal_reason, sizeof r->not_optimal_reason,
             "the cost graph is not series-parallel: the series and parallel reductions stop "
             "with every vertex left joined to 3 or more others; %d of %d vertices, first %.80s, "
             "were fixed by the PBQP RN heuristic",
             sol->heuristic_steps, cg->n_nodes, name);
}

static cm_status solve_all(const cm_ov_costgraph *cg, const cm_pbqp *p, unsigned algorithms,
                           cm_overlay_result *r, cm_error *err)
{
    int *choice = cm_ov_calloc(cg->n_nodes, sizeof *choice);
    if (!choice)
        return cm_error_nomem(err);
    cm_pbqp_solution sol;
    cm_status st = cm_pbqp_solve(p, NULL, choice, &sol, err);
    if (st == CM_OK) {
        r->optimal = sol.optimal;
        if (!sol.optimal)
            explain_heuristic(cg, &sol, r);
        st = run_baselines(cg, p, algorithms, choice, &sol, r, err);
    }
    if (st == CM_OK && !isfinite(sol.cost))
        st = cm_error_set(err, CM_EINTERNAL, "no mapping of finite latency");
    if (st == CM_OK) /* the latency summed again, in the order cm_overlay_cost sums it */
        st = cm_ov_fill_result(cg, choice, r, err);
    free(choice);
    return st;
}

static cm_status map_on_array(const cm_graph *g, const cm_ov_array *arr, unsigned algorithms,
                              cm_overlay_result *r, cm_error *err)
{
    cm_ov_costgraph *cg = NULL;
    cm_pbqp *p = NULL;
    cm_status st = cm_ov_costgraph_build(g, arr, algorithms, &cg, err);
    if (st == CM_OK)
        st = cm_ov_costgraph_pbqp(cg, &p, err);
    if (st == CM_OK)
        st = solve_all(cg, p, algorithms, r, err);
    cm_pbqp_free(p);
    cm_ov_costgraph_free(cg);
    return st;
}

cm_status cm_overlay_map(const cm_graph *g, const cm_board *board, const cm_overlay_options *opt,
                         cm_overlay_result **out, cm_error *err)
{
    cm_overlay_options defaults;
    if (!opt) {
        cm_overlay_options_default(&defaults);
        opt = &defaults;
    }
    cm_ov_array arr;
    bool stopped = false;
    double limit = opt->time_limit_s > 0 ? opt->time_limit_s : CM_OVERLAY_DEFAULT_TIME_LIMIT_S;
    cm_status st = choose_array(g, board, opt, cm_seconds_now() + limit, &arr, &stopped, err);
    if (st != CM_OK)
        return st;
    cm_overlay_result *r = cm_ov_result_new(&arr, board);
    if (!r)
        return cm_error_nomem(err);
    r->time_limit_s = limit;
    r->stopped_early = stopped;
    st = map_on_array(g, &arr, opt->algorithms, r, err);
    if (st != CM_OK) {
        cm_overlay_result_free(r);
        return st;
    }
    *out = r;
    return CM_OK;
}

void cm_overlay_result_free(cm_overlay_result *r)
{
    if (!r)
        return;
    free(r->layers);
    free(r->formats);
    free(r);
}
