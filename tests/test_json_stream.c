/* The streamed JSON writer (util/json_stream.h) prints what jansson's dump of the whole
 * tree prints, byte for byte, for every layout the CLI and the design files use; and a
 * design's streamed report equals its report tree's dump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "test_support.h"
#include "design/design_json.h"
#include "util/json_file.h"
#include "util/json_stream.h"

#include <cnnmap/design.h>

static const size_t LAYOUTS[] = {
    JSON_INDENT(1) | JSON_PRESERVE_ORDER | CM_JSON_PRINT_FLAGS,
    JSON_INDENT(1) | JSON_REAL_PRECISION(17),
    JSON_INDENT(4),
    JSON_COMPACT | JSON_PRESERVE_ORDER,
    0,
};

/* Writes the object o's members through the stream, an array member's elements one at
 * a time (as a report writes its tables), and checks the text against json_dumps. */
static void check_layout(json_t *o, size_t flags)
{
    char *want = json_dumps(o, flags);
    assert_non_null(want);
    cm_strbuf out = {0};
    cm_json_stream s;
    cm_json_stream_begin(&s, &out, flags);
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        if (json_is_array(v)) {
            cm_json_stream_open(&s, key, '[');
            for (size_t i = 0; i < json_array_size(v); i++)
                cm_json_stream_put(&s, NULL, json_incref(json_array_get(v, i)));
            cm_json_stream_close(&s);
        } else {
            cm_json_stream_put(&s, key, json_incref(v));
        }
    }
    assert_true(cm_json_stream_end(&s));
    char *got = cm_strbuf_take(&out);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
    free(want);
}

static void test_layouts(void **state)
{
    (void)state;
    json_error_t jerr;
    json_t *o = json_loads(
        "{\"name\": \"a \\\"quoted\\\"\\nline\", \"caf\\u00e9\": 1.25, \"n\": -3,"
        " \"empty_list\": [], \"empty_object\": {}, \"flag\": true, \"none\": null,"
        " \"nested\": {\"deep\": {\"deeper\": [1, [2, {\"x\": []}]]}},"
        " \"rows\": [{\"a\": 1, \"b\": {\"c\": [0.1, 2e300]}}, [], {}, \"text\", 7],"
        " \"tail\": 1e-7}",
        0, &jerr);
    if (!o)
        fail_msg("%s", jerr.text);
    for (size_t k = 0; k < sizeof LAYOUTS / sizeof *LAYOUTS; k++)
        check_layout(o, LAYOUTS[k]);
    json_decref(o);
}

/* An object with nothing in it, and one whose only member is an empty table. */
static void test_empty(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof LAYOUTS / sizeof *LAYOUTS; k++) {
        json_t *o = json_object();
        check_layout(o, LAYOUTS[k]);
        json_object_set_new(o, "nodes", json_array());
        check_layout(o, LAYOUTS[k]);
        json_decref(o);
    }
}

/* A builder's failure (NULL: a real that is not finite) and a nesting deeper than the
 * writer's stack end in false, not a crash. */
static void test_failures(void **state)
{
    (void)state;
    cm_strbuf out = {0};
    cm_json_stream s;
    cm_json_stream_begin(&s, &out, JSON_INDENT(1));
    cm_json_stream_put(&s, "ok", json_integer(1));
    cm_json_stream_put(&s, "bad", json_real(NAN));
    assert_false(cm_json_stream_end(&s));
    free(cm_strbuf_take(&out));

    cm_json_stream_begin(&s, &out, JSON_INDENT(1));
    for (int i = 0; i < CM_JSON_STREAM_DEPTH + 2; i++)
        cm_json_stream_open(&s, "a", '{');
    assert_false(cm_json_stream_end(&s));
    free(cm_strbuf_take(&out));

    cm_json_stream_begin(&s, &out, JSON_INDENT(1));
    cm_json_stream_members(&s, json_array());
    assert_false(cm_json_stream_end(&s));
    free(cm_strbuf_take(&out));
}

/* A design's streamed report is the report tree's dump: CNV on FINN with a partition cut
 * (two rows in the partition table) and LeNet on fpgaConvNet. */
static void check_report(cm_design *d)
{
    cm_design_run run = {.optimiser = CM_OPTIMISER_RULE, .seed = 3,
                         .result = {.evaluations = 9, .time_s = 0.5, .has_lower_bound = true,
                                    .lower_bound_s = 1e-3}};
    snprintf(run.result.note, sizeof run.result.note, "a \"note\"");
    const size_t flags = JSON_INDENT(1) | JSON_PRESERVE_ORDER | CM_JSON_PRINT_FLAGS;
    json_t *tree = cm_design_report_json(d, &run);
    assert_non_null(tree);
    assert_true(json_array_size(json_object_get(tree, "nodes")) > 0);
    char *want = json_dumps(tree, flags);
    json_decref(tree);
    cm_strbuf out = {0};
    assert_true(cm_design_report_write(d, &run, &out, flags));
    char *got = cm_strbuf_take(&out);
    assert_string_equal(got, want);
    free(got);
    free(want);
}

static void test_design_report(void **state)
{
    (void)state;
    char path[1024];
    cm_test_generated_model("zoo/cnv.onnx", path, sizeof path);
    cm_design *d = cm_test_design(path, "zedboard", CM_BACKEND_FINN, 4, true);
    cm_error err = {0};
    assert_int_equal(cm_design_split(d, cm_design_node_count(d) / 2, &err), CM_OK);
    assert_int_equal(cm_design_partition_count(d), 2);
    check_report(d);
    cm_design_free(d);
    cm_test_shared_model("lenet.onnx", path, sizeof path);
    d = cm_test_design(path, "zedboard", CM_BACKEND_FPGACONVNET, 16, false);
    check_report(d);
    cm_design_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_design_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
