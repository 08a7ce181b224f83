/* The executor's lean load (cm_runner_load_lean, what the HLS lowering reads): a weight
 * quantiser that alone reads its weights overwrites them instead of keeping a second
 * copy, so fewer constants stay; the network's outputs must be the full load's, bit for
 * bit, and the full load (cnnmap run) must still keep every initializer. */
#include "test_support.h"

#include <cnnmap/run.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run/run_internal.h"

static cm_runner *load(const char *path, bool lean)
{
    cm_runner *r = NULL;
    cm_error err = {0};
    cm_status st = lean ? cm_runner_load_lean(path, &r, &err) : cm_runner_load(path, &r, &err);
    if (st != CM_OK)
        fail_msg("%s", err.message);
    return r;
}

static int kept_constants(const cm_runner *r)
{
    int n = 0;
    for (int v = 0; v < r->n_values; v++)
        n += r->consts[v] != NULL;
    return n;
}

static cm_array *run_ramp(cm_runner *r)
{
    const cm_runner_io *in = cm_runner_input(r, 0);
    cm_array *x = NULL, *y = NULL;
    cm_error err = {0};
    assert_int_equal(cm_array_new(CM_DTYPE_FLOAT32, in->rank, in->dims, &x, &err), CM_OK);
    for (int64_t k = 0; k < x->count; k++)
        x->f[k] = (float)(sin(0.37 * (double)k) * 0.9);
    if (cm_runner_execute(r, (const cm_array *const[]){x}, 1, NULL, 1, &y, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_array_free(x);
    return y;
}

static void check_model(const char *name)
{
    char path[1024];
    cm_test_shared_model(name, path, sizeof path);
    cm_runner *full = load(path, false), *lean = load(path, true);
    /* every weight quantiser of these models reads its weights alone */
    assert_true(kept_constants(lean) < kept_constants(full));
    cm_array *a = run_ramp(full), *b = run_ramp(lean);
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->dtype, b->dtype);
    if (a->f)
        assert_memory_equal(a->f, b->f, (size_t)a->count * sizeof *a->f);
    else
        assert_memory_equal(a->i, b->i, (size_t)a->count * sizeof *a->i);
    cm_array_free(a);
    cm_array_free(b);
    cm_runner_free(full);
    cm_runner_free(lean);
}

static void test_resnet8(void **state)
{
    (void)state;
    check_model("resnet8_a8w8b16.onnx");
}

static void test_mobilenet_v2(void **state)
{
    (void)state;
    check_model("mobilenet_v2_a8w6b32.onnx");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resnet8),
        cmocka_unit_test(test_mobilenet_v2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
