/* The JSON form of a multi result: the `multi --json` object of cli.md, which `multi`,
 * `evaluate` of a multi design file and the API (cm_api "multi", evaluate) all give,
 * built here once so that they are equal. Internal: the public API keeps jansson out of
 * its headers. */
#ifndef CM_MULTI_MULTI_JSON_H
#define CM_MULTI_MULTI_JSON_H

#include <jansson.h>
#include <cnnmap/multi.h>

/* time_s is the measured time of the command (the search, or loading a design file).
 * NULL when out of memory or when a figure is not a finite number. */
json_t *cm_multi_result_json(const cm_multi_result *r, double time_s);

#endif
