/* Building the HTML report's content (rh_report, see report_html.h): figures filled
 * into their template fragment, rows, timeline bars, graph boxes and the architecture's
 * own tables, each table filled into the section fragment (templates/report). */
#include "export/report_html.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/embedded.h"
#include "hls/hls_gen.h"

void rh_init(rh_report *r)
{
    memset(r, 0, sizeof *r);
}

void rh_begin(rh_report *r, const cm_board *b, const char *source)
{
    rh_init(r);
    rh_set_board(r, b);
    r->source = rh_strdup(r, "%s", source ? source : "");
}

cm_status rh_finish(rh_report *r, const char *path, cm_error *err)
{
    cm_status st = rh_write(r, path, err);
    rh_free(r);
    return st;
}

void rh_free(rh_report *r)
{
    free(r->summary.data);
    free(r->tables.data);
    free(r->table.data);
    free(r->title);
    free(r->subtitle);
    free(r->source);
    free(r->board_name);
    free(r->rows_heading);
    free(r->rows_note);
    free(r->group_word);
    free(r->timeline_note);
    free(r->graph_note);
    free(r->t_id);
    free(r->t_heading);
    free(r->t_note);
    for (int i = 0; i < r->n_rows; i++) {
        free(r->rows[i].name);
        free(r->rows[i].kind);
        free(r->rows[i].data);
    }
    free(r->rows);
    for (int i = 0; i < r->n_groups; i++)
        free(r->group_names[i]);
    free(r->group_names);
    for (int i = 0; i < r->n_lanes; i++)
        free(r->lanes[i]);
    free(r->lanes);
    for (int i = 0; i < r->n_segs; i++)
        free(r->segs[i].label);
    free(r->segs);
    for (int i = 0; i < r->n_nodes; i++)
        free(r->nodes[i].name);
    free(r->nodes);
    free(r->edges);
    memset(r, 0, sizeof *r);
}

static char *vdup(rh_report *r, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, again);
    else
        r->failed = true;
    va_end(again);
    return s;
}

char *rh_strdup(rh_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vdup(r, fmt, ap);
    va_end(ap);
    return s;
}

void rh_escape(cm_strbuf *b, const char *text)
{
    for (const char *p = text ? text : ""; *p;) {
        size_t run = strcspn(p, "&<>\"'");
        cm_strbuf_append(b, p, run);
        p += run;
        if (!*p)
            break;
        const char *e = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;"
                        : *p == '"' ? "&quot;" : "&#39;";
        cm_strbuf_append(b, e, strlen(e));
        p++;
    }
}

/* An escaped copy, for values the template filler inserts. */
char *rh_escaped(rh_report *r, const char *text)
{
    cm_strbuf b = {0};
    rh_escape(&b, text);
    cm_strbuf_append(&b, "", 0);
    char *s = cm_strbuf_take(&b);
    if (!s)
        r->failed = true;
    return s;
}

void rh_real(char *buf, size_t size, double v)
{
    snprintf(buf, size, "%.10g", v);
}

/* ---- building ---- */

static bool grow(rh_report *r, void **items, int *cap, int n, size_t size)
{
    if (n < *cap)
        return true;
    int c = *cap ? 2 * *cap : 16;
    void *p = realloc(*items, (size_t)c * size);
    if (!p) {
        r->failed = true;
        return false;
    }
    *items = p;
    *cap = c;
    return true;
}

static const char *template_text(const char *name, size_t *len)
{
    char path[64];
    snprintf(path, sizeof path, "report/%s", name);
    const cm_embedded_file *f = cm_embedded_find(cm_templates, cm_templates_count, path);
    if (!f)
        return NULL;
    *len = f->len;
    return f->data;
}

/* Fills an embedded template; a missing one fails the report (a broken build). */
void rh_fill(rh_report *r, cm_strbuf *out, const char *name, const char *const *kv)
{
    size_t len;
    const char *tpl = template_text(name, &len);
    if (!tpl) {
        r->failed = true;
        return;
    }
    hg_fill(out, tpl, len, kv);
}

void rh_figure(rh_report *r, const char *key, const char *value, const char *label,
               const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = vdup(r, fmt, ap);
    va_end(ap);
    char *t = rh_escaped(r, text ? text : ""), *l = rh_escaped(r, label), *v = rh_escaped(r, value);
    const char *kv[] = {"KEY", key, "VALUE", v ? v : "", "LABEL", l ? l : "", "TEXT",
                        t ? t : "", NULL};
    rh_fill(r, &r->summary, "figure.html", kv);
    free(text);
    free(t);
    free(l);
    free(v);
}

