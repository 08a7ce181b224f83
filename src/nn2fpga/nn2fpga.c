/* cm_nn2fpga_optimise: builds G, refuses by bounds what even the minimal design cannot
 * fit, enumerates the design space, runs the chosen optimiser (two-phase BIP, exact
 * bisection or the resource-minimal design) within the time limit and applies the
 * chosen configurations, checking that phase 2 kept the period. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nn2fpga/n2_internal.h"

const char *cm_nn2fpga_solver_name(cm_nn2fpga_solver s)
{
    static const char *const names[] = {"bip", "exact", "none"};
    return (unsigned)s < 3 ? names[s] : "?";
}

static cm_status apply_choice(cm_nn2fpga_result *r, const n2_space *sp, const int *choice,
                              cm_error *err)
{
    for (int t = 0; t < r->n_layers; t++) {
        const n2_config *c = &sp->cfg[choice[t]];
        cm_status st = cm_nn2fpga_configure(&r->layers[t], c->ow_par, c->och_par, c->ich_par,
                                            c->uram, err);
        if (st != CM_OK)
            return st;
        r->layers[t].configs_enumerated = sp->enumerated_in[t];
        r->layers[t].configs_kept = sp->first[t + 1] - sp->first[t];
    }
    return CM_OK;
}

/* First-frame latency as the generated hardware has it (cycle-level simulation,
 * tests/test_sim_nn2fpga.c, within 10 % on the shared models). Layer i's input stream
 * starts at F_(i-1) and ends at E_(i-1) (the input port: 0 and ih * iw, a pixel a cycle),
 * arriving evenly at the rate of the slowest stage before it. Its window buffer writes the
 * first window once the rows and columns it needs below and right of the output have
 * arrived, w_i = ((fh - 1 - pad) * iw + fw - pad) * ich of A_i = ich * ih * iw activations
 * (eq. 3.5's B_i less the padding, which is never read); its computation takes
 * g_i = lc / (oh * ow / ow_par) cycles per output pixel group. After its last input it
 * still computes the t_i pixel groups whose windows need no more (the output rows below
 * the last input row's reach, at least one group). So
 *   F_i = F_(i-1) + ceil(w_i * (E_(i-1) - F_(i-1)) / A_i) + g_i
 *   E_i = max(E_(i-1) + t_i * g_i, F_i + max(lc_i, lw_i))
 * (done after its last input and tail, or one frame time after its first output,
 * whichever is later) and latency = E_last + (batch - 1) * S. Padding is taken as "same"
 * ((fh - 1) / 2) when the output is ceil(ih / stride) rows, else none. */
static int64_t stride_of(const cm_nn2fpga_layer *l)
{
    return l->oh > 0 && l->ih / l->oh > 1 ? l->ih / l->oh : 1;
}

static int64_t pad_of(const cm_nn2fpga_layer *l)
{
    return l->fh > 1 && l->oh * stride_of(l) >= l->ih ? (l->fh - 1) / 2 : 0;
}

static int64_t fill_activations(const cm_nn2fpga_layer *l)
{
    if (l->window_activations <= 0 || l->oh < 1)
        return 0;
    return ((l->fh - 1 - pad_of(l)) * l->iw + l->fw - pad_of(l)) * l->ich;
}

/* Output pixel groups computed after the last input arrives: the rows oy whose window
 * reaches the last input row (oy * s + fh - 1 - pad >= ih - 1). */
static int64_t tail_groups(const cm_nn2fpga_layer *l, int64_t per_row)
{
    int64_t s = stride_of(l), first = (l->ih - l->fh + pad_of(l) + s - 1) / s;
    int64_t rows = l->window_activations > 0 && first < l->oh ? l->oh - (first > 0 ? first : 0) : 0;
    return rows * per_row > 1 ? rows * per_row : 1;
}

static int64_t first_frame_latency(const cm_nn2fpga_result *r)
{
    int64_t first = 0, last = r->n_layers > 0 ? r->layers[0].ih * r->layers[0].iw : 0;
    for (int t = 0; t < r->n_layers; t++) {
        const cm_nn2fpga_layer *l = &r->layers[t];
        int64_t per_row = l->ow / (l->ow_par > 0 ? l->ow_par : 1), groups = l->oh * per_row;
        int64_t a = l->ich * l->ih * l->iw;
        int64_t g = groups > 0 ? (l->lc + groups - 1) / groups : 0;
        int64_t fill = a > 0 ? (fill_activations(l) * (last - first) + a - 1) / a : 0;
        int64_t frame = l->lc > l->lw ? l->lc : l->lw, tail = tail_groups(l, per_row) * g;
        first += fill + g;
        last = last + tail > first + frame ? last + tail : first + frame;
    }
    return last;
}

