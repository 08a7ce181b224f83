/* Reading an API request: the typed getters every command's handler uses, so that a
 * wrong value gives the same one line whichever command reads it, and a key no getter
 * asked for is refused (a misspelt option must not pass silently, as it cannot on the
 * command line). */
#ifndef CM_API_REQUEST_H
#define CM_API_REQUEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/error.h>

#define CM_REQUEST_MAX_KEYS 48

typedef struct cm_request {
    const char *command;
    const json_t *obj;
    cm_error *err;
    const char *asked[CM_REQUEST_MAX_KEYS]; /* the keys the handler knows */
    int n_asked;
} cm_request;

/* Every getter leaves *out alone when the key is absent or null (the default stays),
 * and returns CM_EUSAGE naming the command and key when the value is of the wrong type
 * or out of range. `required` keys absent are CM_EUSAGE too. */
cm_status cm_request_string(cm_request *r, const char *key, bool required, const char **out);
cm_status cm_request_long(cm_request *r, const char *key, long lo, long hi, long *out);
cm_status cm_request_int(cm_request *r, const char *key, int lo, int hi, int *out);
cm_status cm_request_double(cm_request *r, const char *key, double lo, double hi, double *out);
cm_status cm_request_bool(cm_request *r, const char *key, bool *out);
/* A list of strings: a JSON array of strings, or one string (a one-item list). *out
 * is an array the caller frees; its strings point into the request. */
cm_status cm_request_strings(cm_request *r, const char *key, bool required, const char ***out,
                             int *n);
/* The raw value (NULL when absent or null), for handlers with structured requests. */
const json_t *cm_request_value(cm_request *r, const char *key);

/* After the getters: CM_EUSAGE naming the first key none of them asked for. */
cm_status cm_request_finish(cm_request *r);

#endif
