/* cm_api_call, the commands as library calls: requests read the way the CLI reads its
 * options (every wrong one refused with a usage error naming it), replies equal to
 * what the library's builders give, and the failure paths leave no reply and no leak. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include <cnnmap/api.h>
#include <cnnmap/board.h>
#include <cnnmap/version.h>

#include "test_support.h"

/* Calls command with request; returns the status and keeps the reply parsed. */
static cm_status call(const char *command, const char *request, json_t **reply, cm_error *err)
{
    char *text = (char *)0x1; /* must be cleared on failure */
    cm_status st = cm_api_call(command, request, &text, err);
    *reply = NULL;
    if (st == CM_OK) {
        *reply = json_loads(text, 0, NULL);
        assert_non_null(*reply);
    } else {
        assert_null(text);
        assert_int_equal(err->code, st);
        assert_true(err->message[0] != '\0');
        assert_null(strchr(err->message, '\n'));
    }
    cm_api_free(st == CM_OK ? text : NULL);
    return st;
}

static void test_board_reply_is_the_board(void **state)
{
    (void)state;
    cm_error err;
    json_t *r;
    assert_int_equal(call("board", "{\"board\": \"zc706\"}", &r, &err), CM_OK);
    cm_board b;
    assert_int_equal(cm_board_resolve("zc706", &b, NULL), CM_OK);
    assert_string_equal(json_string_value(json_object_get(r, "name")), "zc706");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "resources"), "DSP")),
                     b.resources.dsp);
    json_decref(r);
    assert_int_equal(call("boards", NULL, &r, &err), CM_OK);
    assert_int_equal(json_array_size(json_object_get(r, "boards")), cm_board_builtin_count());
    json_decref(r);
}

static void test_inspect_counts_lenet(void **state)
{
    (void)state;
    char path[512], request[700];
    cm_test_shared_model("lenet.onnx", path, sizeof path);
    json_t *req = json_pack("{s:s}", "model", path);
    char *text = json_dumps(req, JSON_COMPACT);
    snprintf(request, sizeof request, "%s", text);
    free(text);
    json_decref(req);
    cm_error err;
    json_t *r;
    assert_int_equal(call("inspect", request, &r, &err), CM_OK);
    /* conv 20x5x5 on 28x28 (24x24 out), conv 50x20x5x5 (8x8 out), fc 800x500, fc 500x10 */
    json_int_t macs = json_integer_value(json_object_get(json_object_get(r, "totals"), "macs"));
    assert_int_equal(macs, 20 * 25 * 576 + 50 * 500 * 64 + 800 * 500 + 500 * 10);
    json_decref(r);
}

static void test_bad_requests_are_usage_errors(void **state)
{
    (void)state;
    static const struct {
        const char *command, *request, *says;
    } cases[] = {
        {"inspect", "{", "not JSON"},
        {"inspect", "[1, 2]", "must be a JSON object"},
        {"inspect", "{\"model\": \"a.onnx\", \"model\": \"b.onnx\"}", "not JSON"},
        {"inspect", "{}", "model is required"},
        {"inspect", "{\"model\": 7}", "model needs a non-empty string, not 7"},
        {"inspect", "{\"model\": \"\"}", "model needs a non-empty string"},
        {"inspect", "{\"model\": \"x.onnx\", \"colour\": 1}", "unknown option 'colour'"},
        {"boards", "{\"json\": true}", "unknown option 'json'"},
        {"board", "{\"board\": [\"zc706\"]}", "board needs a non-empty string"},
        {"sweep", "{\"model\": \"x.onnx\", \"board\": \"zc706\", \"steps\": 0}",
         "steps needs a whole number from 1 to 100, not 0"},
        {"sweep", "{\"model\": \"x.onnx\", \"board\": \"zc706\", \"steps\": 2.5}",
         "steps needs a whole number"},
        {"sweep", "{\"model\": \"x.onnx\", \"board\": [], \"steps\": 2}",
         "board needs a string or a list of strings"},
        {"sweep", "{\"model\": \"x.onnx\", \"board\": \"zc706\", \"time_limit\": -1}",
         "time_limit needs a number from 0.001 to 1e+07, not -1"},
        {"sweep", "{\"model\": \"x.onnx\", \"board\": \"zc706\", \"output\": \"s.txt\"}",
         "extension must be .json, .csv or .html"},
        {"no-such-command", "{}", "unknown command 'no-such-command'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cm_error err;
        json_t *r;
        assert_int_equal(call(cases[i].command, cases[i].request, &r, &err), CM_EUSAGE);
        if (!strstr(err.message, cases[i].says))
            fail_msg("%s %s: '%s' does not say '%s'", cases[i].command, cases[i].request,
                     err.message, cases[i].says);
    }
}

static void test_bad_files_are_bad_input(void **state)
{
    (void)state;
    cm_error err;
    json_t *r;
    assert_int_equal(call("inspect", "{\"model\": \"/nonexistent/x.onnx\"}", &r, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "/nonexistent/x.onnx"));
    assert_int_equal(call("board", "{\"board\": \"no-such-board\"}", &r, &err), CM_EINPUT);
    assert_int_equal(call("evaluate", "{\"design\": \"/nonexistent/d.json\"}", &r, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "/nonexistent/d.json"));
}

static void test_null_arguments(void **state)
{
    (void)state;
    cm_error err;
    assert_int_equal(cm_api_call("boards", "{}", NULL, &err), CM_EUSAGE);
    char *reply = NULL;
    assert_int_equal(cm_api_call(NULL, "{}", &reply, NULL), CM_EUSAGE);
    assert_null(reply);
    assert_int_equal(cm_api_call("boards", NULL, &reply, NULL), CM_OK);
    cm_api_free(reply);
    assert_string_equal(cm_api_version(), CM_VERSION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_board_reply_is_the_board),
        cmocka_unit_test(test_inspect_counts_lenet),
        cmocka_unit_test(test_bad_requests_are_usage_errors),
        cmocka_unit_test(test_bad_files_are_bad_input),
        cmocka_unit_test(test_null_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
