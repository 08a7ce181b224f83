/* The HTML report of a multi-CNN design (f-CNNx): each network's engine against the
 * board, the bandwidth schedule as one timeline per network (the cyclic schedule's
 * period marked), the engines' subgraphs as chains, and the schedule with its
 * slow-downs and slots. */
#include <cnnmap/report_html.h>

#include <stdio.h>
#include <stdlib.h>

#include <cnnmap/multi.h>

#include "export/report_html.h"

static void summary(rh_report *r, const cm_multi_result *x, const cm_board *board)
{
    r->title = rh_strdup(r, "%d networks on %s", x->n_models, board->display_name);
    r->subtitle = rh_strdup(r, "f-CNNx: one latency-driven engine per network sharing %.4g GB/s "
                            "off-chip; %s schedule, objective %s (lower is better)",
                            x->bandwidth_gbps, x->schedule.kind == CM_MULTI_CYCLIC ? "cyclic"
                            : "rate-partitioned", cm_multi_objective_name(x->objective));
    char text[64];
    snprintf(text, sizeof text, "%.6g", x->objective_value);
    rh_figure_real(r, "objective_value", x->objective_value, "objective", text);
    snprintf(text, sizeof text, "%.6g", x->baseline_objective_value);
    rh_figure_real(r, "baseline_objective_value", x->baseline_objective_value,
                   "contention-unaware baseline", text);
    snprintf(text, sizeof text, "%.4g", x->bandwidth_gbps);
    rh_figure_real(r, "bandwidth_gbps", x->bandwidth_gbps, "shared bandwidth (GB/s)", text);
    if (x->schedule.kind == CM_MULTI_CYCLIC) {
        snprintf(text, sizeof text, "%.4g ms", x->schedule.period_s * 1e3);
        rh_figure_real(r, "period_s", x->schedule.period_s, "period K", text);
    }
    rh_figure_int(r, "networks", x->n_models, "networks");
    rh_figure_resources(r, &x->resources, &board->resources, false, true);
}

static void engines(rh_report *r, const cm_multi_result *x)
{
    r->rows_heading = rh_strdup(r, "Engines: one per network, against the board");
    r->rows_note = rh_strdup(r, "Cycles: one inference on the engine alone (every subgraph in turn, "
                                "the whole bandwidth to itself).");
    rh_set_groups(r, x->n_models, "network");
    for (int i = 0; i < x->n_models; i++) {
        const cm_multi_model *m = &x->models[i];
        const cm_multi_engine *e = &m->front[m->engine];
        char kind[48], t[32], f[32], g[32];
        snprintf(kind, sizeof kind, "engine, %d subgraph%s", e->n_subgraphs,
                 e->n_subgraphs == 1 ? "" : "s");
        rh_row *row = rh_add_row(r, m->name, kind, i);
        if (!row)
            return;
        row->v[RH_CYCLES] = e->latency_s * x->clock_mhz * 1e6;
        rh_row_resources(row, &e->resources, false, true);
        rh_real(t, sizeof t, m->target_fps);
        rh_real(f, sizeof f, m->fps);
        rh_real(g, sizeof g, m->gops);
        rh_row_data(r, row, "data-target_fps=\"%s\" data-fps=\"%s\" data-gops=\"%s\"", t, f, g);
        r->group_names[i] = rh_strdup(r, "%s", m->name);
        int prev = -1;
        for (int s = 0; s < e->n_subgraphs; s++) {
            char name[32]; /* the colour and the legend name the network */
            snprintf(name, sizeof name, "s%d", s);
            int node = rh_add_node(r, name, i, e->subgraphs[s].latency_s);
            rh_add_edge(r, prev, node);
            prev = node;
        }
    }
    r->graph_note = rh_strdup(r, "Each network's engine runs its subgraphs in order, drawn as wide "
                                 "as their latency allows, coloured by network.");
}

static void task_row(rh_report *r, const cm_multi_result *x, const cm_multi_task *t)
{
    char st[32], sl[32], lat[32];
    rh_real(st, sizeof st, t->start_s);
    rh_real(sl, sizeof sl, t->slowdown);
    rh_real(lat, sizeof lat, t->latency_s);
    cm_strbuf b = {0};
    rh_escape(&b, x->models[t->model].name);
    char *model = cm_strbuf_take(&b);
    rh_tr(r, "task", "data-model=\"%s\" data-subgraph=\"%d\" data-repetition=\"%d\" data-start_s=\"%s\" "
          "data-slowdown=\"%s\" data-slots=\"%d\" data-latency_s=\"%s\"", model ? model : "",
          t->subgraph, t->repetition, st, sl, t->slots, lat);
    free(model);
    rh_td_text(r, x->models[t->model].name);
    rh_td(r, "%d", t->subgraph);
    rh_td(r, "%d", t->repetition);
    rh_td(r, "%.4f", t->start_s * 1e3);
    rh_td(r, "%.4f", t->latency_s * 1e3);
    rh_td(r, "%.3f", t->slowdown);
    rh_td(r, "%.3f", t->bandwidth / 1e9);
    rh_td(r, "%d", t->slots);
    rh_td(r, "%.2f%%", 100.0 * t->share);
}

static void schedule(rh_report *r, const cm_multi_result *x)
{
    const cm_multi_schedule *s = &x->schedule;
    for (int i = 0; i < x->n_models; i++)
        rh_add_lane(r, x->models[i].name);
    rh_table_begin(r, "schedule", "Bandwidth schedule", s->kind == CM_MULTI_CYCLIC
                   ? "One period K of the cyclic schedule: every subgraph run, slowed down so that "
                     "the engines together stay within the bandwidth."
                   : "Each engine repeats on its own with a fixed share of the bandwidth.",
                   "<network|subgraph|repetition|start ms|length ms|slow-down|GB/s|slots|share");
    for (int k = 0; k < s->n_tasks; k++) {
        const cm_multi_task *t = &s->tasks[k];
        char label[48];
        task_row(r, x, t);
        snprintf(label, sizeof label, "s%d%s", t->subgraph, t->slowdown < 1.0 ? " (slowed)" : "");
        rh_add_seg(r, t->model, t->start_s, t->latency_s, t->model, RH_SEG_RUN, label);
    }
    rh_table_end(r);
    r->timeline_mark_s = s->kind == CM_MULTI_CYCLIC ? s->period_s : 0;
    r->timeline_note = rh_strdup(r, "Each network's subgraph runs over %s, at their slowed-down "
                                    "latencies.", s->kind == CM_MULTI_CYCLIC
                                    ? "one period K (dashed line)" : "one cycle of its own");
}

cm_status cm_multi_export_report_html(const char *design_path, const char *path, cm_error *err)
{
    cm_multi_request q;
    cm_multi_request_init(&q);
    cm_multi_result *x = NULL;
    cm_board board;
    cm_status st = cm_multi_request_read(design_path, &q, err);
    if (st == CM_OK)
        st = cm_board_resolve(q.board, &board, err);
    if (st == CM_OK)
        st = cm_multi_design_load(design_path, &x, err);
    if (st == CM_OK) {
        rh_report r;
        rh_begin(&r, &board, design_path);
        summary(&r, x, &board);
        engines(&r, x);
        schedule(&r, x);
        st = rh_finish(&r, path, err);
    }
    cm_multi_result_free(x);
    cm_multi_request_free(&q);
    return st;
}
