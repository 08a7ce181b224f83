/* A sweep as one self-contained HTML page: the embedded template
 * (templates/sweep/sweep.html) filled with a summary, the warnings, and per board an
 * inline SVG scatter of latency against the share of the board used, the Pareto
 * fronts drawn as lines, one colour a backend, and the table of points. */
#include <cnnmap/sweep.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sweep/sweep_internal.h"
#include "util/embedded.h"
#include "util/strbuf.h"

#define W 860.0
#define H 400.0
#define LEFT 80.0
#define RIGHT 180.0
#define TOP 20.0
#define BOTTOM 50.0

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

static void escaped(cm_strbuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': cm_strbuf_printf(b, "&lt;"); break;
        case '>': cm_strbuf_printf(b, "&gt;"); break;
        case '&': cm_strbuf_printf(b, "&amp;"); break;
        case '"': cm_strbuf_printf(b, "&quot;"); break;
        default: cm_strbuf_append(b, s, 1);
        }
    }
}

static bool plotted(const cm_sweep_point *p) { return p->done && p->built && p->feasible; }

typedef struct axes {
    double lo, hi; /* log10 of the latency range, ms */
} axes;

static double px(double util) { return LEFT + (W - LEFT - RIGHT) * fmin(util, 1.0); }

static double py(const axes *a, double latency_s)
{
    double v = log10(latency_s * 1e3);
    return TOP + (H - TOP - BOTTOM) * (a->hi - v) / (a->hi - a->lo);
}

/* The latency range of board b's plotted points, whole decades. false when none. */
static bool board_axes(const cm_sweep_result *r, int b, axes *a)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < r->n_points; i++)
        if (r->points[i].board == b && plotted(&r->points[i]) && r->points[i].latency_s > 0) {
            double v = log10(r->points[i].latency_s * 1e3);
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
    if (!isfinite(lo))
        return false;
    a->lo = floor(lo);
    a->hi = ceil(hi) > a->lo ? ceil(hi) : a->lo + 1;
    return true;
}

static void grid(cm_strbuf *b, const axes *a)
{
    for (int t = 0; t <= 10; t += 2) {
        double x = px(t / 10.0);
        cm_strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
                         "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d%%</text>\n",
                         x, TOP, x, H - BOTTOM, x, H - BOTTOM + 16, t * 10);
    }
    for (double d = a->lo; d <= a->hi + 1e-9; d += 1) {
        double y = TOP + (H - TOP - BOTTOM) * (a->hi - d) / (a->hi - a->lo);
        cm_strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
                         "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g ms</text>\n",
                         LEFT, y, W - RIGHT, y, LEFT - 6, y + 4, pow(10, d));
    }
    cm_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">share of the board "
                     "used (the larger of DSP and BRAM18)</text>\n", (LEFT + W - RIGHT) / 2, H - 12);
    cm_strbuf_printf(b, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">"
                     "latency of the batch (log scale)</text>\n", (TOP + H - BOTTOM) / 2);
}

static void series(cm_strbuf *b, const cm_sweep_options *o, const cm_sweep_result *r, int board,
                   int k, const axes *a)
{
    const char *c = colours[o->backends[k] % 4];
    int order[CM_SWEEP_MAX_STEPS];
    int n = cm_sweep_front_order(o, r, board, k, order);
    if (n > 0) {
        cm_strbuf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
        for (int i = 0; i < n; i++)
            cm_strbuf_printf(b, "%s%.1f,%.1f", i ? " " : "", px(r->points[order[i]].util),
                             py(a, r->points[order[i]].latency_s));
        cm_strbuf_printf(b, "\"/>\n");
    }
    for (int i = 0; i < r->n_points; i++) {
        const cm_sweep_point *p = &r->points[i];
        if (p->board == board && p->backend == k && plotted(p))
            cm_strbuf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\" "
                             "fill-opacity=\"%s\"><title>%s, cap %.0f%%: %.4g ms, %.1f%% of the "
                             "board</title></circle>\n", px(p->util), py(a, p->latency_s),
                             p->on_front ? 5 : 3, c, p->on_front ? "1" : "0.4",
                             cm_backend_name(o->backends[k]), p->cap * 100, p->latency_s * 1e3,
                             p->util * 100);
    }
    double ly = TOP + 10 + 20.0 * k;
    cm_strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                     "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>\n", W - RIGHT + 16,
                     ly, W - RIGHT + 40, ly, c, W - RIGHT + 46, ly + 4,
                     cm_backend_name(o->backends[k]));
}

