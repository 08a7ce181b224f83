/* FIFO depths recorded in streaming designs (src/design/fifo_cost.c): the memory of a
 * FIFO as each backend's tools build it, worked out by hand below from the rules in
 * fifo_cost.c's top comment; the cost added to LeNet's designs on each backend; the
 * depths surviving a save and load with the same resources; refusal of unknown stream
 * names and bad depths naming the file and the field; a design the FIFOs push over the
 * board; the FINN export's inFIFODepths / outFIFODepths in beats. */
#include "test_support.h"

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design/design_file.h"
#include "design/fifo_cost.h"
#include "export/exporters.h"

typedef struct fifo_case {
    cm_backend backend;
    int64_t depth, bits, lanes; /* words, bits per word, words per beat */
    int64_t lut, bram18;        /* worked out by hand */
} fifo_case;

static void check_cases(const fifo_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cm_resources r;
        cm_fifo_cost_one(c[i].backend, c[i].depth, c[i].bits, c[i].lanes, &r);
        if (r.lut != c[i].lut || r.bram18 != c[i].bram18 || r.dsp || r.ff || r.uram)
            fail_msg("case %zu: %lld LUT, %lld BRAM18 (want %lld, %lld)", i, (long long)r.lut,
                     (long long)r.bram18, (long long)c[i].lut, (long long)c[i].bram18);
    }
}

static void test_finn_rule(void **state)
{
    (void)state;
    static const fifo_case c[] = {
        /* 140 beats of 8 bits (280 words, PE 2, 4 bits): rtl (<= 256 beats), address
         * 2 ceil(log2 140) = 16, storage ceil(140/32) = 5 x ceil(8/2) = 4 = 20: 36 LUTs */
        {CM_BACKEND_FINN, 280, 4, 2, 36, 0},
        /* exactly 256 beats stay rtl: 2*8 + 8 x 1 = 24 */
        {CM_BACKEND_FINN, 256, 1, 1, 24, 0},
        /* 257 beats: vivado in BRAM, W = 1: ceil(257/16384) = 1; address 2*9 = 18 */
        {CM_BACKEND_FINN, 257, 1, 1, 18, 1},
        /* 600 beats of 37 bits: W > 18 and depth > 512: ceil(600/1024) x ceil(37/18) = 3 */
        {CM_BACKEND_FINN, 600, 37, 1, 20, 3},
        /* 300 beats of 72 bits (W > 18, depth <= 512): ceil(300/512) x ceil(72/36) = 2;
         * address 2*9 */
        {CM_BACKEND_FINN, 600, 36, 2, 18, 2},
        /* 5000 beats of 4 bits: ceil(5000/4096) x ceil(4/4) = 2; address 2*13 */
        {CM_BACKEND_FINN, 5000, 4, 1, 26, 2},
    };
    check_cases(c, sizeof c / sizeof *c);
}

static void test_hls_rule(void **state)
{
    (void)state;
    static const fifo_case c[] = {
        /* fpgaConvNet, coarse 2: two FIFOs of 140 x 16 bits = 2240 bits > 1024: BRAM,
         * W <= 18: ceil(140/1024) x 1 = 1 each, 2 in all */
        {CM_BACKEND_FPGACONVNET, 280, 16, 2, 0, 2},
        /* 40 x 16 = 640 bits <= 1024: shift registers, ceil(40/32) = 2 LUTs per bit: 32 */
        {CM_BACKEND_FPGACONVNET, 40, 16, 1, 32, 0},
        /* depth 2 is always shift registers, however wide: hls4ml, 2 entries of 500 x 16 */
        {CM_BACKEND_HLS4ML, 1000, 16, 500, 8000, 0},
        /* hls4ml, 13 entries of 20 x 16 = 320 bits (4160 bits): ceil(13/512) x
         * ceil(320/36) = 9 */
        {CM_BACKEND_HLS4ML, 260, 16, 20, 0, 9},
    };
    check_cases(c, sizeof c / sizeof *c);
}

static cm_design *lenet(cm_backend b, int bits, char *path, size_t size)
{
    cm_test_generated_model("zoo/lenet_zoo.onnx", path, size);
    cm_design *d = cm_test_design(path, "zc706", b, bits, false);
    cm_error err = {0};
    if (cm_design_set_sources(d, path, "zc706", &err) != CM_OK)
        fail_msg("%s", err.message);
    return d;
}

static cm_resources part0(const cm_design *d)
{
    cm_partition_info pi;
    cm_design_partition_info(d, 0, &pi);
    return pi.res;
}

