/* Rendering an rh_report: the bar table of every row's cycles and resources against
 * the board, the timeline and graph sections, and the page around them, each filled
 * into its embedded template and written through a temporary file. */
#include "export/report_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/version.h>

#include "util/atomic_file.h"

static const char *const metric_name[RH_METRICS] = {"cycles", "DSP", "BRAM18", "URAM", "LUT", "FF"};
static const char *const metric_attr[RH_METRICS] = {"cycles", "dsp", "bram18", "uram", "lut", "ff"};

/* A metric is a column when some row models it (URAM: when some row uses any or the
 * board has it). */
static bool shown(const rh_report *r, int m)
{
    for (int i = 0; i < r->n_rows; i++)
        if (r->rows[i].v[m] >= 0 && (m != RH_URAM || r->rows[i].v[m] > 0 || r->limit[m] > 0))
            return true;
    return false;
}

static double cycles_limit(const rh_report *r)
{
    double most = 0;
    for (int i = 0; i < r->n_rows; i++)
        most = fmax(most, r->rows[i].v[RH_CYCLES]);
    return most;
}

static void bar_cell(cm_strbuf *b, double v, double limit, int group)
{
    char text[48];
    rh_grouped(text, sizeof text, v);
    double pct = limit > 0 ? 100.0 * v / limit : 0.0;
    cm_strbuf_printf(b, "<td class=\"m\"><div class=\"bar%s\" title=\"%s of %.0f (%.1f%%)\">"
                        "<i style=\"width:%.2f%%;background:%s\"></i><b>%s</b></div></td>",
                     pct > 100.0 ? " over" : "", text, limit, pct, fmin(pct, 100.0),
                     rh_colour(group < 0 ? 0 : group), text);
}

static void row_html(cm_strbuf *b, const rh_report *r, const rh_row *row, const bool *cols,
                     const double *limit, bool groups)
{
    cm_strbuf_printf(b, "<tr data-row=\"bar\" data-name=\"");
    rh_escape(b, row->name);
    cm_strbuf_printf(b, "\" data-group=\"%d\"", row->group);
    for (int m = 0; m < RH_METRICS; m++)
        if (row->v[m] >= 0) {
            char num[32];
            rh_real(num, sizeof num, row->v[m]);
            cm_strbuf_printf(b, " data-%s=\"%s\"", metric_attr[m], num);
        }
    cm_strbuf_printf(b, " %s><td class=\"name\" title=\"", row->data ? row->data : "");
    rh_escape(b, row->name);
    cm_strbuf_printf(b, "\">");
    rh_escape(b, row->name);
    cm_strbuf_printf(b, "</td><td class=\"t\">");
    rh_escape(b, row->kind);
    cm_strbuf_printf(b, "</td>");
    if (groups)
        cm_strbuf_printf(b, "<td class=\"t\">");
    if (row->group >= 0)
        cm_strbuf_printf(b, "<span class=\"sw\" style=\"background:%s\"></span>", rh_colour(row->group));
    if (row->group >= 0 && row->group < r->n_groups && r->group_names[row->group])
        rh_escape(b, r->group_names[row->group]);
    else if (row->group >= 0)
        cm_strbuf_printf(b, "%d", row->group);
    if (groups)
        cm_strbuf_printf(b, "</td>");
    for (int m = 0; m < RH_METRICS; m++) {
        if (!cols[m])
            continue;
        if (row->v[m] >= 0)
            bar_cell(b, row->v[m], limit[m], row->group);
        else
            cm_strbuf_printf(b, "<td>-</td>");
    }
    cm_strbuf_printf(b, "</tr>\n");
}

static void bars(cm_strbuf *b, const rh_report *r)
{
    bool cols[RH_METRICS];
    double limit[RH_METRICS];
    for (int m = 0; m < RH_METRICS; m++) {
        cols[m] = shown(r, m);
        limit[m] = m == RH_CYCLES ? cycles_limit(r) : r->limit[m];
    }
    bool groups = false; /* a column only when some row has a group */
    for (int i = 0; i < r->n_rows; i++)
        groups |= r->rows[i].group >= 0;
    cm_strbuf_printf(b, "<div class=\"scroll\"><table>\n<tr><th class=\"t\">name</th>"
                        "<th class=\"t\">kind</th>");
    if (groups) {
        cm_strbuf_printf(b, "<th class=\"t\">");
        rh_escape(b, r->group_word ? r->group_word : "group");
        cm_strbuf_printf(b, "</th>");
    }
    for (int m = 0; m < RH_METRICS; m++)
        if (cols[m]) {
            char text[48];
            rh_grouped(text, sizeof text, limit[m]);
            cm_strbuf_printf(b, "<th class=\"t\">%s <small>%s %s</small></th>", metric_name[m],
                             m == RH_CYCLES ? "largest" : "of", text);
        }
    cm_strbuf_printf(b, "</tr>\n");
    for (int i = 0; i < r->n_rows; i++)
        row_html(b, r, &r->rows[i], cols, limit, groups);
    cm_strbuf_printf(b, "</table></div>\n");
}

static void section(rh_report *r, cm_strbuf *out, const char *id, const char *heading,
                    const char *note, cm_strbuf *body)
{
    char *h = rh_escaped(r, heading), *n = rh_escaped(r, note ? note : "");
    char *text = cm_strbuf_take(body);
    if (!text)
        r->failed = true;
    const char *kv[] = {"ID", id, "HEADING", h ? h : "", "NOTE", n ? n : "", "BODY",
                        text ? text : "", NULL};
    rh_fill(r, out, "section.html", kv);
    free(h);
    free(n);
    free(text);
}

static void sections(rh_report *r, cm_strbuf *out)
{
    cm_strbuf b = {0};
    bars(&b, r);
    section(r, out, "bars", r->rows_heading ? r->rows_heading : "Layers", r->rows_note, &b);
    if (r->n_segs > 0) {
        rh_svg_timeline(&b, r);
        section(r, out, "timeline", "Timeline", r->timeline_note, &b);
    }
    if (r->n_nodes > 0) {
        rh_legend(&b, r);
        rh_svg_graph(&b, r);
        section(r, out, "graph", "Network graph", r->graph_note, &b);
    }
    char *tables = cm_strbuf_take(&r->tables);
    if (tables)
        cm_strbuf_append(out, tables, strlen(tables));
    free(tables);
}

cm_status rh_write(rh_report *r, const char *path, cm_error *err)
{
    cm_strbuf body = {0}, page = {0};
    sections(r, &body);
    char *secs = cm_strbuf_take(&body), *summary = cm_strbuf_take(&r->summary);
    char *title = rh_escaped(r, r->title ? r->title : "");
    char *sub = rh_escaped(r, r->subtitle ? r->subtitle : "");
    char *source = rh_escaped(r, r->source ? r->source : "");
    char *board = rh_escaped(r, r->board_name ? r->board_name : "");
    const char *kv[] = {"VERSION", CM_VERSION, "TITLE", title ? title : "", "SUBTITLE",
                        sub ? sub : "", "SUMMARY", summary ? summary : "", "SECTIONS",
                        secs ? secs : "", "SOURCE", source ? source : "", "BOARD",
                        board ? board : "", NULL};
    if (!secs || !summary || !title || !sub || !source || !board)
        r->failed = true;
    rh_fill(r, &page, "report.html", kv);
    free(secs);
    free(summary);
    free(title);
    free(sub);
    free(source);
    free(board);
    if (r->failed || r->table.failed || page.failed) {
        free(page.data);
        return cm_error_nomem(err);
    }
    return cm_strbuf_write_atomic(&page, path, err);
}