static void table(cm_strbuf *b, const cm_sweep_options *o, const cm_sweep_result *r, int board)
{
    cm_strbuf_printf(b, "<table><tr><th class=\"l\">backend</th><th>cap</th><th>used</th>"
                     "<th>DSP</th><th>BRAM18</th><th>latency (ms)</th><th>frames/s</th>"
                     "<th>partitions</th><th class=\"l\">front</th></tr>\n");
    for (int i = 0; i < r->n_points; i++) {
        const cm_sweep_point *p = &r->points[i];
        if (p->board != board)
            continue;
        cm_strbuf_printf(b, "<tr%s><td class=\"l\">%s</td><td>%.0f%%</td>",
                         p->on_front ? " class=\"front\"" : "", cm_backend_name(o->backends[p->backend]),
                         p->cap * 100);
        if (!p->done || !p->built)
            cm_strbuf_printf(b, "<td colspan=\"7\" class=\"l\">%s</td></tr>\n",
                             p->done ? "cannot be built" : "not run (time limit)");
        else
            cm_strbuf_printf(b, "<td>%.1f%%</td><td>%lld</td><td>%lld</td><td>%.4g%s</td><td>%.4g</td>"
                             "<td>%d</td><td class=\"l\">%s</td></tr>\n", p->util * 100,
                             (long long)p->used.dsp, (long long)p->used.bram18, p->latency_s * 1e3,
                             p->feasible ? "" : " (infeasible)", p->throughput_fps, p->partitions,
                             p->on_front ? "yes" : "");
    }
    cm_strbuf_printf(b, "</table>\n");
}

static void plots(cm_strbuf *b, const cm_sweep_options *o, const cm_sweep_result *r)
{
    for (int board = 0; board < o->n_boards; board++) {
        cm_strbuf_printf(b, "<h2>");
        escaped(b, o->boards[board].display_name);
        cm_strbuf_printf(b, " (%s)</h2>\n", o->boards[board].name);
        axes a;
        if (board_axes(r, board, &a)) {
            cm_strbuf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                             "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n", W, H, W, H);
            grid(b, &a);
            for (int k = 0; k < o->n_backends; k++)
                series(b, o, r, board, k, &a);
            cm_strbuf_printf(b, "</svg>\n");
        } else {
            cm_strbuf_printf(b, "<p>No feasible design on this board.</p>\n");
        }
        table(b, o, r, board);
    }
}

static void summary(cm_strbuf *b, const cm_sweep_options *o, const cm_sweep_result *r)
{
    cm_strbuf_printf(b, "<p>Objective %s, optimiser %s, DSP and BRAM18 caps from 10%% to 100%% "
                     "of each board in %d step%s; %d of %d points run. A front holds the designs "
                     "no other design of its board and backend beats on both axes.</p>\n",
                     o->design.objective == CM_OBJECTIVE_LATENCY ? "latency" : "throughput",
                     cm_optimiser_name(o->optimiser), o->steps, o->steps == 1 ? "" : "s",
                     r->points_done, r->n_points);
}

static void warnings(cm_strbuf *b, const cm_sweep_options *o, const cm_sweep_result *r)
{
    char text[CM_SWEEP_WARNING_MAX];
    for (int i = 0; cm_sweep_warning(o, r, i, text, sizeof text); i++) {
        cm_strbuf_printf(b, "<p class=\"warn\">Warning: ");
        escaped(b, text);
        cm_strbuf_printf(b, "</p>\n");
    }
}

static const char *page_template(void)
{
    const cm_embedded_file *f =
        cm_embedded_find(cm_templates, cm_templates_count, "sweep/sweep.html");
    return f ? f->data : NULL;
}

/* Copies the template, each {{name}} replaced by its part. */
static void fill(cm_strbuf *b, const char *t, const cm_sweep_options *o, const cm_sweep_result *r)
{
    while (*t) {
        const char *open = strstr(t, "{{");
        if (!open) {
            cm_strbuf_append(b, t, strlen(t));
            return;
        }
        cm_strbuf_append(b, t, (size_t)(open - t));
        const char *close = strstr(open, "}}");
        size_t n = close ? (size_t)(close - open - 2) : 0;
        if (close && n == 5 && strncmp(open + 2, "title", n) == 0)
            escaped(b, o->model_path);
        else if (close && n == 7 && strncmp(open + 2, "summary", n) == 0)
            summary(b, o, r);
        else if (close && n == 8 && strncmp(open + 2, "warnings", n) == 0)
            warnings(b, o, r);
        else if (close && n == 5 && strncmp(open + 2, "plots", n) == 0)
            plots(b, o, r);
        else
            cm_strbuf_append(b, open, close ? n + 4 : 2);
        t = close ? close + 2 : open + 2;
    }
}

cm_status cm_sweep_write_html(const cm_sweep_options *o, const cm_sweep_result *r,
                              const char *path, cm_error *err)
{
    const char *t = page_template();
    if (!t)
        return cm_error_set(err, CM_EINTERNAL, "the sweep's HTML template is missing");
    cm_strbuf b = {0};
    fill(&b, t, o, r);
    return cm_strbuf_write_atomic(&b, path, err);
}
