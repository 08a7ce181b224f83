/* The streamed JSON writer (util/json_stream.h) prints what jansson's dump of the whole
 * tree prints, byte for byte, for every layout the CLI and the design files use; and a
 * design's streamed report (and the latency choice's) equals its report tree's dump. */
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
#include "design/design_file.h"
#include "design/design_json.h"
#include "latency/latency_json.h"
#include "util/json_file.h"
#include "util/json_stream.h"

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/latency.h>
#include <cnnmap/optimise.h>

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

/* The member `key` of the JSON file at path, dumped in the design files' layout; key
 * NULL: the whole file without its "latency_driven" member; "": the whole file. */
static char *file_part(const char *path, const char *key)
{
    json_t *root = json_load_file(path, 0, NULL);
    assert_non_null(root);
    json_t *part = key && *key ? json_incref(json_object_get(root, key)) : json_incref(root);
    assert_non_null(part);
    if (!key)
        assert_int_equal(json_object_del(part, "latency_driven"), 0);
    char *text = json_dumps(part, CM_DESIGN_FILE_FLAGS);
    json_decref(part);
    json_decref(root);
    return text;
}

/* LeNet on fpgaConvNet at batch 1 on the latency objective: both flows are compared, and
 * the report of the choice is streamed too. On a Zedboard the latency-driven design is
 * chosen (its figures replace the report's, which move after the tables), on a U250 the
 * partitioned one; each with bounds from both, the report against its tree's dump and
 * the saved file's partitioned design against that design's own file (cm_design_save). */
static void test_latency_choice(void **state)
{
    (void)state;
    char path[1024], saved[1024];
    cm_test_shared_model("lenet.onnx", path, sizeof path);
    const char *boards[] = {"zedboard", "u250"};
    for (int b = 0; b < 2; b++) {
        cm_design *d = cm_test_design(path, boards[b], CM_BACKEND_FPGACONVNET, 16, true);
        cm_design_run run = {.optimiser = CM_OPTIMISER_RULE};
        cm_optimise_options o = {.optimiser = CM_OPTIMISER_RULE};
        cm_error err = {0};
        assert_int_equal(cm_optimise(d, &o, &run.result, &err), CM_OK);
        run.result.has_lower_bound = true;
        run.result.lower_bound_s = 1e-6;
        cm_latency_choice c;
        cm_latency_choose(d, &run, &c);
        assert_int_equal(c.chose_latency, b == 0);
        c.has_lower_bound = true;
        c.lower_bound_s = 2e-6;
        const size_t flags = JSON_INDENT(1) | JSON_PRESERVE_ORDER | CM_JSON_PRINT_FLAGS;
        json_t *tree = cm_latency_choice_json(d, &run, &c, true);
        assert_non_null(tree);
        char *want = json_dumps(tree, flags);
        json_decref(tree);
        cm_strbuf out = {0};
        assert_true(cm_latency_choice_write(d, &run, &c, true, &out, flags));
        char *got = cm_strbuf_take(&out);
        assert_string_equal(got, want);
        free(got);
        free(want);

        cm_test_write_temp("", 0, ".json", saved, sizeof saved);
        assert_int_equal(cm_latency_choice_save(d, &run, &c, saved, &err), CM_OK);
        got = file_part(saved, c.chose_latency ? "throughput_driven" : NULL);
        remove(saved);
        assert_int_equal(cm_design_save(d, &run, saved, &err), CM_OK);
        want = file_part(saved, "");
        assert_string_equal(got, want);
        free(got);
        free(want);
        remove(saved);
        cm_latency_choice_free(&c);
        cm_design_free(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_design_report),
        cmocka_unit_test(test_latency_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
