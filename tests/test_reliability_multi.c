/* Regression tests of issue 21 for the multi-CNN flow, the overlay and their time
 * limits: a multi design file is read as data (its inputs never reach an option
 * parser), a board with 10^12 DSPs does not make the overlay's array sizing run for
 * minutes, and both searches stop at their time limits and say so. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cnnmap/board.h>
#include <cnnmap/model.h>
#include <cnnmap/multi.h>
#include <cnnmap/overlay.h>

static cm_graph *lenet(char *path, size_t size)
{
    cm_test_shared_model("lenet.onnx", path, size);
    cm_graph *g = NULL;
    cm_error err = {0};
    if (cm_model_load(path, &g, &err) != CM_OK)
        fail_msg("%s", err.message);
    return g;
}

/* A design file whose "inputs" is `inputs` (JSON text). */
static void design_with(const char *inputs, char *path, size_t size)
{
    char text[4096];
    snprintf(text, sizeof text, "{\"format\": \"cnnmap-multi-design\", \"version\": 1, "
             "\"inputs\": %s}", inputs);
    cm_test_write_temp(text, strlen(text), ".json", path, size);
}

static void expect_bad_design(const char *inputs, const char *field)
{
    char path[256];
    design_with(inputs, path, sizeof path);
    cm_multi_request q;
    cm_error err = {0};
    assert_int_equal(cm_multi_request_read(path, &q, &err), CM_EINPUT);
    /* One line that starts with the design file and names what is wrong. */
    assert_int_equal(strncmp(err.message, path, strlen(path)), 0);
    assert_null(strchr(err.message, '\n'));
    if (field && !strstr(err.message, field))
        fail_msg("'%s' does not name %s", err.message, field);
    unlink(path);
}

static void test_design_inputs_are_checked_as_data(void **state)
{
    (void)state;
    const char *m2 = "[{\"path\": \"/a.onnx\"}, {\"path\": \"/b.onnx\"}]";
    char in[1024];
    expect_bad_design("[\"--board\", \"zc706\", \"-o\", \"/tmp/x\"]", "older cnnmap");
    expect_bad_design("\"--board zc706\"", "without its inputs");
    expect_bad_design("null", "without its inputs");
    snprintf(in, sizeof in, "{\"models\": %s, \"objective\": \"fps\", \"scheduler\": \"list\"}", m2);
    expect_bad_design(in, "inputs.board");
    snprintf(in, sizeof in, "{\"board\": 7, \"models\": %s, \"objective\": \"fps\", "
             "\"scheduler\": \"list\"}", m2);
    expect_bad_design(in, "inputs.board");
    expect_bad_design("{\"board\": \"zc706\", \"models\": [{\"path\": \"/a.onnx\"}], "
                      "\"objective\": \"fps\", \"scheduler\": \"list\"}", "inputs.models");
    expect_bad_design("{\"board\": \"zc706\", \"models\": [{\"path\": \"/a.onnx\"}, "
                      "{\"path\": \"\"}], \"objective\": \"fps\", \"scheduler\": \"list\"}",
                      "inputs.models[1].path");
    expect_bad_design("{\"board\": \"zc706\", \"models\": [{\"path\": \"/a.onnx\"}, "
                      "{\"path\": \"/b\", \"target_fps\": -1}], \"objective\": \"fps\", "
                      "\"scheduler\": \"list\"}", "inputs.models[1].target_fps");
    expect_bad_design("{\"board\": \"zc706\", \"models\": [{\"path\": \"/a.onnx\"}, "
                      "{\"path\": \"/b\", \"argv\": \"-o\"}], \"objective\": \"fps\", "
                      "\"scheduler\": \"list\"}", "inputs.models[1]");
    snprintf(in, sizeof in, "{\"board\": \"zc706\", \"models\": %s, \"objective\": \"-o\", "
             "\"scheduler\": \"list\"}", m2);
    expect_bad_design(in, "inputs.objective");
    snprintf(in, sizeof in, "{\"board\": \"zc706\", \"models\": %s, \"objective\": \"fps\", "
             "\"scheduler\": \"list\", \"bandwidth_gbps\": 0}", m2);
    expect_bad_design(in, "inputs.bandwidth_gbps");
    snprintf(in, sizeof in, "{\"board\": \"zc706\", \"models\": %s, \"objective\": \"fps\", "
             "\"scheduler\": \"list\", \"time_limit_s\": \"60\"}", m2);
    expect_bad_design(in, "inputs.time_limit_s");
    snprintf(in, sizeof in, "{\"board\": \"zc706\", \"models\": %s, \"objective\": \"fps\", "
             "\"scheduler\": \"list\", \"output\": \"/tmp/x\"}", m2);
    expect_bad_design(in, "unknown key");

    /* A good one: relative paths are the design file's neighbours. */
    char path[256];
    snprintf(in, sizeof in, "{\"board\": \"zc706\", \"models\": [{\"path\": \"a.onnx\", "
             "\"target_fps\": 25}, {\"path\": \"/b.onnx\"}], \"objective\": \"throughput\", "
             "\"scheduler\": \"ilp\", \"bandwidth_gbps\": 1.5, \"time_limit_s\": 7}");
    design_with(in, path, sizeof path);
    cm_multi_request q;
    cm_error err = {0};
    assert_int_equal(cm_multi_request_read(path, &q, &err), CM_OK);
    assert_string_equal(q.board, "zc706");
    assert_int_equal(q.n_models, 2);
    char want[300];
    snprintf(want, sizeof want, "%.*s/a.onnx", (int)(strrchr(path, '/') - path), path);
    assert_string_equal(q.model[0], want);
    assert_string_equal(q.model[1], "/b.onnx");
    assert_true(q.fps[0] == 25.0 && q.fps[1] == 0.0);
    assert_int_equal(q.options.objective, CM_MULTI_THROUGHPUT);
    assert_int_equal(q.options.scheduler, CM_MULTI_ILP);
    assert_true(q.options.bandwidth_gbps == 1.5 && q.options.time_limit_s == 7.0);
    cm_multi_request_free(&q);
    unlink(path);
}

