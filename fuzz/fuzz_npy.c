/* libFuzzer target for the .npy reader: any bytes must give either an array or a
 * CM_EINPUT message naming the origin, never a crash, a leak or undefined behaviour;
 * and an array that was read must write, and read back as the same bytes. */
#include <cnnmap/run.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cm_array *a = NULL;
    cm_error err = {0};
    cm_status st = cm_array_read_npy(data, size, "fuzz", &a, &err);
    if (st != CM_OK) {
        if (st != CM_EINPUT || a || err.message[0] == '\0' || strchr(err.message, '\n') ||
            strncmp(err.message, "fuzz: ", 6) != 0) {
            fprintf(stderr, "status %d, message \"%s\"\n", (int)st, err.message);
            abort();
        }
        return 0;
    }
    char *out = NULL, *again = NULL;
    size_t len = 0, len_again = 0;
    cm_array *b = NULL;
    /* Written bytes are canonical (NaN payloads and bool bytes may change once, then
     * not again), so writing what was read back gives them unchanged. */
    if (cm_array_to_npy(a, &out, &len, &err) != CM_OK ||
        cm_array_read_npy(out, len, "fuzz", &b, &err) != CM_OK ||
        cm_array_to_npy(b, &again, &len_again, &err) != CM_OK || len != len_again ||
        memcmp(out, again, len) != 0 || b->dtype != a->dtype || b->rank != a->rank ||
        b->count != a->count || memcmp(b->dims, a->dims, sizeof a->dims) != 0) {
        fprintf(stderr, "round trip failed: %s\n", err.message);
        abort();
    }
    free(out);
    free(again);
    cm_array_free(a);
    cm_array_free(b);
    return 0;
}
