/* CSV tables (RFC 4180) from JSON arrays of objects: the per-layer tables of --csv and
 * the points of a sweep are the same rows their JSON holds, so the two outputs can never
 * disagree on a figure. */
#ifndef CM_UTIL_CSV_H
#define CM_UTIL_CSV_H

#include <jansson.h>

#include "util/strbuf.h"

/* Appends one CSV table: a header of every key met in the rows (in order of first
 * appearance; nested objects flattened as "outer.inner"), then one line per row.
 * Numbers print as the JSON output prints them (10 significant digits), booleans as
 * true/false, arrays of scalars joined by spaces, a missing key or null as an empty
 * field; fields holding a comma, quote or line break are quoted. Rows that are not
 * objects are skipped. */
void cm_csv_append_table(cm_strbuf *out, const json_t *rows);

#endif
