/* Sweeps: the caps of each step, fronts marked on hand-made points, and real sweeps of
 * small nets whose fronts are checked here against the definition (non-dominated,
 * monotone, covering every feasible point), whose designs keep within their caps, and
 * whose points are the same with one thread or two; bad options and outputs. */
#include "test_support.h"

#include <cnnmap/sweep.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void test_caps(void **state)
{
    (void)state;
    for (int i = 0; i < 10; i++)
        assert_true(fabs(cm_sweep_cap(i, 10) - 0.1 * (i + 1)) < 1e-12);
    assert_true(cm_sweep_cap(0, 1) == 1.0);
    assert_true(fabs(cm_sweep_cap(1, 4) - 0.4) < 1e-12);
    assert_true(cm_sweep_cap(3, 4) == 1.0);
}

static cm_sweep_point pt(int backend, double util, double latency, bool feasible)
{
    return (cm_sweep_point){.backend = backend, .util = util, .latency_s = latency,
                            .feasible = feasible, .done = true, .built = true};
}

/* One backend: A (10%, 10 s), B (20%, 5 s), C (30%, 5 s: B is as fast with less), D (25%,
 * 8 s: B beats it on both), E (50%, 1 s), F (20%, 5 s: B again, listed later), G
 * infeasible at 5%, 0.1 s; another backend's H (90%, 100 s) is alone in its group.
 * Front: A, B, E and H. */
static void test_front_by_hand(void **state)
{
    (void)state;
    cm_sweep_point p[] = {pt(0, 0.1, 10, true), pt(0, 0.2, 5, true), pt(0, 0.3, 5, true),
                          pt(0, 0.25, 8, true), pt(0, 0.5, 1, true), pt(0, 0.2, 5, true),
                          pt(0, 0.05, 0.1, false), pt(1, 0.9, 100, true)};
    cm_sweep_result r = {.points = p, .n_points = 8};
    cm_sweep_mark_fronts(&r);
    const bool want[] = {true, true, false, false, true, false, false, true};
    for (int i = 0; i < 8; i++)
        assert_int_equal(p[i].on_front, want[i]);
}

static cm_board boards[2];
static const cm_backend backends[] = {CM_BACKEND_FINN, CM_BACKEND_HLS4ML};

static void options(cm_sweep_options *o, const char *path, int threads)
{
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("zedboard", &boards[0], &err), CM_OK);
    assert_int_equal(cm_board_builtin("zc706", &boards[1], &err), CM_OK);
    cm_sweep_options_init(o);
    o->model_path = path;
    o->boards = boards;
    o->n_boards = 2;
    o->backends = backends;
    o->n_backends = 2;
    o->steps = 5;
    o->threads = threads;
}

static bool usable(const cm_sweep_point *p) { return p->done && p->built && p->feasible; }

static bool same_group(const cm_sweep_point *a, const cm_sweep_point *b)
{
    return a->board == b->board && a->backend == b->backend;
}

/* The front's definition, checked point against point. */
static void check_fronts(const cm_sweep_options *o, const cm_sweep_result *r)
{
    int on_front = 0;
    for (int i = 0; i < r->n_points; i++) {
        const cm_sweep_point *p = &r->points[i];
        assert_true(p->done);
        on_front += p->on_front;
        if (p->on_front)
            assert_true(usable(p));
        for (int j = 0; j < r->n_points; j++) {
            const cm_sweep_point *q = &r->points[j];
            if (j == i || !same_group(p, q) || !usable(q))
                continue;
            bool q_dominates = q->util <= p->util && q->latency_s <= p->latency_s &&
                               (q->util < p->util || q->latency_s < p->latency_s);
            if (p->on_front)
                assert_false(q_dominates);
            /* monotone: on a front, more of the board is always faster */
            if (p->on_front && q->on_front && q->util > p->util)
                assert_true(q->latency_s < p->latency_s);
        }
        if (usable(p) && !p->on_front) { /* some front point is as good or better */
            bool covered = false;
            for (int j = 0; j < r->n_points; j++)
                covered |= r->points[j].on_front && same_group(p, &r->points[j]) &&
                           r->points[j].util <= p->util && r->points[j].latency_s <= p->latency_s;
            assert_true(covered);
        }
        if (usable(p)) { /* the caps held */
            const cm_resources *b = &o->boards[p->board].resources;
            assert_true(p->used.dsp <= (int64_t)floor((double)b->dsp * p->cap));
            assert_true(p->used.bram18 <= (int64_t)floor((double)b->bram18 * p->cap));
        }
    }
    assert_true(on_front >= 2);
}