/* The finding itself: inputs holding "-o PATH" made `export` write PATH. */
static void test_export_never_runs_the_inputs(void **state)
{
    (void)state;
    char model[512], design[256], pwned[300], out[300], in[2048];
    cm_graph *g = lenet(model, sizeof model);
    cm_graph_free(g);
    cm_test_write_temp("", 0, ".pwned", pwned, sizeof pwned);
    unlink(pwned);
    snprintf(in, sizeof in, "[\"--board\", \"zc706\", \"--model\", \"%s\", \"--model\", \"%s\", "
             "\"-o\", \"%s\"]", model, model, pwned);
    design_with(in, design, sizeof design);
    snprintf(out, sizeof out, "%s.md", design);
    cm_error err = {0};
    assert_int_equal(cm_multi_export_report_md(design, out, &err), CM_EINPUT);
    assert_int_equal(strncmp(err.message, design, strlen(design)), 0);
    assert_int_not_equal(access(pwned, F_OK), 0);
    assert_int_not_equal(access(out, F_OK), 0);
    /* A model that cannot be loaded is the design file's fault, and named so. */
    snprintf(in, sizeof in, "{\"board\": \"zc706\", \"models\": [{\"path\": \"%s\"}, "
             "{\"path\": \"-o\"}], \"objective\": \"fps\", \"scheduler\": \"list\"}", model);
    unlink(design);
    design_with(in, design, sizeof design);
    snprintf(out, sizeof out, "%s.md", design);
    assert_int_equal(cm_multi_export_report_md(design, out, &err), CM_EINPUT);
    assert_int_equal(strncmp(err.message, design, strlen(design)), 0);
    assert_int_not_equal(access(out, F_OK), 0);
    unlink(design);
}

static void huge_board(cm_board *b)
{
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("zc706", b, &err), CM_OK);
    b->resources.dsp = 1000000000000LL;
    b->resources.bram18 = 1000000000000LL;
}

/* LeNet's largest GEMM side is its 800-input dense layer: no array side beyond it. */
static void test_overlay_huge_board_is_capped(void **state)
{
    (void)state;
    char path[512];
    cm_graph *g = lenet(path, sizeof path);
    cm_board b;
    huge_board(&b);
    cm_overlay_options o;
    cm_overlay_options_default(&o);
    cm_overlay_result *r = NULL;
    cm_error err = {0};
    assert_int_equal(cm_overlay_map(g, &b, &o, &r, &err), CM_OK);
    assert_true(r->array[0] >= 2 && r->array[0] <= 800);
    assert_true(r->array[1] >= 2 && r->array[1] <= 800);
    assert_false(r->stopped_early);
    assert_true(r->time_limit_s == CM_OVERLAY_DEFAULT_TIME_LIMIT_S);
    assert_true(isfinite(r->latency_s) && r->latency_s > 0);
    cm_overlay_result_free(r);
    cm_graph_free(g);
}

