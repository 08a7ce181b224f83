/* `compare` as the CLI and the API (cm_api "compare") both run it: the comparison with
 * its design file, the failure when no architecture fits, and the `compare --json`
 * object of cli.md, built here once so that the two say the same. Internal: the public
 * API keeps jansson out of its headers. */
#ifndef CM_MAP_MAP_JSON_H
#define CM_MAP_MAP_JSON_H

#include <jansson.h>
#include <cnnmap/map.h>

/* "latency" or "throughput", as compare names its objective. */
const char *cm_map_objective_name(cm_objective o);

/* A new object, or NULL when out of memory or when a figure is not a finite number
 * (jansson refuses those; no key may silently go missing). */
json_t *cm_map_result_json(const cm_map_result *r);

/* cm_map_model, then with an output path the best candidate's design file, written
 * before anything is printed so that a failed write leaves no output. On success the
 * caller frees *out (cm_map_result_free), also when no candidate fits; on failure there
 * is nothing to free. */
cm_status cm_map_compare(const char *model_path, const char *board_ref, const cm_map_options *o,
                         const char *output, cm_map_result *out, cm_error *err);

/* CM_EINFEASIBLE naming the model file and the board when no candidate fits (the
 * table is still printed first: exit code 3 of cli.md), else CM_OK. */
cm_status cm_map_no_fit(const cm_map_result *r, const char *model_path, const char *output,
                        cm_error *err);

#endif
