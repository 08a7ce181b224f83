/* Helpers shared by the unit tests. */
#include "test_support.h"
#include "onnx_builder.h"

#include <cnnmap/model.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void require_file(const char *path)
{
    if (access(path, R_OK) == 0)
        return;
    const char *ci = getenv("CI");
    if (ci && strcmp(ci, "true") == 0)
        fail_msg("required test file missing under CI: %s", path);
    print_message("skipping: %s is missing\n", path);
    skip();
}

void cm_test_shared_model(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/models/%s", CM_SHARED_DIR, name);
    require_file(buf);
}

void cm_test_generated_model(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", CM_TEST_MODELS_DIR, name);
    require_file(buf);
}

void cm_test_write_temp(const void *data, size_t len, const char *suffix, char *buf, size_t size)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, size, "%s/cnnmap-test-XXXXXX%s", dir ? dir : "/tmp", suffix);
    int fd = mkstemps(buf, (int)strlen(suffix));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

cm_design *cm_test_design(const char *path, const char *board_name, cm_backend backend, int bits,
                          bool reconfiguration)
{
    cm_error err = {0};
    cm_graph *g = NULL;
    if (cm_model_load(path, &g, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_board board;
    if (cm_board_builtin(board_name, &board, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_design_options o;
    cm_design_options_init(&o);
    o.backend = backend;
    o.default_weight_bits = o.default_act_bits = bits;
    o.reconfiguration = reconfiguration;
    cm_design *d = NULL;
    if (cm_design_create(g, &board, &o, &d, &err) != CM_OK) {
        cm_graph_free(g);
        fail_msg("%s", err.message);
    }
    return d;
}

cm_graph *cm_test_load_built(Onnx__ModelProto *m, const char *name)
{
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_model_free(m);
    cm_graph *g = NULL;
    cm_error err = {0};
    if (cm_model_load_buffer(buf, len, name, NULL, &g, &err) != CM_OK)
        fail_msg("%s", err.message);
    free(buf);
    return g;
}

cm_graph *cm_test_load_shared(const char *name)
{
    char path[1024];
    cm_test_shared_model(name, path, sizeof path);
    cm_graph *g = NULL;
    cm_error err = {0};
    if (cm_model_load(path, &g, &err) != CM_OK)
        fail_msg("%s", err.message);
    return g;
}
