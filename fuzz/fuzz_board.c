/* libFuzzer target for the board file parser: any bytes must give either a validated
 * board or a CM_EINPUT message, never a crash, a leak or undefined behaviour. */
#include <cnnmap/board.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A board file read from disk arrives NUL-terminated; the copy keeps that, and
     * the exact-size allocation lets ASan catch any read past `size`. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    cm_board board;
    cm_error err = {0};
    cm_status st = cm_board_parse(text, size, "fuzz", &board, &err);
    if (st != CM_OK && st != CM_EINPUT)
        abort();
    if (st == CM_OK && (board.resources.dsp <= 0 || board.resources.bram18 <= 0 ||
                        board.clock_mhz <= 0.0 || board.name[0] == '\0'))
        abort();
    if (st != CM_OK && (err.message[0] == '\0' || strchr(err.message, '\n')))
        abort();
    free(text);
    return 0;
}
