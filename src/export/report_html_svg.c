/* The HTML report's pictures as inline SVG: the timeline (lanes of bars on a time axis)
 * and the network as a layered graph (boxes placed by their longest path from an
 * input, coloured by group and as wide as their cycles allow). */
#include "export/report_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SVG_W 1200.0
#define LANE_LABEL 170.0
#define LANE_H 26.0
#define LANE_GAP 8.0
#define BOX_H 24.0
#define LEVEL_H 42.0
#define BOX_MIN 60.0
#define BOX_MAX 220.0
#define BOX_GAP 10.0
#define CHAR_W 6.3 /* an 11 px character, for what fits in a box */

/* Pale enough for dark text on top. */
static const char *const palette[] = {"#8fb3d9", "#f7b267", "#ef8a8c", "#9fd4cf", "#8cc084",
                                      "#f2dc7d", "#c9a3c1", "#ffc2c8", "#c4a68f", "#b8c4d6"};

const char *rh_colour(int group)
{
    return group < 0 ? "#d5d8de" : palette[group % (int)(sizeof palette / sizeof *palette)];
}

static bool fits(const char *text, double room)
{
    return (double)strlen(text) * CHAR_W <= room;
}

/* text cut to `room` pixels, "..." marking the cut: its head, or its tail (where node
 * names differ: "..._Batch_3", ".../conv2/Conv"). */
static void fitted(cm_strbuf *b, const char *text, double room, bool tail)
{
    size_t fit = room > 3 * CHAR_W ? (size_t)(room / CHAR_W) : 0, n = strlen(text);
    if (n <= fit) {
        rh_escape(b, text);
        return;
    }
    char cut[256];
    size_t keep = fit > 3 ? fit - 3 : 0;
    if (keep >= sizeof cut)
        keep = sizeof cut - 1;
    memcpy(cut, tail ? text + n - keep : text, keep);
    cut[keep] = '\0';
    if (tail)
        cm_strbuf_printf(b, "...");
    rh_escape(b, cut);
    if (!tail)
        cm_strbuf_printf(b, "...");
}

/* ---- timeline ---- */

typedef struct axis {
    double end, step, scale; /* seconds; scale: seconds to the unit */
    const char *unit;
} axis;

static axis time_axis(double end)
{
    axis a = {end > 0 ? end : 1e-9, 0, 1, "s"};
    if (a.end < 1e-3)
        a.scale = 1e6, a.unit = "us";
    else if (a.end < 1.0)
        a.scale = 1e3, a.unit = "ms";
    double raw = a.end / 6.0, mag = pow(10.0, floor(log10(raw)));
    a.step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
    return a;
}

static void timeline_axis(cm_strbuf *b, const axis *a, double top, double height, double plot)
{
    for (int k = 0; k * a->step <= a->end * 1.0001 && k < 100; k++) {
        double x = LANE_LABEL + k * a->step / a->end * plot;
        cm_strbuf_printf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                            "stroke-dasharray=\"2 3\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                            "text-anchor=\"middle\">%.4g %s</text>\n",
                         x, top, x, top + height, x, top + height + 14, k * a->step * a->scale,
                         a->unit);
    }
}

static void timeline_seg(cm_strbuf *b, const rh_seg *s, const axis *a, double plot)
{
    double x = LANE_LABEL + s->start_s / a->end * plot, w = fmax(1.0, s->length_s / a->end * plot);
    double y = 6 + s->lane * (LANE_H + LANE_GAP);
    const char *fill = s->kind == RH_SEG_RECONFIGURE ? "#c3c7ce" : rh_colour(s->group);
    cm_strbuf_printf(b, "<g><title>");
    rh_escape(b, s->label);
    cm_strbuf_printf(b, ": %.4g %s from %.4g %s</title><rect class=\"box\" x=\"%.1f\" y=\"%.1f\" "
                        "width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s/>",
                     s->length_s * a->scale, a->unit, s->start_s * a->scale, a->unit, x, y, w,
                     LANE_H, fill,
                     s->kind == RH_SEG_LOAD ? " fill-opacity=\"0.45\" stroke-dasharray=\"3 2\"" : "");
    if (fits(s->label, w - 6) || w > 8 * CHAR_W) { /* no label of three dots */
        cm_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + LANE_H / 2 + 4);
        fitted(b, s->label, w - 6, false);
        cm_strbuf_printf(b, "</text>");
    }
    cm_strbuf_printf(b, "</g>\n");
}

