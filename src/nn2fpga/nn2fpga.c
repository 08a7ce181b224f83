/* cm_nn2fpga_optimise: builds G, enumerates the design space, runs the chosen
 * optimiser (two-phase BIP, exact bisection or the resource-minimal design) and
 * applies the chosen configurations, checking that phase 2 kept the period. */
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

void n2_totals(cm_nn2fpga_result *r, int batch)
{
    r->dsp = r->uram = 0;
    r->bram18 = r->bram_skip;
    r->period = 0;
    int64_t fill = 0;
    for (int t = 0; t < r->n_layers; t++) {
        const cm_nn2fpga_layer *l = &r->layers[t];
        r->dsp += l->dsp;
        r->bram18 += l->bram_weights + l->bram_window;
        r->uram += l->uram_weights;
        int64_t lat = l->lc > l->lw ? l->lc : l->lw;
        if (lat > r->period)
            r->period = lat;
        /* Cycles before the layer's first window is complete: the pipeline fill. */
        fill += (l->window_activations + l->ich_par * l->ow_par - 1) / (l->ich_par * l->ow_par);
    }
    r->batch = batch > 0 ? batch : 1;
    /* Saturates rather than wraps: a design file may ask for any batch in range. */
    int64_t frames;
    if (__builtin_mul_overflow((int64_t)r->batch, r->period, &frames) ||
        __builtin_add_overflow(frames, fill, &r->latency_cycles))
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

/* bip: phase 1 by bisection over full-space programs; exact: phase 1 as the single
 * program over the pruned space. Phase 2 is the same program for both. */
static cm_status run_solver(cm_nn2fpga_result *r, const n2_space *sp, const n2_budget *b,
                            const cm_nn2fpga_options *o, int *choice, cm_error *err)
{
    n2_solve_options so = {.time_limit_s = o->time_limit_s};
    cm_status st = o->solver == CM_NN2FPGA_EXACT
                       ? n2_phase1(sp, b, &so, choice, &r->phases[0], err)
                       : n2_bisect(sp, b, &so, choice, &r->phases[0], err);
    if (st != CM_OK)
        return st;
    r->period_phase1 = (int64_t)(r->phases[0].objective + 0.5);
    phase1_resources(r, sp, choice);
    bool feasible = false;
    st = n2_phase2(sp, b, &so, r->period_phase1, true, choice, &feasible, &r->phases[1], err);
    if (st == CM_OK && !feasible)
        st = cm_error_set(err, CM_EINTERNAL, "phase 2 found no design at the phase-1 period");
    return st;
}

static cm_status solve_space(cm_nn2fpga_result *r, const n2_space *sp, const n2_budget *b,
                             const cm_nn2fpga_options *o, cm_error *err)
{
    int *choice = calloc((size_t)r->n_layers + 1, sizeof *choice);
    if (!choice)
        return cm_error_nomem(err);
    cm_status st = run_solver(r, sp, b, o, choice, err);
    if (st == CM_OK)
        st = apply_choice(r, sp, choice, err);
    free(choice);
    return st;
}

static cm_status optimise_space(cm_nn2fpga_result *r, const cm_board *board, const n2_budget *b,
                                const cm_nn2fpga_options *o, cm_error *err)
{
    n2_space sp;
    cm_status st = n2_space_build(r, b, o->solver == CM_NN2FPGA_EXACT, &sp, err);
    if (st != CM_OK)
        return st;
    r->variables_enumerated = sp.enumerated;
    st = n2_space_check_minimum(&sp, b, board, err);
    if (st == CM_OK)
        st = solve_space(r, &sp, b, o, err);
    n2_space_free(&sp);
    return st;
}

static cm_status check_minimal_fits(const cm_nn2fpga_result *r, const cm_board *board,
                                    const n2_budget *b, cm_error *err)
{
    int64_t dsp = 0, bram = 0;
    for (int t = 0; t < r->n_layers; t++) {
        dsp += r->layers[t].dsp;
        bram += r->layers[t].bram_weights + r->layers[t].bram_window;
    }
    if (dsp > b->dsp)
        return cm_error_set(err, CM_EINFEASIBLE,
                            "no feasible design: the minimal design needs %lld DSP, %s offers %lld",
                            (long long)dsp, board->name, (long long)b->dsp);
    if (bram > b->bram)
        return cm_error_set(err, CM_EINFEASIBLE,
                            "no feasible design: the minimal design needs %lld BRAM18, %s offers %lld",
                            (long long)(bram + r->bram_skip), board->name,
                            (long long)board->resources.bram18);
    return CM_OK;
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
                   board->resources.uram};
    if (out->n_layers == 0)
        st = cm_error_set(err, CM_EINPUT, "the model has no convolution, fully connected or "
                                          "pooling layer for the nn2fpga backend");
    else if (o->solver == CM_NN2FPGA_NONE)
        st = check_minimal_fits(out, board, &b, err);
    else
        st = optimise_space(out, board, &b, o, err);
    if (st == CM_OK) {
        n2_totals(out, o->batch);
        out->optimal = o->solver != CM_NN2FPGA_NONE && out->phases[0].optimal &&
                       out->phases[1].optimal;
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
