/* What the files of src/sweep share: the front of one board and backend in plotting
 * order, the warnings of a sweep, its points as JSON rows, and the HTML writer. */
#ifndef CM_SWEEP_INTERNAL_H
#define CM_SWEEP_INTERNAL_H

#include <cnnmap/sweep.h>
#include <jansson.h>

#define CM_SWEEP_WARNING_MAX 512

/* The indices of board b and backend k's front points, by utilisation ascending;
 * returns how many (at most the sweep's steps). */
int cm_sweep_front_order(const cm_sweep_options *o, const cm_sweep_result *r, int b, int k,
                         int *out);
/* Warning i of the sweep into text; false when there is none. */
bool cm_sweep_warning(const cm_sweep_options *o, const cm_sweep_result *r, int i, char *text,
                      size_t size);
/* The points as an array of objects (NULL when out of memory). */
json_t *cm_sweep_points_json(const cm_sweep_options *o, const cm_sweep_result *r);
json_t *cm_sweep_warnings_json(const cm_sweep_options *o, const cm_sweep_result *r);
/* The whole sweep as the .json output holds it (the API's sweep reply). */
json_t *cm_sweep_json(const cm_sweep_options *o, const cm_sweep_result *r);
cm_status cm_sweep_write_html(const cm_sweep_options *o, const cm_sweep_result *r,
                              const char *path, cm_error *err);

#endif