static void set_depths(cm_design *d, const char *const *names, const int64_t *depths, int n)
{
    cm_error err = {0};
    if (cm_design_set_fifo_depths(d, names, depths, n, &err) != CM_OK)
        fail_msg("%s", err.message);
}

/* Saves d, loads it back: the same depths and resources. Returns the loaded design. */
static cm_design *round_trip(const cm_design *d, char *file, size_t size)
{
    cm_test_write_temp("", 0, ".json", file, size);
    cm_design_run run;
    memset(&run, 0, sizeof run);
    cm_error err = {0};
    if (cm_design_save(d, &run, file, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_design *back = NULL;
    if (cm_design_load(file, &back, &run, &err) != CM_OK)
        fail_msg("%s", err.message);
    const cm_fifo_set *a = cm_design_fifo_depths(d), *b = cm_design_fifo_depths(back);
    assert_non_null(b);
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++)
        assert_int_equal(cm_design_fifo_depth(back, a->name[i]), a->depth[i]);
    cm_resources x = part0(d), y = part0(back);
    assert_memory_equal(&x, &y, sizeof x);
    return back;
}

static void test_fpgaconvnet_design(void **state)
{
    (void)state;
    char model[4096], file[4096];
    cm_design *d = lenet(CM_BACKEND_FPGACONVNET, 16, model, sizeof model);
    assert_int_equal(d->hd.nodes[cm_design_node_find(d, "pool1")].bits_out, 16);
    const cm_resources before = part0(d);
    /* pool1 -> conv2: 280 words at coarse 1, 16 bits: 4480 bits, 1 BRAM18; fc1 -> relu1:
     * 40 x 16 = 640 bits, 32 LUTs; a stream inside conv2 and the partition's input are
     * simulated but not costed */
    const char *names[] = {"pool1->conv2", "fc1->relu1", "conv2:window->conv", "in->conv1"};
    const int64_t depths[] = {280, 40, 5, 3};
    set_depths(d, names, depths, 4);
    cm_resources after = part0(d);
    assert_int_equal(after.bram18 - before.bram18, 1);
    assert_int_equal(after.lut - before.lut, 32);
    assert_int_equal(after.dsp, before.dsp);
    cm_design *back = round_trip(d, file, sizeof file);
    assert_int_equal(cm_design_fifo_depth(back, "conv2:window->conv"), 5);
    remove(file);
    cm_design_free(back);
    /* clearing the record takes the cost away */
    set_depths(d, NULL, NULL, 0);
    after = part0(d);
    assert_memory_equal(&after, &before, sizeof after);
    cm_design_free(d);
}

static void test_finn_design_and_export(void **state)
{
    (void)state;
    char model[4096], file[4096];
    cm_design *d = lenet(CM_BACKEND_FINN, 4, model, sizeof model);
    const int mp = cm_design_node_find(d, "StreamingMaxPool_Batch_1");
    const int fc2 = cm_design_node_find(d, "StreamingFCLayer_Batch_2");
    assert_true(mp >= 0 && fc2 >= 0);
    assert_int_equal(d->hd.nodes[mp].bits_out, 4);
    assert_int_equal(d->hd.nodes[mp].hw.finn.channels, 50);
    const cm_resources before = part0(d);
    /* max pool -> MVAU: 800 words, a pixel of 50 per beat: 16 beats of 200 bits, rtl:
     * 2*4 + ceil(16/32) x 100 = 108 LUTs. MVAU -> MVAU: 500 words at PE 1, 4 bits: 500
     * beats, vivado: ceil(500/4096) x 1 = 1 BRAM18, 2*9 = 18 LUTs. */
    const char *names[] = {"StreamingMaxPool_Batch_1->StreamingFCLayer_Batch_2",
                           "StreamingFCLayer_Batch_2->StreamingFCLayer_Batch_3"};
    const int64_t depths[] = {800, 500};
    set_depths(d, names, depths, 2);
    const cm_resources after = part0(d);
    assert_int_equal(after.lut - before.lut, 108 + 18);
    assert_int_equal(after.bram18 - before.bram18, 1);
    cm_design *back = round_trip(d, file, sizeof file);
    remove(file);
    /* FINN's attributes: beats of the consumer's SIMD (1) on its input, of the producer's
     * PE (or the max pool's pixel) on its output; FINN's default 2 elsewhere */
    json_t *cfg = cm_export_finn_json(back);
    assert_non_null(cfg);
    json_t *m2 = json_object_get(cfg, "StreamingFCLayer_Batch_2");
    json_t *m3 = json_object_get(cfg, "StreamingFCLayer_Batch_3");
    json_t *pool = json_object_get(cfg, "StreamingMaxPool_Batch_1");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(m2, "inFIFODepths"), 0)), 800);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(m2, "outFIFODepths"), 0)), 500);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(m3, "inFIFODepths"), 0)), 500);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(pool, "outFIFODepths"), 0)), 16);
    assert_null(json_object_get(pool, "inFIFODepths"));
    assert_null(json_object_get(json_object_get(cfg, "StreamingFCLayer_Batch_0"), "inFIFODepths"));
    json_decref(cfg);
    cm_design_free(back);
    cm_design_free(d);
}

