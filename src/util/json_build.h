/* Building JSON output without losing a key silently: jansson refuses a real that is
 * not finite (json_real gives NULL) and an insertion can fail for memory. put and
 * append take v whatever happens and clear *ok on failure; finish gives o when every
 * step went well, else frees it and gives NULL, which the caller reports as one
 * error. */
#ifndef CM_UTIL_JSON_BUILD_H
#define CM_UTIL_JSON_BUILD_H

#include <jansson.h>
#include <stdbool.h>

void cm_json_put(json_t *o, const char *key, json_t *v, bool *ok);
void cm_json_append(json_t *a, json_t *v, bool *ok);
json_t *cm_json_finish(json_t *o, bool ok);

#endif
