/* f-CNNx design files loaded without a search (cm_multi_design_load): two LeNets and
 * CIFAR-10 quick mapped on a ZC706 at 0.5 GB/s, written with `multi -o`'s writer and
 * read back give the mapping's figures to the last bit (the whole design file and the
 * Markdown report compared as text); a cyclic schedule written by hand (every subgraph
 * in turn) gives the period and rates worked out here; and every hand edit that breaks
 * a constraint (exit 3) or the file's form (exit 2) is refused with a message naming the
 * file and the network, subgraph, resource or field. */
#include "test_support.h"

#include <cnnmap/multi.h>
#include <jansson.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    cm_multi_result *r;     /* the mapping */
    json_t *d;              /* its design file */
    char path[1024];
} fixture;

static int setup(void **state)
{
    static const char *const names[] = {"zoo/lenet_zoo.onnx", "zoo/lenet_zoo.onnx",
                                        "zoo/cifar10_quick.onnx"};
    fixture *f = calloc(1, sizeof *f);
    cm_multi_request q;
    cm_multi_request_init(&q);
    q.board = strdup("zc706");
    q.options.bandwidth_gbps = 0.5;
    for (int i = 0; i < 3; i++) {
        char path[1024];
        cm_test_generated_model(names[i], path, sizeof path);
        q.model[q.n_models++] = strdup(path);
    }
    cm_error err = {0};
    if (cm_multi_map_request(&q, &f->r, &err) != CM_OK)
        fail_msg("%s", err.message);
    char *text = cm_multi_design_json_inputs(f->r, &q);
    assert_non_null(text);
    cm_test_write_temp(text, strlen(text), ".json", f->path, sizeof f->path);
    f->d = json_loads(text, 0, NULL);
    assert_non_null(f->d);
    free(text);
    cm_multi_request_free(&q);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    remove(f->path);
    json_decref(f->d);
    cm_multi_result_free(f->r);
    free(f);
    return 0;
}

