/* The papers' networks, built from their published layer shapes by make_zoo.py, load
 * with the layer count, MACs and parameters that the script worked out from the
 * layer list alone. */
#include "test_support.h"

#include <stdio.h>
#include <string.h>

#include <cnnmap/model.h>

static void test_zoo_models(void **state)
{
    (void)state;
    char list[1024], line[256], name[64], path[1200];
    cm_test_generated_model("zoo/zoo.txt", list, sizeof list);
    FILE *f = fopen(list, "r");
    assert_non_null(f);
    int checked = 0;
    unsigned long long layers, macs, params;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%63s %llu %llu %llu", name, &layers, &macs, &params) != 4)
            continue;
        snprintf(path, sizeof path, "%s/zoo/%s.onnx", CM_TEST_MODELS_DIR, name);
        cm_graph *g = NULL;
        cm_error err = {0};
        if (cm_model_load(path, &g, &err) != CM_OK)
            fail_msg("%s", err.message);
        cm_graph_totals t = cm_graph_totals_of(g);
        if ((unsigned long long)t.layers != layers || t.macs != macs || t.params != params)
            fail_msg("%s: %d layers, %llu MACs, %llu params; expected %llu, %llu, %llu", name,
                     t.layers, (unsigned long long)t.macs, (unsigned long long)t.params, layers,
                     macs, params);
        cm_graph_free(g);
        checked++;
    }
    fclose(f);
    assert_true(checked >= 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_zoo_models)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
