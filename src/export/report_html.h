/* The HTML report's content, the same for every architecture: summary figures, one
 * row per node (layer, block, engine) with its cycles and resources against the board,
 * a timeline of partitions or subgraphs, the network drawn as a layered graph, and
 * tables of the architecture's own figures. Each architecture fills an rh_report
 * (report_html_*.c); report_html.c renders it into the embedded page template and the
 * SVG pictures come from report_html_svg.c. Figures that tests compare with
 * `evaluate --json` are written in data-* attributes with the JSON's precision. */
#ifndef CM_EXPORT_REPORT_HTML_H
#define CM_EXPORT_REPORT_HTML_H

#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/board.h>
#include <cnnmap/error.h>
#include <cnnmap/graph.h>

#include "util/strbuf.h"

typedef enum rh_metric { RH_CYCLES, RH_DSP, RH_BRAM18, RH_URAM, RH_LUT, RH_FF, RH_METRICS } rh_metric;

/* One bar row: a node, layer, block or engine. A figure below 0 is not modelled. */
typedef struct rh_row {
    char *name, *kind;
    int group;             /* partition, subgraph, algorithm or network: its colour; -1 none */
    double v[RH_METRICS];
    char *data;            /* further data-* attributes, already escaped */
} rh_row;

typedef enum rh_seg_kind { RH_SEG_RUN, RH_SEG_LOAD, RH_SEG_RECONFIGURE } rh_seg_kind;

/* One bar of the timeline. */
typedef struct rh_seg {
    int lane;
    double start_s, length_s;
    int group;
    rh_seg_kind kind;
    char *label;           /* drawn inside when it fits, and its tooltip */
} rh_seg;

/* One box of the network graph; edges join boxes by index (from before to). */
typedef struct rh_node {
    char *name;
    int group;
    double size;           /* cycles (or seconds): the box's width grows with it */
} rh_node;

typedef struct rh_edge {
    int from, to;
} rh_edge;

typedef struct rh_report {
    cm_strbuf summary;     /* filled figure fragments */
    char *title, *subtitle, *source, *board_name;
    double limit[RH_METRICS]; /* the board's resources; cycles: 0 (the largest row) */
    char *rows_heading, *rows_note, *group_word; /* "Nodes", ..., "partition" */
    int n_rows, cap_rows;
    rh_row *rows;
    int n_groups;
    char **group_names;    /* legend names, NULL entries: "<group_word> <i>" */
    char *timeline_note;
    int n_lanes;
    char **lanes;
    int n_segs, cap_segs;
    rh_seg *segs;
    double timeline_mark_s;  /* a dashed line (a multi design's period), 0: none */
    char *graph_note;
    int n_nodes, cap_nodes, n_edges, cap_edges;
    rh_node *nodes;
    rh_edge *edges;
    cm_strbuf tables;      /* the architecture's own tables, filled section fragments */
    cm_strbuf table;       /* the table being built, its section's id, heading and note */
    int table_rows;
    char *t_id, *t_heading, *t_note;
    bool failed;           /* out of memory somewhere */
} rh_report;

void rh_init(rh_report *r);
void rh_free(rh_report *r);
/* rh_init with the board's resources as the bars' limits and the model file named. */
void rh_begin(rh_report *r, const cm_board *b, const char *source);
/* rh_write, then rh_free. */
cm_status rh_finish(rh_report *r, const char *path, cm_error *err);

/* A copy of a printf-formatted string (NULL and r->failed on out-of-memory). */
char *rh_strdup(rh_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* text with &, <, >, " and ' escaped, appended to b. */
void rh_escape(cm_strbuf *b, const char *text);
/* An escaped copy (NULL and r->failed on out-of-memory). */
char *rh_escaped(rh_report *r, const char *text);
/* 1234567 as "1,234,567": tables and figures are read, not parsed. */
void rh_grouped(char *buf, size_t size, double v);
/* Fills the embedded template `name` (templates/report) into out. */
void rh_fill(rh_report *r, cm_strbuf *out, const char *name, const char *const *kv);
/* A real as the JSON output writes it (10 significant digits). */
void rh_real(char *buf, size_t size, double v);

/* A summary figure: key and value go into data attributes, text is shown. */
void rh_figure(rh_report *r, const char *key, const char *value, const char *label,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void rh_figure_real(rh_report *r, const char *key, double v, const char *label, const char *text);
void rh_figure_int(rh_report *r, const char *key, int64_t v, const char *label);
/* The DSP, BRAM18, URAM, LUT and FF figures of a resource use, against the board. */
void rh_figure_resources(rh_report *r, const cm_resources *use, const cm_resources *board,
                         bool uram, bool lut_ff);

/* Resource limits from the board, cycles against the largest row. */
void rh_set_board(rh_report *r, const cm_board *b);
/* A new row (NULL on out-of-memory); its figures start as "not modelled". */
rh_row *rh_add_row(rh_report *r, const char *name, const char *kind, int group);
void rh_row_resources(rh_row *row, const cm_resources *res, bool uram, bool lut_ff);
void rh_row_data(rh_report *r, rh_row *row, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rh_set_groups(rh_report *r, int n, const char *word);
void rh_add_lane(rh_report *r, const char *name);
void rh_add_seg(rh_report *r, int lane, double start_s, double length_s, int group,
                rh_seg_kind kind, const char *label);
int rh_add_node(rh_report *r, const char *name, int group, double size);
void rh_add_edge(rh_report *r, int from, int to);
/* The edges between a graph's layers, when node i is layer i. */
void rh_add_layer_edges(rh_report *r, const cm_graph *g);

/* A table section of the architecture's own figures: begin with the header cells
 * ("|"-separated, a leading '<' marks a left-aligned column), then rows of cells. */
void rh_table_begin(rh_report *r, const char *id, const char *heading, const char *note,
                    const char *columns);
/* A row carrying data-row="kind" and the given data-* attributes (escaped already). */
void rh_tr(rh_report *r, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rh_td_text(rh_report *r, const char *text);
void rh_td(rh_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rh_table_end(rh_report *r);

/* A colour of the palette for a group (grey for -1). */
const char *rh_colour(int group);
/* Appends the timeline and the graph as inline SVG. */
void rh_svg_timeline(cm_strbuf *b, const rh_report *r);
void rh_svg_graph(cm_strbuf *b, const rh_report *r);
void rh_legend(cm_strbuf *b, const rh_report *r);

/* Renders the report into the page template and writes it to path whole or not at all. */
cm_status rh_write(rh_report *r, const char *path, cm_error *err);

#endif
