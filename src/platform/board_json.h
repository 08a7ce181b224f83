/* The JSON object of a board (boards --json, cm_api "boards" and "board"). */
#ifndef CM_PLATFORM_BOARD_JSON_H
#define CM_PLATFORM_BOARD_JSON_H

#include <jansson.h>
#include <cnnmap/board.h>

/* NULL when memory runs out. */
json_t *cm_board_json(const cm_board *b);

/* {"boards": [...]}: every built-in board, in the library's order. */
cm_status cm_board_list_json(json_t **out, cm_error *err);

#endif