void rh_svg_timeline(cm_strbuf *b, const rh_report *r)
{
    double end = r->timeline_mark_s;
    for (int i = 0; i < r->n_segs; i++)
        end = fmax(end, r->segs[i].start_s + r->segs[i].length_s);
    axis a = time_axis(end);
    double plot = SVG_W - LANE_LABEL - 30, lanes = r->n_lanes * (LANE_H + LANE_GAP);
    cm_strbuf_printf(b, "<svg viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
                        "role=\"img\" aria-label=\"timeline\">\n",
                     SVG_W, lanes + 30, SVG_W, lanes + 30);
    timeline_axis(b, &a, 2, lanes, plot);
    for (int l = 0; l < r->n_lanes; l++) {
        cm_strbuf_printf(b, "<text x=\"4\" y=\"%.1f\">", 6 + l * (LANE_H + LANE_GAP) + LANE_H / 2 + 4);
        fitted(b, r->lanes[l] ? r->lanes[l] : "", LANE_LABEL - 10, false);
        cm_strbuf_printf(b, "</text>\n");
    }
    for (int i = 0; i < r->n_segs; i++)
        timeline_seg(b, &r->segs[i], &a, plot);
    if (r->timeline_mark_s > 0) {
        double x = LANE_LABEL + r->timeline_mark_s / a.end * plot;
        cm_strbuf_printf(b, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c62828\" "
                            "stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n",
                         x, x, lanes + 4);
    }
    cm_strbuf_printf(b, "</svg>\n");
}

/* ---- graph ---- */

void rh_legend(cm_strbuf *b, const rh_report *r)
{
    if (r->n_groups <= 0)
        return;
    cm_strbuf_printf(b, "<div class=\"legend\">");
    for (int g = 0; g < r->n_groups && g < 40; g++) {
        cm_strbuf_printf(b, "<span><i class=\"sw\" style=\"background:%s\"></i>", rh_colour(g));
        if (r->group_names[g])
            rh_escape(b, r->group_names[g]);
        else {
            rh_escape(b, r->group_word ? r->group_word : "group");
            cm_strbuf_printf(b, " %d", g);
        }
        cm_strbuf_printf(b, "</span>");
    }
    cm_strbuf_printf(b, "%s</div>\n", r->n_groups > 40 ? " ..." : "");
}

/* Longest path from a box without predecessors, relaxed until it settles (the edges
 * mostly run forwards, so one or two passes do). */
static int levels(const rh_report *r, int *level)
{
    memset(level, 0, (size_t)r->n_nodes * sizeof *level);
    bool changed = true;
    for (int pass = 0; changed && pass < r->n_nodes; pass++) {
        changed = false;
        for (int e = 0; e < r->n_edges; e++) {
            const rh_edge *x = &r->edges[e];
            if (level[x->to] < level[x->from] + 1) {
                level[x->to] = level[x->from] + 1;
                changed = true;
            }
        }
    }
    int most = 0;
    for (int i = 0; i < r->n_nodes; i++)
        most = level[i] > most ? level[i] : most;
    return most + 1;
}

/* Widths by cycles, then each level's boxes side by side, centred, narrowed to fit. */
/* A name too long for its box goes beside it when the level has room: a narrow box is
 * a fast node, not a short name. */
static double label_room(const rh_node *n, double w)
{
    return fits(n->name, w - 6) ? 0 : (double)strlen(n->name) * CHAR_W + 12;
}

/* One level: a box alone is centred with its name beside it; several are centred
 * together with their names beside them when that fits, else narrowed side by side. */