void rh_figure_real(rh_report *r, const char *key, double v, const char *label, const char *text)
{
    char num[32];
    rh_real(num, sizeof num, v);
    rh_figure(r, key, num, label, "%s", text);
}

void rh_grouped(char *buf, size_t size, double v)
{
    char digits[64];
    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    size_t n = strlen(digits), k = 0;
    if (v < 0 && k + 1 < size)
        buf[k++] = '-';
    for (size_t i = 0; i < n && k + 2 < size; i++) {
        buf[k++] = digits[i];
        if ((n - i - 1) % 3 == 0 && i + 1 < n)
            buf[k++] = ',';
    }
    buf[k] = '\0';
}

void rh_figure_int(rh_report *r, const char *key, int64_t v, const char *label)
{
    char num[32], text[48];
    snprintf(num, sizeof num, "%lld", (long long)v);
    rh_grouped(text, sizeof text, (double)v);
    rh_figure(r, key, num, label, "%s", text);
}

static void figure_of(rh_report *r, const char *key, int64_t use, int64_t board)
{
    char num[32], a[48], b[48];
    snprintf(num, sizeof num, "%lld", (long long)use);
    rh_grouped(a, sizeof a, (double)use);
    rh_grouped(b, sizeof b, (double)board);
    char label[64];
    snprintf(label, sizeof label, "%s of %s", key, b);
    double pct = board > 0 ? 100.0 * (double)use / (double)board : 0;
    if (board > 0) /* a board nearly full is not shown as 100% full */
        rh_figure(r, key, num, label, pct > 99.5 && pct < 100 ? "%s (%.1f%%)" : "%s (%.0f%%)", a, pct);
    else
        rh_figure(r, key, num, key, "%s", a);
}

void rh_figure_resources(rh_report *r, const cm_resources *use, const cm_resources *board,
                         bool uram, bool lut_ff)
{
    figure_of(r, "DSP", use->dsp, board->dsp);
    figure_of(r, "BRAM18", use->bram18, board->bram18);
    if (uram)
        figure_of(r, "URAM", use->uram, board->uram);
    if (lut_ff) {
        figure_of(r, "LUT", use->lut, board->lut);
        figure_of(r, "FF", use->ff, board->ff);
    }
}

void rh_set_board(rh_report *r, const cm_board *b)
{
    r->limit[RH_CYCLES] = 0;
    r->limit[RH_DSP] = (double)b->resources.dsp;
    r->limit[RH_BRAM18] = (double)b->resources.bram18;
    r->limit[RH_URAM] = (double)b->resources.uram;
    r->limit[RH_LUT] = (double)b->resources.lut;
    r->limit[RH_FF] = (double)b->resources.ff;
    free(r->board_name);
    r->board_name = rh_strdup(r, "%s", b->display_name);
}

rh_row *rh_add_row(rh_report *r, const char *name, const char *kind, int group)
{
    if (!grow(r, (void **)&r->rows, &r->cap_rows, r->n_rows, sizeof *r->rows))
        return NULL;
    rh_row *row = &r->rows[r->n_rows++];
    memset(row, 0, sizeof *row);
    row->name = rh_strdup(r, "%s", name);
    row->kind = rh_strdup(r, "%s", kind);
    row->group = group;
    for (int m = 0; m < RH_METRICS; m++)
        row->v[m] = -1;
    return row;
}

void rh_row_resources(rh_row *row, const cm_resources *res, bool uram, bool lut_ff)
{
    row->v[RH_DSP] = (double)res->dsp;
    row->v[RH_BRAM18] = (double)res->bram18;
    row->v[RH_URAM] = uram ? (double)res->uram : -1;
    row->v[RH_LUT] = lut_ff ? (double)res->lut : -1;
    row->v[RH_FF] = lut_ff ? (double)res->ff : -1;
}

void rh_row_data(rh_report *r, rh_row *row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(row->data);
    row->data = vdup(r, fmt, ap);
    va_end(ap);
}

