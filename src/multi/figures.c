/* The figures of a chosen joint design point and its schedule: the goal of eqs. 5-6 per
 * network, each network's fps and GOp/s under its schedule (a cyclic schedule's period
 * is the end of its last execution; a rate-partitioned one's rates follow from the
 * shares), the objective, the engines' resources, the slot table (eq. 7) and the
 * contention-unaware baseline. The exploration fills its result with these once it has
 * chosen, and a loaded design file gets them from its recorded schedule, so that both
 * report the same numbers from the same code. */
#include "multi/multi_internal.h"

#include <math.h>
#include <string.h>

const char *cm_mt_resource_over(const cm_resources *need, const cm_resources *have,
                                int64_t *needed, int64_t *available)
{
    static const char *const names[] = {"DSP", "BRAM18", "URAM", "LUT", "FF"};
    const int64_t n[5] = {need->dsp, need->bram18, need->uram, need->lut, need->ff};
    const int64_t h[5] = {have->dsp, have->bram18, have->uram, have->lut, have->ff};
    for (int q = 0; q < 5; q++)
        if (n[q] > h[q]) {
            *needed = n[q];
            *available = h[q];
            return names[q];
        }
    return NULL;
}

void cm_mt_goal_terms(const cm_multi_result *r, double *norm, double *cap)
{
    bool fps = r->objective == CM_MULTI_FPS;
    for (int i = 0; i < r->n_models; i++) {
        const cm_multi_model *m = &r->models[i];
        norm[i] = fps ? m->target_fps : m->max_fps;
        cap[i] = fps ? m->target_fps : INFINITY;
    }
}

/* The end of the last execution: rep(i) inferences of each network take this long. */
static double makespan(const cm_multi_schedule *s)
{
    double end = 0.0;
    for (int k = 0; k < s->n_tasks; k++)
        end = fmax(end, s->tasks[k].start_s + s->tasks[k].latency_s);
    return end;
}

void cm_mt_schedule_figures(cm_multi_result *r, const cm_mt_goal *g, const cm_multi_options *o)
{
    cm_multi_schedule *s = &r->schedule;
    const double bandwidth = r->bandwidth_gbps * 1e9;
    const bool cyclic = s->kind == CM_MULTI_CYCLIC;
    double fps[r->n_models > 0 ? r->n_models : 1];
    if (cyclic) {
        s->period_s = makespan(s);
        for (int i = 0; i < s->n_engines; i++)
            s->cycle_s[i] = s->period_s;
    }
    memset(&r->resources, 0, sizeof r->resources);
    for (int i = 0; i < r->n_models; i++) {
        cm_multi_model *m = &r->models[i];
        const cm_multi_engine *e = &m->front[m->engine];
        fps[i] = cyclic ? s->repetitions[i] / s->period_s
                        : 1.0 / cm_mt_partition_time(e, s->share[i], bandwidth);
        m->fps = fmin(fps[i], g->cap[i]);
        m->gops = m->fps * m->gop;
        cm_resources_add(&r->resources, &e->resources);
    }
    r->objective_value = cm_mt_objective(g, fps);
    cm_mt_slot_table(s, o, bandwidth, r->words_per_cycle, r->word_bits);
}

void cm_mt_baseline_figures(cm_multi_result *r, const cm_mt_goal *g)
{
    double fps[r->n_models > 0 ? r->n_models : 1];
    for (int i = 0; i < r->n_models; i++) {
        cm_multi_model *m = &r->models[i];
        fps[i] = 1.0 / cm_mt_partition_time(&m->front[m->baseline_engine], 1.0 / r->n_models,
                                             r->bandwidth_gbps * 1e9);
        m->baseline_fps = fmin(fps[i], g->cap[i]);
        m->baseline_gops = m->baseline_fps * m->gop;
    }
    r->baseline_objective_value = cm_mt_objective(g, fps);
}
