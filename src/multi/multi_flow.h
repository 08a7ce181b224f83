/* `multi` as the CLI and the API (cm_api "multi") both run it: the request read from
 * its option values (the same messages for the same mistakes), the files it writes,
 * and `export --format report-md` of its design files. Usage mistakes are CM_EUSAGE
 * with the message the CLI prints after "multi: ". */
#ifndef CM_MULTI_MULTI_FLOW_H
#define CM_MULTI_MULTI_FLOW_H

#include <cnnmap/multi.h>

/* Adds one MODEL[:FPS] (--model): the text after the last ':' is a frame rate unless
 * it holds a '/'. */
cm_status cm_multi_request_add_model(cm_multi_request *q, const char *text, cm_error *err);

/* Sets the board (--board), a copy of ref. */
cm_status cm_multi_request_set_board(cm_multi_request *q, const char *ref, cm_error *err);

/* --objective fps|throughput and --scheduler list|ilp. */
cm_status cm_multi_parse_objective(const char *text, cm_multi_objective *out, cm_error *err);
cm_status cm_multi_parse_scheduler(const char *text, cm_multi_scheduler *out, cm_error *err);

/* Once every option is read: a board and at least two models. */
cm_status cm_multi_request_check(const cm_multi_request *q, cm_error *err);

/* The design file (design_out, with q's inputs) and the Markdown report (report_md),
 * each when its path is given, in that order, each whole or not at all. */
cm_status cm_multi_save_outputs(const cm_multi_result *r, const cm_multi_request *q,
                                const char *design_out, const char *report_md, cm_error *err);

/* `export --format report-md -o OUTPUT` of a multi design file
 * (cm_multi_export_report_md). */
cm_status cm_multi_export_report_md_file(const char *design_path, const char *output,
                                         cm_error *err);

#endif