void rh_set_groups(rh_report *r, int n, const char *word)
{
    free(r->group_word);
    r->group_word = rh_strdup(r, "%s", word);
    r->group_names = calloc(n > 0 ? (size_t)n : 1, sizeof *r->group_names);
    r->n_groups = r->group_names ? n : 0;
    if (!r->group_names)
        r->failed = true;
}

void rh_add_lane(rh_report *r, const char *name)
{
    char **p = realloc(r->lanes, (size_t)(r->n_lanes + 1) * sizeof *p);
    if (!p) {
        r->failed = true;
        return;
    }
    r->lanes = p;
    r->lanes[r->n_lanes++] = rh_strdup(r, "%s", name);
}

void rh_add_seg(rh_report *r, int lane, double start_s, double length_s, int group,
                rh_seg_kind kind, const char *label)
{
    if (!grow(r, (void **)&r->segs, &r->cap_segs, r->n_segs, sizeof *r->segs))
        return;
    r->segs[r->n_segs++] = (rh_seg){lane, start_s, length_s, group, kind,
                                    rh_strdup(r, "%s", label)};
}

int rh_add_node(rh_report *r, const char *name, int group, double size)
{
    if (!grow(r, (void **)&r->nodes, &r->cap_nodes, r->n_nodes, sizeof *r->nodes))
        return -1;
    r->nodes[r->n_nodes] = (rh_node){rh_strdup(r, "%s", name), group, size};
    return r->n_nodes++;
}

void rh_add_layer_edges(rh_report *r, const cm_graph *g)
{
    for (int i = 0; i < g->n_layers; i++)
        for (int k = 0; k < g->layers[i].n_inputs; k++)
            if (!CM_SOURCE_IS_INPUT(g->layers[i].inputs[k]))
                rh_add_edge(r, g->layers[i].inputs[k], i);
}

void rh_add_edge(rh_report *r, int from, int to)
{
    if (from < 0 || to < 0 || !grow(r, (void **)&r->edges, &r->cap_edges, r->n_edges, sizeof *r->edges))
        return;
    r->edges[r->n_edges++] = (rh_edge){from, to};
}

/* ---- tables ---- */

void rh_table_begin(rh_report *r, const char *id, const char *heading, const char *note,
                    const char *columns)
{
    free(r->table.data);
    memset(&r->table, 0, sizeof r->table);
    free(r->t_id);
    free(r->t_heading);
    free(r->t_note);
    r->t_id = rh_strdup(r, "%s", id);
    r->t_heading = rh_escaped(r, heading);
    r->t_note = rh_escaped(r, note ? note : "");
    cm_strbuf_printf(&r->table, "<div class=\"scroll\"><table>\n<tr>");
    for (const char *c = columns; *c;) {
        size_t n = strcspn(c, "|");
        bool left = *c == '<';
        cm_strbuf_printf(&r->table, "<th%s>%.*s</th>", left ? " class=\"t\"" : "",
                         (int)(n - left), c + left);
        c += n + (c[n] == '|');
    }
    cm_strbuf_printf(&r->table, "</tr>\n");
}

void rh_tr(rh_report *r, const char *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *attrs = vdup(r, fmt, ap);
    va_end(ap);
    if (r->table_rows++)
        cm_strbuf_printf(&r->table, "</tr>\n");
    cm_strbuf_printf(&r->table, "<tr data-row=\"%s\" %s>", kind, attrs ? attrs : "");
    free(attrs);
}

void rh_td_text(rh_report *r, const char *text)
{
    cm_strbuf_printf(&r->table, "<td class=\"t\">");
    rh_escape(&r->table, text);
    cm_strbuf_printf(&r->table, "</td>");
}

void rh_td(rh_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = vdup(r, fmt, ap);
    va_end(ap);
    cm_strbuf_printf(&r->table, "<td>%s</td>", text ? text : "");
    free(text);
}

void rh_table_end(rh_report *r)
{
    cm_strbuf_printf(&r->table, "%s</table></div>\n", r->table_rows ? "</tr>\n" : "");
    r->table_rows = 0;
    char *body = cm_strbuf_take(&r->table);
    if (!body || !r->t_id || !r->t_heading || !r->t_note) {
        r->failed = true;
        free(body);
        return;
    }
    const char *kv[] = {"ID", r->t_id, "HEADING", r->t_heading, "NOTE", r->t_note, "BODY", body, NULL};
    rh_fill(r, &r->tables, "section.html", kv);
    free(body);
}