static void test_hls4ml_design(void **state)
{
    (void)state;
    char model[4096];
    cm_design *d = lenet(CM_BACKEND_HLS4ML, 16, model, sizeof model);
    const cm_resources before = part0(d);
    /* fc1 -> relu1: one entry of fc1's 500 outputs x 16 bits, depth 1: 8000 LUTs;
     * pool1 -> conv2: 13 pixels of 20 x 16 bits: 9 BRAM18 */
    const char *names[] = {"fc1->relu1", "pool1->conv2"};
    const int64_t depths[] = {500, 260};
    set_depths(d, names, depths, 2);
    const cm_resources after = part0(d);
    assert_int_equal(after.lut - before.lut, 8000);
    assert_int_equal(after.bram18 - before.bram18, 9);
    cm_design_free(d);
}

/* The design file of d with "fifo_depths" replaced by `fifo` (JSON text), loaded: the
 * status, and the message in err. */
static cm_status load_with(const cm_design *d, const char *fifo, char *file, size_t size,
                           cm_error *err)
{
    cm_design_run run;
    memset(&run, 0, sizeof run);
    cm_test_write_temp("", 0, ".json", file, size);
    assert_int_equal(cm_design_save(d, &run, file, err), CM_OK);
    json_error_t je;
    json_t *o = json_load_file(file, 0, &je);
    remove(file);
    json_t *f = json_loads(fifo, JSON_DECODE_ANY, &je);
    assert_non_null(o);
    assert_non_null(f);
    json_object_set_new(o, "fifo_depths", f);
    char *text = json_dumps(o, 0);
    json_decref(o);
    cm_test_write_temp(text, strlen(text), ".json", file, size);
    free(text);
    cm_design *back = NULL;
    cm_status st = cm_design_load(file, &back, &run, err);
    cm_design_free(back);
    remove(file);
    return st;
}

static void test_refusals(void **state)
{
    (void)state;
    char model[4096], file[4096];
    cm_design *d = lenet(CM_BACKEND_FPGACONVNET, 16, model, sizeof model);
    static const char *const bad[] = {
        "{\"pool1->nowhere\": 4}", "{\"conv1->conv2\": 4}", "{\"pool1->conv2\": 0}",
        "{\"pool1->conv2\": -3}", "{\"pool1->conv2\": 2.5}", "{\"pool1->conv2\": \"4\"}",
        "{\"pool1->conv2\": 2000000000}", "[4]", "4",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cm_error err = {0};
        assert_int_equal(load_with(d, bad[i], file, sizeof file, &err), CM_EINPUT);
        assert_non_null(strstr(err.message, file));
        assert_non_null(strstr(err.message, "fifo_depths"));
    }
    cm_error err = {0};
    assert_int_equal(load_with(d, "{\"pool1->conv2\": 4, \"conv1:window->conv\": 1}", file,
                               sizeof file, &err), CM_OK);
    /* a depth no board holds: 2^30 words of 16 bits is 1,048,576 BRAM18 */
    const char *names[] = {"pool1->conv2"};
    const int64_t huge[] = {CM_FIFO_DEPTH_MAX};
    assert_true(cm_design_feasible(d));
    set_depths(d, names, huge, 1);
    assert_false(cm_design_feasible(d));
    cm_violation v;
    assert_int_equal(cm_design_check(d, &v, 1) >= 1, 1);
    assert_non_null(strstr(v.message, "BRAM18"));
    const int64_t too_deep[] = {CM_FIFO_DEPTH_MAX + 1};
    assert_int_equal(cm_design_set_fifo_depths(d, names, too_deep, 1, &err), CM_EINPUT);
    cm_design_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finn_rule),
        cmocka_unit_test(test_hls_rule),
        cmocka_unit_test(test_fpgaconvnet_design),
        cmocka_unit_test(test_finn_design_and_export),
        cmocka_unit_test(test_hls4ml_design),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