static void test_overlay_time_limit(void **state)
{
    (void)state;
    char path[512];
    cm_graph *g = lenet(path, sizeof path);
    cm_board b;
    huge_board(&b);
    cm_overlay_options o;
    cm_overlay_options_default(&o);
    o.time_limit_s = 1e-9; /* over before the second batch of shapes */
    cm_overlay_result *r = NULL;
    cm_error err = {0};
    assert_int_equal(cm_overlay_map(g, &b, &o, &r, &err), CM_OK);
    assert_true(r->stopped_early);
    assert_true(r->array[0] >= 2 && r->array[1] >= 2);
    assert_true(isfinite(r->latency_s) && r->latency_s > 0);
    cm_overlay_result_free(r);
    o.time_limit_s = -1;
    assert_int_equal(cm_overlay_map(g, &b, &o, &r, &err), CM_EUSAGE);
    cm_graph_free(g);
}

static cm_multi_result *map_lenets(int n, double limit)
{
    char path[512];
    cm_graph *g[4];
    cm_multi_input in[4];
    for (int i = 0; i < n; i++) {
        g[i] = lenet(path, sizeof path);
        in[i] = (cm_multi_input){g[i], "lenet", 0.0};
    }
    cm_board b;
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("zc706", &b, &err), CM_OK);
    cm_multi_options o;
    cm_multi_options_init(&o);
    o.time_limit_s = limit;
    cm_multi_result *r = NULL;
    if (cm_multi_map(in, n, &b, &o, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    for (int i = 0; i < n; i++)
        cm_graph_free(g[i]);
    return r;
}

/* At the limit the exploration keeps the best schedule found so far and says so. */
static void test_multi_time_limit(void **state)
{
    (void)state;
    cm_multi_result *r = map_lenets(3, 1e-9);
    assert_true(r->stopped_early);
    assert_true(isfinite(r->objective_value) && r->objective_value > 0);
    /* Never worse than the contention-unaware baseline, which is scheduled first. */
    assert_true(r->objective_value <= r->baseline_objective_value * (1 + 1e-9));
    assert_true(r->schedule.n_tasks > 0);
    char *md = cm_multi_report_md(r);
    assert_non_null(strstr(md, "stopped early"));
    free(md);
    char *json = cm_multi_design_json(r);
    assert_non_null(strstr(json, "\"stopped_early\": true"));
    free(json);
    cm_multi_result_free(r);

    r = map_lenets(2, 0);
    assert_false(r->stopped_early);
    assert_true(r->time_limit_s == CM_MULTI_DEFAULT_TIME_LIMIT_S);
    cm_multi_result_free(r);
}

/* Copies of one network permute engines among themselves: of the fitting joint points
 * only those with non-decreasing engine indices are kept, counted here by brute force. */
static void test_multi_copies_scheduled_once(void **state)
{
    (void)state;
    cm_multi_result *r = map_lenets(3, 0);
    assert_false(r->stopped_early);
    const cm_multi_model *m = &r->models[0];
    const int f = m->n_front;
    cm_board b;
    assert_int_equal(cm_board_builtin("zc706", &b, NULL), CM_OK);
    uint64_t fit = 0, sorted = 0;
    for (int i = 0; i < f; i++)
        for (int j = 0; j < f; j++)
            for (int k = 0; k < f; k++) {
                cm_resources sum = {0};
                cm_resources_add(&sum, &m->front[i].resources);
                cm_resources_add(&sum, &m->front[j].resources);
                cm_resources_add(&sum, &m->front[k].resources);
                if (!cm_resources_fit(&sum, &b.resources))
                    continue;
                fit++;
                sorted += i <= j && j <= k;
            }
    assert_true(r->joint_points == (uint64_t)f * f * f);
    assert_true(r->joint_feasible == fit);
    assert_true(r->joint_distinct == sorted);
    assert_true(r->joint_scheduled <= sorted);
    assert_true(sorted < fit); /* the copies did make permuted points */
    cm_multi_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_design_inputs_are_checked_as_data),
        cmocka_unit_test(test_export_never_runs_the_inputs),
        cmocka_unit_test(test_overlay_huge_board_is_capped),
        cmocka_unit_test(test_overlay_time_limit),
        cmocka_unit_test(test_multi_time_limit),
        cmocka_unit_test(test_multi_copies_scheduled_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
