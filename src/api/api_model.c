/* The API's model and board commands: inspect, boards, board. */
#include <cnnmap/board.h>
#include <cnnmap/model.h>

#include "api/api_internal.h"
#include "model/model_json.h"
#include "platform/board_json.h"

cm_status cm_api_inspect(cm_request *req, json_t **reply, cm_error *err)
{
    const char *path = NULL;
    cm_status st = cm_request_string(req, "model", true, &path);
    if (st == CM_OK)
        st = cm_request_finish(req);
    cm_graph *g = NULL;
    if (st == CM_OK)
        st = cm_model_load(path, &g, err);
    if (st != CM_OK)
        return st;
    st = cm_api_built(cm_graph_json(g), reply, err);
    cm_graph_free(g);
    return st;
}

cm_status cm_api_boards(cm_request *req, json_t **reply, cm_error *err)
{
    cm_status st = cm_request_finish(req);
    return st != CM_OK ? st : cm_board_list_json(reply, err);
}

/* One board, built in or a board file, as `boards --json` lists it. */
cm_status cm_api_board(cm_request *req, json_t **reply, cm_error *err)
{
    const char *name = NULL;
    cm_status st = cm_request_string(req, "board", true, &name);
    if (st == CM_OK)
        st = cm_request_finish(req);
    cm_board b;
    if (st == CM_OK)
        st = cm_board_resolve(name, &b, err);
    return st != CM_OK ? st : cm_api_built(cm_board_json(&b), reply, err);
}