static void place_level(const rh_report *r, const int *level, int l, double *x, double *w,
                        bool *beside)
{
    double total = 0, labels = 0, room = SVG_W - 20;
    int k = 0;
    for (int i = 0; i < r->n_nodes; i++)
        if (level[i] == l)
            total += w[i], labels += label_room(&r->nodes[i], w[i]), k++;
    double gaps = (k - 1) * BOX_GAP;
    bool side = k == 1 || total + labels + gaps <= room;
    double squeeze = !side && total + gaps > room ? (room - gaps) / total : 1;
    double at = (SVG_W - (total * squeeze + gaps + (side && k > 1 ? labels : 0))) / 2;
    for (int i = 0; i < r->n_nodes; i++)
        if (level[i] == l) {
            double lab = label_room(&r->nodes[i], w[i]);
            w[i] *= squeeze;
            x[i] = at;
            beside[i] = side && lab > 0;
            at += w[i] + BOX_GAP + (side ? lab : 0);
        }
}

static void place(const rh_report *r, const int *level, int n_levels, double *x, double *w,
                  bool *beside)
{
    double most = 0;
    for (int i = 0; i < r->n_nodes; i++)
        most = fmax(most, r->nodes[i].size);
    for (int i = 0; i < r->n_nodes; i++)
        w[i] = BOX_MIN + (most > 0 ? (BOX_MAX - BOX_MIN) * sqrt(fmax(0, r->nodes[i].size) / most) : 0);
    for (int l = 0; l < n_levels; l++)
        place_level(r, level, l, x, w, beside);
}

/* The name inside the box when it fits, beside it when place() left room, else its
 * tail inside. */
static void graph_box(cm_strbuf *b, const rh_node *n, double x, double y, double w, bool beside)
{
    cm_strbuf_printf(b, "<g><title>");
    rh_escape(b, n->name);
    cm_strbuf_printf(b, " (%.6g)</title><rect class=\"box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                        "height=\"%.0f\" rx=\"3\" fill=\"%s\"/>",
                     n->size, x, y, w, BOX_H, rh_colour(n->group));
    bool inside = !beside;
    if (inside)
        cm_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x + w / 2,
                         y + BOX_H / 2 + 4);
    else
        cm_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\">", x + w + 6, y + BOX_H / 2 + 4);
    fitted(b, n->name, inside ? w - 6 : SVG_W - x - w - 10, true);
    cm_strbuf_printf(b, "</text></g>\n");
}

void rh_svg_graph(cm_strbuf *b, const rh_report *r)
{
    int *level = malloc((size_t)r->n_nodes * sizeof *level);
    double *x = malloc((size_t)r->n_nodes * sizeof *x), *w = malloc((size_t)r->n_nodes * sizeof *w);
    bool *beside = malloc((size_t)r->n_nodes * sizeof *beside);
    if (!level || !x || !w || !beside) {
        b->failed = true;
        free(level), free(x), free(w), free(beside);
        return;
    }
    int n_levels = levels(r, level);
    place(r, level, n_levels, x, w, beside);
    double height = n_levels * LEVEL_H + 10;
    cm_strbuf_printf(b, "<svg viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
                        "aria-label=\"network graph\">\n",
                     SVG_W, height, SVG_W, height);
    for (int e = 0; e < r->n_edges; e++) {
        int f = r->edges[e].from, t = r->edges[e].to;
        double x1 = x[f] + w[f] / 2, y1 = 8 + level[f] * LEVEL_H + BOX_H;
        double x2 = x[t] + w[t] / 2, y2 = 8 + level[t] * LEVEL_H, dy = (y2 - y1) / 2;
        /* an edge past other levels (a skip connection) bends out to the left of the
         * boxes between, so that it is not hidden behind them */
        double bend = level[t] - level[f] > 1 ? fmax(w[f], w[t]) / 2 + 40 : 0;
        cm_strbuf_printf(b, "<path class=\"edge\" d=\"M%.1f %.1fC%.1f %.1f %.1f %.1f %.1f %.1f\"/>\n",
                         x1, y1, x1 - bend, y1 + dy, x2 - bend, y2 - dy, x2, y2);
    }
    for (int i = 0; i < r->n_nodes; i++)
        graph_box(b, &r->nodes[i], x[i], 8 + level[i] * LEVEL_H, w[i], beside[i]);
    free(beside);
    cm_strbuf_printf(b, "</svg>\n");
    free(level);
    free(x);
    free(w);
}