void n2_totals(cm_nn2fpga_result *r, int batch)
{
    r->dsp = r->uram = 0;
    r->bram18 = r->bram_skip;
    r->period = 0;
    for (int t = 0; t < r->n_layers; t++) {
        const cm_nn2fpga_layer *l = &r->layers[t];
        r->dsp += l->dsp;
        r->bram18 += l->bram_weights + l->bram_window;
        r->uram += l->uram_weights;
        int64_t lat = l->lc > l->lw ? l->lc : l->lw;
        if (lat > r->period)
            r->period = lat;
    }
    if (r->port_cycles > r->period)
        r->period = r->port_cycles;
    int64_t first = first_frame_latency(r);
    r->batch = batch > 0 ? batch : 1;
    /* Saturates rather than wraps: a design file may ask for any batch in range. */
    int64_t frames;
    if (__builtin_mul_overflow((int64_t)r->batch - 1, r->period, &frames) ||
        __builtin_add_overflow(frames, first, &r->latency_cycles))
        r->latency_cycles = INT64_MAX;
    r->fps = r->clock_mhz * 1e6 / (double)r->period;
}

static void phase1_resources(cm_nn2fpga_result *r, const n2_space *sp, const int *choice)
{
    r->dsp_phase1 = 0;
    r->bram_phase1 = r->bram_skip;
    r->uram_phase1 = 0;
    for (int t = 0; t < r->n_layers; t++) {
        r->dsp_phase1 += sp->cfg[choice[t]].dsp;
        r->bram_phase1 += sp->cfg[choice[t]].bram;
        r->uram_phase1 += sp->cfg[choice[t]].uram_banks;
    }
}

/* Phase 1 ends at this share of the time limit, so that phase 2 has time to lower the
 * resources at the period found. */
#define N2_PHASE1_SHARE 0.8

static int64_t period_of(const n2_space *sp, const int *choice)
{
    int64_t s = 0;
    for (int t = 0; t < sp->n_layers; t++)
        if (n2_config_latency(&sp->cfg[choice[t]]) > s)
            s = n2_config_latency(&sp->cfg[choice[t]]);
    return s;
}

static double normalised(const n2_config *c, const n2_budget *b)
{
    return (double)c->dsp / (double)(b->dsp > 0 ? b->dsp : 1) +
           (double)c->bram / (double)(b->bram > 0 ? b->bram : 1) +
           (double)c->uram_banks / (double)(b->uram > 0 ? b->uram : 1);
}

static double choice_cost(const n2_space *sp, const n2_budget *b, const int *choice)
{
    double v = 0.0;
    for (int t = 0; t < sp->n_layers; t++)
        v += normalised(&sp->cfg[choice[t]], b);
    return v;
}

/* When the time limit ends phase 1 before any program found a design: every layer at
 * its cheapest configuration (phase 2's weights), if together they fit. */
static cm_status cheapest_choice(const n2_space *sp, const n2_budget *b, double limit_s,
                                 int *choice, cm_error *err)
{
    int64_t use[3] = {0, 0, 0};
    for (int t = 0; t < sp->n_layers; t++) {
        choice[t] = sp->first[t];
        for (int k = sp->first[t] + 1; k < sp->first[t + 1]; k++)
            if (normalised(&sp->cfg[k], b) < normalised(&sp->cfg[choice[t]], b))
                choice[t] = k;
        use[0] += sp->cfg[choice[t]].dsp;
        use[1] += sp->cfg[choice[t]].bram;
        use[2] += sp->cfg[choice[t]].uram_banks;
    }
    if (use[0] <= b->dsp && use[1] <= b->bram && use[2] <= b->uram)
        return CM_OK;
    return cm_error_set(err, CM_EINFEASIBLE, "no design found: the time limit (%g s) or the "
                        "node budget ended the search before any feasible design was found "
                        "(infeasibility is not proven)", limit_s);
}

/* bip: phase 1 by bisection over full-space programs; exact: phase 1 as the single
 * program over the pruned space. Phase 2 is the same program for both; a phase-2
 * program the deadline stopped keeps phase 1's design unless it found a cheaper one. */
static cm_status run_solver(cm_nn2fpga_result *r, const n2_space *sp, const n2_budget *b,
                            const cm_nn2fpga_options *o, double t0, int *choice, cm_error *err)
{
    double limit = o->time_limit_s > 0 ? o->time_limit_s : CM_NN2FPGA_DEFAULT_TIME_LIMIT_S;
    n2_solve_options so = {.deadline = t0 + N2_PHASE1_SHARE * limit};
    bool found = false;
    cm_status st = o->solver == CM_NN2FPGA_EXACT
                       ? n2_phase1(sp, b, &so, choice, &found, &r->phases[0], err)
                       : n2_bisect(sp, b, &so, choice, &found, &r->phases[0], err);
    if (st == CM_OK && !found)
        st = cheapest_choice(sp, b, limit, choice, err);
    if (st != CM_OK)
        return st;
    /* phase 2 may slow the layers down to the ports' pace: it costs no frame rate */
    r->period_phase1 = period_of(sp, choice);
    if (r->period_phase1 < sp->period_floor)
        r->period_phase1 = sp->period_floor;
    r->phases[0].objective = (double)r->period_phase1;
    phase1_resources(r, sp, choice);
    int *again = malloc(((size_t)sp->n_layers + 1) * sizeof *again);
    if (!again)
        return cm_error_nomem(err);
    bool feasible = false;
    so.deadline = t0 + limit;
    so.hint = choice;
    st = n2_phase2(sp, b, &so, r->period_phase1, true, again, &feasible, &r->phases[1], err);
    if (st == CM_OK && feasible && choice_cost(sp, b, again) <= choice_cost(sp, b, choice))
        memcpy(choice, again, (size_t)sp->n_layers * sizeof *choice);
    else if (st == CM_OK && !feasible && !r->phases[1].stopped_early)
        st = cm_error_set(err, CM_EINTERNAL, "phase 2 found no design at the phase-1 period");
    free(again);
    return st;
}

