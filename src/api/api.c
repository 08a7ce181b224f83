/* cm_api_call: finds the command's handler, parses the request and prints the reply
 * as the CLI prints its --json object (the same reals' precision), compactly. */
#include <stdlib.h>
#include <string.h>

#include <cnnmap/api.h>
#include <cnnmap/version.h>

#include "api/api_internal.h"
#include "util/json_file.h"

typedef struct api_command {
    const char *name;
    cm_api_handler run;
} api_command;

static const api_command commands[] = {
    {"inspect", cm_api_inspect},
    {"boards", cm_api_boards},
    {"board", cm_api_board},
    {"optimise", cm_api_optimise},
    {"evaluate", cm_api_evaluate},
    {"export", cm_api_export},
    {"overlay", cm_api_overlay},
    {"multi", cm_api_multi},
    {"compare", cm_api_compare},
    {"run", cm_api_run},
    {"simulate", cm_api_simulate},
    {"sweep", cm_api_sweep},
};

cm_status cm_api_built(json_t *o, json_t **reply, cm_error *err)
{
    *reply = o;
    if (o)
        return CM_OK;
    return cm_error_set(err, CM_EINTERNAL, "internal error: cannot build the JSON output (out of "
                                           "memory, or a figure that is not a finite number)");
}

static const api_command *find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static cm_status parse_request(const char *command, const char *text, json_t **obj, cm_error *err)
{
    json_error_t jerr;
    *obj = json_loads(text ? text : "{}", JSON_REJECT_DUPLICATES, &jerr);
    if (!*obj)
        return cm_error_set(err, CM_EUSAGE, "%s: the request is not JSON (%s)", command, jerr.text);
    if (!json_is_object(*obj)) {
        json_decref(*obj);
        *obj = NULL;
        return cm_error_set(err, CM_EUSAGE, "%s: the request must be a JSON object", command);
    }
    return CM_OK;
}

cm_status cm_api_call(const char *command, const char *request, char **reply, cm_error *err)
{
    cm_error local = {0};
    if (!err)
        err = &local;
    cm_error_clear(err);
    if (!reply)
        return cm_error_set(err, CM_EUSAGE, "cm_api_call: no place for the reply");
    *reply = NULL;
    const api_command *c = command ? find(command) : NULL;
    if (!c)
        return cm_error_set(err, CM_EUSAGE, "unknown command '%.80s'", command ? command : "");
    json_t *obj = NULL;
    cm_status st = parse_request(c->name, request, &obj, err);
    if (st != CM_OK)
        return st;
    cm_request req = {.command = c->name, .obj = obj, .err = err};
    json_t *out = NULL;
    st = c->run(&req, &out, err);
    json_decref(obj);
    if (st != CM_OK) {
        json_decref(out);
        return st;
    }
    *reply = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER | CM_JSON_PRINT_FLAGS);
    json_decref(out);
    if (!*reply)
        return cm_error_nomem(err);
    return CM_OK;
}

void cm_api_free(char *reply)
{
    free(reply);
}

const char *cm_api_version(void)
{
    return CM_VERSION;
}