static void sweep(const char *model, int threads, cm_sweep_result *r)
{
    char path[1024];
    cm_test_generated_model(model, path, sizeof path);
    cm_sweep_options o;
    options(&o, path, threads);
    cm_error err = {0};
    if (cm_sweep_run(&o, r, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(r->n_points, 2 * 2 * 5);
    assert_false(r->stopped_early);
    check_fronts(&o, r);
}

static void test_sweep_small_nets(void **state)
{
    (void)state;
    const char *models[] = {"zoo/tfc.onnx", "zoo/lenet_zoo.onnx"};
    for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
        cm_sweep_result one, two;
        sweep(models[m], 1, &one);
        sweep(models[m], 2, &two);
        for (int i = 0; i < one.n_points; i++) {
            one.points[i].time_s = two.points[i].time_s = 0;
            assert_memory_equal(&one.points[i], &two.points[i], sizeof one.points[i]);
        }
        cm_sweep_result_free(&one);
        cm_sweep_result_free(&two);
    }
}

static void test_bad_options(void **state)
{
    (void)state;
    char path[1024];
    cm_test_generated_model("zoo/tfc.onnx", path, sizeof path);
    cm_sweep_options o;
    cm_sweep_result r;
    cm_error err = {0};
    options(&o, path, 1);
    o.steps = 0;
    assert_int_equal(cm_sweep_run(&o, &r, &err), CM_EUSAGE);
    o.steps = CM_SWEEP_MAX_STEPS + 1;
    assert_int_equal(cm_sweep_run(&o, &r, &err), CM_EUSAGE);
    options(&o, path, 1);
    const cm_backend nn2 = CM_BACKEND_NN2FPGA;
    o.backends = &nn2;
    o.n_backends = 1;
    assert_int_equal(cm_sweep_run(&o, &r, &err), CM_EUSAGE);
    options(&o, "/nonexistent/model.onnx", 1);
    assert_int_equal(cm_sweep_run(&o, &r, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "/nonexistent/model.onnx"));
    assert_int_equal(cm_sweep_check_output("out.txt", &err), CM_EUSAGE);
    assert_int_equal(cm_sweep_check_output("OUT.HTML", &err), CM_OK);
}

/* The JSON's fronts list exactly the points marked on_front, by utilisation. */
static void test_json_fronts(void **state)
{
    (void)state;
    char model[1024], out[512];
    cm_test_generated_model("zoo/tfc.onnx", model, sizeof model);
    cm_sweep_options o;
    options(&o, model, 2);
    cm_sweep_result r;
    cm_error err = {0};
    assert_int_equal(cm_sweep_run(&o, &r, &err), CM_OK);
    snprintf(out, sizeof out, "%s/cnnmap_sweep_%d.json", P_tmpdir, (int)getpid());
    assert_int_equal(cm_sweep_write(&o, &r, out, &err), CM_OK);
    json_error_t jerr;
    json_t *root = json_load_file(out, 0, &jerr);
    assert_non_null(root);
    json_t *points = json_object_get(root, "points"), *fronts = json_object_get(root, "fronts");
    assert_int_equal(json_array_size(points), r.n_points);
    assert_int_equal(json_array_size(fronts), 4);
    size_t listed = 0, i;
    json_t *f;
    json_array_foreach(fronts, i, f) {
        json_t *idx = json_object_get(f, "points");
        double last = -1;
        for (size_t k = 0; k < json_array_size(idx); k++) {
            int p = (int)json_integer_value(json_array_get(idx, k));
            assert_true(r.points[p].on_front);
            assert_true(r.points[p].util > last);
            last = r.points[p].util;
            listed++;
        }
    }
    size_t marked = 0;
    for (int p = 0; p < r.n_points; p++)
        marked += r.points[p].on_front;
    assert_int_equal(listed, marked);
    json_decref(root);
    unlink(out);
    cm_sweep_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_front_by_hand),
        cmocka_unit_test(test_sweep_small_nets),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_json_fronts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
