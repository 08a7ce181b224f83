/* libFuzzer target for the reference executor (issue 19): any bytes, read as an ONNX
 * model, must load or be refused with one line naming the model; a model that loads is
 * run on a small input of its declared shape (dynamic dimensions 1), with values the
 * fuzzer's bytes choose, and must give its outputs or be refused the same way: never a
 * crash, a leak or undefined behaviour. Shapes, attributes and the small weights all come
 * from the fuzzer. */
#include <cnnmap/run.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs larger than this are skipped: the target is the executor's handling of
 * shapes and attributes, not its speed on big tensors. */
#define FUZZ_MAX_ELEMENTS 4096

static void refused(cm_status st, const cm_error *err)
{
    if (st != CM_EINPUT || err->message[0] == '\0' || strchr(err->message, '\n') ||
        strncmp(err->message, "fuzz", 4) != 0) {
        fprintf(stderr, "status %d, message \"%s\"\n", (int)st, err->message);
        abort();
    }
}

/* An input of io's shape holding bytes of data, or NULL when it is too large. */
static cm_array *input_for(const cm_runner_io *io, const uint8_t *data, size_t size)
{
    int64_t dims[CM_ARRAY_MAX_RANK], count = 1;
    for (int d = 0; d < io->rank; d++) {
        dims[d] = io->dims[d] < 0 ? 1 : io->dims[d];
        if (dims[d] > FUZZ_MAX_ELEMENTS || (count *= dims[d]) > FUZZ_MAX_ELEMENTS)
            return NULL;
    }
    cm_array *a = NULL;
    cm_error err = {0};
    if (cm_array_new(io->dtype, io->rank, dims, &a, &err) != CM_OK)
        return NULL;
    bool is_unsigned = io->dtype == CM_DTYPE_UINT8 || io->dtype == CM_DTYPE_UINT16 ||
                       io->dtype == CM_DTYPE_UINT32 || io->dtype == CM_DTYPE_UINT64;
    for (int64_t k = 0; k < a->count; k++) {
        int byte = size ? data[(size_t)k % size] : 0;
        if (a->f)
            a->f[k] = (byte - 128) / 16.0;
        else if (a->i)
            a->i[k] = io->dtype == CM_DTYPE_BOOL ? (byte & 1) : is_unsigned ? byte : byte - 128;
    }
    return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cm_runner *r = NULL;
    cm_error err = {0};
    /* bounded from the load on: folding a fuzzed Resize of a constant asked for 1 TiB */
    cm_status st = cm_runner_load_buffer_bounded(data, size, "fuzz", "/nonexistent",
                                                 FUZZ_MAX_ELEMENTS * 16, &r, &err);
    if (st != CM_OK) {
        refused(st, &err);
        return 0;
    }
    int n = cm_runner_n_inputs(r), n_out = cm_runner_n_outputs(r);
    cm_array *in[8] = {0}, *out[8] = {0};
    bool runnable = n <= 8 && n_out >= 1 && n_out <= 8;
    for (int k = 0; runnable && k < n; k++)
        runnable = (in[k] = input_for(cm_runner_input(r, k), data, size)) != NULL;
    if (runnable) {
        st = cm_runner_execute(r, (const cm_array *const *)in, n, NULL, n_out, out, &err);
        if (st != CM_OK)
            refused(st, &err);
    }
    for (int k = 0; k < 8; k++) {
        cm_array_free(in[k]);
        cm_array_free(out[k]);
    }
    cm_runner_free(r);
    return 0;
}