/* Writes d to a fresh file and loads it; the file is removed again. */
static cm_status load_json(const json_t *d, cm_multi_result **r, cm_error *err, char *path,
                           size_t size)
{
    char *text = json_dumps(d, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    cm_test_write_temp(text, strlen(text), ".json", path, size);
    free(text);
    *r = NULL;
    cm_status st = cm_multi_design_load(path, r, err);
    remove(path);
    return st;
}

/* Loads the edited copy d (taken) and expects `code` with every `want` in the message,
 * which starts with the file's path. */
static void expect_refused(json_t *d, cm_status code, const char *want, const char *want2)
{
    cm_multi_result *r = NULL;
    cm_error err = {0};
    char path[1024];
    cm_status st = load_json(d, &r, &err, path, sizeof path);
    json_decref(d);
    cm_multi_result_free(r);
    if (st != code || strncmp(err.message, path, strlen(path)) != 0 ||
        !strstr(err.message, want) || (want2 && !strstr(err.message, want2)))
        fail_msg("status %d (want %d): %s", st, code, err.message);
}

static json_t *model_at(json_t *d, int i)
{
    return json_array_get(json_object_get(d, "models"), (size_t)i);
}

static json_t *subgraphs_of(json_t *d, int i)
{
    return json_object_get(json_object_get(model_at(d, i), "engine"), "subgraphs");
}

/* ---- round trip ---- */

static void test_round_trip(void **state)
{
    fixture *f = *state;
    cm_multi_result *r = NULL;
    cm_error err = {0};
    if (cm_multi_design_load(f->path, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    /* Every figure of the design file, engines, schedule, slot table and baseline. */
    char *a = cm_multi_design_json(f->r), *b = cm_multi_design_json(r);
    assert_string_equal(a, b);
    free(a);
    free(b);
    a = cm_multi_report_md(f->r);
    b = cm_multi_report_md(r);
    assert_string_equal(a, b);
    free(a);
    free(b);
    assert_true(r->objective_value == f->r->objective_value);
    assert_true(r->baseline_objective_value == f->r->baseline_objective_value);
    for (int i = 0; i < 3; i++) {
        assert_true(r->models[i].fps == f->r->models[i].fps);
        assert_true(r->models[i].gops == f->r->models[i].gops);
    }
    cm_multi_result_free(r);
}

/* export --format report-md of the file is the mapping's report, not a new mapping's. */
static void test_report_md_from_file(void **state)
{
    fixture *f = *state;
    char out[1024];
    cm_test_write_temp("", 0, ".md", out, sizeof out);
    cm_error err = {0};
    if (cm_multi_export_report_md(f->path, out, &err) != CM_OK)
        fail_msg("%s", err.message);
    FILE *fp = fopen(out, "rb");
    assert_non_null(fp);
    char *want = cm_multi_report_md(f->r);
    size_t n = strlen(want);
    char *got = calloc(n + 2, 1);
    assert_int_equal(fread(got, 1, n + 1, fp), n);
    fclose(fp);
    remove(out);
    assert_string_equal(got, want);
    free(got);
    free(want);
}

/* ---- a cyclic schedule by hand ---- */

static const cm_multi_engine *engine_of(const fixture *f, int i)
{
    return &f->r->models[i].front[f->r->models[i].engine];
}

/* A cyclic schedule, once a period, nothing slowed down: engine i's subgraphs back to
 * back from offset[i]. */
static json_t *cyclic_at(const fixture *f, const double *offset)
{
    json_t *d = json_deep_copy(f->d), *table = json_array();
    json_object_set_new(d, "schedule_kind", json_string("cyclic"));
    /* eq. 6: no rate the mapping reached is asked for again */
    json_object_set_new(json_object_get(d, "inputs"), "objective", json_string("throughput"));
    for (int i = 0; i < 3; i++) {
        json_object_set_new(model_at(d, i), "repetitions", json_integer(1));
        json_t *subs = subgraphs_of(d, i);
        double t = offset[i];
        for (size_t s = 0; s < json_array_size(subs); s++) {
            json_array_append_new(table, json_pack("{s:s, s:i, s:i, s:i, s:f, s:f}", "model",
                                                   f->r->models[i].name, "engine", i,
                                                   "subgraph", (int)s, "repetition", 0,
                                                   "start_s", t, "slowdown", 1.0));
            t += json_real_value(json_object_get(json_array_get(subs, s), "latency_s"));
        }
    }
    json_object_set_new(d, "slot_table", table);
    return d;
}

/* Every engine in turn. */
static json_t *sequential(const fixture *f)
{
    double offset[3] = {0.0, engine_of(f, 0)->latency_s,
                        engine_of(f, 0)->latency_s + engine_of(f, 1)->latency_s};
    return cyclic_at(f, offset);
}

static void test_cyclic_by_hand(void **state)
{
    fixture *f = *state;
    cm_multi_result *r = NULL;
    cm_error err = {0};
    char path[1024];
    json_t *d = sequential(f);
    cm_status st = load_json(d, &r, &err, path, sizeof path);
    json_decref(d);
    if (st != CM_OK)
        fail_msg("%s", err.message);
    /* K is every engine's latency in turn; each network runs once a period. */
    double k = 0.0, v = 0.0;
    for (int i = 0; i < 3; i++)
        k += f->r->models[i].front[f->r->models[i].engine].latency_s;
    assert_int_equal(r->schedule.kind, CM_MULTI_CYCLIC);
    assert_true(fabs(r->schedule.period_s - k) <= 1e-12 * k);
    for (int i = 0; i < 3; i++) {
        const cm_multi_model *m = &r->models[i];
        double fps = 1.0 / k;
        assert_true(fabs(m->fps - fps) <= 1e-9 * fps);
        assert_true(fabs(m->gops - fps * m->gop) <= 1e-9 * fps * m->gop);
        v += (fps / m->max_fps - 1.0) * (fps / m->max_fps - 1.0); /* eq. 6 */
    }
    assert_true(fabs(r->objective_value - v) <= 1e-9 * v);
    /* One subgraph at a time: each gets every slot of its round. */
    for (int t = 0; t < r->schedule.n_tasks; t++)
        assert_true(r->schedule.tasks[t].share == 1.0);
    cm_multi_result_free(r);
}

/* The engine with the most subgraphs. */
static int longest_engine(const fixture *f)
{
    int best = 0;
    for (int i = 1; i < 3; i++)
        if (engine_of(f, i)->n_subgraphs > engine_of(f, best)->n_subgraphs)
            best = i;
    return best;
}

/* The subgraph of engine i with the largest b(s), and where it starts in its chain. */
static int busiest(const fixture *f, int i, double *at)
{
    const cm_multi_engine *e = engine_of(f, i);
    int best = 0;
    for (int s = 1; s < e->n_subgraphs; s++)
        if (e->subgraphs[s].bandwidth > e->subgraphs[best].bandwidth)
            best = s;
    *at = 0.0;
    for (int s = 0; s < best; s++)
        *at += e->subgraphs[s].latency_s;
    return best;
}

static void test_cyclic_broken(void **state)
{
    fixture *f = *state;
    int e = longest_engine(f);
    assert_true(engine_of(f, e)->n_subgraphs >= 2);
    /* Its second subgraph at time 0: it starts before the first ends. */
    json_t *d = sequential(f);
    json_t *table = json_object_get(d, "slot_table");
    for (size_t q = 0; q < json_array_size(table); q++) {
        json_t *t = json_array_get(table, q);
        if (json_integer_value(json_object_get(t, "engine")) == e &&
            json_integer_value(json_object_get(t, "subgraph")) == 1)
            json_object_set_new(t, "start_s", json_real(0.0));
    }
    expect_refused(d, CM_EINFEASIBLE, f->r->models[e].name, "subgraph 1 (repetition 0) starts");
    /* The busiest subgraphs of the two engines whose peaks add up to most started
     * together, the third engine after both chains: at 0.5 GB/s the two need more
     * than B_mem together. */
    int p = 0, q = 1;
    double at[3], b[3];
    for (int i = 0; i < 3; i++)
        b[i] = engine_of(f, i)->subgraphs[busiest(f, i, &at[i])].bandwidth;
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (b[i] + b[j] > b[p] + b[q])
                p = i, q = j;
    assert_true(b[p] + b[q] > 0.5e9 * (1 + 1e-3));
    double offset[3];
    offset[p] = fmax(0.0, at[q] - at[p]);
    offset[q] = fmax(0.0, at[p] - at[q]);
    offset[3 - p - q] = fmax(offset[p] + engine_of(f, p)->latency_s,
                             offset[q] + engine_of(f, q)->latency_s);
    expect_refused(cyclic_at(f, offset), CM_EINFEASIBLE, "GB/s of the 0.5 GB/s shared", NULL);
}

/* ---- hand edits that break a constraint: exit 3 ---- */

static void test_unknown_references(void **state)
{
    fixture *f = *state;
    json_t *d = json_deep_copy(f->d);
    json_t *t0 = json_array_get(json_object_get(d, "slot_table"), 0);
    json_object_set_new(t0, "engine", json_integer(7));
    expect_refused(d, CM_EINFEASIBLE, "slot_table[0]: engine 7 does not exist", NULL);
    d = json_deep_copy(f->d);
    t0 = json_array_get(json_object_get(d, "slot_table"), 0);
    json_object_set_new(t0, "subgraph", json_integer(999));
    expect_refused(d, CM_EINFEASIBLE, "has no subgraph 999", f->r->models[0].name);
    d = json_deep_copy(f->d);
    json_t *table = json_object_get(d, "slot_table");
    json_array_remove(table, json_array_size(table) - 1);
    expect_refused(d, CM_EINFEASIBLE, "is not scheduled", NULL);
    d = json_deep_copy(f->d);
    table = json_object_get(d, "slot_table");
    json_array_append(table, json_array_get(table, 0));
    expect_refused(d, CM_EINFEASIBLE, "is scheduled twice", NULL);
}

static void test_resources_and_targets(void **state)
{
    fixture *f = *state;
    /* The same engines on a Zedboard: 220 DSPs and 280 BRAM18 hold none of them. */
    json_t *d = json_deep_copy(f->d);
    json_object_set_new(json_object_get(d, "inputs"), "board", json_string("zedboard"));
    expect_refused(d, CM_EINFEASIBLE, "the engines of its 3 networks together need", "of zedboard");
    /* Almost no bandwidth for the CIFAR-10 engine: below the rate it reached. */
    assert_string_equal(json_string_value(json_object_get(f->d, "schedule_kind")), "partitioned");
    d = json_deep_copy(f->d);
    json_object_set_new(model_at(d, 2), "bandwidth_share", json_real(1e-4));
    expect_refused(d, CM_EINFEASIBLE, f->r->models[2].name, "fps the design reached towards");
    /* More than the whole bandwidth. */
    d = json_deep_copy(f->d);
    for (int i = 0; i < 3; i++)
        json_object_set_new(model_at(d, i), "bandwidth_share", json_real(0.5));
    expect_refused(d, CM_EINFEASIBLE, "shares add up to 1.5", NULL);
}

/* ---- malformed files: exit 2 naming the field ---- */

static json_t *point_of(json_t *d, int i)
{
    return json_object_get(json_object_get(model_at(d, i), "engine"), "point");
}

static void test_malformed(void **state)
{
    fixture *f = *state;
    json_t *d = json_deep_copy(f->d);
    json_t *b0 = json_array_get(json_object_get(point_of(d, 0), "blocks"), 0);
    json_object_set_new(b0, "coarse", json_string("four"));
    expect_refused(d, CM_EINPUT, "models[0].engine.point.blocks[0].coarse must be an integer", NULL);
    d = json_deep_copy(f->d);
    b0 = json_array_get(json_object_get(point_of(d, 0), "blocks"), 0);
    json_object_set_new(b0, "name", json_string("pool7"));
    expect_refused(d, CM_EINPUT, "models[0].engine.point.blocks[0]: named \"pool7\"", NULL);
    d = json_deep_copy(f->d);
    json_array_append_new(json_object_get(point_of(d, 1), "cuts"), json_string("no_such_layer"));
    expect_refused(d, CM_EINPUT, "models[1].engine.point.cuts", "no_such_layer");
    d = json_deep_copy(f->d);
    json_array_append_new(json_object_get(point_of(d, 1), "blocks"),
                          json_pack("{s:s, s:i, s:i, s:i}", "name", "conv9", "coarse", 1, "macc",
                                    1, "bank_bram", 1));
    expect_refused(d, CM_EINPUT, "models[1].engine.point.blocks", "blocks recorded");
    d = json_deep_copy(f->d);
    json_object_set_new(d, "version", json_integer(1));
    expect_refused(d, CM_EINPUT, "version 1 multi design file records no engine design points",
                   NULL);
    d = json_deep_copy(f->d);
    json_object_del(d, "options");
    expect_refused(d, CM_EINPUT, "options must be an object", NULL);
    d = json_deep_copy(f->d);
    json_object_set_new(json_array_get(json_object_get(d, "slot_table"), 0), "slowdown",
                        json_real(0.0));
    expect_refused(d, CM_EINPUT, "slot_table[0].slowdown must be a number", NULL);
    d = json_deep_copy(f->d);
    json_object_set_new(d, "schedule_kind", json_string("-o"));
    expect_refused(d, CM_EINPUT, "schedule_kind must be", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_report_md_from_file),
        cmocka_unit_test(test_cyclic_by_hand),
        cmocka_unit_test(test_cyclic_broken),
        cmocka_unit_test(test_unknown_references),
        cmocka_unit_test(test_resources_and_targets),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