static cm_status solve_space(cm_nn2fpga_result *r, const n2_space *sp, const n2_budget *b,
                             const cm_nn2fpga_options *o, double t0, cm_error *err)
{
    int *choice = calloc((size_t)r->n_layers + 1, sizeof *choice);
    if (!choice)
        return cm_error_nomem(err);
    cm_status st = run_solver(r, sp, b, o, t0, choice, err);
    if (st == CM_OK)
        st = apply_choice(r, sp, choice, err);
    free(choice);
    return st;
}

static cm_status optimise_space(cm_nn2fpga_result *r, const cm_board *board, const n2_budget *b,
                                const cm_nn2fpga_options *o, double t0, cm_error *err)
{
    n2_space sp;
    cm_status st = n2_space_build(r, board, b, o->solver == CM_NN2FPGA_EXACT, &sp, err);
    if (st != CM_OK)
        return st;
    r->variables_enumerated = sp.enumerated;
    /* the per-layer least of each resource, summed: still no program solved */
    st = n2_space_check_minimum(&sp, b, board, err);
    if (st == CM_OK)
        st = solve_space(r, &sp, b, o, t0, err);
    n2_space_free(&sp);
    return st;
}

cm_status n2_check_bounds(const cm_nn2fpga_result *r, const cm_board *board, const n2_budget *b,
                          cm_error *err)
{
    if (b->bram < 0)
        return cm_error_set(err, CM_EINFEASIBLE, "no feasible design: the skip buffers alone "
                            "need %lld BRAM18; %s has %lld BRAM18", (long long)b->bram_skip,
                            board->name, (long long)board->resources.bram18);
    int64_t dsp = 0;
    for (int t = 0; t < r->n_layers; t++)
        dsp += r->layers[t].dsp; /* G is built at unroll factors 1, each layer's fewest DSPs */
    return dsp > b->dsp ? n2_short_of(board, b, 0, dsp, err) : CM_OK;
}

/* The optimiser none: the design at unroll factors 1 as built, if it fits. */
static cm_status check_minimal_fits(const cm_nn2fpga_result *r, const cm_board *board,
                                    const n2_budget *b, cm_error *err)
{
    int64_t bram = 0, uram = 0;
    for (int t = 0; t < r->n_layers; t++) {
        bram += r->layers[t].bram_weights + r->layers[t].bram_window;
        uram += r->layers[t].uram_weights;
    }
    if (bram > b->bram)
        return n2_short_of(board, b, 1, bram, err);
    return uram > b->uram ? n2_short_of(board, b, 2, uram, err) : CM_OK;
}

cm_status cm_nn2fpga_optimise(const cm_graph *g, const cm_board *board, const cm_nn2fpga_options *o,
                              cm_nn2fpga_result *out, cm_error *err)
{
    double t0 = n2_now();
    cm_status st = cm_nn2fpga_build(g, o, out, err);
    if (st != CM_OK)
        return st;
    out->clock_mhz = o->clock_mhz > 0 ? o->clock_mhz : board->clock_mhz;
    n2_budget b = {board->resources.dsp, board->resources.bram18 - out->bram_skip,
                   board->resources.uram, out->bram_skip};
    if (out->n_layers == 0)
        st = cm_error_set(err, CM_EINPUT, "the model has no convolution, fully connected or "
                                          "pooling layer for the nn2fpga backend");
    else
        st = n2_check_bounds(out, board, &b, err);
    if (st == CM_OK && o->solver == CM_NN2FPGA_NONE)
        st = check_minimal_fits(out, board, &b, err);
    else if (st == CM_OK)
        st = optimise_space(out, board, &b, o, t0, err);
    if (st == CM_OK) {
        n2_totals(out, o->batch);
        out->stopped_early = out->phases[0].stopped_early || out->phases[1].stopped_early;
        out->optimal = o->solver != CM_NN2FPGA_NONE && out->phases[0].optimal &&
                       out->phases[1].optimal && !out->stopped_early;
        if (o->solver == CM_NN2FPGA_NONE)
            out->period_phase1 = out->period;
        if (o->solver != CM_NN2FPGA_NONE && out->period > out->period_phase1)
            st = cm_error_set(err, CM_EINTERNAL, "phase 2 raised the period from %lld to %lld",
                              (long long)out->period_phase1, (long long)out->period);
    }
    out->time_s = n2_now() - t0;
    if (st != CM_OK)
        cm_nn2fpga_result_free(out);
    return st;
}
