/* DYNAMAP's two networks on its set-up: GoogLeNet (torchvision) and Inception-v4 (built
 * from its paper) with the array capped at 6084 DSPs on the Alveo U200 at 286 MHz.
 * Checked in kind against Tables 3-4: the cost graphs are series-parallel (Lemma 4.4),
 * so the mapping is optimal; the array fills the DSP limit; the mapping is at least as
 * fast as every single-algorithm baseline and greedy, and mixes algorithms. The figures
 * are printed for the README's comparison. AlexNet, whose weights do not fit on chip,
 * takes at least the time to read them. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include <cnnmap/board.h>
#include <cnnmap/model.h>
#include <cnnmap/overlay.h>

static cm_overlay_result *map_model(const char *file, cm_graph **g)
{
    char path[1024];
    cm_test_generated_model(file, path, sizeof path);
    cm_error err = {0};
    if (cm_model_load(path, g, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_board b;
    assert_int_equal(cm_board_builtin("u200", &b, NULL), CM_OK);
    assert_true(b.clock_mhz == 286.0);
    cm_overlay_options opt;
    cm_overlay_options_default(&opt);
    opt.dsp_limit = 6084;
    cm_overlay_result *r = NULL;
    if (cm_overlay_map(*g, &b, &opt, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    return r;
}

static void check(const char *file, int convs)
{
    cm_graph *g = NULL;
    cm_overlay_result *r = map_model(file, &g);
    assert_true(r->optimal);
    int pes = r->array[0] * r->array[1];
    assert_true(pes <= 6084 && pes >= 6000);
    int used[CM_OVERLAY_ALGORITHM_COUNT] = {0}, gemms = 0;
    for (int i = 0; i < r->n_layers; i++) {
        used[r->layers[i].algorithm]++;
        if (r->layers[i].algorithm <= CM_OVERLAY_WINOGRAD) {
            gemms++;
            assert_true(r->layers[i].utilisation > 0.0);
        }
    }
    assert_int_equal(gemms, convs + 1); /* and the classifier */
    assert_true((used[0] > 0) + (used[1] > 0) + (used[2] > 0) >= 2);
    print_message("%s: array %dx%d, %.3f ms, %.0f GOp/s; im2col %.3f, kn2row %.3f, "
                  "winograd %.3f, greedy %.3f ms; layers im2col %d kn2row %d winograd %d\n",
                  file, r->array[0], r->array[1], r->latency_s * 1e3, r->gops,
                  r->baselines[0].latency_s * 1e3, r->baselines[1].latency_s * 1e3,
                  r->baselines[2].latency_s * 1e3, r->greedy.latency_s * 1e3, used[0], used[1],
                  used[2]);
    for (int k = 0; k < CM_OVERLAY_CONV_ALGORITHMS; k++) {
        assert_true(r->baselines[k].present);
        assert_true(r->latency_s <= r->baselines[k].latency_s);
    }
    assert_true(r->latency_s <= r->greedy.latency_s);
    /* Some single algorithm is clearly worse: algorithm switching pays. */
    double worst = 0;
    for (int k = 0; k < CM_OVERLAY_CONV_ALGORITHMS; k++)
        worst = fmax(worst, r->baselines[k].latency_s);
    assert_true(r->latency_s < 0.95 * worst);
    cm_overlay_result_free(r);
    cm_graph_free(g);
}

/* AlexNet's 61.1 M 8-bit weights cannot stay on the U200 (39.6 MB beside the buffers),
 * so reading them once at 77 GB/s takes 0.79 ms: no mapping is faster than that, nor
 * than the sum over its layers of the longer of compute and weights. */
static void test_alexnet_reads_its_weights(void **state)
{
    (void)state;
    cm_graph *g = NULL;
    cm_overlay_result *r = map_model("torchvision/alexnet.onnx", &g);
    assert_false(r->weights_resident);
    assert_true(r->weight_bytes > 61000000);
    double bound = (double)r->weight_bytes / 77e9, busy = 0, memory = 0;
    for (int i = 0; i < r->n_layers; i++) {
        busy += fmax(r->layers[i].compute_s, r->layers[i].memory_s);
        memory += r->layers[i].memory_s;
    }
    assert_true(fabs(memory - bound) <= 1e-12 * bound);
    print_message("alexnet: %.3f ms, weights alone %.3f ms\n", r->latency_s * 1e3, bound * 1e3);
    assert_true(r->latency_s >= bound);
    assert_true(r->latency_s >= busy);
    for (int k = 0; k < CM_OVERLAY_CONV_ALGORITHMS; k++)
        assert_true(r->baselines[k].latency_s >= bound);
    cm_overlay_result_free(r);
    cm_graph_free(g);
}

static void test_googlenet(void **state)
{
    (void)state;
    check("torchvision/googlenet.onnx", 57);
}

static void test_inception_v4(void **state)
{
    (void)state;
    check("zoo/inception_v4.onnx", 149);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_googlenet),
        cmocka_unit_test(test_inception_v4),
        cmocka_unit_test(test_alexnet_reads_its_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
