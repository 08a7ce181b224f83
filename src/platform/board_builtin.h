/* The built-in board files, embedded at build time by cmake/embed_boards.cmake. */
#ifndef CM_PLATFORM_BOARD_BUILTIN_H
#define CM_PLATFORM_BOARD_BUILTIN_H
#include <stddef.h>

typedef struct cm_board_source {
    const char *name; /* file name without .json */
    const char *json;
} cm_board_source;

extern const cm_board_source cm_board_sources[];
extern const size_t cm_board_sources_count;
#endif
